package upstream

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kubeletPkg is the kubelet package whose unexported code the module
// reaches by go:linkname.
const kubeletPkg = "k8s.io/kubernetes/pkg/kubelet/nodeshutdown"

// mirrored are the module's own copies of the kubelet's unexported types:
// a name that both sides leave unqualified.
var mirrored = map[string]bool{"podManager": true, "podShutdownGroup": true, "dbusInhibiter": true}

// TestMirrorsMatchUpstream: every function this module reaches by
// go:linkname is declared with the kubelet's own signature, and
// dbusInhibiter has the kubelet's methods, at the Kubernetes release the
// module builds against. The compiler checks neither: a linkname with a
// stale signature compiles and then passes the wrong arguments, and a
// mirrored interface missing a method fails only when the kubelet calls it.
// So a new release that changes one of them fails here, by name, before any
// comparison runs on wrong code.
func TestMirrorsMatchUpstream(t *testing.T) {
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", kubeletPkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", kubeletPkg, err)
	}
	upstream := parseDir(t, strings.TrimSpace(string(dir)), func(name string) bool {
		return !strings.HasSuffix(name, "_test.go") && !strings.HasSuffix(name, "_windows.go") && !strings.HasSuffix(name, "_others.go")
	})
	ours := parseDir(t, ".", func(name string) bool { return strings.HasSuffix(name, "_test.go") })

	funcs, ifaces, vars := upstream.decls(kubeletPkg)
	n := 0
	for _, f := range ours.files {
		for _, d := range f.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil || fd.Body != nil {
				continue
			}
			target := linkname(fd.Doc)
			if !strings.HasPrefix(target, kubeletPkg+".") {
				continue
			}
			n++
			name := strings.TrimPrefix(target, kubeletPkg+".")
			want, ok := funcs[name]
			if !ok {
				t.Errorf("%s: the kubelet has no %s at this release; the comparison reaches for code that is gone", fd.Name.Name, target)
				continue
			}
			got := f.signature(fd.Type, kubeletPkg)
			if got != want {
				t.Errorf("go:linkname %s has another signature than the kubelet's:\n  ours:     %s\n  upstream: %s\nchange the declaration in this module to upstream's", fd.Name.Name, got, want)
			}
		}
		for _, d := range f.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if ok && gd.Tok == token.VAR && gd.Doc != nil && strings.HasPrefix(linkname(gd.Doc), kubeletPkg+".") {
				n++
				vs := gd.Specs[0].(*ast.ValueSpec)
				name := strings.TrimPrefix(linkname(gd.Doc), kubeletPkg+".")
				if got, want := f.qualify(vs.Type, kubeletPkg), vars[name]; got != want {
					t.Errorf("go:linkname var %s has another type than the kubelet's %s:\n  ours:     %s\n  upstream: %s", vs.Names[0].Name, name, got, orGone(want))
				}
				continue
			}
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok || !mirrored[ts.Name.Name] {
					continue
				}
				n++
				want, ok := ifaces[ts.Name.Name]
				if !ok {
					t.Errorf("the kubelet has no interface %s at this release", ts.Name.Name)
					continue
				}
				got := f.methods(it, kubeletPkg)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s mirrors the kubelet's interface with other methods:\n  ours:\n    %s\n  upstream:\n    %s\nadd or change the methods here, and in the fake that implements it", ts.Name.Name,
						strings.Join(got, "\n    "), strings.Join(want, "\n    "))
				}
			}
		}
	}
	if n < 7 {
		t.Errorf("checked %d declarations, want the five linknamed functions, the linknamed var and the interface: the test no longer finds them", n)
	}
}

type parsed struct{ files []*parsedFile }

type parsedFile struct {
	file    *ast.File
	imports map[string]string // name → path
}

func parseDir(t *testing.T, dir string, keep func(string) bool) *parsed {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &parsed{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || !keep(e.Name()) {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		pf := &parsedFile{file: f, imports: map[string]string{}}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			elems := strings.Split(path, "/")
			name := elems[len(elems)-1]
			if len(elems) > 1 && regexp.MustCompile(`^v[0-9]+$`).MatchString(name) {
				name = elems[len(elems)-2] // k8s.io/klog/v2 is package klog
			}
			if im.Name != nil {
				name = im.Name.Name
			}
			pf.imports[name] = path
		}
		p.files = append(p.files, pf)
	}
	return p
}

