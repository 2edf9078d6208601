package site

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	gast "github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/opslab/opslab/internal/learn"
	"github.com/opslab/opslab/internal/prose"
)

// markdown renders the trees package prose parsed, with the course's
// Markdown: the site adds only renderers (highlighted code, headings with
// permalinks, badges, demos, raw HTML through the allow-list), so it shows
// the document the checks read.
var markdown = prose.Markdown(renderer.WithNodeRenderers(
	util.Prioritized(highlighting.NewHTMLRenderer(
		highlighting.WithFormatOptions(
			chromahtml.WithClasses(true),
			chromahtml.PreventSurroundingPre(true), // no span per line
			chromahtml.WithPreWrapper(focusablePre{}),
		),
		highlighting.WithWrapperRenderer(codeWrapper),
	), 200),
	util.Prioritized(&nodeRenderer{}, 100),
))

// codeWrapper puts every fenced block in a scrollable region; a block chroma
// did not highlight gets the pre and code elements chroma would have written.
func codeWrapper(w util.BufWriter, c highlighting.CodeBlockContext, entering bool) {
	lang, _ := c.Language()
	if entering {
		fmt.Fprintf(w, `<div class="code" data-lang="%s">`, html.EscapeString(string(lang)))
		if !c.Highlighted() {
			w.WriteString(`<pre class="chroma" tabindex="0"><code>`)
		}
		return
	}
	if !c.Highlighted() {
		w.WriteString("</code></pre>")
	}
	w.WriteString("</div>\n")
}

// focusablePre wraps highlighted code in a pre element that the keyboard
// can reach, so a reader can scroll a wide block without a mouse.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	return `<pre tabindex="0"` + styleAttr + `><code>`
}

func (focusablePre) End(code bool) string { return "</code></pre>" }

// A badge shows a proof's result after its link.
type badge struct {
	gast.BaseInline
	state string // passed, failed, skipped, missing, or "" without results
}

var kindBadge = gast.NewNodeKind("Badge")

func (b *badge) Kind() gast.NodeKind           { return kindBadge }
func (b *badge) Dump(source []byte, level int) { gast.DumpHelper(b, source, level, nil, nil) }

// nodeRenderer renders headings with permalinks, badges, and raw HTML
// through the allow-list.
type nodeRenderer struct{}

func (r *nodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(gast.KindHeading, r.heading)
	reg.Register(gast.KindHTMLBlock, r.htmlBlock)
	reg.Register(gast.KindRawHTML, r.rawHTML)
	reg.Register(kindBadge, r.badge)
	reg.Register(gast.KindCodeBlock, r.codeBlock)
	reg.Register(kindDemo, r.demo)
	reg.Register(kindClaimMark, r.claimMark)
}

// codeBlock renders an indented code block (often an ASCII diagram) as
// fenced plain text is rendered: kept as it is, in a block that scrolls.
func (r *nodeRenderer) codeBlock(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	w.WriteString(`<div class="code"><pre tabindex="0" class="chroma"><code>`)
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		w.WriteString(html.EscapeString(string(seg.Value(src))))
	}
	w.WriteString("</code></pre></div>\n")
	return gast.WalkSkipChildren, nil
}

func (r *nodeRenderer) heading(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	h := n.(*gast.Heading)
	id, _ := h.AttributeString("id")
	idStr, _ := id.(string)
	if entering {
		fmt.Fprintf(w, `<h%d id="%s">`, h.Level, html.EscapeString(idStr))
		return gast.WalkContinue, nil
	}
	fmt.Fprintf(w, `<a class="permalink" href="#%s" aria-hidden="true" tabindex="-1">#</a></h%d>`+"\n", html.EscapeString(idStr), h.Level)
	return gast.WalkContinue, nil
}

