package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Demo markers. A chapter places its demo with a pair of comments around a
// short static explanation, which a Git host shows as it is and the site
// shows when JavaScript is off:
//
//	<!-- demo -->
//	On the course site, the model of this chapter runs here: ...
//	<!-- /demo -->
const (
	demoOpen  = "<!-- demo -->"
	demoClose = "<!-- /demo -->"
)

// demoFlags are the flags every demo is compiled with: no symbol table, no
// DWARF and no file system paths, for the smallest wasm the standard
// toolchain makes.
var demoFlags = []string{"-trimpath", "-ldflags=-s -w"}

// A demo is a chapter's interactive demo: a main package in the chapter's
// demo directory, compiled to WebAssembly, and the script that draws it.
type demo struct {
	name string // the chapter's directory name, "01-pdb"
	dir  string // its repository path, "chapters/01-pdb/demo"
	page *page
	line int    // of the opening marker
	wasm string // the compiled demo in the cache
	ui   []byte
}

func (d *demo) wasmOut() string { return "_demos/" + d.name + ".wasm" }
func (d *demo) uiOut() string   { return "_demos/" + d.name + ".js" }

// DemoStat describes a compiled demo.
type DemoStat struct {
	Name   string // the chapter's directory name
	Bytes  int    // the size of its wasm
	Cached bool   // whether it came from the cache rather than the compiler
}

// demoBlock stands for a demo marker in the tree: the opening one renders
// the demo's container, the closing one ends it.
type demoBlock struct {
	gast.BaseBlock
	open    bool
	d       *demo
	out     string // the page's output path
	pending bool   // the demo is not compiled yet (Config.DemosLater)
}

var kindDemo = gast.NewNodeKind("Demo")

func (n *demoBlock) Kind() gast.NodeKind           { return kindDemo }
func (n *demoBlock) Dump(source []byte, level int) { gast.DumpHelper(n, source, level, nil, nil) }

func (r *nodeRenderer) demo(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	d := n.(*demoBlock)
	if d.pending {
		// Without data-wasm, demo.js leaves the section alone.
		if d.open {
			w.WriteString(`<section class="demo" id="opslab-demo" aria-label="Demo: the chapter's model, still being built">` + "\n" + `<p class="demo-note" role="status">The demo is still being built (make start compiles it after the course is served); reload this page in a minute or two to run it. Meanwhile, the text below says what it shows.</p>` + "\n" + `<div class="demo-static">` + "\n")
		} else {
			w.WriteString("</div>\n</section>\n")
		}
		return gast.WalkContinue, nil
	}
	if d.open {
		fmt.Fprintf(w, `<section class="demo" id="opslab-demo" aria-label="Demo: the chapter's model, live" data-demo="%s" data-wasm="%s" data-runtime="%s">`+"\n"+`<div class="demo-static">`+"\n",
			html.EscapeString(d.d.name), html.EscapeString(relURL(d.out, d.d.wasmOut())), html.EscapeString(relURL(d.out, wasmExecOut)))
		return gast.WalkContinue, nil
	}
	w.WriteString("</div>\n<noscript><p class=\"demo-note\">The demo runs the chapter's Go model in the browser, as WebAssembly, and needs JavaScript. The text above says what it shows.</p></noscript>\n</section>\n")
	return gast.WalkContinue, nil
}

var _ renderer.NodeRenderer = (*nodeRenderer)(nil)

// htmlText returns the raw text of an HTML block.
func htmlText(h *gast.HTMLBlock, src []byte) string {
	var raw []byte
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		raw = append(raw, seg.Value(src)...)
	}
	if h.HasClosure() {
		raw = append(raw, h.ClosureLine.Value(src)...)
	}
	return strings.TrimSpace(string(raw))
}

