//go:build browser

package browsertest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// axeVerdicts keeps TestAccessibility's passes from one run to the next, in
// the directory $OPSLAB_AXE_CACHE names (make test: in the machine's cache
// of lab binaries), as go test keeps a package's: a page is audited again
// only when something its audit reads changed since it passed. Its key is
// the page's HTML, the site's other files that a page loads as it opens
// (the stylesheet, scripts, figures and claims; not the search index,
// fetched only to search, nor the demos' WebAssembly, fetched only when a
// demo starts, as TestDemos checks), axe-core, Chromium's version and this
// package's audit code. Each pass keeps the kinds of text the page shows,
// which join the kinds measured for contrast as if it had been audited. A
// page with a violation is not kept. Without $OPSLAB_AXE_CACHE every page
// is audited.
type axeVerdicts struct {
	dir    string
	common string // the hash of everything but the page
	out    string // the built site
}

// newAxeVerdicts returns the verdicts kept for the site built in out, nil
// when $OPSLAB_AXE_CACHE is unset.
func newAxeVerdicts(t *testing.T, out, axe string) *axeVerdicts {
	t.Helper()
	dir := os.Getenv("OPSLAB_AXE_CACHE")
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("OPSLAB_AXE_CACHE: %v", err)
	}
	version, err := exec.Command(chromium, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", chromium, err)
	}
	h := sha256.New()
	add := func(name string, data []byte) {
		sum := sha256.Sum256(data)
		h.Write([]byte(name + " " + hex.EncodeToString(sum[:]) + "\n"))
	}
	add("axe-core", []byte(axe))
	add("chromium", version)
	for _, f := range []string{"axe_test.go", "browser_test.go", "verdicts_test.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, data)
	}
	var files []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && pageLoads(p) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(out, p)
		add(filepath.ToSlash(rel), data)
	}
	return &axeVerdicts{dir: dir, common: hex.EncodeToString(h.Sum(nil)), out: out}
}

// pageLoads reports whether a file of the built site is one a page may
// load as it opens: any file but a page, the search index and a demo's
// WebAssembly.
func pageLoads(p string) bool {
	return !strings.HasSuffix(p, ".html") && filepath.Base(p) != "search-index.json" && !strings.HasSuffix(p, ".wasm")
}

// key is the name of the verdict for page, "" when the page cannot be read.
func (v *axeVerdicts) key(page string) string {
	data, err := os.ReadFile(filepath.Join(v.out, filepath.FromSlash(page)))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(v.common + "\n" + page + "\n" + string(data)))
	return hex.EncodeToString(sum[:])
}

// passed returns the kinds of text of page and true when page passed with
// the same inputs before.
func (v *axeVerdicts) passed(page string) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	k := v.key(page)
	if k == "" {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(v.dir, k))
	if err != nil {
		return nil, false
	}
	var kinds []string
	if json.Unmarshal(data, &kinds) != nil {
		return nil, false
	}
	return kinds, true
}

// pass keeps page's pass, with its kinds of text.
func (v *axeVerdicts) pass(t *testing.T, page string, kinds []string) {
	t.Helper()
	if v == nil {
		return
	}
	k := v.key(page)
	if k == "" {
		return
	}
	data, _ := json.Marshal(kinds)
	tmp := filepath.Join(v.dir, k+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Logf("keeping %s's pass: %v", page, err)
		return
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, k)); err != nil {
		t.Logf("keeping %s's pass: %v", page, err)
	}
}

// TestAxeVerdictKeys: a kept pass is found again for the same page and
// inputs, and not when the page, a file it loads, axe-core or the audit's
// code changed; the search index and the demos' WebAssembly do not count.
func TestAxeVerdictKeys(t *testing.T) {
	out := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(out, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.html", "<p>a</p>")
	write("b.html", "<p>b</p>")
	write("site.css", "p { color: black }")
	write("search-index.json", "[1]")
	write("demo/x.wasm", "1")
	t.Setenv("OPSLAB_AXE_CACHE", t.TempDir())
	v := newAxeVerdicts(t, out, "axe 1")
	v.pass(t, "a.html", []string{"p"})
	if kinds, ok := v.passed("a.html"); !ok || len(kinds) != 1 || kinds[0] != "p" {
		t.Fatalf("a.html's pass: %v %v, want [p] true", kinds, ok)
	}
	if _, ok := v.passed("b.html"); ok {
		t.Fatal("b.html passed without an audit")
	}
	write("search-index.json", "[2]")
	write("demo/x.wasm", "2")
	if _, ok := newAxeVerdicts(t, out, "axe 1").passed("a.html"); !ok {
		t.Error("a new search index or demo lost a.html's pass")
	}
	for _, change := range []func() (*axeVerdicts, string){
		func() (*axeVerdicts, string) {
			write("a.html", "<p>A</p>")
			return newAxeVerdicts(t, out, "axe 1"), "the page"
		},
		func() (*axeVerdicts, string) {
			write("site.css", "p { color: grey }")
			return newAxeVerdicts(t, out, "axe 1"), "the stylesheet"
		},
		func() (*axeVerdicts, string) { return newAxeVerdicts(t, out, "axe 2"), "axe-core" },
	} {
		write("a.html", "<p>a</p>")
		write("site.css", "p { color: black }")
		v := newAxeVerdicts(t, out, "axe 1")
		v.pass(t, "a.html", []string{"p"})
		changed, what := change()
		if _, ok := changed.passed("a.html"); ok {
			t.Errorf("a.html kept its pass after %s changed", what)
		}
	}
	t.Setenv("OPSLAB_AXE_CACHE", "")
	if v := newAxeVerdicts(t, out, "axe 1"); v != nil {
		t.Error("without OPSLAB_AXE_CACHE, passes are kept")
	}
}