func (r *nodeRenderer) badge(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	b := n.(*badge)
	label := map[string]string{"passed": "passed", "failed": "failed", "skipped": "skipped", "missing": "not run", "tagged": "end-to-end", "": "test"}[b.state]
	title := "a test proves this claim"
	switch b.state {
	case "":
	case "tagged":
		title = "an end-to-end test: it needs a cluster and did not run for this build"
	default:
		title = "go test: " + label
	}
	fmt.Fprintf(w, `<span class="badge badge-%s" title="%s">%s</span>`, cmpOr(b.state, "proof"), title, label)
	return gast.WalkContinue, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (r *nodeRenderer) htmlBlock(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	h := n.(*gast.HTMLBlock)
	var raw []byte
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		raw = append(raw, seg.Value(src)...)
	}
	if h.HasClosure() {
		seg := h.ClosureLine
		raw = append(raw, seg.Value(src)...)
	}
	w.WriteString(sanitize(string(raw)))
	return gast.WalkSkipChildren, nil
}

func (r *nodeRenderer) rawHTML(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkSkipChildren, nil
	}
	h := n.(*gast.RawHTML)
	var raw []byte
	for i := 0; i < h.Segments.Len(); i++ {
		seg := h.Segments.At(i)
		raw = append(raw, seg.Value(src)...)
	}
	w.WriteString(sanitize(string(raw)))
	return gast.WalkSkipChildren, nil
}

// allowedTag matches the raw HTML tags passed through: <details>, with at
// most the open attribute, and <summary>.
var allowedTag = regexp.MustCompile(`(?i)^(?:<details(?:\s+open)?\s*>|</details\s*>|<summary\s*>|</summary\s*>)$`)

var tagOrComment = regexp.MustCompile(`(?s)<!--.*?-->|<[^<>]*>`)

// sanitize returns raw HTML with the allowed tags kept, comments dropped and
// everything else escaped, so it shows as text.
func sanitize(raw string) string {
	var b strings.Builder
	last := 0
	for _, m := range tagOrComment.FindAllStringIndex(raw, -1) {
		b.WriteString(html.EscapeString(raw[last:m[0]]))
		tag := raw[m[0]:m[1]]
		switch {
		case strings.HasPrefix(tag, "<!--"):
			// Comments, quote markers among them, are invisible on a Git host too.
		case allowedTag.MatchString(tag):
			b.WriteString(strings.ToLower(strings.Join(strings.Fields(tag), " ")))
		default:
			b.WriteString(html.EscapeString(tag))
		}
		last = m[1]
	}
	b.WriteString(html.EscapeString(raw[last:]))
	return b.String()
}

// imageExt lists the files copied as they are rather than shown as source.
var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true}

// render checks and rewrites a page's links, adds badges and renders it.
func (b *builder) render(p *page) error {
	dir := "."
	if p.src != "" {
		dir = path.Dir(p.src)
	}
	// Heading IDs are GitHub's, as package prose computed them, in order.
	i := 0
	// A table scrolls sideways when it is wider than the page (the
	// stylesheet's overflow-x), so, like a code block, it takes the
	// keyboard's focus: a reader without a mouse can scroll it too.
	gast.Walk(p.tree, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if h, ok := n.(*gast.Heading); ok && entering && i < len(p.doc.Headings) {
			h.SetAttributeString("id", p.doc.Headings[i].ID)
			i++
		}
		if t, ok := n.(*extast.Table); ok && entering {
			t.SetAttributeString("tabindex", "0")
		}
		return gast.WalkContinue, nil
	})
	for _, l := range p.doc.Links {
		if l.File == "" {
			continue
		}
		url, err := b.linkURL(p, path.Join(dir, l.File), l.Fragment, l.Image)
		if errors.Is(err, fs.ErrNotExist) {
			continue // package prose reported it
		}
		if err != nil {
			b.problem(p.srcName(), l.Line, "link to %s: %v", l.Target, err)
			continue
		}
		setDest(l.Node(), url)
	}
	for _, pr := range p.doc.Proofs {
		b.proof(p, dir, pr)
	}
	b.claims(p, dir)
	b.inlineFigures(p, dir)
	b.placeDemo(p)
	var buf bytes.Buffer
	if err := markdown.Renderer().Render(&buf, p.doc.Source, p.tree); err != nil {
		return fmt.Errorf("rendering %s: %w", p.srcName(), err)
	}
	p.body = template.HTML(compactSpans(buf.String()))
	p.sections = sections(p)
	b.trackSection(p)
	return nil
}

// trackID is the ID of a chapter page's track section.
const trackID = "build-it-yourself"

