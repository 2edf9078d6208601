// Package shape measures a chapter's path, its README.md, against the shape
// of a chapter (CONTRIBUTING.md, "The shape of a chapter"): the figures the
// project prints for every chapter (make chapter-figures), so that each
// change shows its effect, and the budgets the contract holds a chapter to
// once it has moved to the shape, which its EVIDENCE.md marks.
//
// The README is read with the course's Markdown (package prose), as the
// site shows it.
//
// # Words
//
// A word is a run of characters between spaces that holds a letter or a
// digit: "3,500" and "kubectl" are words, "—" and "|" are not. The prose is
// what a reader reads between the code: headings, paragraphs, list items,
// block quotes and table cells, with inline code and the text of links.
// Fenced and indented code blocks (commands, quoted files, expected
// outputs), HTML (quote and figure markers, comments), images (figures)
// and the footnotes' definitions (the claims' "How we know" links) are not
// prose.
//
// # Lab steps
//
// A lab step is a section whose heading starts with "Lab:" or "Step N"
// ("### Lab: drain the node", "### Step 2: pull the plug"); it runs to the
// next heading of its level or above. Its prose words are the lab's words;
// every other prose word is the path's, the core prose.
//
// # The first command
//
// The first command is the first fenced block marked sh, bash, shell or
// console that is not a quote (no <!-- quote --> marker above it): the
// first thing the learner runs. An indented code block is none: the site
// shows it as a diagram, without a shell's colours. The words before the
// command are the prose words, lab steps included, that come before it in
// the page; with no command, every prose word of the page.
//
// # Sentences
//
// Sentences are counted in paragraphs and list items, not in headings or
// table cells. A sentence ends at a word that ends in '.', '!' or '?'
// (closing quotes, brackets and emphasis aside; "e.g." and "i.e." do not end
// one, nor does punctuation inside inline code) and at the end of its
// paragraph or item. The average sentence is their words over their number.
//
// # Mentions
//
// Links are every link of the page but the footnotes' definitions, proofs
// included. Test names are proof links (to a _test.go file or a testdata
// .txtar, see package prose) and words like TestX or TestX/case, in inline
// code or not. Line numbers are "file.go:123" in the prose and "#L123" in
// it or in a link's target. Claims are the footnote markers [^id].
package shape

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/opslab/opslab/internal/prose"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// The budgets of the shape of a chapter, and what the contract allows over
// them.
const (
	PathWords     = 3500 // core prose, outside the lab steps
	LabWords      = 1200 // the lab steps' prose
	BeforeCommand = 800  // prose words before the first command
	Tolerance     = 10   // percent over a word budget that still passes
	SentenceWords = 22   // the longest average sentence, in words (the aim is about 18)
)

// Allowed returns a word budget with its tolerance: 3,850 for 3,500.
func Allowed(budget int) int { return budget + budget*Tolerance/100 }

// Figures are what a chapter's path measures.
type Figures struct {
	Chapter  string `json:"chapter"`  // the chapter's directory, 02-taints
	Evidence bool   `json:"evidence"` // it has an EVIDENCE.md: it has moved to the shape

	PathWords     int     `json:"pathWords"`     // prose words outside the lab steps
	LabWords      int     `json:"labWords"`      // prose words of the lab steps
	LabSteps      int     `json:"labSteps"`      // sections that are lab steps
	BeforeCommand int     `json:"beforeCommand"` // prose words before the first command
	FirstCommand  int     `json:"firstCommand"`  // line of the first command's fence, 0 when there is none
	Sentences     int     `json:"sentences"`
	SentenceWords int     `json:"sentenceWords"` // the words of those sentences
	AvgSentence   float64 `json:"avgSentence"`   // SentenceWords/Sentences, to one decimal

	Links       int       `json:"links"`
	Claims      int       `json:"claims"` // footnote markers [^id]
	TestNames   []Mention `json:"testNames"`
	LineNumbers []Mention `json:"lineNumbers"`

	Sections []Section `json:"sections"` // the required sections, in the path's order
}

