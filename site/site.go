// Package site renders the course as a static web site and refuses to
// render one that is not true to its code.
//
// # Pages
//
// The index page is the repository's README.md followed by the list of
// chapters, each with the first sentence of its README. Every
// chapters/*/README.md is a page, and so is any other Markdown file a page
// links to. Each page is written where its source lies, so the links the
// prose makes on a Git host work on the site too: chapters/01-pdb/README.md
// becomes chapters/01-pdb/index.html. A link to a source file becomes a link
// to a page that shows it highlighted, with line anchors (#L10); a link to a
// directory, a page listing it; an image is copied.
//
// # Checks
//
// Build runs the checks of package prose on every page: a stale or missing
// quote, a proof naming a test that does not exist and a broken link or
// anchor each fail the build, named by file and line. Given the results of
// a go test -json run (or several files, comma-separated), every proof
// becomes a badge with its result, and a proof whose test failed, was
// skipped or did not run fails the build. One exception: a test behind a
// build tag (an end-to-end test, which needs a cluster) may have no result,
// and its badge says it is an end-to-end test; a result it has counts.
//
// Every page, as written, with its badges, its chapter's track and its
// inlined figures, must weigh at most PageBudget (150 KB) together with the
// style sheet, scripts, icon and images it loads; a heavier page fails the
// build. The site's style sheet and scripts are served without their
// comments and indentation (the repository keeps them commented).
//
// # Rendering
//
// Markdown is parsed once, by package prose, and the site renders the tree
// the checks read, with the same goldmark configuration (prose.Markdown:
// GitHub's extensions and footnotes), adding only renderers. Heading IDs are
// GitHub's (each with a permalink); code is highlighted by chroma with CSS
// classes. Raw HTML is escaped, except for the tags in an
// allow-list (<details>, <summary>) and comments, which are dropped (quote
// markers among them). Pages carry a Content-Security-Policy that allows
// nothing from outside the site, and no inline script or style.
//
// # Claims
//
// A chapter's claim marker, a footnote reference [^id] whose id is the
// claim of a plant in the chapter's plants directory (see package proof),
// is drawn as a mark in the margin. Without JavaScript it is the
// footnote's link, as on a Git host; with it, claims.js makes it a button
// that opens a popover: the claim's counterfactual in one line ("if X,
// TestY fails"), its tests with their results, linked to their source, and
// the upstream line it follows. The popovers' content is claims.json
// beside the page, fetched when a reader first opens one, so a page weighs
// no more for its claims than its marks and the script; only pages with
// marks load the script. Given results, a claim's test that failed or did
// not run fails the build, as a proof link's does.
//
// # Demos
//
// A chapter may have an interactive demo: a main package in its demo
// directory that calls the chapter's model, built with GOOS=js GOARCH=wasm,
// and demo.js beside it, which draws the demo from what the model returns.
// The chapter's README places it with two comments around a short static
// explanation, which a Git host shows as it is:
//
//	<!-- demo -->
//	On the course site, this chapter's model runs here: ...
//	<!-- /demo -->
//
// The site keeps the explanation, for readers without JavaScript, and adds
// the demo's container; the reader starts the demo with a button, and only
// then is the wasm fetched. Build compiles every demo, so a model change
// that breaks a demo fails the build; compiled demos are kept under
// .cache/demos by a hash of their inputs (the Go version, the flags, every
// source file of the repository's packages they import and the versions of
// the modules they import). wasm_exec.js comes from the Go distribution
// that compiled them. A page with a demo allows WebAssembly in its policy
// ('wasm-unsafe-eval', which allows no JavaScript eval); the others do not.
//
// # Licences
//
// A repository with LICENSE, LICENSE-CONTENT and NOTICE at its root gets a
// licences page, licenses/index.html, that shows the three, and every
// page's footer links it. The files the site ships that the course did not
// write (wasm_exec.js, and the compiled demos, which hold the Go runtime)
// are listed in the site's code; its tests fail when NOTICE does not name
// one of them, or a shipped file that carries a copyright line.
//
// # Tracks
//
// Given the chapters' build-along tracks, a chapter's page ends with a
// section, "Build it yourself", that lists its steps: each links the
// section of the page it belongs to, the functions the learner writes (as
// source pages) and the tests that must pass. A step naming a section the
// page does not have fails the build.
//
// # Search
//
// Build writes search-index.json, which the pages' script fetches on first
// use. It maps terms to page sections: words for scripts that separate
// words with spaces, and character bigrams for Chinese and Japanese text,
// which does not (see Terms).
package site

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/opslab/opslab/internal/learn"
	"github.com/opslab/opslab/internal/prose"
)

