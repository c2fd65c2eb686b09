-- Starts `sprague lsp` for .game files (Neovim 0.10 or later). Put this in
-- your init.lua, or require it from there.
vim.api.nvim_create_autocmd("FileType", {
  pattern = "sprague",
  callback = function(args)
    vim.lsp.start({
      name = "sprague",
      cmd = { "sprague", "lsp" },
      root_dir = vim.fs.dirname(args.file),
    })
  end,
})
