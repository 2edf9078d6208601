package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/internal/learn"
)

// repoRoot is the course's module root, two levels up from cmd/learn.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// testFuncs is the set of top-level Test functions in a package's test
// files.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		if filepath.Base(f) == learn.FiguresTest {
			continue // not in a workspace
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				names[fd.Name.Name] = true
			}
		}
	}
	return names
}

// TestTracksName checks every track's list against its chapter: 4 to 8
// steps, each naming tests the model has and functions it declares (Generate
// fails on a function it cannot find), each section a heading of the README.
// The model passing these tests is go test ./... on the chapter itself.
func TestTracksName(t *testing.T) {
	root := repoRoot(t)
	for _, tr := range chapters.Tracks {
		t.Run(tr.Dir, func(t *testing.T) {
			if err := tr.Check(); err != nil {
				t.Fatal(err)
			}
			if n := len(tr.Steps); n < 4 || n > 8 {
				t.Errorf("chapter %s has %d steps, want 4 to 8", tr.Dir, n)
			}
			dir := filepath.Join(root, "chapters", tr.Dir)
			claims, err := learn.Claims(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			anchors := map[string]bool{}
			for _, c := range claims {
				anchors[c.Anchor] = true
			}
			for _, st := range tr.Steps {
				tests := testFuncs(t, filepath.Join(dir, st.Package()))
				for _, name := range st.AllTests() {
					if !tests[name] {
						t.Errorf("step %s: chapter %s has no test %s in %s", st.ID, tr.Dir, name, st.Package())
					}
				}
				if !anchors[st.Section] && !headingExists(t, filepath.Join(dir, "README.md"), st.Section) {
					t.Errorf("step %s: README has no heading #%s", st.ID, st.Section)
				}
			}
		})
	}
}

func headingExists(t *testing.T, readme, id string) bool {
	c, err := learn.Headings(readme)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(c, id)
}

// TestTracksFailBeforePassAfter proves, for every step of every track,
// that the workspace a learner has when the step begins (the earlier steps
// written as the model writes them, this one and the later ones blanked)
// builds, tests included, and fails at least one of the step's tests; that
// they all pass once the step is written as the model writes it, the later
// steps still blank; and
// that a test that fails when every step is blanked is in some step, since
// it is about the learner's functions. The same tests pass on the model in
// go test ./... of its chapter.
//
// Each starting point is generated; the one where every step is blanked is
// type-checked with and without the upstream tests (go vet, no link); the
// tests run in one binary per chapter in which each step's functions return
// their blank zero values from step OPSLAB_LEARN_FROM on, and the model's
// body before it: one link instead of one per step.
func TestTracksFailBeforePassAfter(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := repoRoot(t)
	base := filepath.Join(root, "_learn")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(base, "selftest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rel, _ := filepath.Rel(root, tmp)
	rel = filepath.ToSlash(rel)
	for _, tr := range chapters.Tracks {
		t.Run(tr.Dir, func(t *testing.T) {
			model := path.Join("chapters", tr.Dir)
			vet := []string{"vet"}
			for k := range tr.Steps {
				dir := path.Join(rel, fmt.Sprintf("%s-%d", tr.Dir, k+1))
				if err := learn.Generate(filepath.Join(root, model), filepath.Join(root, dir), tr, k,
					learn.Module+"/"+model, learn.Module+"/"+dir); err != nil {
					t.Fatal(err)
				}
				// Type-checking one workspace takes seconds: the first, where
				// every step is blanked, stands for the others, since
				// blanking a subset of its functions changes nothing else.
				if k == 0 {
					for _, pkg := range tr.Packages() {
						vet = append(vet, "./"+path.Join(dir, pkg))
					}
				}
			}
			// Built with and without the files that ask upstream: a step
			// whose tests are not there builds without them.
			for _, tags := range []string{"", learn.UpstreamTag} {
				cmd := exec.Command("go", append([]string{vet[0], "-tags", tags}, vet[1:]...)...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("a step's starting point does not build (tags %q): %v\n%s", tags, err, out)
				}
			}

			sw := path.Join(rel, tr.Dir+"-switched")
			if err := learn.GenerateSwitched(filepath.Join(root, model), filepath.Join(root, sw), tr,
				learn.Module+"/"+model, learn.Module+"/"+sw); err != nil {
				t.Fatal(err)
			}
			// One test binary for the model and one for each lab program.
			bins := map[string]string{}
			for i, pkg := range tr.Packages() {
				bins[pkg] = filepath.Join(tmp, fmt.Sprintf("%s-%d.test", tr.Dir, i))
				cmd := exec.Command("go", "test", "-vet=off", "-tags", learn.UpstreamTag, "-c", "-o", bins[pkg], "./"+path.Join(sw, pkg))
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the switched workspace (%s) does not build: %v\n%s", pkg, err, out)
				}
			}
			outcome := func(pkg string, from int, tests []string) map[string]bool {
				cmd := exec.Command(bins[pkg], "-test.v", "-test.timeout", "60s", "-test.run", "^("+strings.Join(tests, "|")+")$")
				cmd.Dir = filepath.Join(root, sw, pkg)
				cmd.Env = append(os.Environ(), fmt.Sprintf("OPSLAB_LEARN_FROM=%d", from))
				out, _ := cmd.Output()
				passed := map[string]bool{}
				for _, line := range strings.Split(string(out), "\n") {
					if name, ok := strings.CutPrefix(line, "--- PASS: "); ok {
						passed[strings.Fields(name)[0]] = true
					} else if name, ok := strings.CutPrefix(line, "--- FAIL: "); ok {
						passed[strings.Fields(name)[0]] = false
					}
				}
				return passed
			}

			for _, pkg := range tr.Packages() {
				inStep := map[string]bool{}
				for _, st := range tr.Steps {
					if st.Package() == pkg {
						for _, name := range st.AllTests() {
							inStep[name] = true
						}
					}
				}
				every := slices.Sorted(maps.Keys(testFuncs(t, filepath.Join(root, model, pkg))))
				for name, ok := range outcome(pkg, 1, every) {
					if !ok && !inStep[name] {
						t.Errorf("%s (%s) fails when every step is blanked but is in no step", name, pkg)
					}
				}
				if got := outcome(pkg, len(tr.Steps)+1, every); len(got) != len(every) || slices.Contains(slices.Collect(maps.Values(got)), false) {
					t.Errorf("with no step blanked, the switched workspace (%s) does not pass the model's tests: %v", pkg, got)
				}
			}
			for k, st := range tr.Steps {
				got := outcome(st.Package(), k+1, st.AllTests())
				// A test that did not run was cut short by an earlier one's
				// panic, which is a failure too.
				if len(got) == len(st.AllTests()) && !slices.Contains(slices.Collect(maps.Values(got)), false) {
					t.Errorf("step %d (%s): its tests pass before the learner writes anything", k+1, st.ID)
				}
				// After the step, the later steps are still blanked: the
				// step's tests must not need them.
				after := outcome(st.Package(), k+2, st.AllTests())
				for _, name := range st.AllTests() {
					if !after[name] {
						t.Errorf("step %d (%s): %s fails once the step is written as the model writes it, with the later steps still blank", k+1, st.ID, name)
					}
				}
			}
		})
	}
}
