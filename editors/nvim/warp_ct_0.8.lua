-- warp-ct for Neovim 0.8-0.10 (vim.lsp.start on FileType).
--
-- Copy this file to ~/.config/nvim/plugin/warp_ct.lua (or paste it into init.lua).
-- Needs warp-ct in the Python interpreter below. It is not on PyPI yet: install it from a
-- checkout (`python3 -m pip install -e /path/to/warp-ct`) or a wheel built there.
-- Neovim 0.11+: use warp_ct.lua instead.
--
-- Optional, set before this file runs:
--   vim.g.warp_ct_python   = "/path/to/venv/bin/python"   -- default: $VIRTUAL_ENV's python, else python3
--   vim.g.warp_ct_settings = { select = { "WCT0" }, samples = 5 }  -- merged over the defaults below

local python = vim.g.warp_ct_python
  or (vim.env.VIRTUAL_ENV and (vim.env.VIRTUAL_ENV .. "/bin/python"))
  or "python3"

-- The same settings as the VS Code extension's `warpCt.*` (see docs/editors.md).
local settings = vim.tbl_deep_extend("force", {
  select = {}, -- rule codes or prefixes to enable, e.g. { "WCT0" }; empty: defaults + pyproject.toml
  ignore = {}, -- rule codes or prefixes to turn off
  severity = vim.empty_dict(), -- e.g. { WCT005 = "error", WCT1 = "hint" }
  probeCommand = {}, -- argv that :WarpMeasure runs; empty: asked once per project
  samples = 3, -- warm runs per measurement
  lintOnChange = true, -- lint while typing (debounced); false: on open and save
  targetWarpVersion = "", -- Warp version to lint for; empty: the installed one
}, vim.g.warp_ct_settings or {})
if next(settings.severity) == nil then
  settings.severity = vim.empty_dict() -- an empty Lua table would be sent as [] (the server wants an object)
end

-- Send the settings once the server is up (as nvim-lspconfig does); changes: edit, then :LspRestart
-- or restart Neovim.
local function send_settings(client)
  local params = { settings = { warpCt = settings } }
  if vim.fn.has("nvim-0.11") == 1 then
    client:notify("workspace/didChangeConfiguration", params)
  else
    client.notify("workspace/didChangeConfiguration", params)
  end
end

local root_markers = { "pyproject.toml", "setup.py", "setup.cfg", ".git" }

vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  group = vim.api.nvim_create_augroup("warp_ct", { clear = true }),
  callback = function(args)
    local file = vim.api.nvim_buf_get_name(args.buf)
    if file == "" or vim.bo[args.buf].buftype ~= "" then return end
    local marker = vim.fs.find(root_markers, { upward = true, path = vim.fs.dirname(file) })[1]
    vim.lsp.start({
      name = "warp_ct",
      cmd = { python, "-m", "warp_ct", "serve" },
      root_dir = marker and vim.fs.dirname(marker) or vim.fs.dirname(file),
      init_options = settings,
      settings = { warpCt = settings },
      on_init = send_settings,
    }, { bufnr = args.buf })
  end,
})

-- >>> warp-ct user commands (identical in warp_ct.lua and warp_ct_0.8.lua) >>>
-- :WarpMeasure [command]   measure compile time; asks for the command once per project
--                          (default: python <current file>); with an argument, uses and remembers it
-- :WarpMeasureChange       ask for the command again, then measure
-- :WarpMeasureCancel       cancel a running measurement
-- :WarpLintWorkspace       lint every Python file of the project into the diagnostics list
-- Measuring RUNS the command (your program, with your permissions) several times.
local warp = { commands = {}, running = nil }

local function warp_client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local clients = get({ name = "warp_ct", bufnr = bufnr })
  if #clients == 0 then
    clients = get({ name = "warp_ct" })
  end
  return clients[1]
end

local function warp_request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function warp_split(line)
  local args, cur, quote, in_arg = {}, "", nil, false
  for ch in line:gmatch(".") do
    if quote then
      if ch == quote then quote = nil else cur = cur .. ch end
    elseif ch == "'" or ch == '"' then
      quote, in_arg = ch, true
    elseif ch:match("%s") then
      if in_arg then table.insert(args, cur) end
      cur, in_arg = "", false
    else
      cur, in_arg = cur .. ch, true
    end
  end
  if in_arg then table.insert(args, cur) end
  return args
