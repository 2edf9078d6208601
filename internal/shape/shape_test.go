package shape

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const fence = "```"

// TestMeasure: each figure counts what the package doc says it counts, and
// leaves out what it says it leaves out.
func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		src          string
		got          func(*Figures) any
		want         any
	}{
		{"words", "a word holds a letter or a digit; a dash is none",
			"# 1. Title\n\nOne two — 3,500 `kubectl drain` and [a link](x.md).\n",
			func(f *Figures) any { return f.PathWords }, 10},
		{"code blocks", "fenced and indented blocks are not prose",
			"Prose here.\n\n" + fence + "text\nnot prose at all\n" + fence + "\n\n    nor this\n",
			func(f *Figures) any { return f.PathWords }, 2},
		{"tables", "a table's cells are read, so they count",
			"| check | hint |\n|---|---|\n| floor-drained | wait three minutes |\n",
			func(f *Figures) any { return f.PathWords }, 6},
		{"markup", "images, HTML and the footnotes' definitions are not prose",
			"<!-- figure figures/a.svg -->\n![a figure of many words](figures/a.svg)\n\nA claim.[^c]\n\n[^c]: [How we know](EVIDENCE.md#c)\n",
			func(f *Figures) any { return []int{f.PathWords, f.Claims, f.Links} }, []int{2, 1, 0}},
		{"lab steps", "a Lab: or Step N heading opens a step, which ends at a heading of its level or above",
			"# T\n\n## Concept\n\nfour words of core\n\n### Lab: see it\n\none two three\n\n#### Expected output\n\nfour five\n\n### Step 2: again\n\nsix\n\n## Next\n\nsteps ended here\n",
			func(f *Figures) any { return []int{f.PathWords, f.LabWords, f.LabSteps} }, []int{10, 14, 2}},
		{"Steps is no step", "a heading Steps, without a number, is not a lab step",
			"### Steps\n\nthree more words\n",
			func(f *Figures) any { return []int{f.PathWords, f.LabWords} }, []int{4, 0}},
		{"first command", "a quoted sh block and a go block are not commands; the console block is",
			"one two\n\n<!-- quote lab/solve.sh -->\n" + fence + "sh\nkubectl get pods\n" + fence + "\n\nthree\n\n" + fence + "go\nx := 1\n" + fence + "\n\nfour five\n\n" + fence + "console\n$ kubectl get pods\n" + fence + "\n\nsix seven\n",
			func(f *Figures) any { return []int{f.BeforeCommand, f.FirstCommand} }, []int{5, 16}},
		{"command in a list", "a command inside a list item counts where it stands",
			"Intro words.\n\n1. Run this:\n\n   " + fence + "bash\n   make start\n   " + fence + "\n\n2. Then more words.\n",
			func(f *Figures) any { return []int{f.BeforeCommand, f.FirstCommand} }, []int{4, 5}},
		{"no command", "with no command, every word comes before it",
			"one two three\n\n    kubectl get pods\n",
			func(f *Figures) any { return []int{f.BeforeCommand, f.FirstCommand} }, []int{3, 0}},
		{"sentences", "e.g. and a full stop in inline code end no sentence; a paragraph's end does",
			"One two three. Four, e.g. five `a. b` six! Seven\n\n- an item without a stop\n\n## A heading is no sentence.\n",
			func(f *Figures) any { return []int{f.Sentences, f.SentenceWords} }, []int{4, 15}},
		{"closing marks", "a stop before a closing bracket or emphasis ends the sentence",
			"He said (it ends.) And **so does this.** Last one\n",
			func(f *Figures) any { return f.Sentences }, 3},
		{"test names", "a proof link, a transcript and a name in code or prose count once each; Testing is no test",
			"[`TestA`](a_test.go), [drain](cmd/x/testdata/drain.txtar), `TestB/case`, TestC. Testing.\n",
			func(f *Figures) any { return names(f.TestNames) }, []string{"TestA", "TestScript/drain", "TestB/case", "TestC"}},
		{"line numbers", "file.go:N in the prose, #LN in it or in a link",
			"See budget.go:12 and [this](https://example.com/x/disruption.go#L931), or `#L7-L9`.\n",
			func(f *Figures) any { return names(f.LineNumbers) }, []string{"budget.go:12", "disruption.go#L931", "#L7-L9"}},
		{"links", "links and autolinks count, images do not",
			"[a](a.md), https://example.com and ![i](i.svg).\n",
			func(f *Figures) any { return f.Links }, 2},
		{"average", "the words of the sentences over their number, to one decimal",
			"One two three. Four five six seven. Eight.\n",
			func(f *Figures) any { return f.AvgSentence }, 2.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := MeasureSource("README.md", []byte(tc.src))
			if diff := cmp.Diff(tc.want, tc.got(f)); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tc.reason, diff)
			}
		})
	}
}

