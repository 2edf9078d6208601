package site

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// themeRule finds a CSS rule whose selector names a theme: its selector and
// its declarations.
var themeRule = regexp.MustCompile(`([^{}]*\[data-theme[^{}]*)\{([^{}]*)\}`)

// themeOnlyColours lists the declarations of css's theme rules that set
// anything but color-scheme, the one switch of every light-dark() colour.
func themeOnlyColours(css string) []string {
	var bad []string
	for _, m := range themeRule.FindAllStringSubmatch(css, -1) {
		for _, decl := range strings.Split(m[2], ";") {
			prop, _, _ := strings.Cut(strings.TrimSpace(decl), ":")
			if prop = strings.TrimSpace(prop); prop != "" && prop != "color-scheme" {
				bad = append(bad, strings.TrimSpace(m[1])+" { "+strings.TrimSpace(decl)+" }")
			}
		}
	}
	return bad
}

// TestThemesChangeOnlyColours: the site's stylesheet changes nothing but
// color-scheme between its themes, so a page differs between them in its
// colours alone, and the browser tests' accessibility audit runs the rules
// that do not read colours in one theme only (site/browsertest,
// TestAccessibility). A theme rule that hides, moves or resizes anything is
// named here; the planted one shows the test is not blind.
func TestThemesChangeOnlyColours(t *testing.T) {
	css, err := os.ReadFile("assets/site.css")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(themeRule.FindAllString(string(css), -1)); n < 2 {
		t.Fatalf("site.css has %d rules for a theme; this test expects the light and dark ones", n)
	}
	if bad := themeOnlyColours(string(css)); len(bad) > 0 {
		t.Errorf("site.css changes more than colours between its themes, so the accessibility audit must run every rule in both: %q", bad)
	}
	planted := string(css) + "\n:root[data-theme=\"dark\"] .sidebar { color-scheme: dark; display: none; }\n"
	if bad := themeOnlyColours(planted); len(bad) != 1 || !strings.Contains(bad[0], "display: none") {
		t.Errorf("a dark-theme rule that hides the sidebar was not named: %q", bad)
	}
}
