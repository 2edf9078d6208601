package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/opslab/opslab/internal/figure"
	"github.com/opslab/opslab/internal/prose"
	"github.com/opslab/opslab/labcheck/version"
)

//go:embed templates assets
var embedded embed.FS

var templates = template.Must(template.ParseFS(embedded, "templates/*.html"))

// CSP is the Content-Security-Policy of every page: nothing but the site's
// own scripts, styles, images and search index; no inline script or style.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'"

// DemoCSP is the policy of a page that places a demo: CSP, and WebAssembly
// compiled from the site's own wasm ('wasm-unsafe-eval' allows that and no
// JavaScript eval).
const DemoCSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'"

// assetFiles returns the static files every page uses, by output path,
// read and minified once; the map and its bytes are not to be changed.
var assetFiles = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	fs.WalkDir(embedded, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := embedded.ReadFile(p)
			switch path.Ext(p) {
			case ".css":
				data = minifyCSS(data)
			case ".js":
				data = minifyJS(data)
			}
			out["_assets/"+strings.TrimPrefix(p, "assets/")] = data
		}
		return nil
	})
	// The figures' palettes: an inlined figure loses its own <style> (the
	// CSP allows no inline style), so the site's style sheet carries it.
	css := out["_assets/site.css"]
	out["_assets/site.css"] = append(css[:len(css):len(css)], minifyCSS([]byte(figure.StyleSheet))...)
	return out
})

// defaultIndex stands in for a missing README.md.
const defaultIndex = `# opslab: who decides when a Pod goes away

A course on Kubernetes operations: the mechanisms that remove, delay or refuse work in a cluster.
`

type navLink struct {
	Title, URL string
	Current    bool
}

type chapterItem struct {
	Title, URL, Summary string
}

type layoutData struct {
	Lang, Title, Root, CSP string
	Description            string // one sentence, for search engines' results
	Body                   template.HTML
	Nav                    []navLink
	TOC                    []prose.Heading
	InNav, IsIndex         bool
	Prev, Next             *navLink
	Results                bool
	Scripts                []string // besides the site's own, deferred, in order
	Licenses               string   // the licences page's URL, "" for none
	Course, Kubernetes     string   // the footer's versions: version.Course and version.Kubernetes
	Upstream               *upstreamCheck
}

// upstreamCheck is what the footer says of UPSTREAM.md, the drift report
// make bump-kubernetes writes: the release and the day it checked the
// course against, and the report's page.
type upstreamCheck struct{ Release, Date, URL string }

var upstreamCheckRE = regexp.MustCompile(`(?m)^Checked against Kubernetes (v[0-9.]+) .*? on ([0-9]{4}-[0-9]{2}-[0-9]{2})`)

// readUpstreamCheck reads the drift report's first line of substance; nil
// when the repository has none.
func (b *builder) readUpstreamCheck() *upstreamCheck {
	src, err := os.ReadFile(b.abs("UPSTREAM.md"))
	if err != nil {
		return nil
	}
	m := upstreamCheckRE.FindSubmatch(src)
	if m == nil {
		return nil
	}
	return &upstreamCheck{Release: string(m[1]), Date: string(m[2])}
}

