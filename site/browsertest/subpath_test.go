//go:build browser

package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/opslab/opslab/site"
)

// prefix is where TestSubPath publishes the site, as a project page is
// published under the repository's name.
const prefix = "/opslab/"

// TestSubPath serves the built course under /opslab/ and nowhere else, as
// a project page is served, and reads it as a reader arriving there does:
// a page that named anything by an absolute path (/_assets/site.css,
// /search-index.json) would find nothing at the host's root, and its
// console would say so.
func TestSubPath(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if _, err := site.Build(site.Config{Root: *courseRoot, Out: out}); err != nil {
		t.Fatalf("building the site of %s:\n%v", *courseRoot, err)
	}
	mux := http.NewServeMux()
	mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.FileServer(http.Dir(out))))
	srv := httptest.NewServer(mux) // anything outside the prefix is a 404
	t.Cleanup(srv.Close)
	base := srv.URL + prefix
	ctx := browser(t)
	// A request that leaves the prefix counts as leaving the site.
	con := watch(t, ctx, base)
	clean := func(t *testing.T) {
		t.Helper()
		msgs, outside := con.take()
		for _, m := range msgs {
			t.Errorf("console %s", m)
		}
		for _, u := range outside {
			t.Errorf("requested %s, outside %s", u, prefix)
		}
	}
	chapter := chapterDirs()[0]
	chapterPage := "chapters/" + chapter + "/index.html"
	// follow clicks the first link matching sel and waits for the page it
	// leads to.
	follow := func(t *testing.T, sel string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))); err != nil {
			t.Fatalf("clicking %s on %s: %v", sel, eval[string](t, ctx, `location.pathname`), err)
		}
	}
	styled := func(t *testing.T) {
		t.Helper()
		if font := eval[string](t, ctx, `getComputedStyle(document.body).fontFamily`); !strings.Contains(font, "system-ui") {
			t.Errorf("%s: body font is %q: the stylesheet did not load", eval[string](t, ctx, `location.pathname`), font)
		}
	}

	t.Run("a chapter page loads its stylesheet and scripts", func(t *testing.T) {
		open(t, ctx, base+chapterPage) // open waits until site.js has run
		styled(t)
		clean(t)
	})

	t.Run("the index links to a chapter and to the licences", func(t *testing.T) {
		open(t, ctx, base) // the directory, as a project page's address is
		styled(t)
		follow(t, fmt.Sprintf(`#opslab-sidebar a[href$=%q]`, chapterPage))
		if got := eval[string](t, ctx, `location.pathname`); !samePage(strings.TrimPrefix(got, strings.TrimSuffix(prefix, "/")), chapterPage) {
			t.Errorf("the index's link to chapter 1 led to %s, want %s", got, prefix+chapterPage)
		}
		open(t, ctx, base)
		follow(t, `footer a[href*="licenses"]`)
		if got := eval[string](t, ctx, `location.pathname`); !strings.HasPrefix(got, prefix+"licenses/") {
			t.Errorf("the index's link to the licences led to %s, want %slicenses/", got, prefix)
		}
		poll(t, ctx, "the licences page has loaded", `document.readyState === "complete"`)
		styled(t)
		if n := eval[int](t, ctx, `document.querySelectorAll("article h2, article pre").length`); n == 0 {
			t.Errorf("the licences page shows no licence")
		}
		clean(t)
	})

	t.Run("search finds a chapter from a page two levels down", func(t *testing.T) {
		word := onlyInChapter1(t, readIndex(t, out), chapterPage)
		open(t, ctx, base+chapterPage)
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("opslab-search-input"), word)); err != nil {
			t.Fatal(err)
		}
		// The list shows the results for the whole word: typed slowly, the
		// search runs on its first letters too.
		poll(t, ctx, "search shows results for "+word, fmt.Sprintf(`document.querySelectorAll("#opslab-search-list a").length > 0 && document.getElementById("opslab-search-status").textContent.includes(%q)`, "“"+word+"”"))
		for _, h := range eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#opslab-search-list a"), a => a.href)`) {
			if !strings.HasPrefix(h, base+"chapters/") {
				t.Errorf("search for %q links %s, want a page under %schapters/", word, h, base)
			}
		}
		clean(t)
	})

	// The console watch is not blind: a page that names a stylesheet by an
	// absolute path is seen failing under the prefix.
	t.Run("an absolute path fails here", func(t *testing.T) {
		// Its page's messages are this test's, whether it passes or not.
		defer con.take()
		const html = `<!DOCTYPE html><html lang="en"><head><title>absolute</title><link rel="stylesheet" href="/_assets/site.css"></head><body></body></html>`
		if err := os.WriteFile(filepath.Join(out, "absolute.html"), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"absolute.html")); err != nil {
			t.Fatal(err)
		}
		poll(t, ctx, "the page has loaded", `document.readyState === "complete"`)
		time.Sleep(150 * time.Millisecond)
		msgs, _ := con.take()
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "404") }) {
			t.Errorf("a stylesheet at /_assets/site.css, outside %s, was not reported; the console said %q", prefix, msgs)
		}
	})

	t.Run("a demo loads its WebAssembly", func(t *testing.T) {
		startDemo(t, ctx, base+chapterPage)
		wasm := base + "_demos/" + chapter + ".wasm"
		if !eval[bool](t, ctx, fmt.Sprintf(`performance.getEntriesByType("resource").some(e => e.name === %q)`, wasm)) {
			t.Errorf("the running demo fetched no %s", wasm)
		}
		clean(t)
	})
}
