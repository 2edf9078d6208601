package apf

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsOnlyStandardLibrary keeps this package and the course site's
// demo, which imports it, free of Kubernetes' modules: the API types of
// k8s.io/api alone would make the demo's WebAssembly about 11 MB larger.
// The demo may import this package; both may import the standard library,
// whose first path element has no dot.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	const self = "github.com/opslab/opslab/chapters/03-apf"
	for _, dir := range []string{".", "demo"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				first, _, _ := strings.Cut(path, "/")
				if strings.Contains(first, ".") && path != self {
					t.Errorf("%s imports %s, want only the standard library and %s", file, path, self)
				}
			}
		}
		if n == 0 {
			t.Errorf("no Go files in %s", dir)
		}
	}
}
