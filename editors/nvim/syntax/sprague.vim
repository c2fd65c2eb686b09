" Vim syntax file for sprague's .game language.
if exists("b:current_syntax")
  finish
endif

syn keyword spragueKeyword game graph move let for in if and or not true false
syn keyword spragueKeyword grundy best_move moves play period diff crosscheck
syn keyword spragueKeyword remoteness genus misere draw plot to while then else
syn keyword spragueKeyword splits nim why strategy quotient
syn match spragueKeyword "\<\(wins\|equal\)?"
syn keyword spragueContextual octal hexadecimal subtraction coins turn product up nodes edge
syn match spragueContextual "\<all\s\+but\>"
syn match spragueContextual "\<up\s\+to\s\+symmetry\>"
syn keyword spragueBuiltin min max abs isqrt popcount nim_mul nim_inv len sum sort
syn keyword spragueBuiltin replace nodes neighbours closed grounded subsets under
syn keyword spragueBuiltin divisors Grid Path Cycle Edges
syn match spragueHeap "\*\s*\d\+"
syn match spragueNumber "\<\d[0-9_]*\>"
syn match spragueName "\<[A-Z][A-Za-z0-9_]*\>"
syn region spragueString start=+"+ end=+"+ oneline
syn match spragueComment "#.*$"

hi def link spragueKeyword Keyword
hi def link spragueContextual Keyword
hi def link spragueBuiltin Function
hi def link spragueHeap Number
hi def link spragueNumber Number
hi def link spragueName Type
hi def link spragueString String
hi def link spragueComment Comment

let b:current_syntax = "sprague"
