package chapters_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/opslab/opslab/internal/shape"
)

// The shape of a chapter (CONTRIBUTING.md, "The shape of a chapter"): a
// chapter that has moved to it, which its EVIDENCE.md marks, has the path's
// sections and keeps to its budgets. Package shape counts the figures and
// names the rules; make chapter-figures prints them for every chapter.

// shapeBreaches returns the rules of the shape the chapter in dir breaks,
// or nothing when it has no EVIDENCE.md: a chapter that has not moved to
// the shape is only printed.
func shapeBreaches(t *testing.T, dir string) []shape.Breach {
	t.Helper()
	f, err := shape.Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Evidence {
		return nil
	}
	return f.Breaches()
}

// TestShape holds every chapter with an EVIDENCE.md to the shape: the
// sections (the title, "You will be able to" with 3 to 5 items, "Before you
// start", "Choosing", "Recap" with 5 to 7, "Your lab, graded", "Build it
// yourself", "How we know" linking EVIDENCE.md), 3,500 words of core prose
// and 1,200 of lab steps and 800 before the first command, each with 10 %
// over, an average sentence of 22 words at most, and no test names or line
// numbers in the path. A breach names the chapter, the rule and the figure.
func TestShape(t *testing.T) {
	dirs, _ := filepath.Glob("[0-9][0-9]-*")
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		for _, b := range shapeBreaches(t, dir) {
			t.Errorf("chapters/%s: %s", dir, b)
		}
	}
}

// TestShapeCatches reads the chapters of testdata/shape, each a txtar
// archive of a chapter's README.md and EVIDENCE.md whose comment names the
// rule it breaks ("rule: none" for one that breaks none, or is only
// printed) and what the breach must say ("want: ..." lines). Each breaks
// that rule and only that rule.
func TestShapeCatches(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "shape", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no chapters in testdata/shape")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var rule string
			var wants []string
			for _, l := range strings.Split(string(a.Comment), "\n") {
				if r, ok := strings.CutPrefix(l, "rule: "); ok {
					rule = r
				}
				if w, ok := strings.CutPrefix(l, "want: "); ok {
					wants = append(wants, w)
				}
			}
			if rule == "" {
				t.Fatal("the archive's comment names no rule: want a line \"rule: RULE\" (or \"rule: none\")")
			}
			dir := filepath.Join(t.TempDir(), "09-floor")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range a.Files {
				write(t, filepath.Join(dir, f.Name), string(f.Data))
			}
			var said []string
			for _, b := range shapeBreaches(t, dir) {
				said = append(said, b.String())
				if b.Rule != rule {
					t.Errorf("unexpected %s", b)
				}
			}
			if rule != "none" && len(said) == 0 {
				t.Errorf("the contract did not notice a chapter that breaks %s", rule)
			}
			for _, w := range wants {
				if !strings.Contains(strings.Join(said, "\n"), w) {
					t.Errorf("no breach says %q; the breaches:\n%s", w, strings.Join(said, "\n"))
				}
			}
		})
	}
}
