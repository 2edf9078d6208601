package prose

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Check returns every problem of the document: malformed markers, markers
// without a fence, quotes of missing files or declarations, stale copies,
// proofs that name no test or a test that does not exist, and links to
// missing files or headings. Subtest names are not checked: only running
// the test can tell.
func (d *Doc) Check() []Problem {
	c := &checker{doc: d, goFiles: map[string]*goFile{}, headings: map[string][]Heading{}}
	probs := append([]Problem{}, d.markerProblems...)
	for _, q := range d.Quotes {
		want, err := d.Want(q)
		if err != nil {
			probs = append(probs, d.problem(q.Line, "%v", err))
			continue
		}
		if !bytes.Equal(want, d.Source[q.blockStart:q.blockEnd]) {
			probs = append(probs, d.problem(q.Line, "stale quote of %s: run make quotes", q.Spec))
		}
	}
	for _, p := range d.Proofs {
		if msg := c.proof(p); msg != "" {
			probs = append(probs, d.problem(p.Line, "%s", msg))
		}
	}
	for _, l := range d.Links {
		if msg := c.link(l); msg != "" {
			probs = append(probs, d.problem(l.Line, "%s", msg))
		}
	}
	sortProblems(probs)
	return probs
}

func sortProblems(p []Problem) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].Line < p[j-1].Line; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// QuoteSource returns what quote q copies: a declaration, a line range or a
// whole file, ending in a newline.
func (d *Doc) QuoteSource(q *Quote) ([]byte, error) {
	name := d.resolve(q.File)
	src, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("quoted file %s does not exist", q.File)
		}
		return nil, fmt.Errorf("quoted file %s: %v", q.File, err)
	}
	isGo := strings.HasSuffix(q.File, ".go")
	switch {
	case q.Decl != "":
		if !isGo {
			return nil, fmt.Errorf("quote of %s: %s is not a Go file, so #%s cannot name a declaration; quote it whole or by lines (#L1-L9)", q.Spec, q.File, q.Decl)
		}
		out, err := ExtractDecl(src, q.Decl)
		if err != nil {
			return nil, fmt.Errorf("quote of %s: %s has %v", q.Spec, q.File, err)
		}
		return out, nil
	case q.From != 0 || q.To != 0:
		if isGo {
			return nil, fmt.Errorf("quote of %s: quote a declaration of a Go file (#Name), not lines, so the quote does not drift", q.Spec)
		}
		out, err := ExtractLines(src, q.From, q.To)
		if err != nil {
			return nil, fmt.Errorf("quote of %s: %v", q.Spec, err)
		}
		return out, nil
	}
	if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
		src = append(src, '\n')
	}
	return src, nil
}

// Want returns the fenced block, fences included, that quote q should have.
func (d *Doc) Want(q *Quote) ([]byte, error) {
	src, err := d.QuoteSource(q)
	if err != nil {
		return nil, err
	}
	return FencedBlock(src, Lang(q.File), q.prefix), nil
}

// FencedBlock returns content in a fenced code block of language lang, each
// line starting with prefix (the indentation of a list item, or '>'). The
// fence is longer than any run of backticks that starts a line of content.
func FencedBlock(content []byte, lang, prefix string) []byte {
	longest := 0
	lines := strings.SplitAfter(string(content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		n := len(t) - len(strings.TrimLeft(t, "`"))
		longest = max(longest, n)
	}
	fence := strings.Repeat("`", max(3, longest+1))
	var b bytes.Buffer
	b.WriteString(prefix + fence + lang + "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString(strings.TrimRight(prefix, " \t") + l)
		} else {
			b.WriteString(prefix + l)
		}
	}
	b.WriteString(prefix + fence + "\n")
	return b.Bytes()
}

type goFile struct {
	funcs map[string]bool // top-level functions
	err   error
}

type checker struct {
	doc      *Doc
	goFiles  map[string]*goFile
	headings map[string][]Heading
}

func (c *checker) funcs(name string) *goFile {
	if g, ok := c.goFiles[name]; ok {
		return g
	}
	g := &goFile{funcs: map[string]bool{}}
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
	if err != nil {
		g.err = err
	} else {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				g.funcs[fd.Name.Name] = true
			}
		}
	}
	c.goFiles[name] = g
	return g
}

func (c *checker) proof(p *Proof) string {
	d := c.doc
	if p.Test == "" {
		return fmt.Sprintf("proof link to %s must name a test: link text %q is not TestName or TestName/case", p.File, p.Text)
	}
	if _, err := os.Stat(d.resolve(p.File)); err != nil {
		return fmt.Sprintf("proof link %s: %s does not exist", p.Test, p.File)
	}
	if strings.HasSuffix(p.File, "_test.go") {
		g := c.funcs(d.resolve(p.File))
		if g.err != nil {
			return fmt.Sprintf("proof link %s: cannot read %s: %v", p.Test, p.File, g.err)
		}
		if !g.funcs[p.Func()] {
			return fmt.Sprintf("proof link names %s, which %s does not declare", p.Func(), p.File)
		}
		return ""
	}
	// A transcript: the package owning testdata must have TestScript.
	tests, _ := filepath.Glob(filepath.Join(d.resolve(p.Dir), "*_test.go"))
	for _, t := range tests {
		if g := c.funcs(t); g.err == nil && g.funcs[p.Func()] {
			return ""
		}
	}
	return fmt.Sprintf("proof link %s: package %s has no %s to run it", p.File, p.Dir, p.Func())
}

var lineAnchorRE = regexp.MustCompile(`^L(\d+)(?:-L(\d+))?$`)

// lineAnchor checks a fragment into a file that is not Markdown: it can only
// name a line or a range of lines (#L10, #L10-L20), as GitHub's do, and they
// must exist.
func (c *checker) lineAnchor(l *Link, name, frag string) string {
	m := lineAnchorRE.FindStringSubmatch(frag)
	if m == nil {
		return fmt.Sprintf("broken link to %s: only a line (#L10) or lines (#L10-L20) can be named in %s", l.Target, l.File)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Sprintf("broken link to %s: %v", l.Target, err)
	}
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		lines++
	}
	for _, n := range m[1:] {
		if v, _ := strconv.Atoi(n); n != "" && (v < 1 || v > lines) {
			return fmt.Sprintf("broken link to %s: %s has %d lines", l.Target, l.File, lines)
		}
	}
	return ""
}

func (c *checker) link(l *Link) string {
	d := c.doc
	frag, err := url.PathUnescape(l.Fragment)
	if err != nil {
		frag = l.Fragment
	}
	var hs []Heading
	where := "this page"
	if l.File == "" {
		hs = d.Headings
	} else {
		name := d.resolve(l.File)
		if _, err := os.Stat(name); err != nil {
			return fmt.Sprintf("broken link to %s: %s does not exist", l.Target, l.File)
		}
		if frag == "" {
			return ""
		}
		if !strings.HasSuffix(l.File, ".md") {
			return c.lineAnchor(l, name, frag)
		}
		if h, ok := c.headings[name]; ok {
			hs = h
		} else {
			o, err := Parse(name)
			if err != nil {
				return fmt.Sprintf("broken link to %s: %v", l.Target, err)
			}
			hs = o.Headings
			c.headings[name] = hs
		}
		where = path.Clean(l.File)
	}
	if frag == "" {
		return ""
	}
	for _, h := range hs {
		if h.ID == frag {
			return ""
		}
	}
	return fmt.Sprintf("broken link to %s: %s has no heading with ID %q", l.Target, where, frag)
}
