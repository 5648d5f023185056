-- Headless Neovim (0.7.2+, vim.lsp.start_client) end-to-end check of the warp-ct language server:
-- open a file with an antipattern, receive diagnostics, request a quick fix, apply it, and see the
-- buffer fixed and the diagnostic gone. Driven by tests/editors/test_nvim.py through environment
-- variables; writes its observations as JSON to $WARP_CT_OUT and quits.
--
--   WARP_CT_PYTHON  interpreter that runs the server
--   WARP_CT_SERVER_ARGS  JSON list of its arguments (default ["-m", "warp_ct", "serve"])
--   WARP_CT_FILE    the Python file to open
--   WARP_CT_OUT     where to write the JSON result
--   WARP_CT_CODE    the diagnostic code to fix (default WCT005)
--   WARP_CT_TIMEOUT_MS  how long to wait for each server reply (default 30000)

local python = assert(os.getenv("WARP_CT_PYTHON"), "WARP_CT_PYTHON")
local server_args = os.getenv("WARP_CT_SERVER_ARGS")
server_args = server_args and vim.fn.json_decode(server_args) or { "-m", "warp_ct", "serve" }
local file = assert(os.getenv("WARP_CT_FILE"), "WARP_CT_FILE")
local out_path = assert(os.getenv("WARP_CT_OUT"), "WARP_CT_OUT")
local want_code = os.getenv("WARP_CT_CODE") or "WCT005"
local timeout = tonumber(os.getenv("WARP_CT_TIMEOUT_MS") or "30000")

local out = { steps = {}, log = {} }
local exited = false

local function step(name)
  table.insert(out.steps, name)
end

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, out_path)
  vim.cmd("qa!")
end

local function diag_code(d)
  if d.code ~= nil then return d.code end
  local lsp = d.user_data and d.user_data.lsp
  return lsp and lsp.code or nil
end

local function lsp_diag(d)
  -- Back to an LSP diagnostic. 0.7 keeps only the extra fields (code, codeDescription, data, ...)
  -- in user_data.lsp; newer versions keep the whole original. Columns are bytes here, which equal
  -- UTF-16 units for the ASCII test file.
  local original = (d.user_data and d.user_data.lsp) or {}
  local result = vim.deepcopy(original)
  result.range = result.range or {
    start = { line = d.lnum, character = d.col },
    ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
  }
  result.message = result.message or d.message
  result.severity = result.severity or d.severity
  result.source = result.source or d.source
  result.code = result.code or d.code
  return result
end

local function codes(bufnr)
  local result = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result, diag_code(d) or vim.NIL)
  end
  table.sort(result, function(a, b) return tostring(a) < tostring(b) end)
  return result
end

local function has_code(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if diag_code(d) == code then return true end
  end
  return false
end

local function run()
  -- Collect server log messages (helpful when the test fails).
  local handlers = {
    ["window/logMessage"] = function(_, result)
      if result and result.message then table.insert(out.log, result.message) end
    end,
    ["window/showMessage"] = function(_, result)
      if result and result.message then table.insert(out.log, "showMessage: " .. result.message) end
    end,
  }

  local root = vim.fn.fnamemodify(file, ":h")
  local client_id = vim.lsp.start_client({
    name = "warp_ct",
    cmd = vim.list_extend({ python }, server_args),
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "test" } },
    init_options = { select = {}, ignore = {}, severity = vim.empty_dict(), lintOnChange = true },
    settings = { warpCt = { lintOnChange = true } },
    handlers = handlers,
    on_exit = function(code, signal)
      exited = true
      table.insert(out.log, string.format("server exited: code=%s signal=%s", tostring(code), tostring(signal)))
    end,
  })
  if not client_id then
    out.error = "vim.lsp.start_client failed"
    return
  end
  step("started")

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype
  vim.lsp.buf_attach_client(bufnr, client_id)

  local client
  local initialized = vim.wait(timeout, function()
    client = vim.lsp.get_client_by_id(client_id)
    return exited or (client ~= nil and client.initialized == true)
  end, 50)
  initialized = initialized and not exited
  if not initialized then
    out.error = "server did not initialize"
    return
  end
  out.offset_encoding = client.offset_encoding
  step("initialized")

  if not vim.wait(timeout, function() return exited or has_code(bufnr, want_code) end, 50) or exited then
    out.error = "no " .. want_code .. " diagnostic arrived"
    out.codes_before = codes(bufnr)
    return
  end
  out.codes_before = codes(bufnr)
  local target
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if diag_code(d) == want_code then target = d break end
  end
  local lsp_target = lsp_diag(target)
  out.diagnostic = {
    code = diag_code(target),
    source = target.source or lsp_target.source or vim.NIL,
    message = target.message,
    line = target.lnum,
    href = lsp_target.codeDescription and lsp_target.codeDescription.href or vim.NIL,
  }
  step("diagnostics")

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = lsp_target.range,
    context = { diagnostics = { lsp_target }, only = { "quickfix" } },
  }
  local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, timeout)
  if not responses then
    out.error = "codeAction request failed: " .. tostring(err)
    return
  end
  local actions = {}
  for _, response in pairs(responses) do
    if response.error then out.code_action_error = response.error.message end
    for _, action in ipairs(response.result or {}) do table.insert(actions, action) end
  end
  out.actions = {}
  for _, a in ipairs(actions) do
    table.insert(out.actions, { title = a.title, kind = a.kind or vim.NIL })
  end
  step("code actions")

  local fix
  for _, a in ipairs(actions) do
    if a.kind == "quickfix" and not (a.title or ""):lower():find("noqa") and not (a.title or ""):lower():find("suppress") then
      fix = a
      break
    end
  end
  fix = fix or actions[1]
  if not fix then
    out.error = "the server offered no code action"
    return
  end
  out.applied = fix.title
  if not fix.edit and fix.data ~= nil then
    local resolved = vim.lsp.buf_request_sync(bufnr, "codeAction/resolve", fix, timeout)
    for _, response in pairs(resolved or {}) do
      if response.result then fix = response.result end
    end
  end
  if not fix.edit then
    out.error = "the quick fix has no edit"
    return
  end
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding or "utf-16")
  out.lines_after = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  step("applied")

  -- The edit changed the buffer (didChange); the server re-lints and the diagnostic goes away.
  out.cleared = vim.wait(timeout, function() return not has_code(bufnr, want_code) end, 50)
  out.codes_after = codes(bufnr)
  step("relinted")

  vim.lsp.stop_client(client_id)
  vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
end

local ok, err = pcall(run)
if not ok then out.error = "lua error: " .. tostring(err) end
finish()
