package prose

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// Lang returns the fence language for a quoted file, from its name.
func Lang(name string) string {
	switch base := filepath.Base(name); base {
	case "Makefile", "GNUmakefile":
		return "make"
	case "Dockerfile":
		return "dockerfile"
	case "go.mod":
		return "text"
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".go":
		return "go"
	case ".yaml", ".yml":
		return "yaml"
	case ".sh", ".bash":
		return "sh"
	case ".json":
		return "json"
	case ".md":
		return "markdown"
	case ".toml":
		return "toml"
	case ".mk":
		return "make"
	}
	return "text" // .txtar, .txt and anything else: shown as it is
}

// Decls returns the names a Go source file lets one quote: functions,
// methods as Type.Method, types, consts and vars.
func Decls(src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		names = append(names, declNames(d)...)
	}
	sort.Strings(names)
	return names, nil
}

func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			return []string{recvType(d.Recv.List[0].Type) + "." + d.Name.Name}
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.Name != "_" {
						names = append(names, n.Name)
					}
				}
			}
		}
		return names
	}
	return nil
}

// recvType returns the type name of a receiver: T of *T, T[K], *T[K].
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// ExtractDecl returns the source of the declaration named name in a Go
// file: byte for byte from the start of its doc comment to the end of its
// last line, with a final newline. A name in a parenthesised const, var or
// type group returns the whole group.
func ExtractDecl(src []byte, name string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []ast.Decl
	for _, d := range f.Decls {
		for _, n := range declNames(d) {
			if n == name {
				found = append(found, d)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no declaration %s", name)
	case 1:
	default:
		return nil, fmt.Errorf("%d declarations are named %s", len(found), name)
	}
	d := found[0]
	start := d.Pos()
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			start = d.Doc.Pos()
		}
	}
	from := fset.Position(start).Offset
	to := fset.Position(d.End()).Offset
	// The declaration's last line, with any comment that trails it.
	if i := bytes.IndexByte(src[to:], '\n'); i >= 0 {
		to += i
	} else {
		to = len(src)
	}
	// A doc comment starts its line; so does the declaration.
	from = bytes.LastIndexByte(src[:from], '\n') + 1
	out := bytes.TrimRight(src[from:to], " \t\r")
	return append(append([]byte{}, out...), '\n'), nil
}

// ExtractLines returns lines from to to (1-based, inclusive) of src.
func ExtractLines(src []byte, from, to int) ([]byte, error) {
	if from < 1 || to < from {
		return nil, fmt.Errorf("bad line range L%d-L%d: want L<first>-L<last> with 1 <= first <= last", from, to)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if to > len(lines) {
		return nil, fmt.Errorf("line range L%d-L%d is past the end: the file has %d lines", from, to, len(lines))
	}
	out := bytes.Join(lines[from-1:to], nil)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, nil
}
