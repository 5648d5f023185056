-- The editor scenario in Neovim 0.11 with editors/nvim/warp_ct.lua installed as a user would (copied
-- to $XDG_CONFIG_HOME/nvim/plugin/, vim.g.warp_ct_python set in init.lua): open a project file;
-- diagnostics with the rule code and docs link; the hover shows the rule's docs; the quick fix
-- changes the buffer and its diagnostic goes away; :WarpMeasure runs with progress, then code
-- lenses appear above the kernels and the report's path is printed.
--
--   WARP_CT_FILE  the Python file to open      WARP_CT_OUT  where to write the JSON result
--   WARP_CT_MEASURE_CMD  the :WarpMeasure argument      WARP_CT_TIMEOUT_MS  per wait

local file = assert(os.getenv("WARP_CT_FILE"), "WARP_CT_FILE")
local out_path = assert(os.getenv("WARP_CT_OUT"), "WARP_CT_OUT")
local measure_cmd = assert(os.getenv("WARP_CT_MEASURE_CMD"), "WARP_CT_MEASURE_CMD")
local timeout = tonumber(os.getenv("WARP_CT_TIMEOUT_MS") or "60000")

local out = { version = tostring(vim.version()), notifications = {}, echoes = {}, progress = {} }

local notify = vim.notify
vim.notify = function(msg, level, o)
  table.insert(out.notifications, tostring(msg))
  return notify(msg, level, o)
end
local echo = vim.api.nvim_echo
vim.api.nvim_echo = function(chunks, history, opts)
  local parts = {}
  for _, c in ipairs(chunks) do table.insert(parts, c[1]) end
  table.insert(out.echoes, table.concat(parts))
  return echo(chunks, history, opts)
end
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local v = ev.data.params and ev.data.params.value or {}
    table.insert(out.progress, { kind = v.kind, title = v.title or vim.NIL, message = v.message or vim.NIL })
  end,
})

local function codes(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do table.insert(list, d.code or vim.NIL) end
  table.sort(list, function(a, b) return tostring(a) < tostring(b) end)
  return list
end

local function has_code(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code then return d end
  end
end

local function run()
  out.plugin_loaded = vim.fn.exists(":WarpMeasure") == 2
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype

  local client
  out.attached = vim.wait(timeout, function()
    client = vim.lsp.get_clients({ name = "warp_ct", bufnr = bufnr })[1]
    return client ~= nil and client.initialized
  end, 50)
  if not out.attached then out.error = "warp_ct did not attach" return end
  out.cmd = client.config.cmd
  out.root_dir = client.config.root_dir

  -- 1. diagnostics with the rule code, source and docs link
  out.got_diagnostics = vim.wait(timeout, function() return has_code(bufnr, "WCT005") ~= nil end, 50)
  local d = has_code(bufnr, "WCT005")
  if not d then out.error = "no WCT005 diagnostic" return end
  local lsp = d.user_data and d.user_data.lsp or {}
  out.diagnostic = {
    line = d.lnum, col = d.col, source = d.source, severity = d.severity,
    href = lsp.codeDescription and lsp.codeDescription.href or vim.NIL,
  }
  out.codes_before = codes(bufnr)

  -- 2. the hover (K) on the diagnostic opens a float with the rule's docs
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col + 1 })
  vim.lsp.buf.hover()
  local float
  vim.wait(timeout, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then float = win return true end
    end
    return false
  end, 50)
  out.hover = float and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), "\n") or vim.NIL
  if float then vim.api.nvim_win_close(float, true) end

  -- 3. the quick fix (the only "unique" action, applied directly) changes the buffer
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col + 1 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(a) return a.kind == "quickfix" and (a.title or ""):find("unique", 1, true) ~= nil end,
  })
  out.fixed = vim.wait(timeout, function()
    return vim.api.nvim_buf_get_lines(bufnr, d.lnum, d.lnum + 1, false)[1]:find('module="unique"', 1, true) ~= nil
  end, 50)
  out.fixed_line = vim.api.nvim_buf_get_lines(bufnr, d.lnum, d.lnum + 1, false)[1]
  out.cleared = vim.wait(timeout, function() return has_code(bufnr, "WCT005") == nil end, 50)
  out.codes_after = codes(bufnr)
  vim.cmd("write")

  -- 4. :WarpMeasure with progress; then the result, the report's path and code lenses
  vim.cmd("WarpMeasure " .. measure_cmd)
  out.measure_done = vim.wait(4 * timeout, function() return vim.g.warp_ct_last_measurement ~= nil end, 100)
  out.measure = vim.g.warp_ct_last_measurement or vim.NIL
  out.lenses = {}
  vim.wait(timeout, function()
    local lenses = vim.lsp.codelens.get(bufnr)
    if #lenses == 0 then return false end
    out.lenses = {}
    for _, l in ipairs(lenses) do
      table.insert(out.lenses, { line = l.range.start.line, title = l.command and l.command.title or vim.NIL })
    end
    return true
  end, 100)

  client:stop()
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client.id) == nil end, 50)
end

local ok, e = pcall(run)
if not ok then out.error = "lua error: " .. tostring(e) end
vim.fn.writefile({ vim.fn.json_encode(out) }, out_path)
vim.cmd("qa!")