// trackSection appends the chapter's build-along track to its page.
func (b *builder) trackSection(p *page) {
	if !p.chapter {
		return
	}
	dir := path.Dir(p.src)
	var tr *learn.Track
	for i := range b.cfg.Tracks {
		if path.Join("chapters", b.cfg.Tracks[i].Dir) == dir {
			tr = &b.cfg.Tracks[i]
		}
	}
	if tr == nil {
		return
	}
	ids := map[string]bool{}
	for _, h := range p.headings {
		ids[h.ID] = true
	}
	var out strings.Builder
	n := tr.Number()
	fmt.Fprintf(&out, "<h2 id=\"%s\">Build it yourself<a class=\"permalink\" href=\"#%s\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h2>\n", trackID, trackID)
	fmt.Fprintf(&out, "<p>Write this chapter's model yourself, step by step, guided by its tests: <code>make learn-chapter-%d</code> "+
		"creates your workspace under <code>_learn/chapter-%d/</code> and runs the current step's tests every time you save. "+
		"Each step links the section that explains it.</p>\n<ol class=\"track\">\n", n, n)
	for _, st := range tr.Steps {
		if !ids[st.Section] {
			b.problem(p.srcName(), 0, "track step %s: the page has no section #%s", st.ID, st.Section)
		}
		fmt.Fprintf(&out, "<li><a href=\"#%s\">%s</a> <span class=\"track-id\">(%s)</span>: write", template.HTMLEscapeString(st.Section),
			template.HTMLEscapeString(st.Title), template.HTMLEscapeString(st.ID))
		for i, fn := range st.Funcs {
			file, name, _ := strings.Cut(fn, "#")
			url, err := b.linkURL(p, path.Join(dir, file), "", false)
			if err != nil {
				b.problem(p.srcName(), 0, "track step %s: %s: %v", st.ID, fn, err)
				continue
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&out, "%s <a href=\"%s\"><code>%s</code></a>", sep, template.HTMLEscapeString(url), template.HTMLEscapeString(name))
		}
		tests := st.AllTests()
		fmt.Fprintf(&out, "; %d %s to pass", len(tests), map[bool]string{true: "test", false: "tests"}[len(tests) == 1])
		if st.Oracle != "" {
			fmt.Fprintf(&out, ", one of them against Kubernetes' own code (<code>%s</code>)", template.HTMLEscapeString(st.Oracle))
		}
		out.WriteString(".</li>\n")
	}
	out.WriteString("</ol>\n")
	p.body += template.HTML(out.String())
	p.headings = append(p.headings, prose.Heading{Level: 2, Text: "Build it yourself", ID: trackID})
}

// inlineFigures puts each marked figure's SVG in the page in place of its
// image: inlined, a figure follows the theme the reader chose (a rule on
// the page's root, which an <img> cannot see), its text is the page's text
// for screen readers, and it costs no request. Its bytes count towards the
// page's weight. Its own <style> is dropped, as the CSP refuses inline
// style: the site's style sheet carries the same rules (assetFiles). The
// SVG is the course's own, drawn by package figure; one with a script in
// it is refused all the same.
func (b *builder) inlineFigures(p *page, dir string) {
	for _, f := range p.doc.Figures {
		img := f.Image()
		if img == nil {
			continue // package prose reported it
		}
		svg, err := os.ReadFile(b.abs(path.Join(dir, f.File)))
		if err != nil {
			continue // package prose reported it
		}
		if !bytes.HasPrefix(svg, []byte("<svg ")) || bytes.Contains(bytes.ToLower(svg), []byte("<script")) {
			b.problem(p.srcName(), f.Line, "figure %s is not an SVG the course drew: make figures draws it", f.File)
			continue
		}
		if i, j := bytes.Index(svg, []byte("<style>")), bytes.Index(svg, []byte("</style>\n")); i >= 0 && j > i {
			svg = append(svg[:i:i], svg[j+len("</style>\n"):]...)
		}
		s := gast.NewString(bytes.TrimSpace(svg))
		s.SetCode(true) // written as it is
		img.Parent().ReplaceChild(img.Parent(), img, s)
		if par, ok := s.Parent().(*gast.Paragraph); ok {
			par.SetAttributeString("class", "figure")
		}
	}
}

