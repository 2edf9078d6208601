package site

import (
	"regexp"
	"strings"
	"testing"
)

func TestMinifyCSS(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"comments go", "/* a sheet */\na { color: red; } /* the end */\n", "a{color: red;}"},
		{"runs of space become one", "a   b\n\t{ margin:  0  auto }", "a b{margin: 0 auto}"},
		{"no space beside braces, semicolons and commas", "a , b {\n  x: 1 ;\n  y: 2;\n}\nc { }", "a,b{x: 1;y: 2;}c{}"},
		{"a descendant combinator stays", "article :not(pre) > code { x: y }", "article :not(pre) > code{x: y}"},
		{"arithmetic keeps its spaces", "a { width: calc(100% - 2rem); }", "a{width: calc(100% - 2rem);}"},
		{"strings are copied as they are", `a::after { content: " <" attr(href) ">  ; , { /* no */"; }`, `a::after{content: " <" attr(href) ">  ; , { /* no */";}`},
		{"an escaped quote stays in its string", `a { content: "say \"hi\" ;"; }`, `a{content: "say \"hi\" ;";}`},
		{"a comment is not white space", "a/**/b{}", "ab{}"},
		{"an unclosed comment ends the sheet", "a{} /* open", "a{}"},
	} {
		if got := string(minifyCSS([]byte(c.in))); got != c.want {
			t.Errorf("%s: minifyCSS(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestMinifiedSheetIsTheSheet holds the minified style sheet to the one in
// the repository: outside comments only white space changed, every string
// survives, and minifying again changes nothing.
func TestMinifiedSheetIsTheSheet(t *testing.T) {
	src, err := embedded.ReadFile("assets/site.css")
	if err != nil {
		t.Fatal(err)
	}
	min := minifyCSS(src)
	comments := regexp.MustCompile(`(?s)/\*.*?\*/`)
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squeeze(comments.ReplaceAllString(string(src), "")) != squeeze(string(min)) {
		t.Error("minifying site.css changed more than comments and white space")
	}
	for _, s := range regexp.MustCompile(`"[^"]*"`).FindAllString(comments.ReplaceAllString(string(src), ""), -1) {
		if !strings.Contains(string(min), s) {
			t.Errorf("the string %s of site.css is not in the minified sheet", s)
		}
	}
	if again := minifyCSS(min); string(again) != string(min) {
		t.Error("minifying the minified sheet changes it")
	}
	if len(min) >= len(src) {
		t.Errorf("the minified sheet is %d bytes, the sheet %d", len(min), len(src))
	}
}

// TestScriptsCanBeMinified checks what minifyJS relies on in each of the
// site's scripts: no template literal, no line continued with a backslash
// and no block comment over several lines, so a line is a line of code or
// a comment; and the minified script keeps every line of code, in order.
func TestScriptsCanBeMinified(t *testing.T) {
	for _, name := range []string{"site.js", "demo.js", "theme.js"} {
		src, err := embedded.ReadFile("assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var code []string
		for i, line := range strings.Split(string(src), "\n") {
			switch {
			case strings.Contains(line, "`"):
				t.Errorf("%s:%d has a template literal, which may span lines", name, i+1)
			case strings.HasSuffix(line, `\`):
				t.Errorf("%s:%d continues on the next line", name, i+1)
			case strings.Count(line, "/*") != strings.Count(line, "*/"):
				t.Errorf("%s:%d opens or closes a block comment over several lines", name, i+1)
			}
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "//") {
				code = append(code, l)
			}
		}
		if got, want := string(minifyJS(src)), strings.Join(code, "\n")+"\n"; got != want {
			t.Errorf("%s: the minified script is not its lines of code in order", name)
		}
	}
}
