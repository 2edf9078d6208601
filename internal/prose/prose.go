// Package prose reads the course's Markdown and checks that what it says is
// tied to the code: the conventions of CONTRIBUTING.md, made executable.
//
// # Quotes
//
// A quote marker is an HTML comment on a line of its own, immediately
// followed by a fenced code block:
//
//	<!-- quote eviction.go#Cluster.Evict -->
//	```go
//	...a copy of the declaration...
//	```
//
// The path is relative to the Markdown file. After the '#' comes a Go
// declaration (a function, a method as Type.Method, a type, or a name of a
// const or var, which quotes its whole group) or a line range L10-L20 of a
// non-Go file. Without a fragment the whole file is quoted. A declaration is
// quoted byte for byte from the start of its doc comment to the end of its
// last line. The fence's language follows the file's extension (see Lang).
//
// # Figures
//
// A figure marker is an HTML comment on a line of its own, immediately
// followed by a paragraph that holds only the figure's image:
//
//	<!-- figure figures/drain.svg -->
//	![what the figure shows, in words](figures/drain.svg)
//
// The figure is an SVG file the chapter's model draws, committed so that a
// Git host shows it; a test of the chapter (TestFiguresAreCurrent) draws it
// again and fails when the file is stale. Here the marker is checked: its
// image names the same file, which exists and is an .svg, and has alt text.
// The site inlines a marked figure in the page.
//
// # Proof links
//
// A link whose target is a _test.go file is a proof: its text names a test
// declared in that file (TestX, or TestX/case for a subtest, in backticks or
// not). A link to a .txtar file in a testdata directory is a proof too: it
// is run as the subtest TestScript/NAME of the package that owns testdata.
//
// # Links
//
// Every other relative link must point at a file or directory that exists,
// and a #fragment at a heading of the target (for a Markdown file, or the
// document itself). Heading IDs are GitHub's (see Slug).
//
// Parse reads a document with the course's Markdown (see Markdown, which
// the site renders with too), Doc.Check lists its problems, a Checker
// checks many while reading each file they name once, and Update rewrites
// stale copies in place.
package prose

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// A Doc is a parsed Markdown file with the quotes, proofs, links and headings
// found in it.
type Doc struct {
	Path     string // as given to Parse
	Source   []byte
	Quotes   []*Quote
	Figures  []*Figure
	Proofs   []*Proof
	Links    []*Link
	Headings []Heading

	markerProblems []Problem // markers that are malformed or lack a fence
	lineStarts     []int
}

// A Quote is a marker and the fenced block that holds its copy.
type Quote struct {
	Line int    // line of the marker
	Spec string // as written: "eviction.go#Cluster.Evict"
	File string // the quoted file, relative to the Markdown file (slash-separated)
	Decl string // a Go declaration, or ""
	From int    // first line of a line range, or 0
	To   int    // last line of a line range, or 0

	// The fenced block: the byte range of its lines, opening to closing
	// fence inclusive, and the prefix (indentation, '>') of its lines.
	blockStart, blockEnd int
	prefix               string
}

// A Figure is a figure marker and the image under it.
type Figure struct {
	Line  int
	File  string // the figure, relative to the Markdown file (slash-separated)
	Alt   string // the image's alt text
	image *ast.Image
}

// Image returns the figure's image node in the tree ParseTree returned, or
// nil when the marker has no image under it.
func (f *Figure) Image() *ast.Image { return f.image }

// A Proof is a link from a claim to the test that proves it.
type Proof struct {
	Line   int
	Target string // link destination as written
	File   string // target file, relative to the Markdown file (slash-separated)
	Dir    string // directory of the test's package, relative to the Markdown file
	Test   string // test name as go test reports it: TestX, TestX/case, TestScript/name
	Text   string // link text

	node ast.Node
}

// Node returns the link's node in the tree ParseTree returned.
func (p *Proof) Node() ast.Node { return p.node }