// placeDemo finds a page's demo markers and replaces them with the demo's
// container. A chapter may place one demo, its own.
func (b *builder) placeDemo(p *page) {
	var open *gast.HTMLBlock
	var openLine int
	for n := p.tree.FirstChild(); n != nil; {
		next := n.NextSibling()
		h, ok := n.(*gast.HTMLBlock)
		if !ok {
			n = next
			continue
		}
		text := htmlText(h, p.doc.Source)
		line := 0
		if h.Lines().Len() > 0 {
			line = p.doc.LineOf(h.Lines().At(0).Start)
		}
		switch text {
		case demoOpen:
			switch {
			case !p.chapter:
				b.problem(p.srcName(), line, "a demo marker outside a chapter's README: only a chapter places a demo, its own")
			case open != nil || p.demo != nil:
				b.problem(p.srcName(), line, "a second %s: a chapter has one demo", demoOpen)
			default:
				open, openLine = h, line
			}
		case demoClose:
			if open == nil {
				b.problem(p.srcName(), line, "%s without %s before it", demoClose, demoOpen)
				break
			}
			if open.NextSibling() == h {
				b.problem(p.srcName(), openLine, "the demo has no static explanation: write between %s and %s what it shows, for readers without JavaScript", demoOpen, demoClose)
			}
			d := &demo{name: path.Base(path.Dir(p.src)), dir: path.Join(path.Dir(p.src), "demo"), page: p, line: openLine}
			if !hasGoFiles(b.abs(d.dir)) {
				b.problem(p.srcName(), openLine, "a demo marker, but %s holds no Go files: the demo is its package main", d.dir)
			}
			p.demo = d
			b.demos = append(b.demos, d)
			p.tree.ReplaceChild(p.tree, open, &demoBlock{open: true, d: d, out: p.out, pending: b.cfg.DemosLater})
			p.tree.ReplaceChild(p.tree, h, &demoBlock{d: d, out: p.out, pending: b.cfg.DemosLater})
			open = nil
		}
		n = next
	}
	if open != nil {
		b.problem(p.srcName(), openLine, "%s is never closed: end the static explanation with %s", demoOpen, demoClose)
	}
	if p.chapter && p.demo == nil && open == nil {
		if dir := path.Join(path.Dir(p.src), "demo"); hasGoFiles(b.abs(dir)) {
			b.problem(p.srcName(), 1, "%s is not placed: put %s, a short static explanation and %s where the demo belongs", dir, demoOpen, demoClose)
		}
	}
}

func hasGoFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

// buildDemos compiles every placed demo, or takes it from the cache, and
// adds the wasm, the demo's script and the Go distribution's wasm_exec.js
// to the site.
func (b *builder) buildDemos() error {
	if len(b.demos) == 0 {
		return nil
	}
	goEnv, err := b.goCmd("env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return fmt.Errorf("the site compiles the chapters' demos and needs the go command: %v", cmdErr(err))
	}
	env := strings.Fields(string(goEnv))
	if len(env) != 2 {
		return fmt.Errorf("go env GOROOT GOVERSION printed %q", goEnv)
	}
	goroot, version := env[0], env[1]
	var execJS []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if execJS, err = os.ReadFile(filepath.Join(goroot, filepath.FromSlash(p))); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("no wasm_exec.js in the Go distribution at %s (looked in lib/wasm and misc/wasm)", goroot)
	}
	cache := b.cfg.DemoCache
	if cache == "" {
		cache = b.abs(".cache/demos")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, d := range b.demos {
		wg.Go(func() {
			stat, err := b.buildDemo(d, cache, version)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				b.problem(d.dir, 0, "%v", err)
				return
			}
			b.stats.Demos = append(b.stats.Demos, stat)
		})
	}
	wg.Wait()
	for _, d := range b.demos {
		if ui, err := os.ReadFile(b.abs(path.Join(d.dir, "demo.js"))); err != nil {
			b.problem(d.dir, 0, "no demo.js: the demo's script, which draws it, lives beside its main package")
		} else {
			d.ui = ui
		}
	}
	if len(b.problems) > 0 {
		return nil
	}
	slices.SortFunc(b.stats.Demos, func(x, y DemoStat) int { return strings.Compare(x.Name, y.Name) })
	b.files[wasmExecOut] = execJS
	size := map[string]int{}
	for _, st := range b.stats.Demos {
		size[st.Name] = st.Bytes
	}
	for _, d := range b.demos {
		b.links[d.wasmOut()] = d.wasm
		b.files[d.uiOut()] = d.ui
		// The start button says how much the reader is about to download.
		attr := fmt.Sprintf(`data-demo="%s"`, html.EscapeString(d.name))
		d.page.body = template.HTML(strings.Replace(string(d.page.body), attr, fmt.Sprintf(`%s data-bytes="%d"`, attr, size[d.name]), 1))
	}
	return nil
}

