package learn

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Blank returns src with the bodies of the named functions (Func or
// Type.Method) replaced by one that returns zero values, keeping their
// signature and doc comment; imports no longer used are dropped. step
// names the step in the comment the new body carries. It fails when a name
// is not declared in src.
func Blank(src []byte, names map[string]string) ([]byte, error) {
	return blank(src, names, nil)
}

// blank is Blank; with from set, each function keeps its body behind a
// switch instead: the zero values are returned when the step (numbered
// from 1) is at or after the package's learnFrom, which the test binary
// reads from OPSLAB_LEARN_FROM. from maps a function to its step number.
func blank(src []byte, names map[string]string, from map[string]int) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	type cut struct {
		from, to int
		body     string
	}
	var cuts []cut
	found := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := funcName(fd)
		step, ok := names[name]
		if !ok {
			continue
		}
		found[name] = true
		cuts = append(cuts, cut{
			from: fset.Position(fd.Body.Lbrace).Offset,
			to:   fset.Position(fd.Body.Rbrace).Offset + 1,
			body: zeroBody(src, fset, fd, step),
		})
		if from != nil {
			c := &cuts[len(cuts)-1]
			zero := strings.TrimSuffix(strings.TrimPrefix(c.body, "{"), "}")
			if !strings.Contains(zero, "return") {
				zero += "\treturn\n"
			}
			c.from++ // keep the original body after the switch
			c.to = c.from
			c.body = fmt.Sprintf("\n\tif learnFrom <= %d {%s\t}\n", from[name], zero)
		}
	}
	for name := range names {
		if !found[name] {
			return nil, fmt.Errorf("no function %s", name)
		}
	}
	before := usedNames(f)
	out := slices.Clone(src)
	for i := len(cuts) - 1; i >= 0; i-- {
		c := cuts[i]
		out = slices.Concat(out[:c.from], []byte(c.body), out[c.to:])
	}
	return dropUnused(out, before)
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// zeroBody is the body a learner starts from: it compiles and returns the
// zero value of every result, which no step's tests accept.
func zeroBody(src []byte, fset *token.FileSet, fd *ast.FuncDecl, step string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\t// Step %s: write this function; its doc comment says what it does.\n", step)
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 {
		b.WriteString("}")
		return b.String()
	}
	if len(res.List[0].Names) > 0 {
		b.WriteString("\treturn\n}")
		return b.String()
	}
	var zs []string
	for i, r := range res.List {
		typ := string(src[fset.Position(r.Type.Pos()).Offset:fset.Position(r.Type.End()).Offset])
		fmt.Fprintf(&b, "\tvar zero%d %s\n", i, typ)
		zs = append(zs, fmt.Sprintf("zero%d", i))
	}
	fmt.Fprintf(&b, "\treturn %s\n}", strings.Join(zs, ", "))
	return b.String()
}

// usedNames is the set of identifiers used as X in X.Sel: the imports a
// file uses.
func usedNames(f *ast.File) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// importName is the name a file uses for an import.
func importName(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name
	}
	p, _ := strconv.Unquote(s.Path.Value)
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return base
}

// dropUnused removes the imports src no longer uses that the original did
// (a name the original did not use either is not trusted: the import's
// name may not be its path's last element).
func dropUnused(src []byte, before map[string]bool) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	after := usedNames(f)
	var decls []ast.Decl
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			decls = append(decls, d)
			continue
		}
		var specs []ast.Spec
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			n := importName(is)
			if n != "_" && n != "." && before[n] && !after[n] {
				continue
			}
			specs = append(specs, s)
		}
		if len(specs) == 0 {
			continue
		}
		gd.Specs = specs
		decls = append(decls, gd)
	}
	f.Decls = decls
	f.Imports = nil
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}