func names(ms []Mention) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// TestSections: the required sections are found at level 2 whatever their
// case, "Choosing" may go on, and the lists and the evidence link are
// read within their own section.
func TestSections(t *testing.T) {
	src := `# 1. Title

A promise.

## You will be able to:

- one
- two
- three

## Before you start

## Choosing a value

## recap

- a
- b
- c
- d
- e
- f
- g
- h

## Your lab, graded

## Build it yourself

## How we know

Nothing here.

## Deep dives

See [the evidence](EVIDENCE.md).
`
	f := MeasureSource("README.md", []byte(src))
	want := []Section{
		{Name: "title", Line: 1},
		{Name: "## You will be able to", Line: 5},
		{Name: "## Before you start", Line: 11},
		{Name: "## Choosing", Line: 13},
		{Name: "## Recap", Line: 15, Problem: "lists 8 lines, want 5 to 7"},
		{Name: "## Your lab, graded", Line: 26},
		{Name: "## Build it yourself", Line: 28},
		{Name: "## How we know", Line: 30, Problem: "does not link EVIDENCE.md, the chapter's evidence page"},
	}
	if diff := cmp.Diff(want, f.Sections); diff != "" {
		t.Errorf("sections (-want +got)\n%s", diff)
	}
	if got := f.SectionsOK(); got != 6 {
		t.Errorf("SectionsOK = %d, want 6", got)
	}
}

// TestBudgetsTolerance: a word budget passes up to 10 % over it and fails
// one word beyond; the average sentence passes at 22 words and fails above.
func TestBudgetsTolerance(t *testing.T) {
	fine := func() *Figures {
		f := MeasureSource("README.md", nil)
		f.Sections = nil
		f.FirstCommand = 1
		return f
	}
	for _, tc := range []struct {
		name string
		set  func(*Figures)
		rule string // "" for none
	}{
		{"path at tolerance", func(f *Figures) { f.PathWords = 3850 }, ""},
		{"path over", func(f *Figures) { f.PathWords = 3851 }, RulePathWords},
		{"lab at tolerance", func(f *Figures) { f.LabWords = 1320 }, ""},
		{"lab over", func(f *Figures) { f.LabWords = 1321 }, RuleLabWords},
		{"before at tolerance", func(f *Figures) { f.BeforeCommand = 880 }, ""},
		{"before over", func(f *Figures) { f.BeforeCommand = 881 }, RuleFirstCommand},
		{"sentence at most", func(f *Figures) { f.AvgSentence = 22 }, ""},
		{"sentence over", func(f *Figures) { f.AvgSentence = 22.1 }, RuleSentences},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fine()
			tc.set(f)
			var rules []string
			for _, b := range f.Breaches() {
				rules = append(rules, b.Rule)
			}
			var want []string
			if tc.rule != "" {
				want = []string{tc.rule}
			}
			if !slices.Equal(rules, want) {
				t.Errorf("Breaches() rules = %q, want %q", rules, want)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 3850: "3,850", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestMeasureDir: Measure names the chapter by its directory and sees its
// EVIDENCE.md.
func TestMeasureDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "07-seven")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# 7. Seven\n"), 0o644)
	f, err := Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Chapter != "07-seven" || f.Evidence {
		t.Errorf("Measure = chapter %q, evidence %v; want 07-seven, false", f.Chapter, f.Evidence)
	}
	os.WriteFile(filepath.Join(dir, "EVIDENCE.md"), []byte("# Evidence\n"), 0o644)
	if f, _ := Measure(dir); !f.Evidence {
		t.Error("Measure does not see EVIDENCE.md")
	}
	if _, err := Measure(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "README.md") {
		t.Errorf("Measure of a directory without README.md: err = %v, want one naming README.md", err)
	}
}
