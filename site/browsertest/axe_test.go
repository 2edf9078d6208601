//go:build browser

package browsertest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axe-core, the accessibility engine the tests run on every page, is
// fetched once from the npm registry and kept under .cache/ at the repository root, as
// the lab keeps its binaries: the package's checksum is pinned here.
const (
	axeVersion   = "4.11.4"
	axeIntegrity = "sha512-KunSNx+TVpkAw/6ULfhnx+HWRecjqZGTOyquAoWHYLRSdK1tB5Ihce1ZW+UY3fj33bYAFWPu7W/GRSmmrCGuxA=="
)

var axeOnce = sync.OnceValues(loadAxe)

func axeSource(t *testing.T) string {
	t.Helper()
	src, err := axeOnce()
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func loadAxe() (string, error) {
	dir := filepath.Join(repoRoot, ".cache", "axe-core-"+axeVersion)
	file := filepath.Join(dir, "axe.min.js")
	if data, err := os.ReadFile(file); err == nil {
		return string(data), nil
	}
	// The package is read straight from the npm registry, so a fresh
	// machine needs no npm; the pinned checksum is what makes it safe.
	registry := os.Getenv("npm_config_registry")
	if registry == "" {
		registry = "https://registry.npmjs.org/"
	}
	url := strings.TrimSuffix(registry, "/") + "/axe-core/-/axe-core-" + axeVersion + ".tgz"
	resp, err := http.Get(url)
	if err != nil {
		return "", fmt.Errorf("the accessibility tests need axe-core %s from the npm registry: %v", axeVersion, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the accessibility tests need axe-core %s: %s answered %s", axeVersion, url, resp.Status)
	}
	tgz, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("reading axe-core %s from %s: %v", axeVersion, url, err)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != axeIntegrity {
		return "", fmt.Errorf("axe-core %s from npm has checksum %s, want %s", axeVersion, got, axeIntegrity)
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return "", err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return "", fmt.Errorf("axe-core %s: no package/axe.min.js in the package: %v", axeVersion, err)
		}
		if h.Name != "package/axe.min.js" {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(file+".tmp", data, 0o644); err != nil {
			return "", err
		}
		return string(data), os.Rename(file+".tmp", file)
	}
}

// axeRunOnly selects the rules of WCAG 2.2 levels A and AA; axeRun runs
// them on the page and reports the violations.
const axeRunOnly = `runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}`

const axeRun = `axe.run(document, {` + axeRunOnly + `, resultTypes: ["violations"]})
	.then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary.split("\n").slice(1, 2).join(""))}))))`

// axeCheck runs axe-core on the page the tab shows and fails the test for
// every violation, naming the page as what.
func axeCheck(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, v := range axeViolations(t, ctx, what) {
		t.Error(v)
	}
}

// axeDemoCheck runs axeCheck on a running demo in both themes.
func axeDemoCheck(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		eval[bool](t, ctx, fmt.Sprintf(`document.documentElement.dataset.theme = %q, true`, theme))
		axeCheck(t, ctx, what+" ("+theme+")")
	}
}

func axeViolations(t *testing.T, ctx context.Context, what string) []string {
	t.Helper()
	return runAxe(t, ctx, what, "document", "")
}

// installAxe loads axe-core into the page the tab shows, unless the page has
// it already (TestAccessibility installs it in every page).
func installAxe(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if eval[bool](t, ctx, `typeof axe === "object"`) {
		return
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeSource(t)+";0")); err != nil {
		t.Fatalf("%s: loading axe-core: %v", what, err)
	}
}

