package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With DemosLater the pages are built without compiling a demo: the demo's
// section keeps its static text, says the demo is still being built, and
// gives demo.js nothing to fetch; the build after it brings the demo.
func TestDemosLater(t *testing.T) {
	repo := copyRepo(t)
	addDemo(t, repo)
	cache := t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	st, err := Build(Config{Root: repo, Out: out, DemoCache: cache, DemosLater: true})
	if err != nil {
		t.Fatalf("Build with DemosLater:\n%v", err)
	}
	if len(st.Demos) != 0 {
		t.Errorf("Build with DemosLater compiled demos %+v, want none", st.Demos)
	}
	page := read(t, filepath.Join(out, "chapters/02-beta/index.html"))
	for _, want := range []string{"still being built", "On the course site, the model runs here."} {
		if !strings.Contains(page, want) {
			t.Errorf("chapter 2's page lacks %q", want)
		}
	}
	if strings.Contains(page, "data-wasm") {
		t.Errorf("chapter 2's page points demo.js at a wasm that was not compiled")
	}
	if _, err := os.Stat(filepath.Join(out, "_demos/02-beta.wasm")); err == nil {
		t.Errorf("_demos/02-beta.wasm exists after a build with DemosLater")
	}
	if st, err = Build(Config{Root: repo, Out: out, DemoCache: cache}); err != nil || len(st.Demos) != 1 {
		t.Fatalf("the build after it: demos %+v, err %v; want 02-beta compiled", st.Demos, err)
	}
	if page := read(t, filepath.Join(out, "chapters/02-beta/index.html")); !strings.Contains(page, "data-wasm") || strings.Contains(page, "still being built") {
		t.Errorf("after the build with demos, chapter 2's page does not place its demo")
	}
}
