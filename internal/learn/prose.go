package learn

import (
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
// TestX/case) and by its test function (TestX).
func Claims(readme string) (map[string]Claim, error) {
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