// Func is the top-level test function of the proof: TestX of TestX/case.
func (p *Proof) Func() string {
	name, _, _ := strings.Cut(p.Test, "/")
	return name
}

// A Link is any other link or image with a relative target or a #fragment.
type Link struct {
	Line     int
	Target   string // as written
	File     string // relative to the Markdown file, slash-separated; "" for the document itself
	Fragment string // without '#'
	Image    bool

	node ast.Node
}

// Node returns the link's or image's node in the tree ParseTree returned.
func (l *Link) Node() ast.Node { return l.node }

// A Heading of the document.
type Heading struct {
	Line  int
	Level int
	Text  string // plain text
	ID    string // GitHub-style, unique in the document
}

// A Problem is one thing wrong with a document.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

var (
	markerRE       = regexp.MustCompile(`^\s*<!--\s*quote\s+(\S+)\s*-->\s*$`)
	figureMarkerRE = regexp.MustCompile(`^\s*<!--\s*figure\s+(\S+\.svg)\s*-->\s*$`)
)

// IsMarker reports whether an HTML block's text is a quote or figure
// marker (well formed or not).
func IsMarker(html []byte) bool {
	return markerStartRE.Match(bytes.TrimSpace(html))
}

var markerStartRE = regexp.MustCompile(`^<!--\s*(quote|figure)(\s|-->)`)

func isFigureMarker(html []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimSpace(html), []byte("<!--")), " \t"), []byte("figure"))
}

// Parse reads and parses the Markdown file at path.
func Parse(path string) (*Doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSource(path, src), nil
}

// ParseSource parses src as the Markdown file at path; path locates the
// files the document refers to.
func ParseSource(path string, src []byte) *Doc {
	d, _ := ParseTree(path, src)
	return d
}

// ParseTree parses src as ParseSource does and also returns the goldmark
// tree, for callers (the site) that render the same tree with Markdown's
// renderer.
func ParseTree(path string, src []byte) (*Doc, ast.Node) {
	d := &Doc{Path: path, Source: src}
	d.lineStarts = []int{0}
	for i, c := range src {
		if c == '\n' {
			d.lineStarts = append(d.lineStarts, i+1)
		}
	}
	root := markdown.Parser().Parse(text.NewReader(src))
	d.walk(root)
	return d, root
}

// LineOf returns the 1-based line of byte offset off.
func (d *Doc) LineOf(off int) int {
	return sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off })
}

func (d *Doc) problem(line int, format string, args ...any) Problem {
	return Problem{File: d.Path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (d *Doc) walk(root ast.Node) {
	ids := NewIDs()
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			t := PlainText(n, d.Source)
			d.Headings = append(d.Headings, Heading{Line: d.nodeLine(n), Level: n.Level, Text: t, ID: ids.Unique(Slug(t))})
		case *ast.HTMLBlock:
			d.marker(n)
		case *ast.RawHTML:
			var raw []byte
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				raw = append(raw, seg.Value(d.Source)...)
			}
			if IsMarker(raw) {
				kind, below := "quote", "fenced block"
				if isFigureMarker(raw) {
					kind, below = "figure", "image"
				}
				d.markerProblems = append(d.markerProblems, d.problem(d.nodeLine(n), "%s marker %s is inside a paragraph: put it on a line of its own, right above its %s", kind, strings.TrimSpace(string(raw)), below))
			}
		case *ast.Link:
			d.link(n, string(n.Destination), false)
		case *ast.Image:
			d.link(n, string(n.Destination), true)
		}
		return ast.WalkContinue, nil
	})
}

// nodeLine returns the line where n starts.
func (d *Doc) nodeLine(n ast.Node) int {
	for m := n; m != nil; m = m.Parent() {
		if m.Type() == ast.TypeBlock && m.Lines().Len() > 0 {
			return d.LineOf(m.Lines().At(0).Start)
		}
		if p := m.Pos(); p >= 0 {
			return d.LineOf(p)
		}
	}
	return 1
}

