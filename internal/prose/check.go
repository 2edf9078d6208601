package prose

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"

	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	mdast "github.com/yuin/goldmark/ast"
)

// Check returns every problem of the document: malformed markers, markers
// without a fence, quotes of missing files or declarations, stale copies,
// proofs that name no test or a test that does not exist, and links to
// missing files or headings. Subtest names are not checked: only running
// the test can tell. To check many documents, use one Checker.
func (d *Doc) Check() []Problem { return NewChecker().Check(d) }

// A Checker checks documents and reads each file they point at once, however
// many links and quotes name it: a test file is read and parsed once for its
// functions and build constraint, a linked Markdown file once for its
// headings, a quoted file or one a #L10 anchor points into once. Keep one
// for a run over many documents (the site's build, make quotes), not
// longer: it does not notice a file that changes after it read it. A
// Checker is not safe for concurrent use.
type Checker struct {
	files    map[string]file
	tests    map[string]*TestFile
	pkgTests map[string][]string // directory -> its *_test.go files
	headings map[string][]Heading
}

type file struct {
	data []byte
	err  error
}

// NewChecker returns a Checker that has read nothing yet.
func NewChecker() *Checker {
	return &Checker{
		files:    map[string]file{},
		tests:    map[string]*TestFile{},
		pkgTests: map[string][]string{},
		headings: map[string][]Heading{},
	}
}

// ReadFile returns the content of the file at name (a file-system path),
// read the first time it is asked for. The caller must not change it.
func (c *Checker) ReadFile(name string) ([]byte, error) {
	f, ok := c.files[name]
	if !ok {
		f.data, f.err = os.ReadFile(name)
		c.files[name] = f
	}
	return f.data, f.err
}

// Check returns every problem of document d, as Doc.Check does.
func (c *Checker) Check(d *Doc) []Problem {
	probs := append([]Problem{}, d.markerProblems...)
	for _, q := range d.Quotes {
		want, err := d.want(q, c.ReadFile)
		if err != nil {
			probs = append(probs, d.problem(q.Line, "%v", err))
			continue
		}
		if !bytes.Equal(want, d.Source[q.blockStart:q.blockEnd]) {
			probs = append(probs, d.problem(q.Line, "stale quote of %s: run make quotes", q.Spec))
		}
	}
	said := map[mdast.Node]bool{} // figures' images whose missing file a figure problem names
	for _, f := range d.Figures {
		if _, err := os.Stat(d.resolve(f.File)); err != nil {
			probs = append(probs, d.problem(f.Line, "figure %s does not exist: run make figures to draw it", f.File))
			if f.image != nil {
				said[f.image] = true
			}
		}
	}
	for _, p := range d.Proofs {
		if msg := c.proof(d, p); msg != "" {
			probs = append(probs, d.problem(p.Line, "%s", msg))
		}
	}
	for _, l := range d.Links {
		if said[l.node] {
			continue
		}
		if msg := c.link(d, l); msg != "" {
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
func (d *Doc) QuoteSource(q *Quote) ([]byte, error) { return d.quoteSource(q, os.ReadFile) }

// quoteSource is QuoteSource, reading the quoted file with readFile.
func (d *Doc) quoteSource(q *Quote, readFile func(string) ([]byte, error)) ([]byte, error) {
	name := d.resolve(q.File)
	src, err := readFile(name)
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
		src = append(src[:len(src):len(src)], '\n') // a copy: src may be a Checker's
	}
	return src, nil
}

// Want returns the fenced block, fences included, that quote q should have.
func (d *Doc) Want(q *Quote) ([]byte, error) { return d.want(q, os.ReadFile) }

// want is Want, reading the quoted file with readFile.
func (d *Doc) want(q *Quote, readFile func(string) ([]byte, error)) ([]byte, error) {
	src, err := d.quoteSource(q, readFile)
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

// A TestFile is what the checks and the site need of a Go test file.
type TestFile struct {
	Funcs map[string]int // its top-level functions, each with the line it starts on
	// Constraint is the file's build constraint ("e2e") when go test
	// leaves the file out unless given a tag, or "".
	Constraint string
	Err        error // why the file could not be read or parsed
}

// TestFile reads and parses the Go file at name (a file-system path) the
// first time it is asked for, and returns what it declares.
func (c *Checker) TestFile(name string) *TestFile {
	if f, ok := c.tests[name]; ok {
		return f
	}
	f := &TestFile{Funcs: map[string]int{}}
	c.tests[name] = f
	src, err := c.ReadFile(name)
	if err != nil {
		f.Err = err
		return f
	}
	f.Constraint = testConstraint(src)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		f.Err = err
		return f
	}
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			f.Funcs[fd.Name.Name] = fset.Position(fd.Pos()).Line
		}
	}
	return f
}