// Generate writes, into dst, the model package of the chapter in
// chapterDir (its Go files and tests), and the lab programs of its steps
// in their directories, with the functions of steps from..end blanked.
// modPath is the model's import path and dstPath the workspace's: the
// model's imports of the one become imports of the other.
func Generate(chapterDir, dst string, t Track, from int, modPath, dstPath string) error {
	blank := map[string]map[string]string{} // file (relative to the chapter) -> func -> step
	for i := from; i < len(t.Steps); i++ {
		for _, fn := range t.Steps[i].Funcs {
			file, name, _ := strings.Cut(fn, "#")
			if blank[file] == nil {
				blank[file] = map[string]string{}
			}
			blank[file][name] = fmt.Sprintf("%d (%s)", i+1, t.Steps[i].ID)
		}
	}
	edit := func(name string, src []byte) ([]byte, error) {
		names := blank[name]
		if names == nil {
			return src, nil
		}
		delete(blank, name)
		return Blank(src, names)
	}
	if err := copyModel(chapterDir, dst, modPath, dstPath, edit); err != nil {
		return err
	}
	if err := copyPrograms(chapterDir, dst, t, edit); err != nil {
		return err
	}
	for file := range blank {
		return fmt.Errorf("chapter %s has no file %s", t.Dir, file)
	}
	return copyTestdata(chapterDir, dst)
}

// copyModel writes into dst each Go file of the model package in
// chapterDir but FiguresTest, its imports of modPath turned into dstPath,
// its tests of Kubernetes' code tagged (tagUpstream), and then changed by
// edit, which gets the file's name.
func copyModel(chapterDir, dst, modPath, dstPath string, edit func(name string, src []byte) ([]byte, error)) error {
	return copyPackage(chapterDir, dst, func(name string, src []byte) ([]byte, error) {
		if name == FiguresTest {
			return nil, nil
		}
		src = bytes.ReplaceAll(src, []byte(strconv.Quote(modPath)), []byte(strconv.Quote(dstPath)))
		return edit(name, tagUpstream(name, src))
	})
}