// runAxe runs axeRun's rules on context, with options besides its own
// (runOnly replaces its rules).
func runAxe(t *testing.T, ctx context.Context, what, context, options string) []string {
	t.Helper()
	installAxe(t, ctx, what)
	run := strings.Replace(axeRun, "axe.run(document, {", "axe.run("+context+", {", 1)
	if strings.HasPrefix(options, "runOnly:") {
		run = strings.Replace(run, axeRunOnly, options, 1)
	} else if options != "" {
		run = strings.Replace(run, "resultTypes:", options+", resultTypes:", 1)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: running axe-core: %v", what, err)
	}
	var violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("%s: axe-core said %s: %v", what, out, err)
	}
	var found []string
	for _, v := range violations {
		found = append(found, fmt.Sprintf("%s: axe %s (%s): %s; at %s", what, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; ")))
	}
	return found
}

// textKinds lists, for the page the tab shows, the elements that hold text
// or are fields, each under its kind: the tags and classes of it and of
// every ancestor, with the attributes the stylesheet selects on or that set
// a style (style, aria-current, type). The stylesheet gives every element
// of a kind the same colours, size and background (it has no selectors on
// position that set a colour), so the contrast of a kind measured on one
// page holds on every page. The elements of kinds not in
// seen are kept in window.opslabNewText for the contrast rule.
const textKinds = `(seen => {
	const known = new Set(seen), fresh = [], nodes = [];
	const kind = e => {
		let k = "";
		for (let n = e; n; n = n.parentElement) {
			k = n.localName + [...n.classList].sort().map(c => "." + c).join("") +
				["style", "aria-current", "type"].filter(a => n.hasAttribute(a)).map(a => "[" + a + "=" + n.getAttribute(a) + "]").join("") + ">" + k;
		}
		return k;
	};
	for (const e of document.body.querySelectorAll("*")) {
		if (!e.matches("input, select, textarea, button") && ![...e.childNodes].some(c => c.nodeType === 3 && c.data.trim())) continue;
		const k = kind(e);
		if (known.has(k)) continue;
		known.add(k);
		fresh.push(k);
		nodes.push(e);
	}
	window.opslabNewText = nodes;
	return fresh;
})`

// pageViolations runs on the page the tab shows, in the light theme, every
// rule of axeRun but color-contrast on the whole page, and color-contrast
// on the text of each kind not in seen, then again on that text in the
// dark theme, switched in place as the theme toggle switches it; and adds
// those kinds to seen. color-contrast is most of axe's time on a page, and
// on a source file it would measure thousands of tokens of the few kinds
// the highlighter writes, on every page again. The dark theme changes
// colours only (TestThemesChangeOnlyColours), so the other rules' verdicts
// there are the light theme's, and only contrast is measured again. seen
// is shared by the browsers that audit at once, under mu.
func pageViolations(t *testing.T, ctx context.Context, what string, mu *sync.Mutex, seen map[string]bool) []string {
	t.Helper()
	mu.Lock()
	known := make([]string, 0, len(seen))
	for k := range seen {
		known = append(known, k)
	}
	mu.Unlock()
	arg, _ := json.Marshal(known)
	fresh := eval[[]string](t, ctx, textKinds+"("+string(arg)+")")
	mu.Lock()
	for _, k := range fresh {
		seen[k] = true
	}
	mu.Unlock()
	found := runAxe(t, ctx, what, "document", `rules: {"color-contrast": {enabled: false}}`)
	if len(fresh) == 0 {
		return found
	}
	contrast := `runOnly: {type: "rule", values: ["color-contrast"]}`
	found = append(found, runAxe(t, ctx, what+" (light)", "{include: window.opslabNewText}", contrast)...)
	eval[bool](t, ctx, `document.documentElement.dataset.theme = "dark", true`)
	found = append(found, runAxe(t, ctx, what+" (dark)", "{include: window.opslabNewText}", contrast)...)
	eval[bool](t, ctx, `document.documentElement.dataset.theme = "light", true`)
	return found
}

// TestAxeSeesViolations shows that the accessibility check is not blind: a
// page with an unlabelled field and grey-on-grey text fails it, and so does
// a page whose faint text is of a kind no earlier page had, after pages
// whose text is all of kinds already measured.
func TestAxeSeesViolations(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		body := `<main><input type="text"><p style="color:#bbb;background:#ccc">faint</p></main>`
		switch r.URL.Path {
		case "/plain":
			body = `<main><p class="note">plain</p><p>text</p></main>`
		case "/later":
			body = `<main><p class="note">plain</p><p>text</p><p class="note"><span class="faint">faint</span></p></main>`
		}
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>x</title>
<style>.faint { color: #bbb; background: #ccc }</style></head><body>`+body+`</body></html>`)
	}))
	defer srv.Close()
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(axeViolations(t, ctx, "test page"), "\n")
	for _, rule := range []string{"axe label", "axe color-contrast"} {
		if !strings.Contains(got, rule) {
			t.Errorf("axe-core did not report %s; it said:\n%s", rule, got)
		}
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	for _, p := range []string{"/plain", "/plain", "/later"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+p)); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(pageViolations(t, ctx, p, &mu, seen), "\n")
		if want := p == "/later"; strings.Contains(got, "axe color-contrast") != want {
			t.Errorf("%s: axe-core reported color-contrast %v, want %v; it said:\n%s", p, !want, want, got)
		}
	}
}

