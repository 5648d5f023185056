-- Loads the ready-to-copy Neovim config editors/nvim/warp_ct_0.8.lua (vim.lsp.start on FileType) in
-- headless Neovim, opens a Python file and checks the server attaches, diagnostics arrive, and the
-- user commands (:WarpLintWorkspace, :WarpMeasure) reach the server. On Neovim 0.7 (Debian) the
-- 0.8 APIs the config uses (vim.lsp.start, vim.fs) are polyfilled with their 0.7 equivalents.
-- Also compiles editors/nvim/warp_ct.lua (0.11+), which 0.7 cannot run, to catch syntax errors.
--
--   WARP_CT_CONFIG_DIR   editors/nvim
--   WARP_CT_FILE         the Python file to open
--   WARP_CT_OUT          where to write the JSON result
--   WARP_CT_MEASURE_CMD  optional: run `:WarpMeasure <this>` and wait for the result
--   WARP_CT_TIMEOUT_MS   how long to wait for each server reply (default 30000)
-- The interpreter and settings come through vim.g.warp_ct_python / vim.g.warp_ct_settings, set by
-- the caller with -c before this script runs.

local config_dir = assert(os.getenv("WARP_CT_CONFIG_DIR"), "WARP_CT_CONFIG_DIR")
local file = assert(os.getenv("WARP_CT_FILE"), "WARP_CT_FILE")
local out_path = assert(os.getenv("WARP_CT_OUT"), "WARP_CT_OUT")
local measure_cmd = os.getenv("WARP_CT_MEASURE_CMD")
local timeout = tonumber(os.getenv("WARP_CT_TIMEOUT_MS") or "30000")

local out = { polyfilled = {}, notifications = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, out_path)
  vim.cmd("qa!")
end

-- ------------------------------------------------------------------ 0.7 polyfills (only when missing)

if vim.fs == nil then
  table.insert(out.polyfilled, "vim.fs")
  vim.fs = {
    dirname = function(p) return vim.fn.fnamemodify(p, ":h") end,
    find = function(names, opts)
      local dir = opts.path
      while dir and dir ~= "" do
        for _, name in ipairs(names) do
          local candidate = dir .. "/" .. name
          if vim.loop.fs_stat(candidate) then return { candidate } end
        end
        local parent = vim.fn.fnamemodify(dir, ":h")
        if parent == dir then break end
        dir = parent
      end
      return {}
    end,
  }
end

if vim.lsp.start == nil then
  table.insert(out.polyfilled, "vim.lsp.start")
  vim.lsp.start = function(config, opts)
    local bufnr = (opts and opts.bufnr) or vim.api.nvim_get_current_buf()
    for _, client in pairs(vim.lsp.get_active_clients()) do
      if client.name == config.name and client.config.root_dir == config.root_dir then
        vim.lsp.buf_attach_client(bufnr, client.id)
        return client.id
      end
    end
    local id = vim.lsp.start_client(config)
    if id then vim.lsp.buf_attach_client(bufnr, id) end
    return id
  end
end

-- Capture :Warp* command output.
local notify = vim.notify
vim.notify = function(msg, level, o)
  table.insert(out.notifications, tostring(msg))
  return notify(msg, level, o)
end

local function run()
  -- The 0.11+ config must at least compile.
  local chunk, err = loadfile(config_dir .. "/warp_ct.lua")
  out.modern_compiles = chunk ~= nil
  out.modern_compile_error = err or vim.NIL

  dofile(config_dir .. "/warp_ct_0.8.lua")
  out.user_commands = {}
  for _, name in ipairs({ "WarpMeasure", "WarpMeasureChange", "WarpMeasureCancel", "WarpLintWorkspace" }) do
    out.user_commands[name] = vim.fn.exists(":" .. name) == 2
  end

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype

  local client
  local attached = vim.wait(timeout, function()
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == "warp_ct" and c.initialized then client = c return true end
    end
    return false
  end, 50)
  out.attached = attached
  if not attached then
    out.error = "warp_ct did not attach"
    return
  end
  out.cmd = client.config.cmd
  out.root_dir = client.config.root_dir

  out.got_diagnostics = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  out.codes = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.codes, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL)
  end

  vim.cmd("WarpLintWorkspace")
  out.lint_done = vim.wait(timeout, function() return vim.g.warp_ct_last_lint ~= nil end, 50)
  out.lint = vim.g.warp_ct_last_lint or vim.NIL

  if measure_cmd and measure_cmd ~= "" then
    vim.cmd("WarpMeasure " .. measure_cmd)
    out.measure_done = vim.wait(timeout, function() return vim.g.warp_ct_last_measurement ~= nil end, 100)
    out.measure = vim.g.warp_ct_last_measurement or vim.NIL
  end

  vim.lsp.stop_client(client.id)
  vim.wait(2000, function() return vim.lsp.get_client_by_id(client.id) == nil end, 50)
end

local ok, e = pcall(run)
if not ok then out.error = "lua error: " .. tostring(e) end
finish()
