//go:build browser

package browsertest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// withClaim copies the test course and gives chapter 1 a claim, marked in
// its path, and the claim's plant.
func withClaim(t *testing.T) string {
	t.Helper()
	const from = "../testdata/repo"
	repo := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(repo, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(repo, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ch := filepath.Join(repo, "chapters", "01-alpha")
	readme, _ := os.ReadFile(filepath.Join(ch, "README.md"))
	s := strings.Replace(string(readme), "A footnote.[^1]", "Evicting at the floor is refused.[^floor] A footnote.[^1]", 1)
	s = strings.Replace(s, "[^1]: The footnote text.", "[^1]: The footnote text.\n[^floor]: [How we know](#evicting-under-a-budget)", 1)
	plant := "claim: floor\nif: the floor could be broken by one\nfile: model.go\ntests: TestEvictRefused\n" +
		"upstream: https://github.com/kubernetes/kubernetes/blob/v1.99.9/pkg/registry/core/pod/storage/eviction.go#L418\n" +
		"-- old --\n\treturn pods-1 >= floor\n-- new --\n\treturn pods >= floor\n"
	os.MkdirAll(filepath.Join(ch, "plants"), 0o755)
	if err := os.WriteFile(filepath.Join(ch, "README.md"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ch, "plants", "floor.plant"), []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestClaimPopover opens a claim's evidence from the keyboard: the mark is
// a button that says whether its popover is open and which element it is,
// Enter opens it with the counterfactual, the test linked to its source
// and the upstream line, and Escape closes it and gives the focus back.
// Without JavaScript the mark is the footnote's link.
func TestClaimPopover(t *testing.T) {
	srv, _ := serve(t, withClaim(t))
	ctx := browser(t)
	con := watch(t, ctx, srv.URL)
	page := srv.URL + "/chapters/01-alpha/index.html"
	open(t, ctx, page)

	button := `document.querySelector("button.claim-mark")`
	if !eval[bool](t, ctx, button+` !== null`) {
		t.Fatal("the claim's mark is no button")
	}
	if got := eval[string](t, ctx, button+`.getAttribute("aria-expanded")`); got != "false" {
		t.Errorf("closed, the mark's aria-expanded = %q, want false", got)
	}
	pop := `document.getElementById(` + button + `.getAttribute("aria-controls"))`
	if !eval[bool](t, ctx, pop+`?.hidden === true`) {
		t.Errorf("the mark's aria-controls names no hidden popover")
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("button.claim-mark")), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "Enter opens the popover", pop+`.hidden === false && `+button+`.getAttribute("aria-expanded") === "true"`)
	text := eval[string](t, ctx, pop+`.innerText`)
	for _, want := range []string{
		"If the floor could be broken by one, TestEvictRefused fails.",
		"Upstream: v1.99.9/pkg/registry/core/pod/storage/eviction.go line 418",
		"How we know, in full",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the popover does not say %q; it says:\n%s", want, text)
		}
	}
	if got := eval[string](t, ctx, pop+`.querySelector("a code")?.closest("a").getAttribute("href") ?? ""`); got != "model_test.go.html#L11" {
		t.Errorf("the popover's test links %q, want model_test.go.html#L11", got)
	}
	if !eval[bool](t, ctx, pop+`.checkVisibility()`) {
		t.Errorf("the open popover is not visible")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "Escape closes the popover", pop+`.hidden === true && `+button+`.getAttribute("aria-expanded") === "false"`)
	if got := eval[string](t, ctx, `document.activeElement.className`); got != "claim-mark" {
		t.Errorf("after Escape the focus is on %q, want the mark", got)
	}
	// A click opens it and a click elsewhere closes it.
	if err := chromedp.Do(ctx, chromedp.Click("button.claim-mark")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "a click opens the popover", pop+`.hidden === false`)
	if err := chromedp.Do(ctx, chromedp.Click("h1")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "a click outside closes the popover", pop+`.hidden === true`)
	msgs, outside := con.take()
	for _, m := range msgs {
		t.Errorf("console %s", m)
	}
	for _, u := range outside {
		t.Errorf("requested %s, outside the site", u)
	}

	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	defer chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.querySelector(".claim-mark")?.getAttribute("href") ?? ""`); got != "#fn:1" {
		t.Errorf("without JavaScript the mark links %q, want the footnote, #fn:1", got)
	}
}
