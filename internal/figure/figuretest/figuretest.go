// Package figuretest holds a chapter's committed figures to what its model
// draws now: a chapter's TestFiguresAreCurrent draws every figure and calls
// Current, which fails on a figure that is missing, stale, too heavy, or
// drawn by nothing. With UPDATE_FIGURES set (make figures, and make quotes,
// which runs it) it writes the figures instead.
package figuretest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opslab/opslab/internal/figure"
)

// Current compares each figure with the file of its name in dir, the
// chapter's figures/ directory, and fails for any .svg there that figs does
// not draw.
func Current(t testing.TB, dir string, figs map[string][]byte) {
	t.Helper()
	update := os.Getenv("UPDATE_FIGURES") != ""
	names := make([]string, 0, len(figs))
	for name := range figs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := figs[name]
		file := filepath.Join(dir, name)
		shown := filepath.ToSlash(filepath.Join(filepath.Base(dir), name))
		if len(want) > figure.MaxBytes {
			t.Errorf("%s weighs %d bytes, over the %d a figure may: draw fewer points", shown, len(want), figure.MaxBytes)
		}
		if update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		switch {
		case os.IsNotExist(err):
			t.Errorf("%s is missing: run make figures (or make quotes) to draw it", shown)
		case err != nil:
			t.Errorf("%s: %v", shown, err)
		case !bytes.Equal(got, want):
			t.Errorf("%s is stale: the model now draws it differently; run make figures (or make quotes) and look at the new figure", shown)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		base := filepath.Base(f)
		if _, ok := figs[base]; !ok {
			t.Errorf("%s/%s is drawn by no figure of this test: a figure is computed by the model, so delete the file or draw it here", filepath.Base(dir), base)
		} else if !strings.HasSuffix(base, ".svg") {
			t.Errorf("%s/%s: figures are .svg files", filepath.Base(dir), base)
		}
	}
}