// Config says what to build.
type Config struct {
	Root    string // the repository: README.md, chapters/*/README.md, go.mod
	Out     string // the output directory
	Results string // go test -json output files, comma-separated, or "" to build without results
	// DemoCache keeps compiled demos by the hash of their inputs; ""
	// means .cache/demos under Root.
	DemoCache string
	// DemosLater builds the pages without compiling the demos: a page's
	// demo shows its static explanation and says the demo is still being
	// built. make start serves such a build at once, so a learner reads
	// while the demos and the lab cluster are compiled, then builds again
	// with the demos.
	DemosLater bool
	// Tracks are the chapters' build-along tracks (chapters.Tracks): each
	// chapter's page ends with its steps, linked to the sections they
	// belong to and to the functions the learner writes.
	Tracks []learn.Track
}

// A BuildError lists every problem that stopped a build.
type BuildError struct{ Problems []prose.Problem }

func (e *BuildError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Stats describes a finished build.
type Stats struct {
	Pages   []string // output paths of the Markdown pages, index first
	Files   int      // files written, assets included
	Proofs  int
	Results bool // whether proofs were matched with results
	Demos   []DemoStat
}

// outMarker is the file that marks a directory as one Build wrote, so that
// Build never deletes a directory it did not make.
const outMarker = ".opslab-site"

// Build renders the site from cfg.Root into cfg.Out. The site is built in a
// sibling directory and moved into place only when the build succeeds; a
// failed build leaves the previous site untouched and returns a *BuildError
// naming every problem.
func Build(cfg Config) (*Stats, error) {
	if cfg.Out == "" {
		return nil, errors.New("no output directory given")
	}
	if err := checkOut(cfg.Out); err != nil {
		return nil, err
	}
	b, err := newBuilder(cfg)
	if err != nil {
		return nil, err
	}
	if err := b.run(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(cfg.Out)), "."+filepath.Base(cfg.Out)+".build-")
	if err != nil {
		return nil, err
	}
	if err := b.write(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.RemoveAll(cfg.Out); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, cfg.Out); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return b.stats, nil
}

// checkOut refuses an output directory that holds files Build did not write.
func checkOut(out string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(out, outMarker)); err != nil {
		return fmt.Errorf("output directory %s holds files the site did not write; give an empty or new directory", out)
	}
	return nil
}

// A page is one HTML file of the site.
type page struct {
	src      string // slash path of its Markdown source in the repository, "" for none
	out      string // slash path of the output file
	title    string
	summary  string // one line: the page's description, and a chapter's line on the index
	chapter  bool
	doc      *prose.Doc
	tree     ast.Node
	body     template.HTML
	headings []prose.Heading
	sections []section // for search
	demo     *demo     // the demo the page places, if any
}

// builder holds the state of one build.
type builder struct {
	cfg      Config
	modPath  string
	results  results // nil without a results file
	pages    []*page
	bySrc    map[string]*page
	files    map[string][]byte // output path -> content, besides pages
	links    map[string]string // output path -> a file put there as it is (compiled demos)
	sources  map[string]bool   // repo paths of files shown as source pages
	dirs     map[string]bool   // repo paths of directories shown as listings
	copies   map[string]bool   // repo paths of files copied as they are
	checker  *prose.Checker    // reads each test file once, for the checks and the badges
	demos    []*demo
	licenses bool           // whether the repository has its licence files, and the site a licences page
	upstream *upstreamCheck // what UPSTREAM.md says it checked, nil without one
	problems []prose.Problem
	stats    *Stats
}

func newBuilder(cfg Config) (*builder, error) {
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	b := &builder{
		cfg:     cfg,
		bySrc:   map[string]*page{},
		files:   map[string][]byte{},
		links:   map[string]string{},
		sources: map[string]bool{},
		dirs:    map[string]bool{},
		copies:  map[string]bool{},
		checker: prose.NewChecker(),
		stats:   &Stats{},
	}
	b.modPath, err = modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	if cfg.Results != "" {
		if b.results, err = readResults(cfg.Results); err != nil {
			return nil, err
		}
		b.stats.Results = true
	}
	return b, nil
}

func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("reading the module path: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", gomod)
}

// abs returns the file-system path of a repository path.
func (b *builder) abs(p string) string { return filepath.Join(b.cfg.Root, filepath.FromSlash(p)) }

