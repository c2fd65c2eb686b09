-- Starts `sprague lsp` for .game files, one server per Neovim session
-- (Neovim 0.7 or later). Put this in your init.lua, or require it from there.
local client_id
vim.api.nvim_create_autocmd("FileType", {
  pattern = "sprague",
  callback = function(args)
    if not client_id then
      client_id = vim.lsp.start_client({
        name = "sprague",
        cmd = { "sprague", "lsp" },
        root_dir = vim.fn.getcwd(),
      })
    end
    vim.lsp.buf_attach_client(args.buf, client_id)
  end,
})
