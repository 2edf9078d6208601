package learn

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const model = `package m

import (
	"slices"
	"strings"
)

// Sorted returns xs sorted.
func Sorted(xs []string) []string {
	// a comment inside the body goes with it
	return slices.Sorted(slices.Values(xs))
}

// Upper is kept.
func Upper(s string) string { return strings.ToUpper(s) }

type T struct{}

// Pair has two results.
func (t *T) Pair() (int, error) { return 1, nil }

// Named has named results.
func (T) Named() (n int, err error) { n = 2; return }

// Nothing returns nothing.
func Nothing(p *int) { *p = 1 }
`

// TestBlank: a blanked function keeps its doc comment and signature and
// returns zero values; imports only its body used go; the rest is kept.
func TestBlank(t *testing.T) {
	got, err := Blank([]byte(model), map[string]string{"Sorted": "1 (a)", "T.Pair": "2 (b)", "T.Named": "2 (b)", "Nothing": "3 (c)"})
	if err != nil {
		t.Fatal(err)
	}
	want := `package m

import (
	"strings"
)

// Sorted returns xs sorted.
func Sorted(xs []string) []string {
	// Step 1 (a): write this function; its doc comment says what it does.
	var zero0 []string
	return zero0
}

// Upper is kept.
func Upper(s string) string { return strings.ToUpper(s) }

type T struct{}

// Pair has two results.
func (t *T) Pair() (int, error) {
	// Step 2 (b): write this function; its doc comment says what it does.
	var zero0 int
	var zero1 error
	return zero0, zero1
}

// Named has named results.
func (T) Named() (n int, err error) {
	// Step 2 (b): write this function; its doc comment says what it does.
	return
}

// Nothing returns nothing.
func Nothing(p *int) {
	// Step 3 (c): write this function; its doc comment says what it does.
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Blank (-want +got):\n%s", diff)
	}
	if _, err := Blank([]byte(model), map[string]string{"Missing": "1 (a)"}); err == nil || err.Error() != "no function Missing" {
		t.Errorf("Blank of a missing function = %v, want no function Missing", err)
	}
}

// TestBlankSwitched: with steps, a function keeps its body behind a switch
// on the step the test binary blanks from.
func TestBlankSwitched(t *testing.T) {
	got, err := blank([]byte(model), map[string]string{"Sorted": ""}, map[string]int{"Sorted": 4})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "\tif learnFrom <= 4 {\n") || !strings.Contains(string(got), "return slices.Sorted(slices.Values(xs))") {
		t.Errorf("switched Sorted lacks the switch or the model's body:\n%s", got)
	}
}

// TestRewrite replaces a body with what a learner typed.
func TestRewrite(t *testing.T) {
	got, err := Rewrite([]byte(model), "Upper", "\treturn s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "func Upper(s string) string {\n\treturn s\n}") {
		t.Errorf("Rewrite did not replace Upper's body:\n%s", got)
	}
}

// TestParse reads go test -json: each test's outcome and its own lines,
// without go test's framing; a test that did not run is marked so.
func TestParse(t *testing.T) {
	out := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: got 1, want 2\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestB/sub"}
{"Action":"pass","Package":"p","Test":"TestB"}
`
	runs := parse([]byte(out), []string{"TestA", "TestB", "TestC"}, map[string]string{"p": "dir"})
	r := runs["dir"]
	want := []Result{
		{Test: "TestA", Ran: true, Output: []string{"a_test.go:3: got 1, want 2"}},
		{Test: "TestB", Ran: true, Passed: true},
		{Test: "TestC"},
	}
	if diff := cmp.Diff(want, r.Results); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
	if first, _ := r.FirstFailure(); first.Test != "TestA" {
		t.Errorf("FirstFailure = %s, want TestA", first.Test)
	}
}

// TestClaims finds the sentence that links a test, and its section.
func TestClaims(t *testing.T) {
	c, err := Claims("testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	got := c["TestTolerates"]
	want := Claim{
		Sentence: "An empty key with Exists tolerates every taint, an empty effect every effect (TestTolerates).",
		Section:  "Taints and tolerations", Anchor: "taints-and-tolerations",
	}
	if got != want {
		t.Errorf("Claims[TestTolerates] = %+v, want %+v", got, want)
	}
}

// TestClaimsFollowMarks: a README in the shape of a chapter links no tests;
// a sentence's claim mark leads to a section of the evidence page, and the
// tests that section links (its subsections too) are that sentence's, a
// test named in full before one whose case another section names.
func TestClaimsFollowMarks(t *testing.T) {
	c, err := Claims("testdata/marked/README.md")
	if err != nil {
		t.Fatal(err)
	}
	wildcard := Claim{Sentence: "An empty key with Exists tolerates every taint.", Section: "Taints and tolerations", Anchor: "taints-and-tolerations"}
	effects := Claim{Sentence: "every effect", Section: "Taints and tolerations", Anchor: "taints-and-tolerations"}
	want := map[string]Claim{
		"TestTolerates/empty_key":    wildcard,
		"TestTolerates/empty_effect": effects,
		"TestTolerates":              wildcard,
		"TestOracle":                 wildcard,
		"TestDeeper":                 wildcard,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Claims (-want +got):\n%s", diff)
	}
}