// setTheme makes the next pages use a theme, as the reader's choice would.
func setTheme(t *testing.T, ctx context.Context, theme string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`localStorage.setItem("opslab-theme", %q), document.documentElement.dataset.theme = %q, true`, theme, theme))
}

// TestAccessibility runs axe-core (WCAG 2.2 A and AA) on every page of the
// site: every rule on the whole page in the light theme, and color-contrast
// on every kind of text in the light theme and the dark one (see
// pageViolations). Each page is loaded once: the dark theme is switched in
// place, as the toggle does; that every page's own script applies the
// stored theme before the loop's checks is checked on each page for the
// light theme, and for the dark one on each browser's first page.
// Two browsers take the pages from one list, side by side; axe-core is
// installed in every page before the page's own scripts, so the loop only
// navigates, waits for the page's script and runs the rules. With
// $OPSLAB_AXE_CACHE (make test sets it), a page that passed before with
// the same inputs is not audited again (axeVerdicts).
func TestAccessibility(t *testing.T) {
	axe := axeSource(t)
	srv, out := serve(t, *courseRoot)
	var pages []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			rel, _ := filepath.Rel(out, p)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(pages) < 5 {
		t.Fatalf("the site has %d pages", len(pages))
	}
	t.Logf("%d pages", len(pages))
	verdicts := newAxeVerdicts(t, out, axe)
	var (
		mu     sync.Mutex
		next   int
		seen   = map[string]bool{}
		reused int
	)
	take := func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(pages) {
			return "", false
		}
		next++
		return pages[next-1], true
	}
	load := func(t *testing.T, ctx context.Context, p, theme string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+p)); err != nil {
			t.Fatalf("loading %s: %v", p, err)
		}
		if err := waitLoaded(ctx); err != nil {
			t.Fatalf("%s: the page did not finish loading (its script did not run): %v", p, err)
		}
		if got := eval[string](t, ctx, `document.documentElement.dataset.theme`); got != theme {
			t.Fatalf("%s: the theme is %q, want %q", p, got, theme)
		}
	}
	for i := range 2 {
		t.Run(fmt.Sprintf("browser %d", i+1), func(t *testing.T) {
			t.Parallel()
			ctx := browserFor(t, 10*time.Minute)
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: axe}); err != nil {
				t.Fatalf("installing axe-core: %v", err)
			}
			open(t, ctx, srv.URL+"/index.html")
			setTheme(t, ctx, "dark")
			load(t, ctx, "index.html", "dark")
			setTheme(t, ctx, "light")
			start, n := time.Now(), 0
			for p, ok := take(); ok; p, ok = take() {
				if kinds, ok := verdicts.passed(p); ok {
					mu.Lock()
					for _, k := range kinds {
						seen[k] = true
					}
					reused++
					mu.Unlock()
					continue
				}
				load(t, ctx, p, "light")
				found := pageViolations(t, ctx, p, &mu, seen)
				for _, v := range found {
					t.Error(v)
				}
				if len(found) == 0 && !t.Failed() {
					verdicts.pass(t, p, eval[[]string](t, ctx, textKinds+"([])"))
				}
				n++
			}
			t.Logf("%d pages in %v", n, time.Since(start).Round(time.Millisecond))
		})
	}
	t.Cleanup(func() {
		t.Logf("%d kinds of text measured for contrast", len(seen))
		if verdicts != nil {
			t.Logf("%d of %d pages passed before with the same page, site files, axe-core, Chromium and audit code, and were not audited again (their passes are kept in $OPSLAB_AXE_CACHE)", reused, len(pages))
		}
	})
}
