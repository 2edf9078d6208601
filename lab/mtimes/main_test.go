package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDateByContent: a file's time follows its git hash, so two checkouts
// of one commit agree and a change of content changes it; an edit not yet
// added, a conflict and a symbolic link keep their own times; a directory
// is dated from what it holds.
func TestDateByContent(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	times := func(dir string, index, edited []string) map[string]time.Time {
		t.Helper()
		t.Chdir(dir)
		for _, p := range []string{"a/x.go", "a/y.go", "b/z.go", "c.go"} {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, now, now)
		}
		if _, _, err := date(index, edited); err != nil {
			t.Fatal(err)
		}
		got := map[string]time.Time{}
		for _, p := range []string{"a/x.go", "a/y.go", "b/z.go", "c.go", "a", "b", "."} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			got[p] = fi.ModTime()
		}
		return got
	}
	index := []string{
		"100644 1111111111111111111111111111111111111111 0\ta/x.go",
		"100755 2222222222222222222222222222222222222222 0\ta/y.go",
		"120000 3333333333333333333333333333333333333333 0\tb/z.go",
		"100644 4444444444444444444444444444444444444444 1\tc.go",
		"100644 5555555555555555555555555555555555555555 2\tc.go",
	}
	one := times(t.TempDir(), index, []string{"a/y.go"})
	two := times(t.TempDir(), index, nil)
	if !one["a/x.go"].Equal(two["a/x.go"]) || one["a/x.go"].Year() > 2009 {
		t.Errorf("a clean file: %v and %v in two checkouts; want one time, long past", one["a/x.go"], two["a/x.go"])
	}
	if !one["a/y.go"].Equal(now) || two["a/y.go"].Equal(now) {
		t.Errorf("a/y.go: %v edited, %v clean; want its own time only when edited", one["a/y.go"], two["a/y.go"])
	}
	for _, p := range []string{"b/z.go", "c.go"} {
		if !one[p].Equal(now) {
			t.Errorf("%s (a link, a conflict) dated %v; want its own time", p, one[p])
		}
	}
	if !one["a"].Equal(two["a"]) || one["a"].Equal(one["b"]) || one["a"].Year() > 2009 {
		t.Errorf("directories a %v and %v, b %v; want a's time the same in both checkouts and b's another", one["a"], two["a"], one["b"])
	}
	changed := append([]string{"100644 6666666666666666666666666666666666666666 0\ta/x.go"}, index[1:]...)
	three := times(t.TempDir(), changed, nil)
	if three["a/x.go"].Equal(two["a/x.go"]) || three["a"].Equal(two["a"]) {
		t.Errorf("a/x.go's content changed, yet it and its directory kept their times")
	}
}
