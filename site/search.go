package site

import (
	"bytes"
	"html"
	"regexp"
	"slices"
	"strings"
	"unicode"

	gast "github.com/yuin/goldmark/ast"
)

// A section is the text under one heading of a page, the unit search finds.
type section struct {
	title  string
	anchor string
	text   string
}

// sections splits a page's text at its headings (levels 1 to 3), leaving out
// code blocks, which copy the source.
func sections(p *page) []section {
	src := p.doc.Source
	secs := []section{{title: p.title}}
	var text strings.Builder
	flush := func() {
		secs[len(secs)-1].text = strings.Join(strings.Fields(text.String()), " ")
		text.Reset()
	}
	for n := p.tree.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *gast.Heading:
			id, _ := n.AttributeString("id")
			idStr, _ := id.(string)
			// plain ends a block with a space: a title has none.
			title := strings.Join(strings.Fields(plain(n, src)), " ")
			if n.Level <= 3 && n.Level > 1 {
				flush()
				secs = append(secs, section{title: title, anchor: idStr})
			} else {
				text.WriteString(title + " ")
			}
		case *gast.FencedCodeBlock, *gast.CodeBlock, *gast.HTMLBlock:
		default:
			text.WriteString(plain(n, src) + " ")
		}
	}
	flush()
	return secs
}

var figureWords = regexp.MustCompile(`<title>([^<]*)</title>\s*<desc>([^<]*)</desc>`)

// figureText returns what an inlined figure says in words, its title and
// its description, for the search index.
func figureText(svg []byte) string {
	m := figureWords.FindSubmatch(svg)
	if m == nil {
		return ""
	}
	return html.UnescapeString(string(m[1])) + ". " + html.UnescapeString(string(m[2])) + " "
}

// plain returns the text of a node, with a space between blocks and cells.
func plain(n gast.Node, src []byte) string {
	var b strings.Builder
	gast.Walk(n, func(c gast.Node, entering bool) (gast.WalkStatus, error) {
		switch c := c.(type) {
		case *gast.Text:
			if entering {
				b.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			}
		case *gast.String:
			if entering && c.IsCode() && bytes.HasPrefix(c.Value, []byte("<svg ")) {
				b.WriteString(figureText(c.Value)) // an inlined figure: its words, not its markup
			} else if entering {
				b.Write(c.Value)
			}
		case *gast.FencedCodeBlock, *gast.CodeBlock, *gast.HTMLBlock, *gast.RawHTML:
			return gast.WalkSkipChildren, nil
		default:
			if !entering && c.Type() == gast.TypeBlock {
				b.WriteByte(' ')
			}
			if !entering && c.Kind().String() == "TableCell" {
				b.WriteByte(' ')
			}
		}
		return gast.WalkContinue, nil
	})
	return b.String()
}

// isCJK reports whether r belongs to a script written without spaces
// between words: Han, Hiragana, Katakana (with the prolonged sound mark).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == '々'
}

// Terms returns the search terms of a text: each word of two or more
// letters or digits, in lower case, and each pair of adjacent characters in
// a run of Chinese or Japanese (a run of one character is its own term).
// Queries are cut the same way, so a Japanese word is found by the bigrams
// it is made of although nothing separates it from its neighbours.
func Terms(text string) []string {
	var terms []string
	var word, cjk []rune
	flush := func() {
		if len(word) >= 2 {
			terms = append(terms, strings.ToLower(string(word)))
		}
		switch {
		case len(cjk) == 1:
			terms = append(terms, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				terms = append(terms, string(cjk[i:i+2]))
			}
		}
		word, cjk = word[:0], cjk[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			if len(word) > 0 {
				flush()
			}
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_':
			if len(cjk) > 0 {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return terms
}

// searchIndex is the JSON the pages' script searches.
type searchIndex struct {
	Pages    []indexPage      `json:"pages"`
	Sections []indexSection   `json:"sections"`
	Terms    map[string][]int `json:"terms"` // term -> section, count, section, count...
}

type indexPage struct {
	Title string `json:"t"`
	URL   string `json:"u"`
}

type indexSection struct {
	Page    int    `json:"p"`
	Title   string `json:"t"`
	Anchor  string `json:"a,omitempty"`
	Snippet string `json:"s"`
}

const snippetRunes = 160

func (b *builder) searchIndex() *searchIndex {
	idx := &searchIndex{Terms: map[string][]int{}}
	for pi, p := range b.pages {
		idx.Pages = append(idx.Pages, indexPage{Title: p.title, URL: p.out})
		for _, s := range p.sections {
			si := len(idx.Sections)
			snip := []rune(s.text)
			if len(snip) > snippetRunes {
				snip = append(snip[:snippetRunes], '…')
			}
			idx.Sections = append(idx.Sections, indexSection{Page: pi, Title: s.title, Anchor: s.anchor, Snippet: string(snip)})
			counts := map[string]int{}
			for _, t := range Terms(s.title + " " + s.title + " " + s.text) {
				counts[t]++
			}
			keys := make([]string, 0, len(counts))
			for t := range counts {
				keys = append(keys, t)
			}
			slices.Sort(keys)
			for _, t := range keys {
				idx.Terms[t] = append(idx.Terms[t], si, counts[t])
			}
		}
	}
	return idx
}
