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

// axeTags are the rules run: WCAG 2.2 levels A and AA.
const axeRun = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}, resultTypes: ["violations"]})
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
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeSource(t)+";0")); err != nil {
		t.Fatalf("%s: loading axe-core: %v", what, err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
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

// TestAxeSeesViolations shows that the accessibility check is not blind: a
// page with an unlabelled field and grey-on-grey text fails it.
func TestAxeSeesViolations(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>x</title></head>
<body><main><input type="text"><p style="color:#bbb;background:#ccc">faint</p></main></body></html>`)
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
}

// setTheme makes the next pages use a theme, as the reader's choice would.
func setTheme(t *testing.T, ctx context.Context, theme string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`localStorage.setItem("opslab-theme", %q), document.documentElement.dataset.theme = %q, true`, theme, theme))
}

// TestAccessibility runs axe-core (WCAG 2.2 A and AA) in the light theme and
// in the dark one on every page written in Markdown and on one page of each
// other kind (a directory listing, a source file): those are one template
// each, and axe takes seconds on a long source file.
func TestAccessibility(t *testing.T) {
	axeSource(t)
	srv, out := serve(t, *courseRoot)
	ctx := browser(t)
	var pages []string
	var listing, source bool
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return nil
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		data, _ := os.ReadFile(p)
		switch {
		case !bytes.Contains(data, []byte(`class="source-title"`)):
			pages = append(pages, rel)
		case bytes.Contains(data, []byte(`<ul class="files">`)):
			if !listing {
				pages, listing = append(pages, rel), true
			}
		case strings.HasSuffix(rel, ".go.html"):
			if !source {
				pages, source = append(pages, rel), true
			}
		}
		return nil
	})
	if len(pages) < 5 {
		t.Fatalf("the site has %d pages", len(pages))
	}
	t.Logf("%d pages: %s", len(pages), strings.Join(pages, " "))
	open(t, ctx, srv.URL+"/index.html")
	for _, theme := range []string{"light", "dark"} {
		t.Run(theme, func(t *testing.T) {
			setTheme(t, ctx, theme)
			for _, p := range pages {
				open(t, ctx, srv.URL+"/"+p)
				axeCheck(t, ctx, p+" ("+theme+")")
			}
		})
	}
}