// A Mention is something named in the path: a test or a line number.
type Mention struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// A Section is one of the sections the shape requires.
type Section struct {
	Name    string `json:"name"`              // "## Recap", or "title"
	Line    int    `json:"line"`              // 0 when the path has none
	Problem string `json:"problem,omitempty"` // what is wrong with it; "" when it is as the shape asks
}

// OK reports whether the section is there and as the shape asks.
func (s Section) OK() bool { return s.Line > 0 && s.Problem == "" }

// SectionsOK returns how many of the required sections are there and as
// the shape asks.
func (f *Figures) SectionsOK() int {
	n := 0
	for _, s := range f.Sections {
		if s.OK() {
			n++
		}
	}
	return n
}

// A Breach is one budget or rule of the shape a chapter breaks.
type Breach struct{ Rule, Msg string }

func (b Breach) String() string { return b.Rule + ": " + b.Msg }

// Rules, as Breach.Rule names them.
const (
	RuleSections     = "sections"
	RulePathWords    = "path-words"
	RuleLabWords     = "lab-words"
	RuleFirstCommand = "first-command"
	RuleSentences    = "sentences"
	RuleTestNames    = "test-names"
	RuleLineNumbers  = "line-numbers"
)

// Breaches returns every rule of the shape the path breaks: a required
// section missing or not as asked, a word budget exceeded by more than its
// tolerance, an average sentence over SentenceWords, a test name or a line
// number in the path.
func (f *Figures) Breaches() []Breach {
	var out []Breach
	bad := func(rule, format string, args ...any) {
		out = append(out, Breach{rule, fmt.Sprintf(format, args...)})
	}
	for _, s := range f.Sections {
		switch {
		case s.Line == 0 && s.Problem != "":
			bad(RuleSections, "%s", s.Problem)
		case s.Line == 0:
			bad(RuleSections, "no %s", s.Name)
		case s.Problem != "":
			bad(RuleSections, "%s (line %d) %s", s.Name, s.Line, s.Problem)
		}
	}
	over := func(rule string, got, budget int, what, fix string) {
		if got > Allowed(budget) {
			bad(rule, "%s words %s, over %s (%s + %d %%): %s", Thousands(got), what, Thousands(Allowed(budget)), Thousands(budget), Tolerance, fix)
		}
	}
	over(RulePathWords, f.PathWords, PathWords, "of prose outside the lab steps", "move the depth to EVIDENCE.md or a deep dive")
	over(RuleLabWords, f.LabWords, LabWords, "in the lab steps", "trim each step to what you will see, the commands, the expected output and what the grader needs")
	if f.FirstCommand == 0 {
		bad(RuleFirstCommand, "no command: the learner's commands are fenced blocks marked sh, bash, shell or console (an indented block is not one: the site shows it as a diagram), the first with at most %s words before it", Thousands(Allowed(BeforeCommand)))
	} else {
		over(RuleFirstCommand, f.BeforeCommand, BeforeCommand, fmt.Sprintf("before the first command (line %d)", f.FirstCommand), "hands on within five minutes")
	}
	if f.AvgSentence > SentenceWords {
		bad(RuleSentences, "the average sentence is %.1f words (%s in %d), over %d: one idea a sentence", f.AvgSentence, Thousands(f.SentenceWords), f.Sentences, SentenceWords)
	}
	if len(f.TestNames) > 0 {
		bad(RuleTestNames, "%s in the path (%s): they belong on EVIDENCE.md, reached by the claim's footnote", plural(len(f.TestNames), "test name"), mentions(f.TestNames))
	}
	if len(f.LineNumbers) > 0 {
		bad(RuleLineNumbers, "%s in the path (%s): they belong on EVIDENCE.md", plural(len(f.LineNumbers), "line number"), mentions(f.LineNumbers))
	}
	return out
}