// testConstraint returns the build constraint of a Go file when it keeps go
// test from running the file without tags ("e2e"), or "".
func testConstraint(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if constraint.IsGoBuild(line) {
			if expr, err := constraint.Parse(line); err == nil && !expr.Eval(func(string) bool { return false }) {
				return expr.String()
			}
			return ""
		}
		if line != "" && !strings.HasPrefix(line, "//") {
			return "" // the constraint comes before the package clause
		}
	}
	return ""
}

// testsIn returns the test files of the package in directory dir.
func (c *Checker) testsIn(dir string) []string {
	if tests, ok := c.pkgTests[dir]; ok {
		return tests
	}
	tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	c.pkgTests[dir] = tests
	return tests
}

func (c *Checker) proof(d *Doc, p *Proof) string {
	if p.Test == "" {
		return fmt.Sprintf("proof link to %s must name a test: link text %q is not TestName or TestName/case", p.File, p.Text)
	}
	if strings.HasSuffix(p.File, "_test.go") {
		g := c.TestFile(d.resolve(p.File))
		if errors.Is(g.Err, fs.ErrNotExist) {
			return fmt.Sprintf("proof link %s: %s does not exist", p.Test, p.File)
		}
		if g.Err != nil {
			return fmt.Sprintf("proof link %s: cannot read %s: %v", p.Test, p.File, g.Err)
		}
		if _, ok := g.Funcs[p.Func()]; !ok {
			return fmt.Sprintf("proof link names %s, which %s does not declare", p.Func(), p.File)
		}
		return ""
	}
	if _, err := os.Stat(d.resolve(p.File)); err != nil {
		return fmt.Sprintf("proof link %s: %s does not exist", p.Test, p.File)
	}
	// A transcript: the package owning testdata must have TestScript.
	for _, t := range c.testsIn(d.resolve(p.Dir)) {
		if g := c.TestFile(t); g.Err == nil {
			if _, ok := g.Funcs[p.Func()]; ok {
				return ""
			}
		}
	}
	return fmt.Sprintf("proof link %s: package %s has no %s to run it", p.File, p.Dir, p.Func())
}

var lineAnchorRE = regexp.MustCompile(`^L(\d+)(?:-L(\d+))?$`)

// lineAnchor checks a fragment into a file that is not Markdown: it can only
// name a line or a range of lines (#L10, #L10-L20), as GitHub's do, and they
// must exist.
func (c *Checker) lineAnchor(l *Link, name, frag string) string {
	m := lineAnchorRE.FindStringSubmatch(frag)
	if m == nil {
		return fmt.Sprintf("broken link to %s: only a line (#L10) or lines (#L10-L20) can be named in %s", l.Target, l.File)
	}
	data, err := c.ReadFile(name)
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

func (c *Checker) link(d *Doc, l *Link) string {
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
			src, err := c.ReadFile(name)
			if err != nil {
				return fmt.Sprintf("broken link to %s: %v", l.Target, err)
			}
			hs = ParseSource(name, src).Headings
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