// decls returns the package's functions by linkname suffix (name, or
// (*T).name for a method) with their signatures, and its interfaces with
// their methods.
func (p *parsed) decls(pkg string) (funcs map[string]string, ifaces map[string][]string, vars map[string]string) {
	funcs, ifaces, vars = map[string]string{}, map[string][]string{}, map[string]string{}
	for _, f := range p.files {
		for _, d := range f.file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				typ := d.Type
				if d.Recv != nil {
					recv := types.ExprString(d.Recv.List[0].Type)
					name = "(" + recv + ")." + name
					// Ours declares the receiver as the first parameter.
					params := append([]*ast.Field{{Type: d.Recv.List[0].Type}}, d.Type.Params.List...)
					typ = &ast.FuncType{Params: &ast.FieldList{List: params}, Results: d.Type.Results}
				}
				funcs[name] = f.signature(typ, pkg)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for i, n := range vs.Names {
							switch {
							case vs.Type != nil:
								vars[n.Name] = f.qualify(vs.Type, pkg)
							case i < len(vs.Values):
								if fl, ok := vs.Values[i].(*ast.FuncLit); ok {
									vars[n.Name] = f.qualify(fl.Type, pkg)
								}
							}
						}
					}
					if ts, ok := s.(*ast.TypeSpec); ok {
						if it, ok := ts.Type.(*ast.InterfaceType); ok {
							ifaces[ts.Name.Name] = f.methods(it, pkg)
						}
					}
				}
			}
		}
	}
	return funcs, ifaces, vars
}

func orGone(s string) string {
	if s == "" {
		return "(none: the kubelet has no such var at this release)"
	}
	return s
}

// signature prints a function type with every type fully qualified.
func (f *parsedFile) signature(ft *ast.FuncType, pkg string) string {
	list := func(fl *ast.FieldList) string {
		if fl == nil {
			return ""
		}
		var parts []string
		for _, field := range fl.List {
			n := max(1, len(field.Names))
			for range n {
				parts = append(parts, f.qualify(field.Type, pkg))
			}
		}
		return strings.Join(parts, ", ")
	}
	return "func(" + list(ft.Params) + ") (" + list(ft.Results) + ")"
}

func (f *parsedFile) methods(it *ast.InterfaceType, pkg string) []string {
	var out []string
	for _, m := range it.Methods.List {
		if ft, ok := m.Type.(*ast.FuncType); ok {
			for _, n := range m.Names {
				out = append(out, n.Name+" "+f.signature(ft, pkg))
			}
		}
	}
	sort.Strings(out)
	return out
}

// qualify prints a type expression with each package named by its import
// path, and each of pkg's own exported types as pkg.Name.
func (f *parsedFile) qualify(e ast.Expr, pkg string) string {
	switch e := e.(type) {
	case *ast.Ident:
		if types.Universe.Lookup(e.Name) != nil || mirrored[e.Name] {
			return e.Name
		}
		return pkg + "." + e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if path, ok := f.imports[x.Name]; ok {
				return path + "." + e.Sel.Name
			}
		}
		return types.ExprString(e)
	case *ast.StarExpr:
		return "*" + f.qualify(e.X, pkg)
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + f.qualify(e.Elt, pkg)
		}
		return "[" + types.ExprString(e.Len) + "]" + f.qualify(e.Elt, pkg)
	case *ast.MapType:
		return "map[" + f.qualify(e.Key, pkg) + "]" + f.qualify(e.Value, pkg)
	case *ast.ChanType:
		prefix := "chan "
		switch e.Dir {
		case ast.RECV:
			prefix = "<-chan "
		case ast.SEND:
			prefix = "chan<- "
		}
		return prefix + f.qualify(e.Value, pkg)
	case *ast.Ellipsis:
		return "..." + f.qualify(e.Elt, pkg)
	case *ast.FuncType:
		return f.signature(e, pkg)
	}
	return types.ExprString(e)
}

// linkname returns the target of a //go:linkname directive in a doc comment.
func linkname(doc *ast.CommentGroup) string {
	for _, c := range doc.List {
		if fields := strings.Fields(c.Text); len(fields) == 3 && fields[0] == "//go:linkname" {
			return fields[2]
		}
	}
	return ""
}
