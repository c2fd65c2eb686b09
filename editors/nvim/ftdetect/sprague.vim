" .game files are sprague's language.
autocmd BufRead,BufNewFile *.game setfiletype sprague
