package learn

import (
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/opslab/opslab/internal/prose"
	"github.com/yuin/goldmark/ast"
)

// A Claim is the prose a test proves: the sentence that links it and the
// section it stands in.
type Claim struct {
	Sentence string
	Section  string // the heading's text
	Anchor   string // the heading's ID
}

// Claims reads a chapter's README and returns, for each test it links as a
// proof, the first sentence that links it: by the proof's name (TestX or
// TestX/case) and by its test function (TestX). A README in the shape of a
// chapter links no tests: its sentences carry claim marks ([^id]) whose
// definitions link a section of the evidence page, and the tests that
// section links are the marked sentence's (footnoteClaims).
func Claims(readme string) (map[string]Claim, error) {
	claims, err := proofClaims(readme)
	if err != nil {
		return nil, err
	}
	marked, err := footnoteClaims(readme)
	if err != nil {
		return nil, err
	}
	for test, c := range marked {
		if _, ok := claims[test]; !ok {
			claims[test] = c
		}
	}
	return claims, nil
}

var (
	footnoteDef  = regexp.MustCompile(`(?m)^\[\^([a-z0-9-]+)\]:.*\]\(([^)#]+)#([^)]+)\)`)
	footnoteMark = regexp.MustCompile(`\[\^[a-z0-9-]+\]`)
	inlineLink   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// footnoteClaims returns, for each test the evidence page links under a
// claim's section, the README's sentence that carries the claim's mark
// (the first one, without its marks) and the heading it stands under.
func footnoteClaims(readme string) (map[string]Claim, error) {
	doc, err := prose.Parse(readme)
	if err != nil {
		return nil, err
	}
	src := string(doc.Source)
	claims := map[string]Claim{}
	pages := map[string]*prose.Doc{}
	type linked struct {
		proof *prose.Proof
		claim Claim
	}
	var found []linked
	for _, d := range footnoteDef.FindAllStringSubmatch(src, -1) {
		id, file, anchor := d[1], d[2], d[3]
		at := strings.Index(src, "[^"+id+"]")
		if at < 0 || strings.HasPrefix(src[at:], "[^"+id+"]:") {
			continue
		}
		page, ok := pages[file]
		if !ok {
			page, err = prose.Parse(filepath.Join(filepath.Dir(readme), file))
			if errors.Is(err, fs.ErrNotExist) {
				// A page still to be written: the prose checker says so.
				continue
			}
			if err != nil {
				return nil, err
			}
			pages[file] = page
		}
		from, to := sectionLines(page, anchor)
		c := Claim{Sentence: markedSentence(src, at)}
		line := 1 + strings.Count(src[:at], "\n")
		for _, h := range doc.Headings {
			if h.Line <= line {
				c.Section, c.Anchor = h.Text, h.ID
			}
		}
		for _, p := range page.Proofs {
			if p.Line >= from && p.Line < to {
				found = append(found, linked{p, c})
			}
		}
	}
	// A test linked by its own name in one claim's section belongs to
	// that claim before one whose section links a case of it.
	for _, l := range found {
		if _, ok := claims[l.proof.Test]; !ok {
			claims[l.proof.Test] = l.claim
		}
	}
	for _, l := range found {
		if _, ok := claims[l.proof.Func()]; !ok {
			claims[l.proof.Func()] = l.claim
		}
	}
	return claims, nil
}

// sectionLines returns the lines of the section whose heading has ID
// anchor: from its heading to the next heading of its level or above.
func sectionLines(page *prose.Doc, anchor string) (from, to int) {
	level := 0
	to = 1 << 30
	for _, h := range page.Headings {
		switch {
		case level == 0 && h.ID == anchor:
			from, level = h.Line, h.Level
		case level > 0 && h.Level <= level:
			return from, h.Line
		}
	}
	if level == 0 {
		return 0, 0
	}
	return from, to
}

// markedSentence is the sentence of the paragraph around src[at] that ends
// with the mark at at, in plain words: links as their text, marks dropped.
func markedSentence(src string, at int) string {
	start := strings.LastIndex(src[:at], "\n\n") + 1
	if line := src[strings.LastIndex(src[:at], "\n")+1:]; strings.HasPrefix(line, "|") {
		start = strings.LastIndex(src[:at], "|") + 1 // a table's cell
	}
	text := src[start:at]
	text = inlineLink.ReplaceAllString(footnoteMark.ReplaceAllString(text, ""), "$1")
	text = strings.Join(strings.Fields(strings.NewReplacer("**", "", "`", "").Replace(text)), " ")
	text = strings.TrimLeft(text, "-0123456789. ")
	begin := 0
	for _, m := range fullStop.FindAllStringIndex(strings.TrimRight(text, ".!? "), -1) {
		begin = m[1]
	}
	return strings.TrimSpace(text[begin:])
}

// fullStop ends a marked sentence; a colon does not, as a claim often
// explains itself after one.
var fullStop = regexp.MustCompile(`[.!?](\s|$)`)

// proofClaims is Claims for the tests the README links as proofs.
func proofClaims(readme string) (map[string]Claim, error) {
	doc, err := prose.Parse(readme)
	if err != nil {
		return nil, err
	}
	claims := map[string]Claim{}
	for _, p := range doc.Proofs {
		_, haveTest := claims[p.Test]
		_, haveFunc := claims[p.Func()]
		if haveTest && haveFunc {
			continue
		}
		c := Claim{Sentence: sentence(p, doc.Source)}
		for _, h := range doc.Headings {
			if h.Line <= p.Line {
				c.Section, c.Anchor = h.Text, h.ID
			}
		}
		if !haveTest {
			claims[p.Test] = c
		}
		if !haveFunc {
			claims[p.Func()] = c
		}
	}
	return claims, nil
}

var sentenceEnd = regexp.MustCompile(`[.!?;:](\s|$)`)

// sentence is the sentence of the proof's paragraph (or list item, or table
// cell) that holds its link.
func sentence(p *prose.Proof, src []byte) string {
	var block ast.Node = p.Node()
	for block.Parent() != nil && block.Type() != ast.TypeBlock {
		block = block.Parent()
	}
	text := strings.Join(strings.Fields(prose.PlainText(block, src)), " ")
	at := strings.Index(text, p.Text)
	if at < 0 {
		return text
	}
	start := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text[:at], -1) {
		start = m[1]
	}
	end := len(text)
	if m := sentenceEnd.FindStringIndex(text[at+len(p.Text):]); m != nil {
		end = at + len(p.Text) + m[0] + 1
	}
	return strings.TrimSpace(text[start:end])
}

// Headings returns the IDs of a README's headings.
func Headings(readme string) ([]string, error) {
	doc, err := prose.Parse(readme)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range doc.Headings {
		ids = append(ids, h.ID)
	}
	return ids, nil
}