func setDest(n gast.Node, url string) {
	switch n := n.(type) {
	case *gast.Link:
		n.Destination = []byte(url)
	case *gast.Image:
		n.Destination = []byte(url)
	}
}

var lineAnchor = regexp.MustCompile(`^L(\d+)(?:-L\d+)?$`)

// linkURL returns the URL, relative to page p, of repository path target.
func (b *builder) linkURL(p *page, target, frag string, image bool) (string, error) {
	frag0 := frag
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", fmt.Errorf("it leaves the repository, so the site cannot show it")
	}
	fi, err := os.Stat(b.abs(target))
	if err != nil {
		return "", err
	}
	withFrag := func(u string) string {
		if frag != "" {
			return u + "#" + frag
		}
		return u
	}
	switch {
	case fi.IsDir():
		if pg := b.pageFor(path.Join(target, "README.md")); pg != nil {
			return withFrag(relURL(p.out, pg.out)), nil
		}
		b.dirs[target] = true
		return withFrag(relURL(p.out, dirOut(target))), nil
	case strings.HasSuffix(target, ".md"):
		pg := b.pageFor(target)
		return withFrag(relURL(p.out, pg.out)), nil
	case image || imageExt[strings.ToLower(path.Ext(target))]:
		b.copies[target] = true
		return withFrag(relURL(p.out, target)), nil
	}
	b.sources[target] = true
	// Package prose checked the fragment: a line or lines. Source pages
	// have an ID per line; a range goes to its first line.
	frag = ""
	if m := lineAnchor.FindStringSubmatch(frag0); m != nil {
		frag = "L" + m[1]
	}
	return withFrag(relURL(p.out, target+".html")), nil
}

// dirOut is the output path of a directory's listing page.
func dirOut(dir string) string {
	if dir == "." {
		return "files.html"
	}
	return dir + "/index.html"
}

// pageFor returns the page of a Markdown file, adding it if it is new, or
// nil if the file does not exist.
func (b *builder) pageFor(src string) *page {
	if pg := b.bySrc[src]; pg != nil {
		return pg
	}
	if _, err := os.Stat(b.abs(src)); err != nil {
		return nil
	}
	return b.addPage(&page{src: src})
}

// proof points a proof link at the test's source and adds its badge.
func (b *builder) proof(p *page, dir string, pr *prose.Proof) {
	b.stats.Proofs++
	file := path.Join(dir, pr.File)
	url, err := b.linkURL(p, file, "", false)
	if errors.Is(err, fs.ErrNotExist) {
		return // package prose reported it
	}
	if err != nil {
		b.problem(p.srcName(), pr.Line, "proof %s: %v", pr.Test, err)
		return
	}
	var test *prose.TestFile // nil for a transcript
	if strings.HasSuffix(file, "_test.go") {
		test = b.checker.TestFile(b.abs(file))
		if line := test.Funcs[pr.Func()]; line > 0 {
			url += fmt.Sprintf("#L%d", line)
		}
	}
	n := pr.Node()
	setDest(n, url)
	if l, ok := n.(*gast.Link); ok {
		l.SetAttributeString("class", []byte("proof"))
	}
	state := ""
	if b.results != nil && pr.Test != "" {
		pkg := b.modPath
		if d := path.Join(dir, pr.Dir); d != "." {
			pkg += "/" + d
		}
		state = b.results.state(pkg, pr.Test)
		switch {
		case state == "passed":
		case state == "missing" && test != nil && test.Constraint != "":
			// A test behind a build tag (an end-to-end test needs a
			// cluster) did not run in this build's results: say so.
			state = "tagged"
		case state == "missing":
			b.problem(p.srcName(), pr.Line, "proof %s (%s) has no result in %s: run go test -json on its package", pr.Test, pkg, b.cfg.Results)
		default:
			b.problem(p.srcName(), pr.Line, "proof %s (%s) %s in %s", pr.Test, pkg, state, b.cfg.Results)
		}
	}
	n.Parent().InsertAfter(n.Parent(), n, &badge{state: state})
}
