package site

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A demo of the test course: a main package for GOOS=js, GOARCH=wasm that
// calls the model of chapter 1 and registers what it says, and the script
// that draws it.
const (
	demoMain = `//go:build js && wasm

package main

import (
	"syscall/js"

	alpha "example.com/course/chapters/01-alpha"
)

func main() {
	js.Global().Set("opslabDemoAPI", js.ValueOf(map[string]any{"answer": 42, "evict": alpha.Evict(3, 2)}))
	select {}
}
`
	demoJS     = "window.opslabDemoUI = function (root, api, h) { root.append(h(\"p\", {text: String(api.answer)})); };\n"
	demoMarker = "\n<!-- demo -->\nOn the course site, the model runs here.\n<!-- /demo -->\n"
)

// addDemo gives chapter 2 of a copy of the test course a demo.
func addDemo(t *testing.T, repo string) {
	t.Helper()
	dir := filepath.Join(repo, "chapters/02-beta/demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"main.go": demoMain, "demo.js": demoJS} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(t, filepath.Join(repo, "chapters/02-beta/README.md"), demoMarker)
}

func appendTo(t *testing.T, name, text string) {
	t.Helper()
	data := read(t, name)
	if err := os.WriteFile(name, []byte(data+text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDemo(t *testing.T) {
	repo := copyRepo(t)
	addDemo(t, repo)
	cache := t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	st, err := Build(Config{Root: repo, Out: out, DemoCache: cache})
	if err != nil {
		t.Fatalf("Build with a demo:\n%v", err)
	}
	if len(st.Demos) != 1 || st.Demos[0].Name != "02-beta" || st.Demos[0].Cached || st.Demos[0].Bytes == 0 {
		t.Fatalf("first build: demos %+v, want 02-beta compiled", st.Demos)
	}
	wasm := read(t, filepath.Join(out, "_demos/02-beta.wasm"))
	if !strings.HasPrefix(wasm, "\x00asm") {
		t.Errorf("_demos/02-beta.wasm is not WebAssembly: starts %q", wasm[:min(8, len(wasm))])
	}
	if got := read(t, filepath.Join(out, "_demos/02-beta.js")); got != demoJS {
		t.Errorf("_demos/02-beta.js = %q, want the chapter's demo.js", got)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib/wasm/wasm_exec.js"))
	if err != nil {
		want, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "misc/wasm/wasm_exec.js"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(out, "_assets/wasm_exec.js")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("_assets/wasm_exec.js is not the Go distribution's (err %v)", err)
	}

	ch2 := read(t, filepath.Join(out, "chapters/02-beta/index.html"))
	for _, want := range []struct{ name, html string }{
		{"the page allows WebAssembly and nothing more", `content="default-src &#39;none&#39;; script-src &#39;self&#39; &#39;wasm-unsafe-eval&#39;; style-src &#39;self&#39;;`},
		{"the chapter's script, then the loader; the Go runtime's script waits for the start", `<script src="../../_assets/site.js" defer></script>
<script src="../../_demos/02-beta.js" defer></script>
<script src="../../_assets/demo.js" defer></script>`},
		{"the container says how large the demo is", `<section class="demo" id="opslab-demo" aria-label="Demo: the chapter's model, live" data-demo="02-beta" data-bytes="`},
		{"the container names its wasm and the Go runtime's script", ` data-wasm="../../_demos/02-beta.wasm" data-runtime="../../_assets/wasm_exec.js">`},
		{"the static explanation stays", "<div class=\"demo-static\">\n<p>On the course site, the model runs here.</p>\n</div>"},
		{"readers without JavaScript are told", `<noscript><p class="demo-note">`},
	} {
		if !strings.Contains(ch2, want.html) {
			t.Errorf("chapter 2: %s: no %q", want.name, want.html)
		}
	}
	if ch1 := read(t, filepath.Join(out, "chapters/01-alpha/index.html")); strings.Contains(ch1, "wasm") {
		t.Errorf("chapter 1 has no demo but its page mentions wasm: its policy must stay the strict one")
	}
	checkPages(t, out)
	checkWeights(t, out)

	// The same inputs: the demo comes from the cache.
	st, err = Build(Config{Root: repo, Out: out, DemoCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Demos[0].Cached {
		t.Errorf("second build of the same demo: not taken from the cache")
	}
	// A changed source is compiled again, and the old build is dropped.
	edit(t, filepath.Join(repo, "chapters/02-beta/demo/main.go"), "42", "43")
	st, err = Build(Config{Root: repo, Out: out, DemoCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if st.Demos[0].Cached {
		t.Errorf("a changed demo was taken from the cache")
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "02-beta-*.wasm")); len(m) != 1 {
		t.Errorf("the cache holds %d builds of 02-beta, want only the latest", len(m))
	}
	// So is a demo whose model changed; a change to the model's tests is not
	// a change to the demo.
	appendTo(t, filepath.Join(repo, "chapters/01-alpha/model_test.go"), "\n// A comment.\n")
	if st, err = Build(Config{Root: repo, Out: out, DemoCache: cache}); err != nil || !st.Demos[0].Cached {
		t.Errorf("after a change to the model's tests: err %v, cached %v; want the cached demo", err, st != nil && st.Demos[0].Cached)
	}
	appendTo(t, filepath.Join(repo, "chapters/01-alpha/model.go"), "\n// Spare is new.\nfunc Spare() {}\n")
	if st, err = Build(Config{Root: repo, Out: out, DemoCache: cache}); err != nil || st.Demos[0].Cached {
		t.Errorf("after a change to the model: err %v, cached %v; want the demo compiled again", err, st != nil && st.Demos[0].Cached)
	}
}

func TestDemoProblems(t *testing.T) {
	ch2 := "chapters/02-beta/README.md"
	tests := []struct {
		name, reason string
		breakIt      func(t *testing.T, repo string)
		want         string
	}{
		{
			name:   "does not compile",
			reason: "a demo that no longer builds against its model fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "chapters/02-beta/demo/main.go"), "select {}", "undefinedCall()")
			},
			want: "chapters/02-beta/demo:0: the demo does not build (GOOS=js GOARCH=wasm go build ./chapters/02-beta/demo):",
		},
		{
			name:   "model changed under the demo",
			reason: "a model change that breaks the demo fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "chapters/01-alpha/model.go"), "func Evict(", "func EvictPod(")
				// The prose quotes Evict: keep the quote true, so that only the demo breaks.
				edit(t, filepath.Join(repo, "chapters/01-alpha/README.md"), "<!-- quote model.go#Evict -->", "")
			},
			want: "chapters/02-beta/demo:0: the demo does not build (GOOS=js GOARCH=wasm go build ./chapters/02-beta/demo):",
		},
		{
			name:    "not placed",
			reason:  "a chapter with a demo must say where it goes",
			breakIt: func(t *testing.T, repo string) { edit(t, filepath.Join(repo, ch2), demoMarker, "\n") },
			want:    ch2 + ":1: chapters/02-beta/demo is not placed: put <!-- demo -->, a short static explanation and <!-- /demo --> where the demo belongs",
		},
		{
			name:    "no Go files",
			reason:  "a marker needs the demo's main package",
			breakIt: func(t *testing.T, repo string) { os.Remove(filepath.Join(repo, "chapters/02-beta/demo/main.go")) },
			want:    ch2 + ":10: a demo marker, but chapters/02-beta/demo holds no Go files: the demo is its package main",
		},
		{
			name:    "no script",
			reason:  "the demo's script draws it",
			breakIt: func(t *testing.T, repo string) { os.Remove(filepath.Join(repo, "chapters/02-beta/demo/demo.js")) },
			want:    "chapters/02-beta/demo:0: no demo.js",
		},
		{
			name:    "never closed",
			reason:  "the static explanation must end",
			breakIt: func(t *testing.T, repo string) { edit(t, filepath.Join(repo, ch2), "<!-- /demo -->", "") },
			want:    ch2 + ":10: <!-- demo --> is never closed: end the static explanation with <!-- /demo -->",
		},
		{
			name:   "no static explanation",
			reason: "readers without JavaScript need the text",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, ch2), "On the course site, the model runs here.\n", "")
			},
			want: ch2 + ":10: the demo has no static explanation",
		},
		{
			name:   "outside a chapter",
			reason: "only a chapter places a demo",
			breakIt: func(t *testing.T, repo string) {
				appendTo(t, filepath.Join(repo, "CONTRIBUTING.md"), demoMarker)
			},
			want: "CONTRIBUTING.md:5: a demo marker outside a chapter's README",
		},
		{
			name:    "two demos",
			reason:  "a chapter has one demo",
			breakIt: func(t *testing.T, repo string) { appendTo(t, filepath.Join(repo, ch2), demoMarker) },
			want:    ch2 + ":14: a second <!-- demo -->: a chapter has one demo",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := copyRepo(t)
			addDemo(t, repo)
			tc.breakIt(t, repo)
			_, err := Build(Config{Root: repo, Out: filepath.Join(t.TempDir(), "out"), DemoCache: t.TempDir()})
			var be *BuildError
			if !errors.As(err, &be) {
				t.Fatalf("Build = %v, want a BuildError (%s)", err, tc.reason)
			}
			if !strings.Contains(be.Error(), tc.want) {
				t.Errorf("Build problems:\n%v\nwant one starting %q (%s)", be, tc.want, tc.reason)
			}
		})
	}
}
