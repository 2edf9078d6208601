//go:build browser

package browsertest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/opslab/opslab/site"
)

const chromium = "/usr/bin/chromium"

// repoRoot is the course, from this package's directory.
const repoRoot = "../.."

var courseRoot = flag.String("site.root", repoRoot, "the repository whose site TestCourse checks")

// browser starts a headless Chromium with a fresh profile and returns a
// context for a new tab in it.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browserFor(t, 3*time.Minute)
}

// browserFor is browser for a test that needs the browser longer than
// three minutes.
func browserFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("no %s: install Debian's chromium package (apt-get install -y chromium)", chromium)
	}
	profile := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), d)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	if err := chromedp.Do(tab); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return tab
}

// serve builds the site of repo and serves it on localhost.
func serve(t *testing.T, repo string) (*httptest.Server, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	if _, err := site.Build(site.Config{Root: repo, Out: out}); err != nil {
		t.Fatalf("building the site of %s:\n%v", repo, err)
	}
	files := http.FileServer(http.Dir(out))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search-index.json") {
			// Asked again each time, so that a failure is seen.
			w.Header().Set("Cache-Control", "no-cache")
			if failIndex.Load() {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, out
}

// failIndex makes requests for the search index fail while it is true, as
// a flaky network would.
var failIndex atomic.Bool

// console collects what the pages of a tab write to the console, and every
// request that leaves the site.
type console struct {
	mu       sync.Mutex
	messages []string
	outside  []string
}

func watch(t *testing.T, ctx context.Context, siteURL string) *console {
	c := &console{}
	msgs := chromedp.Console(ctx)
	reqs := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
				c.mu.Lock()
				c.messages = append(c.messages, fmt.Sprintf("%s: %s (%s)", m.Type, m.Text, m.URL))
				c.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range reqs {
			if err != nil {
				return
			}
			if u := ev.Request.URL; !strings.HasPrefix(u, siteURL) && !strings.HasPrefix(u, "data:") {
				c.mu.Lock()
				c.outside = append(c.outside, u)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

// take returns and forgets what was collected.
func (c *console) take() (messages, outside []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	messages, outside = c.messages, c.outside
	c.messages, c.outside = nil, nil
	return messages, outside
}

// open loads a page and waits until it and its scripts have run.
func open(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("loading %s: %v", u, err)
	}
	if err := waitLoaded(ctx); err != nil {
		t.Fatalf("%s: the page did not finish loading (its script did not run): %v", u, err)
	}
	// Let late messages (a blocked resource, a rejected promise) arrive.
	time.Sleep(150 * time.Millisecond)
}

// waitLoaded waits until the page in ctx is loaded and its script has run.
func waitLoaded(ctx context.Context) error {
	return pollPage(ctx, `document.readyState === "complete" && !document.getElementById("opslab-theme-toggle").hidden`)
}

// pollPage waits up to ten seconds until js is true in the page in ctx. A
// poll that starts while the browser swaps the old page's JavaScript
// context for the new one's is told "Cannot find context with specified
// id": the browser's race, not the page's, which a busy machine makes
// likelier; the poll is asked again then, up to three times.
func pollPage(ctx context.Context, js string) error {
	var err error
	for range 3 {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second)))
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func poll(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if err := pollPage(ctx, js); err != nil {
		t.Fatalf("waiting until %s (%s): %v", what, js, err)
	}
}

// index is the part of search-index.json the tests read.
type index struct {
	Pages    []struct{ T, U string }
	Sections []struct {
		P int
		T string
	}
	Terms map[string][]int
}

func readIndex(t *testing.T, out string) index {
	data, err := os.ReadFile(filepath.Join(out, "search-index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx index
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// onlyInChapter1 returns a word of six letters or more that only chapter
// 1's page (its path, at the output path page) contains: not its evidence
// page or another page of its directory either.
func onlyInChapter1(t *testing.T, idx index, page string) string {
	best, bestCount := "", 0
	for term, post := range idx.Terms {
		if len(term) < 6 || strings.Trim(term, "abcdefghijklmnopqrstuvwxyz") != "" {
			continue
		}
		only, count := true, 0
		for i := 0; i < len(post); i += 2 {
			if idx.Pages[idx.Sections[post[i]].P].U != page {
				only = false
				break
			}
			count += post[i+1]
		}
		// No other word may start with it, or search (by prefix) finds more.
		if only && (count > bestCount || count == bestCount && term < best) {
			prefixOfOther := false
			for other := range idx.Terms {
				if other != term && strings.HasPrefix(other, term) {
					prefixOfOther = true
					break
				}
			}
			if !prefixOfOther {
				best, bestCount = term, count
			}
		}
	}
	if best == "" {
		t.Fatal("no word of six letters or more is found only in chapter 1")
	}
	return best
}

// samePage reports whether a location's path is the page at out (the file
// server shows dir/index.html as dir/).
func samePage(loc, out string) bool {
	return loc == "/"+out || loc == "/"+strings.TrimSuffix(out, "index.html")
}

func TestCourse(t *testing.T) {
	for _, tc := range []struct {
		name, repo string
		screenshot string // file name in .artifacts, or ""
		japanese   string // a Japanese word only chapter 1 has, or ""
	}{
		{name: "course", repo: *courseRoot, screenshot: "site-chapter-1.png"},
		{name: "testcourse", repo: "../testdata/repo", japanese: "退避"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, out := serve(t, tc.repo)
			ctx := browser(t)
			con := watch(t, ctx, srv.URL)
			idx := readIndex(t, out)
			var chapters []string
			for _, p := range idx.Pages {
				if strings.HasPrefix(p.U, "chapters/") && strings.HasSuffix(p.U, "/index.html") && strings.Count(p.U, "/") == 2 {
					chapters = append(chapters, p.U)
				}
			}
			if len(chapters) == 0 {
				t.Fatal("the site has no chapter pages")
			}

			t.Run("every page loads cleanly", func(t *testing.T) {
				for _, p := range append([]string{"index.html"}, chapters...) {
					open(t, ctx, srv.URL+"/"+p)
					msgs, outside := con.take()
					for _, m := range msgs {
						t.Errorf("%s: console %s", p, m)
					}
					for _, u := range outside {
						t.Errorf("%s: requested %s, outside the site", p, u)
					}
					if d := eval[string](t, ctx, `document.querySelector('meta[name="description"]')?.content ?? ""`); len(d) < 20 {
						t.Errorf("%s: meta description %q, want the page's first sentence", p, d)
					}
					if font := eval[string](t, ctx, `getComputedStyle(document.body).fontFamily`); !strings.Contains(font, "system-ui") {
						t.Errorf("%s: body font is %q: the stylesheet did not apply", p, font)
					}
				}
			})

			t.Run("sidebar navigates", func(t *testing.T) {
				open(t, ctx, srv.URL+"/index.html")
				sel := fmt.Sprintf(`#opslab-sidebar a[href="%s"]`, chapters[0])
				if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))); err != nil {
					t.Fatalf("clicking %s: %v", sel, err)
				}
				if loc := eval[string](t, ctx, `location.pathname`); !samePage(loc, chapters[0]) {
					t.Fatalf("after clicking chapter 1 in the sidebar, location = %s, want /%s", loc, chapters[0])
				}
				current := eval[string](t, ctx, `document.querySelector('#opslab-sidebar a[aria-current="page"]').textContent`)
				h1 := eval[string](t, ctx, `document.querySelector("article h1").firstChild.textContent`)
				if current != h1 {
					t.Errorf("the sidebar marks %q as the current page, want the chapter's title %q", current, h1)
				}
				id := eval[string](t, ctx, `document.querySelector("#opslab-sidebar .toc a").getAttribute("href")`)
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#opslab-sidebar .toc a`))); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "the page shows the heading clicked in the sidebar", fmt.Sprintf(`location.hash === %q`, id))
				top := eval[float64](t, ctx, fmt.Sprintf(`document.getElementById(decodeURIComponent(%q)).getBoundingClientRect().top`, id[1:]))
				if top < 0 || top > 200 {
					t.Errorf("after clicking %s in the sidebar, the heading is %.0f px from the top, want near it", id, top)
				}
				con.take()
			})

			t.Run("search finds a word only chapter 1 has", func(t *testing.T) {
				words := []string{onlyInChapter1(t, idx, chapters[0])}
				if tc.japanese != "" {
					words = append(words, tc.japanese)
				}
				for _, word := range words {
					open(t, ctx, srv.URL+"/index.html")
					if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("opslab-search-input"), word)); err != nil {
						t.Fatal(err)
					}
					// (Results for the whole word, not for the first letters typed.)
					poll(t, ctx, "search shows results for "+word, fmt.Sprintf(`!document.getElementById("opslab-search-results").hidden && document.getElementById("opslab-search-status").textContent.includes(%q)`, "“"+word+"”"))
					hrefs := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#opslab-search-list a"), a => a.getAttribute("href"))`)
					if len(hrefs) == 0 {
						t.Errorf("search for %q found nothing; status: %s", word, eval[string](t, ctx, `document.getElementById("opslab-search-status").textContent`))
					}
					for _, h := range hrefs {
						if !strings.HasPrefix(h, "./"+chapters[0]) {
							t.Errorf("search for %q found %s, want only chapter 1 (%s)", word, h, chapters[0])
						}
					}
					// And the result leads there.
					if len(hrefs) > 0 {
						if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS("#opslab-search-list a")))); err != nil {
							t.Fatal(err)
						}
						if loc := eval[string](t, ctx, `location.pathname`); !samePage(loc, chapters[0]) {
							t.Errorf("following the first result for %q led to %s", word, loc)
						}
					}
					msgs, outside := con.take()
					if len(msgs)+len(outside) > 0 {
						t.Errorf("searching: console %q, requests outside %q", msgs, outside)
					}
				}
				open(t, ctx, srv.URL+"/index.html")
				if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("opslab-search-input"), "qqxqqz")); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "search says nothing matches", `document.getElementById("opslab-search-status").textContent.startsWith("Nothing matches")`)
			})

			t.Run("search recovers, is announced and gets out of the way", func(t *testing.T) {
				word := onlyInChapter1(t, idx, chapters[0])
				failIndex.Store(true)
				open(t, ctx, srv.URL+"/"+chapters[0])
				if hidden := eval[bool](t, ctx, `document.getElementById("opslab-search-status").closest("[hidden]") !== null`); hidden {
					t.Errorf("the search status is inside a hidden element: its first message may not be announced")
				}
				if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("opslab-search-input"), word)); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "search says the index could not be loaded", `document.getElementById("opslab-search-status").textContent.includes("could not load")`)
				con.take() // the refused requests' console messages
				failIndex.Store(false)
				if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "a second try finds "+word, fmt.Sprintf(`document.querySelectorAll("#opslab-search-list a").length > 0 && document.getElementById("opslab-search-status").textContent.includes(%q)`, "“"+word+"”"))
				// The focus leaves the search: the panel closes.
				if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("opslab-theme-toggle"))); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "the panel closes when the focus leaves the search", `document.getElementById("opslab-search-results").hidden`)
				// A result on this page: the panel closes and the focus is on its heading.
				if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("opslab-search-input")), chromedp.KeyEvent("\r")); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "the results show again", `!document.getElementById("opslab-search-results").hidden`)
				hash := eval[string](t, ctx, `document.querySelector('#opslab-search-list a[href*="#"]')?.hash ?? ""`)
				if hash == "" {
					t.Fatalf("no result for %q names a heading of chapter 1", word)
				}
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#opslab-search-list a[href$=%q]`, hash)))); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "the panel closes after a result on this page", fmt.Sprintf(`location.hash === %q && document.getElementById("opslab-search-results").hidden`, hash))
				poll(t, ctx, "the focus is on the heading", fmt.Sprintf(`document.activeElement.id === decodeURIComponent(%q)`, hash[1:]))
				for _, s := range idx.Sections {
					if s.T != strings.TrimSpace(s.T) {
						t.Errorf("the index's section title %q has a space at an end", s.T)
						break
					}
				}
				con.take()
			})

			t.Run("code is highlighted", func(t *testing.T) {
				// A chapter's path quotes little code: the first of its pages
				// (path, evidence page, deep dives) that quotes Go is read.
				found := ""
				for _, p := range idx.Pages {
					if !strings.HasPrefix(p.U, "chapters/") || !strings.HasSuffix(p.U, ".html") {
						continue
					}
					open(t, ctx, srv.URL+"/"+p.U)
					if eval[int](t, ctx, `document.querySelectorAll('article .code[data-lang="go"] .chroma .kd, article .code[data-lang="go"] .chroma .k').length`) > 0 {
						found = p.U
						break
					}
				}
				if found == "" {
					t.Fatal("no chapter page has a highlighted Go keyword")
				}
				kw := eval[string](t, ctx, `getComputedStyle(document.querySelector("article .chroma .kd, article .chroma .k")).color`)
				plain := eval[string](t, ctx, `getComputedStyle(document.querySelector("article .chroma")).color`)
				if kw == plain {
					t.Errorf("a keyword has the colour of plain code (%s): highlighting has no style", kw)
				}
			})

			t.Run("theme follows the system", func(t *testing.T) {
				open(t, ctx, srv.URL+"/"+chapters[0])
				eval[bool](t, ctx, `localStorage.removeItem("opslab-theme"), delete document.documentElement.dataset.theme, true`)
				defer chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
				for _, c := range []struct{ scheme, bg string }{{"dark", "rgb(13, 17, 23)"}, {"light", "rgb(255, 255, 255)"}} {
					if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: c.scheme}},
					}); err != nil {
						t.Fatal(err)
					}
					open(t, ctx, srv.URL+"/"+chapters[0])
					if bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != c.bg {
						t.Errorf("with a %s system theme and no choice made, the background is %s, want %s", c.scheme, bg, c.bg)
					}
				}
			})

			t.Run("print hides the navigation", func(t *testing.T) {
				open(t, ctx, srv.URL+"/"+chapters[0])
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
					t.Fatal(err)
				}
				defer chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
				for _, sel := range []string{"#opslab-sidebar", "header.top", "nav.pager"} {
					if d := eval[string](t, ctx, fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).display`, sel)); d != "none" {
						t.Errorf("printed, %s has display %s, want none", sel, d)
					}
				}
				if d := eval[string](t, ctx, `getComputedStyle(document.querySelector("article")).display`); d == "none" {
					t.Errorf("printed, the article is hidden")
				}
			})

			t.Run("theme toggle switches and is remembered", func(t *testing.T) {
				open(t, ctx, srv.URL+"/"+chapters[0])
				bg := func() string { return eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`) }
				before := bg()
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("opslab-theme-toggle"))); err != nil {
					t.Fatal(err)
				}
				after := bg()
				if after == before {
					t.Fatalf("the background is %s before and after the toggle", before)
				}
				theme := eval[string](t, ctx, `document.documentElement.dataset.theme`)
				open(t, ctx, srv.URL+"/index.html")
				if got := eval[string](t, ctx, `document.documentElement.dataset.theme`); got != theme {
					t.Errorf("on the next page the theme is %q, want the chosen %q", got, theme)
				}
				if got := bg(); got != after {
					t.Errorf("on the next page the background is %s, want %s", got, after)
				}
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("opslab-theme-toggle"))); err != nil {
					t.Fatal(err)
				}
				if got := bg(); got != before {
					t.Errorf("toggling back: background %s, want %s", got, before)
				}
			})

			t.Run("menu on a phone", func(t *testing.T) {
				phone(t, ctx, 390)
				open(t, ctx, srv.URL+"/"+chapters[0])
				left := func() float64 {
					return eval[float64](t, ctx, `document.getElementById("opslab-sidebar").getBoundingClientRect().right`)
				}
				if r := left(); r > 0 {
					t.Errorf("on a phone the sidebar is shown before the menu is opened (right edge at %.0f)", r)
				}
				notWider(t, ctx, 390)
				// Closed, the sidebar's links are no Tab stops.
				for _, stop := range tabStops(t, ctx, 12) {
					if strings.HasPrefix(stop, "nav#opslab-sidebar") {
						t.Errorf("with the menu closed, Tab reaches %s", stop)
					}
				}
				// Opened from the keyboard, the menu takes the focus.
				if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("opslab-menu-toggle")), chromedp.KeyEvent("\r")); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "the sidebar slides in", `document.getElementById("opslab-sidebar").getBoundingClientRect().left >= 0`)
				if got := eval[string](t, ctx, `document.getElementById("opslab-menu-toggle").getAttribute("aria-expanded")`); got != "true" {
					t.Errorf("menu button aria-expanded = %s, want true", got)
				}
				if got := eval[string](t, ctx, `document.activeElement.closest("nav")?.id ?? document.activeElement.tagName`); got != "opslab-sidebar" {
					t.Errorf("the open menu leaves the focus on %s, want a link in it", got)
				}
				if got := eval[string](t, ctx, `document.activeElement.getAttribute("aria-current") ?? ""`); got != "page" {
					t.Errorf("the open menu focuses %q, want the current page's link", eval[string](t, ctx, `document.activeElement.textContent`))
				}
				// The content behind is inert: Tab goes round the menu and its button.
				for _, stop := range tabStops(t, ctx, 40) {
					// (body: the focus left the page for the browser's own controls.)
					if !strings.HasPrefix(stop, "nav#opslab-sidebar") && !strings.HasPrefix(stop, "header button#opslab-menu-toggle") && !strings.HasPrefix(stop, "body") {
						t.Errorf("with the menu open, Tab reaches %s behind it", stop)
						break
					}
				}
				// Escape closes it and gives the focus back to the button.
				if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#opslab-sidebar a")), chromedp.KeyEvent(kb.Escape)); err != nil {
					t.Fatal(err)
				}
				poll(t, ctx, "Escape closes the menu", `document.getElementById("opslab-menu-toggle").getAttribute("aria-expanded") === "false" && getComputedStyle(document.getElementById("opslab-sidebar")).visibility === "hidden"`)
				if got := eval[string](t, ctx, `document.activeElement.id`); got != "opslab-menu-toggle" {
					t.Errorf("after Escape the focus is on %q, want the menu button", got)
				}
				if inert := eval[bool](t, ctx, `document.querySelector("main").inert`); inert {
					t.Errorf("after the menu closed the content is still inert")
				}
			})

			t.Run("nothing scrolls sideways at 320 px", func(t *testing.T) {
				phone(t, ctx, 320)
				for _, p := range append([]string{"index.html"}, chapters...) {
					open(t, ctx, srv.URL+"/"+p)
					notWider(t, ctx, 320)
				}
			})

			t.Run("without JavaScript a phone reaches every page", func(t *testing.T) {
				phone(t, ctx, 390)
				if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
					t.Fatal(err)
				}
				defer chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
				if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+chapters[0])); err != nil {
					t.Fatal(err)
				}
				for _, sel := range []string{"#opslab-menu-toggle", "#opslab-search-input"} {
					if eval[bool](t, ctx, fmt.Sprintf(`document.querySelector(%q).checkVisibility({visibilityProperty: true})`, sel)) {
						t.Errorf("without JavaScript %s shows and can do nothing", sel)
					}
				}
				for _, ch := range chapters {
					js := fmt.Sprintf(`(() => { const a = Array.from(document.querySelectorAll("#opslab-sidebar a")).find(a => a.href === new URL(%q, location.origin + "/").href);
						if (!a) return "missing"; const r = a.getBoundingClientRect();
						return a.checkVisibility({visibilityProperty: true}) && r.left >= 0 && r.right <= innerWidth ? "" : "hidden at " + Math.round(r.left) })()`, ch)
					if why := eval[string](t, ctx, js); why != "" {
						t.Errorf("without JavaScript, the link to %s is %s", ch, why)
					}
				}
				notWider(t, ctx, 390)
			})

			if tc.screenshot != "" {
				t.Run("screenshot", func(t *testing.T) {
					open(t, ctx, srv.URL+"/"+chapters[0])
					png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					dir := filepath.Join(repoRoot, ".artifacts")
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					name := filepath.Join(dir, tc.screenshot)
					if err := os.WriteFile(name, png, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s (%d bytes)", name, len(png))
				})
			}
			msgs, outside := con.take()
			if len(msgs)+len(outside) > 0 {
				t.Errorf("console %q, requests outside the site %q", msgs, outside)
			}
		})
	}
}

