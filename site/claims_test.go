package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// WithClaim adds to a copy of the test course a claim of chapter 1,
// marked twice in its path, with its plant, and another footnote that is
// no claim.
func WithClaim(t *testing.T) string {
	t.Helper()
	repo := copyRepo(t)
	ch := filepath.Join(repo, "chapters", "01-alpha")
	edit(t, filepath.Join(ch, "README.md"), "A footnote.[^1]", "Evicting at the floor is refused.[^floor] Again.[^floor] A footnote.[^1]")
	edit(t, filepath.Join(ch, "README.md"), "[^1]: The footnote text.", "[^1]: The footnote text.\n[^floor]: [How we know](#evicting-under-a-budget)")
	if err := os.MkdirAll(filepath.Join(ch, "plants"), 0o755); err != nil {
		t.Fatal(err)
	}
	plant := `claim: floor
if: the floor could be broken by one
file: model.go
tests: TestEvictRefused
upstream: https://github.com/kubernetes/kubernetes/blob/v1.99.9/pkg/registry/core/pod/storage/eviction.go#L418
-- old --
	return pods-1 >= floor
-- new --
	return pods >= floor
`
	if err := os.WriteFile(filepath.Join(ch, "plants", "floor.plant"), []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ch, "plants", "verdicts.sum"), []byte("floor h1:AAAA= killed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestClaims(t *testing.T) {
	repo := WithClaim(t)
	results := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(results, []byte(strings.Join(passing, "\n")+"\n"), 0o644)
	out := build(t, repo, results)
	ch1 := read(t, filepath.Join(out, "chapters/01-alpha/index.html"))
	for _, want := range []struct{ name, html string }{
		{"a claim's marker is a mark that links its footnote", `<sup id="fnref:1" class="claim"><a href="#fn:1" class="footnote-ref claim-mark" role="doc-noteref" data-claim="floor" aria-label="How we know: note 1">1</a></sup>`},
		{"its second marker keeps the footnote's second way back", `<sup id="fnref1:1" class="claim">`},
		{"a footnote that is no claim stays a footnote", `<sup id="fnref:2"><a href="#fn:2" class="footnote-ref" role="doc-noteref">2</a></sup>`},
		{"the footnotes are listed", `<li id="fn:1">`},
		{"a page with claims loads their script", `<script src="../../_assets/claims.js" defer></script>`},
	} {
		if !strings.Contains(ch1, want.html) {
			t.Errorf("chapter 1: %s: no %q", want.name, want.html)
		}
	}
	var claims map[string]claimJSON
	if err := json.Unmarshal([]byte(read(t, filepath.Join(out, "chapters/01-alpha", claimsFile))), &claims); err != nil {
		t.Fatal(err)
	}
	want := map[string]claimJSON{"floor": {
		Evidence: "#evicting-under-a-budget",
		Plants: []plantJSON{{
			If:       "the floor could be broken by one",
			Tests:    []testJSON{{Name: "TestEvictRefused", URL: "model_test.go.html#L11", State: "passed"}},
			Upstream: "https://github.com/kubernetes/kubernetes/blob/v1.99.9/pkg/registry/core/pod/storage/eviction.go#L418",
			Verdict:  "killed",
		}},
	}}
	if diff := cmp.Diff(want, claims); diff != "" {
		t.Errorf("claims.json (-want +got):\n%s", diff)
	}
	if idx := read(t, filepath.Join(out, "index.html")); strings.Contains(idx, "claims.js") {
		t.Errorf("the index, which has no claims, loads claims.js")
	}
	// The page links the test's source: the build wrote it.
	if _, err := os.Stat(filepath.Join(out, "chapters/01-alpha/model_test.go.html")); err != nil {
		t.Errorf("the claim's test has no source page: %v", err)
	}
}

// TestClaimsFailedTest: a claim whose test failed in the results fails the
// build, as a proof link's does.
func TestClaimsFailedTest(t *testing.T) {
	repo := WithClaim(t)
	results := filepath.Join(t.TempDir(), "results.json")
	lines := append([]string{result("fail", alphaPkg, "TestEvictRefused")}, passing...)
	os.WriteFile(results, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, err := Build(Config{Root: repo, Out: filepath.Join(t.TempDir(), "out"), Results: results})
	if err == nil || !strings.Contains(err.Error(), "claim floor: its test TestEvictRefused ("+alphaPkg+") failed in") {
		t.Errorf("Build = %v, want the claim's failed test named", err)
	}
}