// plural returns "1 test name" or "3 test names".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// mentions lists the first few mentions as "TestX (line 12)".
func mentions(ms []Mention) string {
	const most = 3
	var s []string
	for i, m := range ms {
		if i == most {
			s = append(s, fmt.Sprintf("and %d more", len(ms)-most))
			break
		}
		s = append(s, fmt.Sprintf("%s at line %d", m.Text, m.Line))
	}
	return strings.Join(s, ", ")
}

// Thousands writes n with a comma between thousands, as the prose does:
// 3,500.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Measure reads the chapter in dir: its README.md, and whether it has an
// EVIDENCE.md.
func Measure(dir string) (*Figures, error) {
	name := filepath.Join(dir, "README.md")
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	f := MeasureSource(name, src)
	f.Chapter = filepath.Base(filepath.Clean(dir))
	if _, err := os.Stat(filepath.Join(dir, "EVIDENCE.md")); err == nil {
		f.Evidence = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return f, nil
}

// MeasureSource measures src, the README.md at name. Chapter and Evidence
// are left for the caller.
func MeasureSource(name string, src []byte) *Figures {
	doc, root := prose.ParseTree(name, src)
	// Empty lists, not null, for the JSON's readers.
	m := &measure{doc: doc, f: &Figures{TestNames: []Mention{}, LineNumbers: []Mention{}}, proofs: map[ast.Node]*prose.Proof{}}
	for _, p := range doc.Proofs {
		m.proofs[p.Node()] = p
	}
	m.walk(root)
	f := m.f
	if f.Sentences > 0 {
		f.AvgSentence = math.Round(float64(f.SentenceWords)/float64(f.Sentences)*10) / 10
	}
	f.Sections = sections(doc, root)
	return f
}

type measure struct {
	doc    *prose.Doc
	f      *Figures
	proofs map[ast.Node]*prose.Proof

	labLevel  int // the heading level of the lab step we are in, 0 outside one
	commanded bool
}

var labHeading = regexp.MustCompile(`^(Lab:|Step \d)`)

// commandLangs are the fences a learner's commands are written in.
var commandLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// walk goes through the page in order, counting the prose of each block
// that holds text, and noting where the lab steps and the first command
// are.
func (m *measure) walk(root ast.Node) {
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.FootnoteList:
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			if m.labLevel > 0 && n.Level <= m.labLevel {
				m.labLevel = 0
			}
			if labHeading.MatchString(prose.PlainText(n, m.doc.Source)) {
				m.labLevel = n.Level
				m.f.LabSteps++
			}
			m.block(n, false)
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			m.block(n, true)
			return ast.WalkSkipChildren, nil
		case *east.TableCell:
			m.block(n, false)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if !m.commanded && commandLangs[string(n.Language(m.doc.Source))] && !quoted(n, m.doc.Source) {
				m.commanded = true
				m.f.FirstCommand = m.fenceLine(n)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// quoted reports whether a fenced block is a quote: a quote marker above it.
func quoted(n *ast.FencedCodeBlock, src []byte) bool {
	h, ok := n.PreviousSibling().(*ast.HTMLBlock)
	if !ok {
		return false
	}
	var html []byte
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		html = append(html, seg.Value(src)...)
	}
	return prose.IsMarker(html)
}

// fenceLine returns the line of a fenced block's opening fence.
func (m *measure) fenceLine(n *ast.FencedCodeBlock) int {
	if n.Info != nil {
		return m.doc.LineOf(n.Info.Segment.Start)
	}
	if n.Lines().Len() > 0 {
		return m.doc.LineOf(n.Lines().At(0).Start) - 1
	}
	return m.nodeLine(n)
}

// textLine returns the line of n's first text, or of its block when it has
// none.
func (m *measure) textLine(n ast.Node) int {
	line := 0
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering && line == 0 {
			line = m.doc.LineOf(t.Segment.Start)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if line == 0 {
		return m.nodeLine(n)
	}
	return line
}

func (m *measure) nodeLine(n ast.Node) int {
	for p := n; p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return m.doc.LineOf(p.Lines().At(0).Start)
		}
	}
	return 1
}

// block counts the prose of a block that holds inline content; sentences
// only for paragraphs and list items.
func (m *measure) block(n ast.Node, sentences bool) {
	var b strings.Builder
	m.inline(n, &b, false, false)
	words, ends, trailing := count(b.String())
	if m.labLevel > 0 {
		m.f.LabWords += words
	} else {
		m.f.PathWords += words
	}
	if !m.commanded {
		m.f.BeforeCommand += words
	}
	if sentences && words > 0 {
		m.f.SentenceWords += words
		m.f.Sentences += ends
		if trailing {
			m.f.Sentences++
		}
	}
}

var (
	testNameRE = regexp.MustCompile(`^Test[\p{Lu}\p{N}_][\p{L}\p{N}_]*(/\S*)?$`)
	goLineRE   = regexp.MustCompile(`[\p{L}\p{N}_.-]+\.go:\d+`)
	anchorRE   = regexp.MustCompile(`#L\d+(-L\d+)?`)
)

// inline writes the text a reader reads of n's inline content into b, and
// notes the links, claims, test names and line numbers it holds. Inside
// inline code, the punctuation that ends a sentence is written as '_', so
// that it ends none.
func (m *measure) inline(n ast.Node, b *strings.Builder, code, proof bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			s := string(c.Segment.Value(m.doc.Source))
			m.scan(s, m.doc.LineOf(c.Segment.Start), code, proof)
			if code {
				s = strings.Map(noEnd, s)
			}
			b.WriteString(s)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			m.inline(c, b, true, proof)
		case *ast.Link:
			m.f.Links++
			line := m.textLine(c)
			m.lineNumbers(string(c.Destination), line, true)
			if p, ok := m.proofs[c]; ok {
				name := p.Test
				if name == "" {
					name = p.Text
				}
				m.f.TestNames = append(m.f.TestNames, Mention{line, name})
			}
			m.inline(c, b, code, proof || m.proofs[c] != nil)
		case *ast.AutoLink:
			m.f.Links++
			url := string(c.URL(m.doc.Source))
			m.lineNumbers(url, m.nodeLine(c), true)
			b.WriteString(strings.Map(noEnd, url))
		case *ast.Image, *ast.RawHTML:
			// A figure is not read as prose; markup is not read at all.
		case *east.FootnoteLink:
			m.f.Claims++
		default:
			m.inline(c, b, code, proof)
		}
	}
}

