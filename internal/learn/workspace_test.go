package learn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestForGrading builds a toy chapter and a workspace of it in which the
// learner edited a test, added one, deleted a file of the model and wrote
// a file of their own: the grading copy has the chapter's tests and
// testdata, the learner's code and only theirs, with the workspace's
// import path turned into the copy's, and it is gone once done.
func TestForGrading(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"chapters/09-toy/toy.go":                "package toy\n\nfunc F() int { return 1 }\n",
		"chapters/09-toy/helper.go":             "package toy\n\nfunc h() int { return 2 }\n",
		"chapters/09-toy/toy_test.go":           "package toy\n\n// the chapter's test\n",
		"chapters/09-toy/ext_test.go":           "package toy_test\n\nimport _ \"github.com/opslab/opslab/chapters/09-toy\"\n",
		"chapters/09-toy/testdata/case.txt":     "the chapter's case\n",
		"chapters/09-toy/lab/prog/main.go":      "package main\n\nfunc main() {}\n",
		"chapters/09-toy/lab/prog/main_test.go": "package main\n\n// the program's test\n",
	}
	for name, data := range files {
		write(t, filepath.Join(root, name), data)
	}
	tr := Track{Dir: "09-toy", Steps: []Step{
		{ID: "f", Funcs: []string{"toy.go#F"}, Tests: []string{"TestF"}},
		{ID: "prog", Funcs: []string{"lab/prog/main.go#main"}, Tests: []string{"TestProg"}},
	}}
	w := Workspace{Root: root, Base: "_learn", Track: tr}
	if _, err := w.Create(); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "_learn/chapter-9")
	write(t, filepath.Join(ws, "toy_test.go"), "package toy\n\n// edited to pass\n")
	write(t, filepath.Join(ws, "mine_test.go"), "package toy\n\n// a test of the learner's\n")
	write(t, filepath.Join(ws, "testdata/case.txt"), "an easier case\n")
	write(t, filepath.Join(ws, "mine.go"), "package toy\n\nimport _ \"github.com/opslab/opslab/_learn/chapter-9/sub\"\n")
	write(t, filepath.Join(ws, "lab/prog/main.go"), "package main\n\nfunc main() { println() }\n")
	if err := os.Remove(filepath.Join(ws, "helper.go")); err != nil {
		t.Fatal(err)
	}

	g, done, err := w.ForGrading()
	if err != nil {
		t.Fatal(err)
	}
	gd := filepath.Join(root, filepath.FromSlash(g.Dir()))
	var got []string
	filepath.WalkDir(gd, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(gd, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{"ext_test.go", "lab/prog/main.go", "lab/prog/main_test.go", "mine.go", "testdata/case.txt", "toy.go", "toy_test.go"}
	if !slices.Equal(got, want) {
		t.Errorf("the grading copy holds %q, want %q: the chapter's tests and testdata, the learner's code and only theirs", got, want)
	}
	for name, want := range map[string]string{
		"toy_test.go":       "the chapter's test",
		"testdata/case.txt": "the chapter's case",
		"ext_test.go":       `"github.com/opslab/opslab/` + g.Dir() + `"`,
		"mine.go":           `"github.com/opslab/opslab/` + g.Dir() + `/sub"`,
		"lab/prog/main.go":  "println()",
		"toy.go":            "Step 1 (f): write this function",
	} {
		data, _ := os.ReadFile(filepath.Join(gd, filepath.FromSlash(name)))
		if !strings.Contains(string(data), want) {
			t.Errorf("the grading copy's %s lacks %q:\n%s", name, want, data)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "toy_test.go")); !strings.Contains(string(data), "edited to pass") {
		t.Errorf("grading changed the workspace's own toy_test.go")
	}
	done()
	if _, err := os.Stat(gd); !os.IsNotExist(err) {
		t.Errorf("the grading copy is still there after done (%v)", err)
	}
}

func write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