func (b *builder) problem(file string, line int, format string, args ...any) {
	b.problems = append(b.problems, prose.Problem{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// run reads, checks and renders every page, in memory.
func (b *builder) run() error {
	chapters, err := filepath.Glob(b.abs("chapters/*/README.md"))
	if err != nil {
		return err
	}
	slices.Sort(chapters)
	b.licenses = b.hasLicenses()
	b.upstream = b.readUpstreamCheck()
	index := b.addPage(&page{out: "index.html"})
	if _, err := os.Stat(b.abs("README.md")); err == nil {
		b.addPage(&page{src: "README.md"})
	}
	for _, c := range chapters {
		rel, _ := filepath.Rel(b.cfg.Root, c)
		b.addPage(&page{src: filepath.ToSlash(rel), chapter: true})
	}
	for _, p := range b.pages[1:] {
		if err := b.load(p); err != nil {
			return err
		}
	}
	if err := b.indexPage(index); err != nil {
		return err
	}
	// Rendering adds the pages of linked Markdown files: range by index.
	for i := 1; i < len(b.pages); i++ {
		p := b.pages[i]
		if p.doc == nil {
			if err := b.load(p); err != nil {
				return err
			}
		}
		if p.body == "" {
			if err := b.render(p); err != nil {
				return err
			}
		}
	}
	if len(b.problems) == 0 && !b.cfg.DemosLater {
		// A demo that no longer builds against its chapter's model fails
		// the build like a stale quote.
		if err := b.buildDemos(); err != nil {
			return err
		}
	}
	if err := b.failed(); err != nil {
		return err
	}
	if err := b.extras(); err != nil {
		return err
	}
	if err := b.layoutAll(); err != nil {
		return err
	}
	if b.licenses {
		if err := b.licensesPage(); err != nil {
			return err
		}
	}
	idx, err := json.Marshal(b.searchIndex())
	if err != nil {
		return err
	}
	b.files["search-index.json"] = idx
	for name, data := range assetFiles() {
		b.files[name] = data
	}
	b.files[outMarker] = []byte("written by the opslab site builder; removed and rewritten on every build\n")
	b.checkWeights()
	return b.failed()
}

// failed returns the problems found so far as a BuildError, in the order
// of their files and lines, or nil.
func (b *builder) failed() error {
	if len(b.problems) == 0 {
		return nil
	}
	slices.SortStableFunc(b.problems, func(x, y prose.Problem) int {
		return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
	return &BuildError{Problems: b.problems}
}

// addPage registers a Markdown page; its output path follows its source.
func (b *builder) addPage(p *page) *page {
	if p.out == "" {
		switch dir, base := path.Split(p.src); {
		case p.src == "README.md":
			p.out = "readme.html" // index.html is the course's index
		case base == "README.md":
			p.out = dir + "index.html"
		default:
			p.out = strings.TrimSuffix(p.src, ".md") + ".html"
		}
	}
	b.pages = append(b.pages, p)
	if p.src != "" {
		b.bySrc[p.src] = p
	}
	return p
}

// load parses a page's Markdown and runs the checks of package prose.
func (b *builder) load(p *page) error {
	if p.src == "" {
		p.doc, p.tree = prose.ParseTree(b.abs("README.md"), []byte(defaultIndex))
	} else {
		src, err := b.checker.ReadFile(b.abs(p.src))
		if err != nil {
			return err
		}
		p.doc, p.tree = prose.ParseTree(b.abs(p.src), src)
	}
	for _, pr := range b.checker.Check(p.doc) {
		b.problem(p.srcName(), pr.Line, "%s", pr.Msg)
	}
	p.headings = p.doc.Headings
	for _, h := range p.doc.Headings {
		if h.Level == 1 {
			p.title = h.Text
			break
		}
	}
	if p.title == "" {
		p.title = strings.TrimSuffix(path.Base(p.src), ".md")
	}
	// Every page's first sentence is its description for search engines;
	// a chapter's also lists it on the index.
	p.summary = firstSentence(p.tree, p.doc.Source)
	if p.chapter && p.summary == "" {
		b.problem(p.src, 1, "the chapter has no first paragraph to list it by on the index")
	}
	return nil
}

func (p *page) srcName() string {
	if p.src == "" {
		return "README.md (built-in)"
	}
	return p.src
}

// firstSentence returns the first sentence of the document's first
// paragraph, as plain text.
func firstSentence(tree ast.Node, src []byte) string {
	for n := tree.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != ast.KindParagraph {
			continue
		}
		t := strings.Join(strings.Fields(prose.PlainText(n, src)), " ")
		for _, end := range []string{". ", "。"} {
			if i := strings.Index(t, end); i >= 0 {
				return t[:i+len(strings.TrimSpace(end))]
			}
		}
		return t
	}
	return ""
}

// write writes the built site into dir.
func (b *builder) write(dir string) error {
	for _, p := range b.pages {
		b.files[p.out] = []byte(p.body)
	}
	names := make([]string, 0, len(b.files))
	for name := range b.files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, b.files[name], 0o644); err != nil {
			return err
		}
	}
	for name, src := range b.links {
		f := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := linkOrCopy(src, f); err != nil {
			return err
		}
	}
	b.stats.Files = len(names) + len(b.links)
	for _, p := range b.pages {
		b.stats.Pages = append(b.stats.Pages, p.out)
	}
	return nil
}

// relURL returns the URL of output path to, relative to the page at from.
func relURL(from, to string) string {
	fromDir := path.Dir(from)
	if fromDir == "." {
		return to
	}
	// Drop the common directories, then climb out of the rest of from's.
	fp := strings.Split(fromDir, "/")
	tp := strings.Split(to, "/")
	i := 0
	for i < len(fp) && i < len(tp)-1 && fp[i] == tp[i] {
		i++
	}
	return strings.Repeat("../", len(fp)-i) + strings.Join(tp[i:], "/")
}

// rootURL returns the relative URL of the site's root from the page at from.
func rootURL(from string) string {
	n := strings.Count(from, "/")
	if n == 0 {
		return "./"
	}
	return strings.Repeat("../", n)
}