func noEnd(r rune) rune {
	if r == '.' || r == '!' || r == '?' {
		return '_'
	}
	return r
}

// scan notes the test names and line numbers in a run of text.
func (m *measure) scan(s string, line int, code, proof bool) {
	if !proof {
		for _, w := range strings.Fields(s) {
			if !code {
				w = strings.Trim(w, `.,;:!?()[]"'*_’”“`)
			}
			if testNameRE.MatchString(w) {
				m.f.TestNames = append(m.f.TestNames, Mention{line, w})
			}
		}
	}
	m.lineNumbers(s, line, false)
}

func (m *measure) lineNumbers(s string, line int, target bool) {
	for _, x := range goLineRE.FindAllString(s, -1) {
		m.f.LineNumbers = append(m.f.LineNumbers, Mention{line, x})
	}
	for _, x := range anchorRE.FindAllString(s, -1) {
		if target {
			x = path.Base(s)
		}
		m.f.LineNumbers = append(m.f.LineNumbers, Mention{line, x})
	}
}

// notEnds are the words that end in a full stop without ending a sentence.
var notEnds = map[string]bool{"e.g.": true, "i.e.": true, "cf.": true, "vs.": true}

// count returns the words of a block's text, the sentences that end in it,
// and whether words follow the last end (a sentence the block's end closes).
func count(s string) (words, ends int, trailing bool) {
	for _, w := range strings.Fields(s) {
		if !isWord(w) {
			continue
		}
		words++
		trailing = true
		t := strings.TrimRight(w, `)]"'’”*_`)
		if strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?") {
			if !notEnds[strings.ToLower(strings.TrimLeft(t, `("'“‘*_`))] {
				ends++
				trailing = false
			}
		}
	}
	return words, ends, trailing
}

func isWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// The sections the shape requires, as their H2 headings read
// (case aside, and a trailing colon).
const (
	objectives  = "You will be able to"
	beforeStart = "Before you start"
	choosing    = "Choosing"
	recap       = "Recap"
	graded      = "Your lab, graded"
	build       = "Build it yourself"
	howWeKnow   = "How we know"
)

// sections reads the path's required sections: the title first, then the
// H2 sections; "Choosing" may go on ("Choosing a value").
func sections(doc *prose.Doc, root ast.Node) []Section {
	title := Section{Name: "title"}
	if h, ok := root.FirstChild().(*ast.Heading); ok && h.Level == 1 {
		title.Line = lineOf(doc, h)
	} else {
		title.Problem = "the page does not open with its title, # N. TITLE, and one sentence, its promise"
	}
	want := []string{objectives, beforeStart, choosing, recap, graded, build, howWeKnow}
	found := map[string]*Section{}
	for _, w := range want {
		found[w] = &Section{Name: "## " + w}
	}
	var cur *Section
	var items int     // the items of the section's first list, -1 before one
	evidence := false // the section links EVIDENCE.md
	end := func() {
		if cur == nil {
			return
		}
		switch cur.Name {
		case "## " + objectives:
			cur.Problem = itemsProblem(items, 3, 5, "objectives")
		case "## " + recap:
			cur.Problem = itemsProblem(items, 5, 7, "lines")
		case "## " + howWeKnow:
			if !evidence {
				cur.Problem = "does not link EVIDENCE.md, the chapter's evidence page"
			}
		}
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level <= 2 {
			end()
			cur, items, evidence = nil, -1, false
			t := strings.TrimSuffix(strings.TrimSpace(prose.PlainText(h, doc.Source)), ":")
			for _, w := range want {
				if strings.EqualFold(t, w) || (w == choosing && len(t) > len(w) && strings.EqualFold(t[:len(w)+1], w+" ")) {
					if s := found[w]; s.Line == 0 && h.Level == 2 {
						s.Line = lineOf(doc, h)
						cur = s
					}
				}
			}
			continue
		}
		if _, ok := n.(*east.FootnoteList); cur == nil || ok {
			continue // the footnotes' definitions belong to no section
		}
		if l, ok := n.(*ast.List); ok && items < 0 {
			items = l.ChildCount()
		}
		ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if l, ok := c.(*ast.Link); ok && entering {
				target, _, _ := strings.Cut(string(l.Destination), "#")
				if path.Clean(target) == "EVIDENCE.md" {
					evidence = true
				}
			}
			return ast.WalkContinue, nil
		})
	}
	end()
	out := []Section{title}
	for _, w := range want {
		out = append(out, *found[w])
	}
	return out
}

func itemsProblem(items, least, most int, what string) string {
	switch {
	case items < 0:
		return fmt.Sprintf("has no list: %d to %d %s, one an item", least, most, what)
	case items < least || items > most:
		return fmt.Sprintf("lists %d %s, want %d to %d", items, what, least, most)
	}
	return ""
}

func lineOf(doc *prose.Doc, n ast.Node) int {
	if n.Lines().Len() > 0 {
		return doc.LineOf(n.Lines().At(0).Start)
	}
	return 1
}