// TestWatcherSeesErrors shows that the console watch is not blind: a page
// that breaks the Content-Security-Policy with an inline script, and one
// that loads from outside, are both reported.
func TestWatcherSeesErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="%s"><title>x</title></head>
<body><script>document.title = "ran"</script><img src="http://203.0.113.1/x.png" alt=""><button id="opslab-theme-toggle">t</button></body></html>`, site.CSP)
	}))
	defer srv.Close()
	ctx := browser(t)
	con := watch(t, ctx, srv.URL)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if title := eval[string](t, ctx, `document.title`); title == "ran" {
		t.Errorf("an inline script ran despite the Content-Security-Policy")
	}
	msgs, _ := con.take()
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "Content Security Policy") }) {
		t.Errorf("the console watch saw %q, want the policy's refusals", msgs)
	}
	_ = url.Parse
}

// phone shows the next pages on a phone's screen, width px wide, until the
// test ends.
func phone(t *testing.T, ctx context.Context, width int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)) })
}

// notWider fails when the page scrolls sideways on a screen width px wide,
// naming the widest elements.
func notWider(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	// (The page's own width, less a scroll bar the screen may show.)
	if w := eval[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth + innerWidth`); w > float64(width) {
		wide := eval[[]string](t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > %d && (!e.closest("pre") || e.tagName === "PRE")).slice(0, 5).map(e => e.tagName + "." + e.className + " in " + e.parentElement.tagName + "." + e.parentElement.className + " " + Math.round(e.getBoundingClientRect().right))`, width+1))
		t.Errorf("%s on a %d px screen is %.0f px wide; too wide: %q", eval[string](t, ctx, `location.pathname`), width, w, wide)
	}
}

// tabStops presses Tab n times and returns where the focus landed each
// time: the landmark or header it is in, then the element.
func tabStops(t *testing.T, ctx context.Context, n int) []string {
	t.Helper()
	var stops []string
	for range n {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		stops = append(stops, eval[string](t, ctx, `(() => { const a = document.activeElement, l = a.closest("nav, main, header, footer");
			const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "");
			return (l && l !== a ? name(l) + " " : "") + name(a) + " " + (a.textContent || "").trim().slice(0, 30) })()`))
	}
	return stops
}