// layout wraps a page body in the site's layout.
func (b *builder) layout(out, title, description string, body template.HTML, toc []prose.Heading, dm *demo) ([]byte, error) {
	d := layoutData{Lang: "en", Title: title, Description: description, Root: rootURL(out), CSP: CSP, Body: body, TOC: toc, IsIndex: out == "index.html", Results: b.results != nil,
		Course: version.Course, Kubernetes: version.Kubernetes}
	if b.licenses {
		d.Licenses = relURL(out, licensesOut)
	}
	if b.upstream != nil {
		c := *b.upstream
		c.URL = relURL(out, "UPSTREAM.html")
		d.Upstream = &c
	}
	if dm != nil {
		d.CSP = DemoCSP
		// The chapter's script registers how to draw the demo before the
		// site's loader looks for it. The Go runtime's wasm_exec.js is not
		// among them: the loader fetches it when the reader starts the demo.
		d.Scripts = []string{relURL(out, dm.uiOut()), relURL(out, "_assets/demo.js")}
	}
	// A page with claim marks loads the script that opens their evidence;
	// the others do not pay for it.
	if strings.Contains(string(body), `class="footnote-ref claim-mark"`) {
		d.Scripts = append(d.Scripts, relURL(out, "_assets/claims.js"))
	}
	if hasCJK(title) {
		d.Lang = "ja"
	}
	seq := []*page{b.pages[0]}
	for _, p := range b.pages {
		if p.chapter {
			seq = append(seq, p)
			d.Nav = append(d.Nav, navLink{Title: p.title, URL: relURL(out, p.out), Current: p.out == out})
			d.InNav = d.InNav || p.out == out
		}
	}
	for i, p := range seq {
		if p.out != out {
			continue
		}
		if i > 0 {
			d.Prev = &navLink{Title: seq[i-1].title, URL: relURL(out, seq[i-1].out)}
		}
		if i+1 < len(seq) {
			d.Next = &navLink{Title: seq[i+1].title, URL: relURL(out, seq[i+1].out)}
		}
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "page.html", d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}

// layoutAll wraps every Markdown page in the layout.
func (b *builder) layoutAll() error {
	for _, p := range b.pages {
		var toc []prose.Heading
		for _, h := range p.headings {
			if h.Level == 2 || h.Level == 3 {
				toc = append(toc, h)
			}
		}
		out, err := b.layout(p.out, p.title, p.summary, p.body, toc, p.demo)
		if err != nil {
			return err
		}
		p.body = template.HTML(out)
	}
	return nil
}

// indexPage builds the index: the README's opening (what the course is),
// how to set up, and the chapters with one line each. The README itself is
// rendered in full as readme.html.
func (b *builder) indexPage(index *page) error {
	readme := b.bySrc["README.md"]
	if readme == nil {
		readme = b.addPage(&page{src: "", out: "readme.html"})
		if err := b.load(readme); err != nil {
			return err
		}
	}
	if readme.src != "" {
		src := string(readme.doc.Source)
		for _, cmd := range []string{"make start", "make test"} {
			if !strings.Contains(src, cmd) {
				b.problem("README.md", 1, "the README no longer mentions %s, which the index page tells readers to run", cmd)
			}
		}
	}
	if err := b.render(readme); err != nil {
		return err
	}
	body := string(readme.body)
	intro := body
	if i := strings.Index(intro, "</h1>"); i >= 0 {
		intro = intro[i+len("</h1>"):]
	}
	if i := strings.Index(intro, "<h2"); i >= 0 {
		intro = intro[:i]
	}
	index.title = readme.title
	index.summary = readme.summary
	ids := prose.NewIDs()
	d := struct {
		Title, TitleID, SetupID, ChaptersID, ReadmeURL string
		Intro                                          template.HTML
		Chapters                                       []chapterItem
	}{
		Title: readme.title, TitleID: ids.Unique(prose.Slug(readme.title)),
		SetupID: ids.Unique("set-up"), ChaptersID: ids.Unique("the-chapters"),
		ReadmeURL: "readme.html", Intro: template.HTML(intro),
	}
	for _, p := range b.pages {
		if p.chapter {
			d.Chapters = append(d.Chapters, chapterItem{Title: p.title, URL: p.out, Summary: p.summary})
		}
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "index.html", d); err != nil {
		return err
	}
	index.body = template.HTML(buf.String())
	index.headings = []prose.Heading{{Level: 2, Text: "Set up", ID: d.SetupID}, {Level: 2, Text: "The chapters", ID: d.ChaptersID}}
	var text []string
	for _, c := range d.Chapters {
		text = append(text, c.Title, c.Summary)
	}
	index.sections = []section{{title: readme.title, text: strings.Join(text, " ")}}
	return nil
}

type entry struct{ Title, URL string }

// extras writes the source pages, directory listings and copied files the
// pages link to.
func (b *builder) extras() error {
	for {
		var dirs []string
		for d := range b.dirs {
			dirs = append(dirs, d)
		}
		slices.Sort(dirs)
		done := true
		for _, d := range dirs {
			if _, ok := b.files[dirOut(d)]; ok {
				continue
			}
			done = false
			if err := b.listing(d); err != nil {
				return err
			}
		}
		if done {
			break
		}
	}
	for f := range b.sources {
		if err := b.sourcePage(f); err != nil {
			return err
		}
	}
	for f := range b.copies {
		data, err := os.ReadFile(b.abs(f))
		if err != nil {
			return err
		}
		b.files[f] = data
	}
	return nil
}

// up returns the page a file or directory belongs to: the nearest
// directory above it with a Markdown page.
func (b *builder) up(p string) *entry {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if pg := b.bySrc[path.Join(d, "README.md")]; pg != nil {
			return &entry{Title: pg.title, URL: pg.out}
		}
		if d == "." || d == "/" {
			return nil
		}
	}
}