func (d *Doc) marker(n *ast.HTMLBlock) {
	var html []byte
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		html = append(html, seg.Value(d.Source)...)
	}
	if n.HasClosure() {
		cl := n.ClosureLine
		html = append(html, cl.Value(d.Source)...)
	}
	if !IsMarker(html) {
		return
	}
	line := d.LineOf(n.Lines().At(0).Start)
	if isFigureMarker(html) {
		d.figure(n, html, line)
		return
	}
	m := markerRE.FindSubmatch(html)
	if m == nil {
		d.markerProblems = append(d.markerProblems, d.problem(line, "malformed quote marker %q: want <!-- quote PATH[#Decl|#Lx-Ly] -->", strings.TrimSpace(string(html))))
		return
	}
	q := &Quote{Line: line, Spec: string(m[1])}
	file, frag, _ := strings.Cut(q.Spec, "#")
	q.File = file
	if frag != "" {
		if lm := lineRangeRE.FindStringSubmatch(frag); lm != nil {
			fmt.Sscan(lm[1], &q.From)
			fmt.Sscan(lm[2], &q.To)
		} else {
			q.Decl = frag
		}
	}
	fence, ok := n.NextSibling().(*ast.FencedCodeBlock)
	if !ok {
		d.markerProblems = append(d.markerProblems, d.problem(line, "quote marker %s is not followed by a fenced code block", q.Spec))
		return
	}
	end := n.Lines().At(n.Lines().Len() - 1).Stop
	if n.HasClosure() {
		end = n.ClosureLine.Stop
	}
	if !d.locateFence(q, fence, end) {
		d.markerProblems = append(d.markerProblems, d.problem(line, "quote marker %s: cannot locate its fenced code block", q.Spec))
		return
	}
	d.Quotes = append(d.Quotes, q)
}

// figure records a figure marker and the image of the paragraph under it.
func (d *Doc) figure(n *ast.HTMLBlock, html []byte, line int) {
	m := figureMarkerRE.FindSubmatch(html)
	if m == nil {
		d.markerProblems = append(d.markerProblems, d.problem(line, "malformed figure marker %q: want <!-- figure PATH.svg -->", strings.TrimSpace(string(html))))
		return
	}
	f := &Figure{Line: line, File: path.Clean(string(m[1]))}
	d.Figures = append(d.Figures, f)
	p, ok := n.NextSibling().(*ast.Paragraph)
	if ok && p.ChildCount() == 1 {
		f.image, _ = p.FirstChild().(*ast.Image)
	}
	if f.image == nil {
		d.markerProblems = append(d.markerProblems, d.problem(line, "figure marker %s is not followed by a paragraph of its image alone: ![what it shows](%s)", f.File, f.File))
		return
	}
	f.Alt = strings.TrimSpace(PlainText(f.image, d.Source))
	if dest := path.Clean(string(f.image.Destination)); dest != f.File {
		d.markerProblems = append(d.markerProblems, d.problem(line, "figure marker %s is followed by an image of %s: they name the same file", f.File, dest))
	}
	if f.Alt == "" {
		d.markerProblems = append(d.markerProblems, d.problem(line, "figure %s has no alt text: say in words what it shows", f.File))
	}
}

var lineRangeRE = regexp.MustCompile(`^L(\d+)-L(\d+)$`)

