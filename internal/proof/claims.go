package proof

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/opslab/opslab/internal/prose"
)

// A Marker is a claim's footnote reference, [^id], in a Markdown page.
type Marker struct {
	ID       string
	File     string // the page
	Line     int
	Sentence string // the sentence it ends, as plain text
}

// A Definition is a footnote's definition, [^id]: text.
type Definition struct {
	ID   string
	Line int
	Text string
}

var (
	refRE = regexp.MustCompile(`\[\^([^\]\s]+)\]`)
	defRE = regexp.MustCompile(`(?m)^[ \t]{0,3}\[\^([^\]\s]+)\]:[ \t]*(.*)$`)
)

// Markers returns the footnote references and definitions of the Markdown
// page at name (its content src), outside code.
func Markers(name string, src []byte) ([]Marker, []Definition) {
	doc, root := prose.ParseTree(name, src)
	var code [][2]int
	segs := func(n ast.Node) {
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			code = append(code, [2]int{s.Start, s.Stop})
		}
	}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			segs(n)
			if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
				code = append(code, [2]int{f.Info.Segment.Start, f.Info.Segment.Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					code = append(code, [2]int{t.Segment.Start, t.Segment.Stop})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				code = append(code, [2]int{s.Start, s.Stop})
			}
		}
		return ast.WalkContinue, nil
	})
	inCode := func(off int) bool {
		return slices.ContainsFunc(code, func(r [2]int) bool { return off >= r[0] && off < r[1] })
	}
	var defs []Definition
	isDef := map[int]bool{}
	for _, m := range defRE.FindAllSubmatchIndex(src, -1) {
		start := m[2] - 2 // the '[' of [^id]
		if inCode(start) {
			continue
		}
		isDef[start] = true
		defs = append(defs, Definition{ID: string(src[m[2]:m[3]]), Line: doc.LineOf(start), Text: string(src[m[4]:m[5]])})
	}
	var refs []Marker
	for _, m := range refRE.FindAllSubmatchIndex(src, -1) {
		if isDef[m[0]] || inCode(m[0]) {
			continue
		}
		refs = append(refs, Marker{ID: string(src[m[2]:m[3]]), File: name, Line: doc.LineOf(m[0]), Sentence: sentence(src, m[0])})
	}
	return refs, defs
}

var (
	linkRE   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	spacesRE = regexp.MustCompile(`\s+`)
)

// sentence returns the sentence of src that ends at offset end: back to
// the end of the sentence before it or the start of its paragraph, with
// links reduced to their text and footnote markers dropped.
func sentence(src []byte, end int) string {
	start := 0
	if i := strings.LastIndex(string(src[:end]), "\n\n"); i >= 0 {
		start = i + 2
	}
	text := refRE.ReplaceAllString(string(src[start:end]), "")
	// The sentence's own full stop may sit just before the marker.
	body := strings.TrimRight(text, ".!?:;)*_` ")
	for i := len(body) - 1; i > 0; i-- {
		if (body[i] == ' ' || body[i] == '\n') && strings.ContainsRune(".!?", rune(body[i-1])) {
			text = text[i+1:]
			break
		}
	}
	text = linkRE.ReplaceAllString(text, "$1")
	text = strings.TrimLeft(text, "#>-*+ \t0123456789.")
	return strings.TrimSpace(spacesRE.ReplaceAllString(text, " "))
}

// ChapterMarkers returns the markers of every Markdown page at the root of
// the chapter in dir (README.md, EVIDENCE.md, deep dives), by claim id.
func ChapterMarkers(dir string) (map[string][]Marker, error) {
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	out := map[string][]Marker{}
	for _, pg := range pages {
		src, err := os.ReadFile(pg)
		if err != nil {
			return nil, err
		}
		refs, _ := Markers(filepath.Base(pg), src)
		for _, m := range refs {
			out[m.ID] = append(out[m.ID], m)
		}
	}
	return out, nil
}

// CheckChapter holds the chapter in dir to the rule of claims
// (CONTRIBUTING.md, "Claims and their proofs"), and returns what breaks it:
//   - every marker [^id] of README.md, the path, has a definition there,
//     and at least one plant whose claim is id;
//   - every plant parses, applies (its old text occurs once in its file),
//     and its claim is a marker in a Markdown page of the chapter; while
//     README.md has no marker at all (a chapter not yet moved to claims),
//     a plant may name a claim that is not marked yet;
//   - the verdict file, if any, parses.
//
// It runs nothing: Check judges the plants.
func CheckChapter(dir string) []string {
	var bad []string
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		return []string{err.Error()}
	}
	refs, defs := Markers("README.md", readme)
	plants, err := Load(dir)
	if err != nil {
		for _, e := range strings.Split(err.Error(), "\n") {
			bad = append(bad, e)
		}
	}
	byClaim := map[string][]*Plant{}
	for _, p := range plants {
		byClaim[p.Claim] = append(byClaim[p.Claim], p)
	}
	defined := map[string]bool{}
	for _, d := range defs {
		defined[d.ID] = true
	}
	said := map[string]bool{}
	for _, r := range refs {
		if said[r.ID] {
			continue
		}
		said[r.ID] = true
		if !idRE.MatchString(r.ID) {
			bad = append(bad, fmt.Sprintf("README.md:%d: claim marker [^%s]: an id is lower-case letters, digits and dashes", r.Line, r.ID))
			continue
		}
		if !defined[r.ID] {
			bad = append(bad, fmt.Sprintf("README.md:%d: claim marker [^%s] has no definition: end the page with [^%s]: [How we know](EVIDENCE.md#...)", r.Line, r.ID, r.ID))
		}
		if len(byClaim[r.ID]) == 0 {
			bad = append(bad, fmt.Sprintf("README.md:%d: claim [^%s] has no plant: add plants/NAME.plant with claim: %s, the change to the model that makes it false", r.Line, r.ID, r.ID))
		}
	}
	marked, err := ChapterMarkers(dir)
	if err != nil {
		bad = append(bad, err.Error())
	}
	for _, p := range plants {
		if _, ok := marked[p.Claim]; !ok && len(refs) > 0 {
			bad = append(bad, fmt.Sprintf("plant %s: claim %s is marked in no page of the chapter: end its sentence with [^%s]", filepath.Join("plants", p.Name+".plant"), p.Claim, p.Claim))
		}
		if _, err := p.Apply(); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if _, err := ReadSum(filepath.Join(dir, "plants", SumFile)); err != nil {
		bad = append(bad, err.Error())
	}
	return bad
}