// copyPrograms writes into dst the lab programs of t's steps (Step.Package),
// each in its own directory, every file changed by edit, which gets its
// name relative to the chapter. Their imports stay as they are: a lab
// program's tests judge the learner's program by the course's model, not
// by the learner's.
func copyPrograms(chapterDir, dst string, t Track, edit func(name string, src []byte) ([]byte, error)) error {
	for _, pkg := range t.Packages()[1:] {
		err := copyPackage(filepath.Join(chapterDir, pkg), filepath.Join(dst, pkg), func(name string, src []byte) ([]byte, error) {
			return edit(path.Join(pkg, name), src)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copyPackage writes into dst each Go file of the package in dir, changed
// by edit; a file edit returns nil for is left out.
func copyPackage(dir, dst string, edit func(name string, src []byte) ([]byte, error)) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		if src, err = edit(e.Name(), src); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		if src == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// FiguresTest is the file of a chapter's TestFiguresAreCurrent, which
// holds figures/ to the model: a workspace has no figures/, and the
// figures say nothing of a learner's code.
const FiguresTest = "figures_test.go"

// copyTestdata copies the chapter's testdata directory, when it has one,
// into the workspace: some of the model's tests read recordings from it.
func copyTestdata(chapterDir, dst string) error {
	src := filepath.Join(chapterDir, "testdata")
	if _, err := os.Stat(src); err != nil {
		return nil
	}
	return os.CopyFS(filepath.Join(dst, "testdata"), os.DirFS(src))
}

// switchFile declares learnFrom for GenerateSwitched's workspace.
const switchFile = `package %s

import (
	"os"
	"strconv"
)

// learnFrom is the step whose functions, and every later step's, return
// zero values: OPSLAB_LEARN_FROM, or none.
var learnFrom = func() int {
	n, err := strconv.Atoi(os.Getenv("OPSLAB_LEARN_FROM"))
	if err != nil {
		return 1 << 30
	}
	return n
}()
`

// GenerateSwitched writes one workspace in which every step's starting
// point can be chosen when its tests run, with OPSLAB_LEARN_FROM=K (the
// steps from K on blanked): each step's functions return their zero values
// when their step is blanked, and run the model's body otherwise. It lets a
// test build one binary for all of a chapter's steps in a package: the
// model's, and each lab program's.
func GenerateSwitched(chapterDir, dst string, t Track, modPath, dstPath string) error {
	from := map[string]map[string]int{} // file (relative to the chapter) -> func -> step
	for i, st := range t.Steps {
		for _, fn := range st.Funcs {
			file, name, _ := strings.Cut(fn, "#")
			if from[file] == nil {
				from[file] = map[string]int{}
			}
			from[file][name] = i + 1
		}
	}
	edit := func(name string, src []byte) ([]byte, error) {
		f := from[name]
		if f == nil {
			return src, nil
		}
		names := map[string]string{}
		for n := range f {
			names[n] = ""
		}
		return blank(src, names, f)
	}
	if err := copyModel(chapterDir, dst, modPath, dstPath, edit); err != nil {
		return err
	}
	if err := copyPrograms(chapterDir, dst, t, edit); err != nil {
		return err
	}
	if err := copyTestdata(chapterDir, dst); err != nil {
		return err
	}
	for _, dir := range t.Packages() {
		name, err := packageName(filepath.Join(chapterDir, dir))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, dir, "learnswitch.go"), []byte(fmt.Sprintf(switchFile, name)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// packageName is the name of the Go package in dir, read from the package
// clause of its first non-test file.
func packageName(dir string) (string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return af.Name.Name, nil
	}
	return "", fmt.Errorf("%s has no Go package", dir)
}

// Reblank blanks the functions of one step in the learner's workspace file
// by file, after copying each file it changes to FILE.go.bak-N (not a Go
// file, so it does not build), and returns the backups' names.
func Reblank(ws string, t Track, step int) ([]string, error) {
	files := map[string]map[string]string{}
	for _, fn := range t.Steps[step].Funcs {
		file, name, _ := strings.Cut(fn, "#")
		if files[file] == nil {
			files[file] = map[string]string{}
		}
		files[file][name] = fmt.Sprintf("%d (%s)", step+1, t.Steps[step].ID)
	}
	var backups []string
	for _, file := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(ws, file)
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out, err := Blank(src, files[file])
		if err != nil {
			return nil, fmt.Errorf("%s: %w (fix the file so it parses, or remove it and run start again)", file, err)
		}
		bak := p + ".bak-1"
		for n := 2; exists(bak); n++ {
			bak = fmt.Sprintf("%s.bak-%d", p, n)
		}
		if err := os.WriteFile(bak, src, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return nil, err
		}
		backups = append(backups, filepath.Base(bak))
	}
	return backups, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// Rewrite returns src with the body of the function name (Func or
// Type.Method) replaced by body, which holds the statements without braces:
// what a learner types, for the transcripts that play one.
func Rewrite(src []byte, name, body string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && funcName(fd) == name {
			from, to := fset.Position(fd.Body.Lbrace).Offset, fset.Position(fd.Body.Rbrace).Offset+1
			return format.Source(slices.Concat(src[:from], []byte("{\n"+body+"\n}"), src[to:]))
		}
	}
	return nil, fmt.Errorf("no function %s", name)
}

// UpstreamTag is the build tag of a workspace's test files that import
// Kubernetes' own code (k8s.io/...): the oracles and the differentials.
// Linking them costs seconds on every save, so a step's tests are built
// with it only when one of them needs it.
const UpstreamTag = "learn_upstream"

// tagUpstream puts UpstreamTag on a test file that imports k8s.io/.
func tagUpstream(name string, src []byte) []byte {
	if !strings.HasSuffix(name, "_test.go") {
		return src
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return src
	}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "k8s.io/") {
			return append([]byte("//go:build "+UpstreamTag+"\n\n// This file asks Kubernetes' own code: learn builds it only for the steps\n// whose tests are here (-tags "+UpstreamTag+").\n\n"), src...)
		}
	}
	return src
}

// UpstreamTests returns the tests of the workspace in dir that are declared
// in files built only with UpstreamTag.
func UpstreamTests(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	tests := map[string]bool{}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(src, []byte("//go:build "+UpstreamTag+"\n")) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue // the build will say what is wrong
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				tests[fd.Name.Name] = true
			}
		}
	}
	return tests, nil
}