// locateFence finds the byte range of the fenced block that follows a
// marker ending at byte markerEnd.
func (d *Doc) locateFence(q *Quote, fence *ast.FencedCodeBlock, markerEnd int) bool {
	open := d.LineOf(markerEnd - 1) // the marker's last line; the fence opens at a later line
	var fenceChar byte
	var fenceLen int
	for ; open < len(d.lineStarts); open++ {
		line := d.line(open + 1)
		body := strings.TrimLeft(string(line), " \t>")
		if strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~") {
			fenceChar = body[0]
			fenceLen = len(body) - len(strings.TrimLeft(body, string(fenceChar)))
			q.prefix = string(line[:len(line)-len(body)])
			break
		}
	}
	if fenceChar == 0 {
		return false
	}
	openLine := open + 1 // 1-based
	q.blockStart = d.lineStarts[openLine-1]
	next := openLine + 1 // first line after the content
	if n := fence.Lines().Len(); n > 0 {
		next = d.LineOf(fence.Lines().At(n-1).Start) + 1
	}
	q.blockEnd = d.lineEnd(next - 1)
	if next <= len(d.lineStarts) {
		body := strings.TrimLeft(string(d.line(next)), " \t>")
		rest := strings.TrimLeft(body, string(fenceChar))
		if len(body)-len(rest) >= fenceLen && strings.TrimSpace(rest) == "" && body != "" {
			q.blockEnd = d.lineEnd(next)
		}
	}
	return true
}

// line returns the bytes of 1-based line n without its newline.
func (d *Doc) line(n int) []byte {
	if n < 1 || n > len(d.lineStarts) {
		return nil
	}
	start := d.lineStarts[n-1]
	end := len(d.Source)
	if n < len(d.lineStarts) {
		end = d.lineStarts[n] - 1
	}
	if start > end {
		return nil
	}
	return bytes.TrimSuffix(d.Source[start:end], []byte("\r"))
}

// lineEnd returns the offset just after line n's newline (or the end of the source).
func (d *Doc) lineEnd(n int) int {
	if n >= len(d.lineStarts) {
		return len(d.Source)
	}
	return d.lineStarts[n]
}

func isRemote(dest string) bool {
	if strings.HasPrefix(dest, "//") || strings.HasPrefix(dest, "/") {
		return true
	}
	if i := strings.IndexAny(dest, ":/?#"); i > 0 && dest[i] == ':' {
		return true // a scheme: https:, mailto:
	}
	return false
}

var testNameRE = regexp.MustCompile(`^Test[\p{L}\p{N}_]*(/\S.*)?$`)

func (d *Doc) link(n ast.Node, dest string, image bool) {
	if dest == "" || isRemote(dest) {
		return
	}
	line := d.nodeLine(n)
	target, frag, _ := strings.Cut(dest, "#")
	target, _, _ = strings.Cut(target, "?")
	if target != "" {
		target = path.Clean(target)
	}
	switch {
	case !image && strings.HasSuffix(target, "_test.go"):
		p := &Proof{Line: line, Target: dest, File: target, Dir: path.Dir(target), Text: PlainText(n, d.Source), node: n}
		if name := strings.Trim(p.Text, "` "); testNameRE.MatchString(name) {
			// go test reports a subtest "refused at floor" as refused_at_floor.
			p.Test = strings.ReplaceAll(name, " ", "_")
		}
		d.Proofs = append(d.Proofs, p)
	case !image && strings.HasSuffix(target, ".txtar") && testdataOwner(target) != "":
		base := strings.TrimSuffix(path.Base(target), ".txtar")
		d.Proofs = append(d.Proofs, &Proof{Line: line, Target: dest, File: target, Dir: testdataOwner(target), Test: "TestScript/" + base, Text: PlainText(n, d.Source), node: n})
	default:
		d.Links = append(d.Links, &Link{Line: line, Target: dest, File: target, Fragment: frag, Image: image, node: n})
	}
}

// testdataOwner returns the directory that holds the testdata directory in
// which a file lies, or "" if it is not under testdata.
func testdataOwner(p string) string {
	parts := strings.Split(p, "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == "testdata" {
			if i == 0 {
				return "."
			}
			return path.Join(parts[:i]...)
		}
	}
	return ""
}

// PlainText returns the text of n's inline content: what a reader sees,
// without markup.
func PlainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// dir returns the directory of the document, for resolving its links.
func (d *Doc) dir() string { return filepath.Dir(d.Path) }

// resolve returns the file-system path of p, relative to the document.
func (d *Doc) resolve(p string) string { return filepath.Join(d.dir(), filepath.FromSlash(p)) }
