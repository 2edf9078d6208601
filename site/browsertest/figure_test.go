//go:build browser

package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestFigures looks at the first figure of each chapter's page, in the
// light theme and in the dark one and on paper: the figure is inlined, has
// its title and description, fits the column, and takes the palette of the
// theme the reader chose (background and text), which an <img> could not.
// A screenshot of each, in each theme, is kept under .artifacts/.
func TestFigures(t *testing.T) {
	srv, _ := serve(t, *courseRoot)
	ctx := browser(t)
	con := watch(t, ctx, srv.URL)
	palettes := map[string]struct{ bg, ink string }{
		"light": {"rgb(255, 255, 255)", "rgb(31, 35, 40)"},
		"dark":  {"rgb(13, 17, 23)", "rgb(230, 237, 243)"},
	}
	for i, ch := range chapterDirs() {
		t.Run(ch, func(t *testing.T) {
			open(t, ctx, srv.URL+"/chapters/"+ch+"/index.html")
			const fig = "article p.figure svg.fig"
			if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%q).length`, fig)); n < 2 {
				t.Fatalf("%d figures inlined in the page, want at least 2", n)
			}
			title := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).querySelector(":scope > title")?.textContent ?? ""`, fig))
			desc := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).querySelector(":scope > desc")?.textContent ?? ""`, fig))
			if title == "" || len(desc) < 40 || eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).getAttribute("role")`, fig)) != "img" {
				t.Errorf("the first figure has title %q, desc %q: want role img, a title and a description in words", title, desc)
			}
			if over := eval[bool](t, ctx, fmt.Sprintf(`document.querySelector(%q).getBoundingClientRect().width > document.querySelector("article").getBoundingClientRect().width + 1`, fig)); over {
				t.Errorf("the figure is wider than the column")
			}
			eval[bool](t, ctx, fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: "center"}), true`, fig))
			for _, theme := range []string{"light", "dark"} {
				eval[bool](t, ctx, fmt.Sprintf(`document.documentElement.dataset.theme = %q, true`, theme))
				bg := eval[string](t, ctx, fmt.Sprintf(`getComputedStyle(document.querySelector(%q).querySelector("rect.bg")).fill`, fig))
				ink := eval[string](t, ctx, fmt.Sprintf(`getComputedStyle(document.querySelector(%q).querySelector("text")).fill`, fig))
				if want := palettes[theme]; bg != want.bg || ink != want.ink {
					t.Errorf("%s theme: the figure's background is %s and its text %s, want %s and %s", theme, bg, ink, want.bg, want.ink)
				}
				png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(fig)))
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(repoRoot, ".artifacts")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("figure-chapter-%d-%s.png", i+1, theme)
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes): %s", filepath.Join(dir, name), len(png), title)
			}
			// On paper, whatever the screen's theme, the light palette.
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
				t.Fatal(err)
			}
			bg := eval[string](t, ctx, fmt.Sprintf(`getComputedStyle(document.querySelector(%q).querySelector("rect.bg")).fill`, fig))
			chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
			if bg != palettes["light"].bg {
				t.Errorf("printed in the dark theme, the figure's background is %s, want the light palette's %s", bg, palettes["light"].bg)
			}
			eval[bool](t, ctx, `delete document.documentElement.dataset.theme, true`)
			msgs, outside := con.take()
			for _, m := range msgs {
				if !strings.Contains(m, "favicon") {
					t.Errorf("console %s", m)
				}
			}
			for _, u := range outside {
				t.Errorf("requested %s, outside the site", u)
			}
		})
	}
}