func (b *builder) goCmd(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = b.cfg.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	return cmd
}

// cmdErr returns what a failed command said, or the error itself.
func cmdErr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return err.Error()
}

// buildDemo returns a demo's wasm from the cache when a build from the same
// inputs is there, and compiles it otherwise.
func (b *builder) buildDemo(d *demo, cache, version string) (DemoStat, error) {
	key, err := b.demoKey(d, version)
	if err != nil {
		return DemoStat{}, err
	}
	stat := DemoStat{Name: d.name}
	file := filepath.Join(cache, d.name+"-"+key+".wasm")
	d.wasm = file
	if fi, err := os.Stat(file); err == nil {
		stat.Bytes, stat.Cached = int(fi.Size()), true
		return stat, nil
	}
	tmp, err := os.CreateTemp(cache, "."+d.name+"-*.wasm")
	if err != nil {
		return stat, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := b.goCmd(append(append([]string{"build"}, demoFlags...), "-o", tmp.Name(), "./"+d.dir)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return stat, fmt.Errorf("the demo does not build (GOOS=js GOARCH=wasm go build ./%s):\n%s", d.dir, strings.TrimSpace(string(out)))
	}
	fi, err := os.Stat(tmp.Name())
	if err != nil {
		return stat, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return stat, err
	}
	// Older builds of this demo are of no further use; a site that links
	// one keeps its copy.
	old, _ := filepath.Glob(filepath.Join(cache, d.name+"-*.wasm"))
	for _, o := range old {
		if o != file {
			os.Remove(o)
		}
	}
	stat.Bytes = int(fi.Size())
	return stat, nil
}

// linkOrCopy puts file src at dst: a hard link when both are on one file
// system, which costs nothing for a demo of megabytes, and a copy otherwise.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// demoKey hashes everything a demo's wasm is built from: the Go version,
// the flags, the module version of every dependency outside the
// repository, and the name and content of every source file of the
// packages inside it.
func (b *builder) demoKey(d *demo, version string) (string, error) {
	const format = `{{if .Standard}}std {{.ImportPath}}{{else if and .Module .Module.Version}}mod {{.Module.Path}}@{{.Module.Version}}{{else}}dir {{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}`
	out, err := b.goCmd("list", "-deps", "-f", format, "./"+d.dir).Output()
	if err != nil {
		return "", fmt.Errorf("listing the demo's packages (go list -deps ./%s): %s", d.dir, cmdErr(err))
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%q\n", version, demoFlags)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rest, ok := strings.CutPrefix(line, "dir ")
		if !ok {
			fmt.Fprintln(h, line)
			continue
		}
		fields := strings.Fields(rest)
		dir := fields[0]
		rel, err := filepath.Rel(b.cfg.Root, dir)
		if err != nil {
			rel = dir
		}
		fmt.Fprintln(h, "dir", filepath.ToSlash(rel))
		for _, f := range fields[1:] {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s %d\n", f, len(data))
			io.Copy(h, bytes.NewReader(data))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}
