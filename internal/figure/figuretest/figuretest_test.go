package figuretest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that keeps what Current reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

// TestCurrent: a figure that matches its file passes; one whose file is
// missing, differs by a byte, or weighs too much fails naming the file and
// the fix; a file nothing draws fails too. With UPDATE_FIGURES set the
// figures are written and pass.
func TestCurrent(t *testing.T) {
	svg := []byte("<svg></svg>\n")
	tests := []struct {
		name, reason string
		files        map[string]string // in figures/
		figs         map[string][]byte
		want         []string
	}{
		{name: "current", reason: "the drawing and the file agree",
			files: map[string]string{"a.svg": string(svg)}, figs: map[string][]byte{"a.svg": svg}},
		{name: "missing", reason: "a figure the prose may show must exist",
			figs: map[string][]byte{"a.svg": svg},
			want: []string{"figures/a.svg is missing: run make figures (or make quotes) to draw it"}},
		{name: "stale", reason: "one byte of difference is a stale figure",
			files: map[string]string{"a.svg": "<svg> </svg>\n"}, figs: map[string][]byte{"a.svg": svg},
			want: []string{"figures/a.svg is stale: the model now draws it differently; run make figures (or make quotes) and look at the new figure"}},
		{name: "drawn by nothing", reason: "a figure in figures/ that no test draws was made by hand",
			files: map[string]string{"a.svg": string(svg), "b.svg": string(svg)}, figs: map[string][]byte{"a.svg": svg},
			want: []string{"figures/b.svg is drawn by no figure of this test: a figure is computed by the model, so delete the file or draw it here"}},
		{name: "too heavy", reason: "a figure stays under 40 KB",
			files: map[string]string{"a.svg": strings.Repeat("x", 41<<10)}, figs: map[string][]byte{"a.svg": []byte(strings.Repeat("x", 41<<10))},
			want: []string{"figures/a.svg weighs 41984 bytes, over the 40960 a figure may: draw fewer points"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "figures")
			os.Mkdir(dir, 0o755)
			for name, data := range tt.files {
				os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
			}
			r := &recorder{TB: t}
			Current(r, dir, tt.figs)
			slices.Sort(r.errors)
			if diff := cmp.Diff(tt.want, r.errors); diff != "" {
				t.Errorf("Current (-want +got):\n%s\n%s", diff, tt.reason)
			}
		})
	}
	t.Run("update", func(t *testing.T) {
		t.Setenv("UPDATE_FIGURES", "1")
		dir := filepath.Join(t.TempDir(), "figures")
		r := &recorder{TB: t}
		Current(r, dir, map[string][]byte{"a.svg": svg})
		if got, err := os.ReadFile(filepath.Join(dir, "a.svg")); err != nil || string(got) != string(svg) || len(r.errors) > 0 {
			t.Errorf("with UPDATE_FIGURES: file %q (%v), errors %q; want the figure written and no error", got, err, r.errors)
		}
	})
}