func (b *builder) listing(dir string) error {
	out := dirOut(dir)
	ents, err := os.ReadDir(b.abs(dir))
	if err != nil {
		return err
	}
	data := struct {
		Path    string
		Up      *entry
		Entries []entry
		Code    template.HTML
		Lang    string
	}{Path: dir + "/", Up: b.up(dir)}
	if data.Up != nil {
		data.Up.URL = relURL(out, data.Up.URL)
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := path.Join(dir, name)
		var target string
		switch {
		case e.IsDir():
			if pg := b.bySrc[path.Join(p, "README.md")]; pg != nil {
				target = pg.out
			} else {
				b.dirs[p] = true
				target = dirOut(p)
			}
			name += "/"
		case b.bySrc[p] != nil:
			target = b.bySrc[p].out
		case imageExt[strings.ToLower(path.Ext(p))]:
			b.copies[p] = true
			target = p
		default:
			b.sources[p] = true
			target = p + ".html"
		}
		data.Entries = append(data.Entries, entry{Title: name, URL: relURL(out, target)})
	}
	var body bytes.Buffer
	if err := templates.ExecuteTemplate(&body, "source.html", data); err != nil {
		return err
	}
	page, err := b.layout(out, dir+"/", "The files of "+dir+"/ in the opslab course.", template.HTML(body.String()), nil, nil)
	if err != nil {
		return err
	}
	b.files[out] = page
	return nil
}

func (b *builder) sourcePage(file string) error {
	out := file + ".html"
	src, err := b.checker.ReadFile(b.abs(file)) // read once, for the checks too
	if err != nil {
		return err
	}
	lang := prose.Lang(file)
	lexer := lexerFor(lang)
	if bytes.IndexByte(src, 0) >= 0 {
		src = []byte(fmt.Sprintf("(a binary file of %d bytes)\n", len(src)))
		lexer = lexers.Fallback
	}
	var page []byte
	// A file too large to colour within a page's budget is shown plain.
	var tokens []chroma.Token
	if lang == "go" && lexer != lexers.Fallback {
		tokens = goTokens(string(src))
	} else {
		it, err := chroma.Coalesce(lexer).Tokenise(nil, string(src))
		if err != nil {
			return fmt.Errorf("highlighting %s: %w", file, err)
		}
		tokens = it.Tokens()
	}
	for _, plain := range []bool{false, true} {
		data := struct {
			Path    string
			Up      *entry
			Entries []entry
			Code    template.HTML
			Lang    string
		}{Path: file, Up: b.up(file), Code: template.HTML(formatSource(tokens, plain)), Lang: lang}
		if data.Up != nil {
			data.Up.URL = relURL(out, data.Up.URL)
		}
		var body bytes.Buffer
		if err := templates.ExecuteTemplate(&body, "source.html", data); err != nil {
			return err
		}
		if page, err = b.layout(out, path.Base(file), "The source of "+file+" in the opslab course.", template.HTML(body.String()), nil, nil); err != nil {
			return err
		}
		if len(page)+assetBytes() <= PageBudget {
			break
		}
	}
	b.files[out] = page
	return nil
}

// lexerFor returns the lexer of a fence language (see prose.Lang); text
// and unknown languages get the plain-text lexer. Looking lexers up by
// language, not by matching file names against every lexer's patterns,
// keeps the build fast.
func lexerFor(lang string) chroma.Lexer {
	if lang == "sh" {
		lang = "bash"
	}
	if l := lexers.Get(lang); l != nil && lang != "text" {
		return l
	}
	return lexers.Fallback
}

// assetBytes is the weight of the CSS and scripts every page loads, every
// asset counted: what a source page's layout allows for them.
var assetBytes = sync.OnceValue(func() int {
	n := 0
	for _, data := range assetFiles() {
		n += len(data)
	}
	return n
})
