package site

import (
	"go/scanner"
	"go/token"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// goBuiltinTypes and goBuiltinFuncs are the predeclared names coloured as
// chroma's Go lexer colours them.
var (
	goBuiltinTypes = map[string]bool{}
	goBuiltinFuncs = map[string]bool{}
	goConstants    = map[string]bool{"true": true, "false": true, "nil": true, "iota": true}
)

func init() {
	for _, n := range strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64
		int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr`) {
		goBuiltinTypes[n] = true
	}
	for _, n := range strings.Fields(`append cap clear close complex copy delete imag len make max min new
		panic print println real recover`) {
		goBuiltinFuncs[n] = true
	}
}

// goTokens cuts Go source into chroma tokens with go/scanner, which is
// exact and many times faster than chroma's regular-expression lexer. The
// text between tokens (spaces, newlines) is kept as it is, so the tokens
// put together are the source.
func goTokens(src string) []chroma.Token {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, scanner.ScanComments)
	var toks []chroma.Token
	last := 0
	add := func(t chroma.TokenType, end int, start int) {
		if start > last {
			toks = append(toks, chroma.Token{Type: chroma.Text, Value: src[last:start]})
		}
		toks = append(toks, chroma.Token{Type: t, Value: src[start:end]})
		last = end
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		start := file.Offset(pos)
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted by the scanner, not in the source
		}
		text := lit
		if text == "" {
			text = tok.String()
		}
		end := start + len(text)
		if end > len(src) {
			end = len(src)
		}
		var t chroma.TokenType
		switch {
		case tok == token.COMMENT:
			t = chroma.CommentSingle
			if strings.HasPrefix(text, "/*") {
				t = chroma.CommentMultiline
			}
		case tok == token.STRING || tok == token.CHAR:
			t = chroma.LiteralString
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			t = chroma.LiteralNumber
		case tok == token.FUNC || tok == token.TYPE || tok == token.VAR || tok == token.CONST:
			t = chroma.KeywordDeclaration
		case tok == token.PACKAGE || tok == token.IMPORT:
			t = chroma.KeywordNamespace
		case tok.IsKeyword():
			t = chroma.Keyword
		case tok == token.IDENT:
			switch {
			case goConstants[lit]:
				t = chroma.KeywordConstant
			case goBuiltinTypes[lit]:
				t = chroma.KeywordType
			case goBuiltinFuncs[lit]:
				t = chroma.NameBuiltin
			case strings.HasPrefix(src[end:], "("):
				t = chroma.NameFunction
			default:
				t = chroma.NameOther
			}
		case tok == token.ILLEGAL:
			t = chroma.Error
		default:
			t = chroma.Punctuation
		}
		add(t, end, start)
	}
	if last < len(src) {
		toks = append(toks, chroma.Token{Type: chroma.Text, Value: src[last:]})
	}
	return toks
}
