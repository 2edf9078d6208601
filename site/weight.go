package site

import (
	"os"
	"path"
	"regexp"
	"strings"
)

// PageBudget is the most a page may weigh with the style sheet, scripts,
// icon and images it loads, in bytes. A figure is inlined, so its bytes are
// its page's own; a demo's WebAssembly is not counted, since it is fetched
// only when the reader starts the demo.
const PageBudget = 150 << 10

// loadsRE finds what a page loads besides itself.
var loadsRE = regexp.MustCompile(`<script src="([^"]*)"|<link rel="(?:stylesheet|icon)" href="([^"]*)"|<img src="([^"]*)"`)

// weigh returns what the page written to out weighs with everything it
// loads, as the build will write it. A load that the build does not write
// is not counted: the link checks report it.
func (b *builder) weigh(out string, html []byte) int {
	total := len(html)
	for _, m := range loadsRE.FindAllSubmatch(html, -1) {
		url := string(m[1]) + string(m[2]) + string(m[3])
		if strings.Contains(url, ":") {
			continue // another site's; the CSP refuses it anyway
		}
		name := path.Join(path.Dir(out), url)
		if data, ok := b.files[name]; ok {
			total += len(data)
		} else if src, ok := b.links[name]; ok {
			if fi, err := os.Stat(src); err == nil {
				total += int(fi.Size())
			}
		}
	}
	return total
}

// checkWeights reports every page over PageBudget, as the site is
// published: with its proof badges, its chapter's track and its inlined
// figures. It runs once every file is in place.
func (b *builder) checkWeights() {
	for _, p := range b.pages {
		if w := b.weigh(p.out, []byte(p.body)); w > PageBudget {
			src := p.src
			if src == "" {
				src = "README.md"
			}
			b.problem(src, 1, "its page %s weighs %d bytes with the style sheet, scripts and figures it loads, %d over the budget of %d (150 KB): cut prose, link a transcript rather than quote it, or lighten a figure",
				p.out, w, w-PageBudget, PageBudget)
		}
	}
	// The other pages: source files shown highlighted, directory listings,
	// the licences.
	for out, data := range b.files {
		if !strings.HasSuffix(out, ".html") {
			continue
		}
		w := b.weigh(out, data)
		switch src := strings.TrimSuffix(out, ".html"); {
		case w <= PageBudget:
		case b.sources[src]:
			b.problem(src, 1, "its source page weighs %d bytes with what it loads, over the budget of %d (150 KB), even without highlighting: split the file",
				w, PageBudget)
		default:
			b.problem(out, 1, "the page weighs %d bytes with what it loads, over the budget of %d (150 KB)", w, PageBudget)
		}
	}
}

// minifyCSS drops a style sheet's comments and the white space a browser
// ignores: runs of it become one space, and none is kept beside { } ; or ,.
// Strings are copied as they are. The sheet in the repository stays
// commented; readers download the lighter one.
func minifyCSS(src []byte) []byte {
	out := make([]byte, 0, len(src))
	space := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(string(src[i+2:]), "*/")
			if end < 0 {
				i = len(src)
			} else {
				i += 2 + end + 1
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			space = true
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if space && len(out) > 0 && !cssTight(out[len(out)-1]) {
				out = append(out, ' ')
			}
			space = false
			out = append(out, src[i:min(j+1, len(src))]...)
			i = j
		default:
			if space && len(out) > 0 && !cssTight(out[len(out)-1]) && !cssTight(c) {
				out = append(out, ' ')
			}
			space = false
			out = append(out, c)
		}
	}
	return out
}

// cssTight reports whether white space beside c means nothing in CSS.
func cssTight(c byte) bool { return c == '{' || c == '}' || c == ';' || c == ',' }

// minifyJS drops a script's comment lines, blank lines and indentation.
// It keeps every line break, so the script reads as it did, semicolons or
// not; the site's scripts have no string or template that spans lines.
func minifyJS(src []byte) []byte {
	var out []byte
	for line := range strings.SplitSeq(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}
