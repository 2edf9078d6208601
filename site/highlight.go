package site

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// styled lists the chroma token classes the stylesheet colours. Spans of
// any other class (whitespace, punctuation, plain names) are dropped: they
// would more than double a page's weight and change nothing a reader sees.
var styled = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`k kd kn kr kp kc kt nc nb bp
		s s1 s2 sb sc sd se sh si sx sr ss dl sa
		c c1 cm ch cs cp cpf nf fm m mi mf mh mo mb il
		nt na nv vc vg vi gp go gd gi gh gu ge gs`) {
		styled[c] = true
	}
}

// tokenClass returns the class of a token type, or "" if it is not styled.
func tokenClass(t chroma.TokenType) string {
	for {
		if cls, ok := chroma.StandardTypes[t]; ok {
			if styled[cls] {
				return cls
			}
			return ""
		}
		if t.Parent() == t || t == 0 {
			return ""
		}
		t = t.Parent()
	}
}

var spanRE = regexp.MustCompile(`<span class="([a-z0-9]+)">([^<]*)</span>`)

// compactSpans drops chroma's spans of unstyled classes from rendered HTML.
func compactSpans(s string) string {
	return spanRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := spanRE.FindStringSubmatch(m)
		if styled[sub[1]] {
			return m
		}
		return sub[2]
	})
}

// formatSource renders a source file as highlighted lines, each with the
// ID a line anchor names (L1, L2…); the stylesheet numbers them. With plain
// set, tokens are not coloured, for files too large to colour within a
// page's budget.
func formatSource(tokens []chroma.Token, plain bool) string {
	var b strings.Builder
	b.WriteString(`<pre tabindex="0" class="chroma"><code>`)
	for i, line := range chroma.SplitTokensIntoLines(tokens) {
		fmt.Fprintf(&b, `<span class="line" id="L%d">`, i+1)
		cls, text := "", ""
		flush := func() {
			switch {
			case text == "":
			case cls == "":
				b.WriteString(html.EscapeString(text))
			default:
				fmt.Fprintf(&b, `<span class="%s">%s</span>`, cls, html.EscapeString(text))
			}
		}
		for _, tok := range line {
			c := ""
			if !plain {
				c = tokenClass(tok.Type)
			}
			v := tok.Value
			nl := strings.HasSuffix(v, "\n")
			v = strings.TrimSuffix(v, "\n")
			if c != cls {
				flush()
				cls, text = c, ""
			}
			text += v
			if nl {
				break
			}
		}
		flush()
		b.WriteString("</span>\n")
	}
	b.WriteString("</code></pre>")
	return b.String()
}
