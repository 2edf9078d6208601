package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/internal/learn"
)

// benchWorkspace generates chapter tr's workspace under _learn/, blanked
// from step from (len(Steps): nothing blanked, every step done).
func benchWorkspace(b *testing.B, tr learn.Track, from int) (root, dir string) {
	b.Helper()
	root, _ = filepath.Abs("../..")
	base := filepath.Join(root, "_learn")
	os.MkdirAll(base, 0o755)
	tmp, err := os.MkdirTemp(base, "bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(tmp) })
	rel, _ := filepath.Rel(root, tmp)
	dir = path.Join(filepath.ToSlash(rel), tr.Dir)
	model := path.Join("chapters", tr.Dir)
	if err := learn.Generate(filepath.Join(root, model), filepath.Join(root, dir), tr, from,
		learn.Module+"/"+model, learn.Module+"/"+dir); err != nil {
		b.Fatal(err)
	}
	return root, dir
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return ds[len(ds)/2].Seconds()
}

// BenchmarkWatchSave is the watch loop answering a save: a file of the
// workspace changes (its code, so its package compiles and the test binary
// links again, with warm caches for everything else) and the current
// step's tests run as watch runs them (RunStaged), nothing
// written. s-first is the time to the first answer the learner sees (the
// step's tests that need no Kubernetes code, or all of them when the step
// has none of those or only those); s-whole the time until the last test
// ends. Per chapter: step 1, and the first step whose tests do not ask
// Kubernetes' own code.
func BenchmarkWatchSave(b *testing.B) {
	for _, tr := range chapters.Tracks {
		root, dir := benchWorkspace(b, tr, 0)
		upstream, _ := learn.UpstreamTests(filepath.Join(root, dir))
		light := -1
		for k, st := range tr.Steps {
			if !slices.ContainsFunc(st.AllTests(), func(t string) bool { return upstream[t] }) {
				light = k
				break
			}
		}
		ks := []int{0}
		if light > 0 {
			ks = append(ks, light)
		}
		for _, k := range ks {
			st := tr.Steps[k]
			b.Run(fmt.Sprintf("%s/step-%d-%s", tr.Dir, k+1, st.ID), func(b *testing.B) {
				file, _, _ := cutHash(st.Funcs[0])
				p := filepath.Join(root, dir, file)
				learn.RunStaged(context.Background(), root, dir, st.AllTests(), func(learn.Run) {}) // warm
				var firsts, wholes []time.Duration
				for i := 0; b.Loop(); i++ {
					f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
					save(f)
					start := time.Now()
					var first time.Duration
					r := learn.RunStaged(context.Background(), root, dir, st.AllTests(), func(learn.Run) { first = time.Since(start) })
					whole := time.Since(start)
					if first == 0 {
						first = whole
					}
					firsts, wholes = append(firsts, first), append(wholes, whole)
					if r.BuildErr != "" {
						b.Fatal(r.BuildErr)
					}
				}
				b.ReportMetric(median(firsts), "s-first")
				b.ReportMetric(median(wholes), "s-whole")
			})
		}
	}
}

// BenchmarkWholeTrack runs every step's tests of a chapter whose track is
// done, as grade does: one go test for the model and the lab programs,
// after a change to the workspace.
func BenchmarkWholeTrack(b *testing.B) {
	for _, tr := range chapters.Tracks {
		b.Run(tr.Dir, func(b *testing.B) {
			root, dir := benchWorkspace(b, tr, len(tr.Steps))
			file, _, _ := cutHash(tr.Steps[0].Funcs[0])
			p := filepath.Join(root, dir, file)
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				save(f)
				start := time.Now()
				runs := learn.RunTrack(context.Background(), root, dir, tr)
				ds = append(ds, time.Since(start))
				for i, st := range tr.Steps {
					r := runs[i]
					byName := map[string]bool{}
					for _, res := range r.Results {
						byName[res.Test] = res.Passed
					}
					for _, name := range st.AllTests() {
						if !byName[name] {
							b.Fatalf("the model's own track does not pass %s (%s): %+v", name, st.ID, r.BuildErr)
						}
					}
				}
			}
			b.ReportMetric(median(ds), "s-median")
		})
	}
}

// saves counts the benchmarks' saves, which name what they add.
var saves int

// save appends to f a declaration that the compiled package shows: the
// package compiles again and its test binary links again, as after a
// learner's edit. (A blank var with a constant would compile to the same
// object, and go test would answer from its caches.)
func save(f *os.File) {
	saves++
	fmt.Fprintf(f, "\nvar benchSave%d = %d\n", saves, saves)
	f.Close()
}

func cutHash(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '#' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