end

local function warp_join(argv)
  local out = {}
  for _, a in ipairs(argv) do
    table.insert(out, a:match("^[%w_@%%+=:,./-]+$") and a or vim.fn.shellescape(a))
  end
  return table.concat(out, " ")
end

local function warp_root(client)
  return (client.config and client.config.root_dir) or vim.fn.getcwd()
end

local function warp_run(client, bufnr, argv)
  local root = warp_root(client)
  vim.notify("warp-ct: measuring `" .. warp_join(argv) .. "` (runs it " .. (settings.samples + 1) .. " times)…")
  local ok, id = warp_request(client, "workspace/executeCommand", {
    command = "warp-ct.measure",
    arguments = { argv, root, settings.samples },
  }, function(err, result)
    warp.running = nil
    if err then
      vim.notify("warp-ct: measuring failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    result = result or {}
    vim.g.warp_ct_last_measurement = result
    local lines = { "warp-ct: " .. (result.summary or "no result") }
    for _, d in ipairs(result.diagnoses or {}) do table.insert(lines, "  " .. d) end
    if result.htmlPath then table.insert(lines, "timeline (open in a browser): " .. result.htmlPath) end
    vim.notify(table.concat(lines, "\n"), result.ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    -- The measured code lenses ("built 3x · 2.41 s cold") above the kernels.
    if vim.api.nvim_buf_is_valid(bufnr) then pcall(vim.lsp.codelens.refresh, { bufnr = bufnr }) end
  end, bufnr)
  if ok then warp.running = { client = client, id = id } end
end

local function warp_measure(opts, change)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = warp_client(bufnr)
  if not client then
    vim.notify("warp-ct: the language server is not running (open a Python file; is warp-ct installed?)", vim.log.levels.ERROR)
    return
  end
  local root = warp_root(client)
  if opts.args ~= "" then
    warp.commands[root] = warp_split(opts.args)
    return warp_run(client, bufnr, warp.commands[root])
  end
  local remembered = warp.commands[root] or (#settings.probeCommand > 0 and settings.probeCommand or nil)
  if remembered and not change then
    return warp_run(client, bufnr, remembered)
  end
  local default = remembered
  if not default then
    local file = vim.api.nvim_buf_get_name(bufnr)
    default = file ~= "" and { python, vim.fn.fnamemodify(file, ":.") } or { python }
  end
  vim.ui.input({ prompt = "warp-ct: command to measure (runs it): ", default = warp_join(default) }, function(input)
    if not input or input:match("^%s*$") then return end
    warp.commands[root] = warp_split(input)
    warp_run(client, bufnr, warp.commands[root])
  end)
end

vim.api.nvim_create_user_command("WarpMeasure", function(opts) warp_measure(opts, false) end,
  { nargs = "*", desc = "warp-ct: measure compile time (runs the command)" })
vim.api.nvim_create_user_command("WarpMeasureChange", function(opts) warp_measure(opts, true) end,
  { nargs = "*", desc = "warp-ct: change the measured command, then measure" })
vim.api.nvim_create_user_command("WarpMeasureCancel", function()
  local r = warp.running
  if not r then return vim.notify("warp-ct: no measurement is running") end
  if vim.fn.has("nvim-0.11") == 1 then r.client:cancel_request(r.id) else r.client.cancel_request(r.id) end
  warp.running = nil
end, { desc = "warp-ct: cancel the running measurement" })
vim.api.nvim_create_user_command("WarpLintWorkspace", function()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = warp_client(bufnr)
  if not client then return vim.notify("warp-ct: the language server is not running", vim.log.levels.ERROR) end
  warp_request(client, "workspace/executeCommand", { command = "warp-ct.lintWorkspace", arguments = {} },
    function(err, result)
      if err then return vim.notify("warp-ct: " .. (err.message or "lint failed"), vim.log.levels.ERROR) end
      vim.g.warp_ct_last_lint = result
      vim.notify(string.format("warp-ct: %d findings in %d files", result.findings or 0, result.files or 0))
    end, bufnr)
end, { desc = "warp-ct: lint the whole project" })
-- <<< warp-ct user commands <<<
