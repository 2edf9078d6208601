package prose

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestExtractDecl(t *testing.T) {
	src, err := os.ReadFile("testdata/model.go")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason string
		decl         string
		want         string // "" when an error is wanted
		wantErr      string
	}{
		{
			name:   "method",
			reason: "a method is named Type.Method and comes with its whole doc comment",
			decl:   "Cluster.Evict",
			want:   "// Evict removes a pod.\n//\n// It refuses nothing yet.\nfunc (c *Cluster) Evict(name string) error {\n\treturn nil\n}\n",
		},
		{
			name:   "type",
			reason: "a type declaration is quoted with its doc comment",
			decl:   "Cluster",
			want:   "// Cluster holds pods.\ntype Cluster struct {\n\tPods []string\n}\n",
		},
		{
			name:   "group",
			reason: "a name inside a const group quotes the whole group",
			decl:   "Running",
			want:   "// Phases of a pod.\nconst (\n\tPending = \"Pending\"\n\tRunning = \"Running\"\n)\n",
		},
		{
			name:   "trailing comment",
			reason: "a comment after the declaration on its last line belongs to it",
			decl:   "limit",
			want:   "var limit = 3 // why three\n",
		},
		{
			name:   "generic receiver",
			reason: "type parameters of a receiver are not part of the name",
			decl:   "Set.Add",
			want:   "func (s Set[T]) Add(v T) { s[v] = true }\n",
		},
		{
			name:    "missing",
			reason:  "a name the file does not declare is an error",
			decl:    "Drain",
			wantErr: "no declaration Drain",
		},
		{
			name:    "method without type",
			reason:  "a method is not found by its bare name",
			decl:    "Evict",
			wantErr: "no declaration Evict",
		},
		{
			name:    "ambiguous",
			reason:  "two functions of one name (init) cannot be told apart",
			decl:    "init",
			wantErr: "2 declarations are named init",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractDecl(src, tt.decl)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ExtractDecl(%s) error = %v, want %q (%s)", tt.decl, err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("ExtractDecl(%s): %v (%s)", tt.decl, err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("ExtractDecl(%s) (-want +got):\n%s\n%s", tt.decl, diff, tt.reason)
			}
		})
	}
}

func TestExtractLines(t *testing.T) {
	src := []byte("one\ntwo\nthree")
	tests := []struct {
		name, reason string
		from, to     int
		want         string
		wantErr      bool
	}{
		{name: "middle", reason: "both ends are included", from: 1, to: 2, want: "one\ntwo\n"},
		{name: "last line", reason: "a last line without newline gets one", from: 3, to: 3, want: "three\n"},
		{name: "past the end", reason: "a range past the end is an error", from: 2, to: 4, wantErr: true},
		{name: "reversed", reason: "a reversed range is an error", from: 2, to: 1, wantErr: true},
		{name: "zero", reason: "lines count from 1", from: 0, to: 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractLines(src, tt.from, tt.to)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ExtractLines(L%d-L%d) error = %v, want error %v (%s)", tt.from, tt.to, err, tt.wantErr, tt.reason)
			}
			if string(got) != tt.want {
				t.Errorf("ExtractLines(L%d-L%d) = %q, want %q (%s)", tt.from, tt.to, got, tt.want, tt.reason)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ name, reason, text, want string }{
		{"words", "lower case, spaces become dashes", "The Eviction API", "the-eviction-api"},
		{"punctuation", "punctuation is dropped, each space kept", "Drain: it stalls (forever)", "drain-it-stalls-forever"},
		{"code", "underscores and dashes are kept", "max_unavailable and min-available", "max_unavailable-and-min-available"},
		{"dash", "an em dash is dropped but both spaces stay", "Floors — not guarantees", "floors--not-guarantees"},
		{"japanese", "letters of any script are kept", "退避の順序", "退避の順序"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Slug(tt.text); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q (%s)", tt.text, got, tt.want, tt.reason)
			}
		})
	}
	ids := NewIDs()
	var got []string
	for _, id := range []string{"lab", "lab", "lab-1", "lab"} {
		got = append(got, ids.Unique(id))
	}
	if diff := cmp.Diff([]string{"lab", "lab-1", "lab-1-1", "lab-2"}, got); diff != "" {
		t.Errorf("IDs.Unique of repeated headings (-want +got):\n%s", diff)
	}
}

// fence returns a quote block as make quotes writes it.
func fence(t *testing.T, spec string) string {
	t.Helper()
	d := ParseSource("testdata/doc.md", []byte("<!-- quote "+spec+" -->\n```\n```\n"))
	if len(d.Quotes) != 1 {
		t.Fatalf("parsing a marker of %s: %d quotes, want 1", spec, len(d.Quotes))
	}
	want, err := d.Want(d.Quotes[0])
	if err != nil {
		t.Fatal(err)
	}
	return "<!-- quote " + spec + " -->\n" + string(want)
}

func TestParse(t *testing.T) {
	src := "# Title\n\n" +
		"<!-- quote model.go#Cluster.Evict -->\n```go\nold\n```\n\n" +
		"- item\n\n  <!-- quote lab/web.yaml -->\n  ```yaml\n  x\n  ```\n\n" +
		"It holds ([`TestEvict`](model_test.go), [TestEvict/sub](model_test.go#L5), [drain_stalls](sim/testdata/drain_stalls.txtar)).\n\n" +
		"See [other](other.md#two-words-here), [above](#title), ![pic](lab/web.yaml) and [the web](https://example.com).\n\n" +
		"    <!-- quote model.go -->\n    an indented code block holds no marker, [x](nowhere.md) no link\n\n" +
		"`[TestNo](model_test.go)` in a code span is no proof.\n"
	d := ParseSource("testdata/doc.md", []byte(src))

	type quote struct {
		Line          int
		Spec, File    string
		Decl          string
		From, To      int
		Block, Prefix string
	}
	var quotes []quote
	for _, q := range d.Quotes {
		quotes = append(quotes, quote{q.Line, q.Spec, q.File, q.Decl, q.From, q.To, src[q.blockStart:q.blockEnd], q.prefix})
	}
	wantQuotes := []quote{
		{Line: 3, Spec: "model.go#Cluster.Evict", File: "model.go", Decl: "Cluster.Evict", Block: "```go\nold\n```\n"},
		{Line: 10, Spec: "lab/web.yaml", File: "lab/web.yaml", Block: "  ```yaml\n  x\n  ```\n", Prefix: "  "},
	}
	if diff := cmp.Diff(wantQuotes, quotes); diff != "" {
		t.Errorf("quotes (-want +got):\n%s", diff)
	}

	var proofs []Proof
	for _, p := range d.Proofs {
		proofs = append(proofs, *p)
	}
	wantProofs := []Proof{
		{Line: 15, Target: "model_test.go", File: "model_test.go", Dir: ".", Test: "TestEvict", Text: "TestEvict"},
		{Line: 15, Target: "model_test.go#L5", File: "model_test.go", Dir: ".", Test: "TestEvict/sub", Text: "TestEvict/sub"},
		{Line: 15, Target: "sim/testdata/drain_stalls.txtar", File: "sim/testdata/drain_stalls.txtar", Dir: "sim", Test: "TestScript/drain_stalls", Text: "drain_stalls"},
	}
	if diff := cmp.Diff(wantProofs, proofs, cmpopts.IgnoreUnexported(Proof{})); diff != "" {
		t.Errorf("proofs (-want +got):\n%s", diff)
	}

	var links []Link
	for _, l := range d.Links {
		links = append(links, *l)
	}
	wantLinks := []Link{
		{Line: 17, Target: "other.md#two-words-here", File: "other.md", Fragment: "two-words-here"},
		{Line: 17, Target: "#title", Fragment: "title"},
		{Line: 17, Target: "lab/web.yaml", File: "lab/web.yaml", Image: true},
	}
	if diff := cmp.Diff(wantLinks, links, cmpopts.IgnoreUnexported(Link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if got := d.Check(); len(got) != 2 {
		t.Errorf("Check() = %v, want the two stale quotes", got)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, reason string
		md           string
		want         []string
	}{
		{
			name:   "fresh",
			reason: "copies that match their sources, tests that exist and links that resolve are no problem",
			md: "# Title\n\n" + fence(t, "model.go#Cluster.Evict") + "\n" + fence(t, "model.go#Pending") + "\n" +
				fence(t, "lab/web.yaml") + "\n" + fence(t, "sim/testdata/drain_stalls.txtar#L2-L3") + "\n" +
				fence(t, "lab/nonl.txt") + "\n" + fence(t, "fenced.txt") + "\n" +
				"- in a list:\n\n" + indent(fence(t, "model.go#limit"), "  ") + "\n" +
				"> quoted:\n>\n" + indent(fence(t, "model.go#Cluster"), "> ") + "\n" +
				"Proofs: [`TestEvict`](model_test.go), [`TestEvict/refused at floor`](model_test.go), [drain_stalls](sim/testdata/drain_stalls.txtar).\n\n" +
				"Links: [other](other.md), [a heading](other.md#two-words-here), [japanese](other.md#退避の順序), " +
				"[encoded](other.md#%E9%80%80%E9%81%BF%E3%81%AE%E9%A0%86%E5%BA%8F), [up](#title), [dir](lab/), " +
				"[a line](model.go#L3), [lines](model.go#L3-L5), ![img](lab/web.yaml), [web](https://example.com/x.md#nope), [mail](mailto:a@b.c).\n",
		},
		{
			name:   "stale",
			reason: "a copy that differs from its source by one byte is stale",
			md:     strings.Replace(fence(t, "model.go#Cluster.Evict"), "nil", "err", 1),
			want:   []string{"testdata/doc.md:1: stale quote of model.go#Cluster.Evict: run make quotes"},
		},
		{
			name:   "wrong language",
			reason: "the fence's language follows the file",
			md:     strings.Replace(fence(t, "lab/web.yaml"), "```yaml", "```yml", 1),
			want:   []string{"testdata/doc.md:1: stale quote of lab/web.yaml: run make quotes"},
		},
		{
			name:   "missing file",
			reason: "a quote of a file that does not exist",
			md:     "text\n\n<!-- quote gone.go#X -->\n```go\n```\n",
			want:   []string{"testdata/doc.md:3: quoted file gone.go does not exist"},
		},
		{
			name:   "missing declaration",
			reason: "a quote of a declaration the file does not have",
			md:     "<!-- quote model.go#Cluster.Drain -->\n```go\n```\n",
			want:   []string{"testdata/doc.md:1: quote of model.go#Cluster.Drain: model.go has no declaration Cluster.Drain"},
		},
		{
			name:   "declaration of a yaml file",
			reason: "only Go files have declarations",
			md:     "<!-- quote lab/web.yaml#web -->\n```yaml\n```\n",
			want:   []string{"testdata/doc.md:1: quote of lab/web.yaml#web: lab/web.yaml is not a Go file, so #web cannot name a declaration; quote it whole or by lines (#L1-L9)"},
		},
		{
			name:   "lines of a Go file",
			reason: "Go is quoted by declaration, which does not drift",
			md:     "<!-- quote model.go#L1-L2 -->\n```go\n```\n",
			want:   []string{"testdata/doc.md:1: quote of model.go#L1-L2: quote a declaration of a Go file (#Name), not lines, so the quote does not drift"},
		},
		{
			name:   "lines past the end",
			reason: "a line range must lie in the file",
			md:     "<!-- quote lab/web.yaml#L3-L9 -->\n```yaml\n```\n",
			want:   []string{"testdata/doc.md:1: quote of lab/web.yaml#L3-L9: line range L3-L9 is past the end: the file has 4 lines"},
		},
		{
			name:   "no fence",
			reason: "a marker must be followed by the block that holds the copy",
			md:     "<!-- quote model.go#Cluster -->\n\nSome text.\n",
			want:   []string{"testdata/doc.md:1: quote marker model.go#Cluster is not followed by a fenced code block"},
		},
		{
			name:   "marker at the end",
			reason: "a marker on the last line has no block after it",
			md:     "<!-- quote model.go#Cluster -->\n",
			want:   []string{"testdata/doc.md:1: quote marker model.go#Cluster is not followed by a fenced code block"},
		},
		{
			name:   "malformed marker",
			reason: "a marker with two paths is not understood",
			md:     "<!-- quote a.go b.go -->\n```go\n```\n",
			want:   []string{`testdata/doc.md:1: malformed quote marker "<!-- quote a.go b.go -->": want <!-- quote PATH[#Decl|#Lx-Ly] -->`},
		},
		{
			name:   "marker in a paragraph",
			reason: "a marker in running text quotes nothing",
			md:     "Text <!-- quote model.go#Cluster --> more.\n",
			want:   []string{"testdata/doc.md:1: quote marker <!-- quote model.go#Cluster --> is inside a paragraph: put it on a line of its own, right above its fenced block"},
		},
		{
			name:   "other comments",
			reason: "a comment that merely starts with the word is no marker",
			md:     "<!-- quoted from the upstream docs -->\n\nText <!-- quotes below -->.\n",
		},
		{
			name:   "figure",
			reason: "a figure marker above a paragraph of its image, with alt text, of a file that exists, is no problem",
			md:     "<!-- figure figures/drain.svg -->\n![Ready pods against the floor](figures/drain.svg)\n",
		},
		{
			name:   "figure missing",
			reason: "a figure's file must exist; make figures draws it",
			md:     "<!-- figure figures/gone.svg -->\n![Ready pods](figures/gone.svg)\n",
			want:   []string{"testdata/doc.md:1: figure figures/gone.svg does not exist: run make figures to draw it"},
		},
		{
			name:   "figure of another image",
			reason: "the marker and its image name the same file",
			md:     "<!-- figure figures/drain.svg -->\n![Ready pods](figures/../figures/other.svg)\n",
			want: []string{
				"testdata/doc.md:1: figure marker figures/drain.svg is followed by an image of figures/other.svg: they name the same file",
				"testdata/doc.md:2: broken link to figures/../figures/other.svg: figures/other.svg does not exist",
			},
		},
		{
			name:   "figure without alt text",
			reason: "a figure says in words what it shows, for a reader who cannot see it",
			md:     "<!-- figure figures/drain.svg -->\n![](figures/drain.svg)\n",
			want:   []string{"testdata/doc.md:1: figure figures/drain.svg has no alt text: say in words what it shows"},
		},
		{
			name:   "figure without image",
			reason: "the image under the marker is what a Git host shows",
			md:     "<!-- figure figures/drain.svg -->\n\nSee ![x](figures/drain.svg) here.\n",
			want:   []string{"testdata/doc.md:1: figure marker figures/drain.svg is not followed by a paragraph of its image alone: ![what it shows](figures/drain.svg)"},
		},
		{
			name:   "figure marker malformed",
			reason: "a figure is an SVG file",
			md:     "<!-- figure figures/drain.png -->\n![x](figures/drain.png)\n",
			want: []string{
				`testdata/doc.md:1: malformed figure marker "<!-- figure figures/drain.png -->": want <!-- figure PATH.svg -->`,
				"testdata/doc.md:2: broken link to figures/drain.png: figures/drain.png does not exist",
			},
		},
		{
			name:   "missing test",
			reason: "a proof must name a test its file declares",
			md:     "Claim ([`TestDrain`](model_test.go)).\n",
			want:   []string{"testdata/doc.md:1: proof link names TestDrain, which model_test.go does not declare"},
		},
		{
			name:   "missing test of a subtest",
			reason: "a subtest's parent must exist",
			md:     "Claim ([`TestDrain/stalls`](model_test.go)).\n",
			want:   []string{"testdata/doc.md:1: proof link names TestDrain, which model_test.go does not declare"},
		},
		{
			name:   "helper is no test",
			reason: "a function that is not a test cannot prove a claim",
			md:     "Claim ([helper](model_test.go)).\n",
			want:   []string{`testdata/doc.md:1: proof link to model_test.go must name a test: link text "helper" is not TestName or TestName/case`},
		},
		{
			name:   "missing test file",
			reason: "a proof's file must exist",
			md:     "Claim ([`TestEvict`](gone_test.go)).\n",
			want:   []string{"testdata/doc.md:1: proof link TestEvict: gone_test.go does not exist"},
		},
		{
			name:   "missing transcript",
			reason: "a transcript must exist",
			md:     "Claim ([gone](sim/testdata/gone.txtar)).\n",
			want:   []string{"testdata/doc.md:1: proof link TestScript/gone: sim/testdata/gone.txtar does not exist"},
		},
		{
			name:   "transcript without TestScript",
			reason: "the package owning testdata must run its scripts",
			md:     "Claim ([orphan](nosim/testdata/orphan.txtar)).\n",
			want:   []string{"testdata/doc.md:1: proof link nosim/testdata/orphan.txtar: package nosim has no TestScript to run it"},
		},
		{
			name:   "broken links",
			reason: "relative links need their file, anchors their heading",
			md: "# Title\n\n[a](gone.md) and\n[b](#nope) and\n[c](other.md#nope) and\n![d](lab/gone.png) and [e](#title-1).\n" +
				"[f](model.go#Cluster) [g](lab/web.yaml#L5) [h](lab/web.yaml#L1-L9)\n",
			want: []string{
				"testdata/doc.md:3: broken link to gone.md: gone.md does not exist",
				`testdata/doc.md:4: broken link to #nope: this page has no heading with ID "nope"`,
				`testdata/doc.md:5: broken link to other.md#nope: other.md has no heading with ID "nope"`,
				"testdata/doc.md:6: broken link to lab/gone.png: lab/gone.png does not exist",
				`testdata/doc.md:6: broken link to #title-1: this page has no heading with ID "title-1"`,
				"testdata/doc.md:7: broken link to model.go#Cluster: only a line (#L10) or lines (#L10-L20) can be named in model.go",
				"testdata/doc.md:7: broken link to lab/web.yaml#L5: lab/web.yaml has 4 lines",
				"testdata/doc.md:7: broken link to lab/web.yaml#L1-L9: lab/web.yaml has 4 lines",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range ParseSource("testdata/doc.md", []byte(tt.md)).Check() {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() (-want +got):\n%s\n%s\n--- doc.md:\n%s", diff, tt.reason, tt.md)
			}
		})
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l == "\n" {
			lines[i] = strings.TrimRight(prefix, " ") + l
		} else if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"model.go", "lab/web.yaml"} {
		src, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale := "# Doc\n\n<!-- quote model.go#Cluster -->\n```go\nold copy\n```\n\nBetween.\n\n" +
		"<!-- quote lab/web.yaml -->\n```yaml\nkind: Deployment\n```\n\n" +
		"<!-- quote model.go#gone -->\n```go\nkept\n```\n\nEnd.\n"
	want := "# Doc\n\n<!-- quote model.go#Cluster -->\n```go\n// Cluster holds pods.\ntype Cluster struct {\n\tPods []string\n}\n```\n\nBetween.\n\n" +
		"<!-- quote lab/web.yaml -->\n```yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n```\n\n" +
		"<!-- quote model.go#gone -->\n```go\nkept\n```\n\nEnd.\n"
	md := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(md, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}

	changed, err := Update(md)
	if err != nil || !changed {
		t.Fatalf("Update of a stale file = %v, %v; want true, nil", changed, err)
	}
	got, _ := os.ReadFile(md)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("after Update (-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(md); fi.Mode().Perm() != 0o600 {
		t.Errorf("after Update, mode = %v, want -rw------- kept", fi.Mode().Perm())
	}
	d, _ := Parse(md)
	var probs []string
	for _, p := range d.Check() {
		probs = append(probs, p.Msg)
	}
	if diff := cmp.Diff([]string{"quote of model.go#gone: model.go has no declaration gone"}, probs); diff != "" {
		t.Errorf("Check after Update: only the unresolvable quote should remain (-want +got):\n%s", diff)
	}

	changed, err = Update(md)
	if err != nil || changed {
		t.Errorf("second Update = %v, %v; want false, nil: nothing is stale", changed, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files in the directory after Update: %d, want 3 (no temporary file left)", len(entries))
	}
}

// courseFiles returns the Markdown files of the course under root: the
// README, CONTRIBUTING.md and every chapter's README.
func courseFiles(t testing.TB, root string) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	// Every page of a chapter: its path (README.md), its evidence page and
	// any part two or deep dive beside them.
	chapters, err := filepath.Glob(filepath.Join(root, "chapters", "[0-9]*-*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, chapters...)
}

// TestChapters checks the course itself: every quote fresh, every proof
// naming a test that exists, every link resolving.
func TestChapters(t *testing.T) {
	root := *courseRoot
	c := NewChecker()
	for _, f := range courseFiles(t, root) {
		d, err := Parse(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Check(d) {
			rel, _ := filepath.Rel(root, p.File)
			p.File = filepath.ToSlash(rel)
			t.Error(p)
		}
	}
}

var courseRoot = flag.String("prose.root", filepath.Join("..", ".."), "the repository TestChapters and BenchmarkCheckCourse check")

// BenchmarkCheckCourse parses and checks every Markdown file of the course,
// as make quotes does.
func BenchmarkCheckCourse(b *testing.B) {
	files := courseFiles(b, *courseRoot)
	for b.Loop() {
		c := NewChecker()
		for _, f := range files {
			d, err := Parse(f)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			if p := c.Check(d); len(p) > 0 {
				b.Fatal(p[0])
			}
		}
	}
}

// TestCheckerReadsOnce checks that a Checker reads a test file once for
// every document that links it: after the file is gone, a second document
// is still checked against what the first read, and a new Checker sees it
// missing.
func TestCheckerReadsOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("x_test.go", "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n")
	write("a.md", "[`TestX`](x_test.go)\n")
	write("b.md", "Also [`TestX`](x_test.go).\n")
	docs := map[string]*Doc{}
	for _, name := range []string{"a.md", "b.md"} {
		d, err := Parse(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = d
	}
	c := NewChecker()
	if p := c.Check(docs["a.md"]); len(p) > 0 {
		t.Fatalf("Check(a.md) = %v, want no problems", p)
	}
	if err := os.Remove(filepath.Join(dir, "x_test.go")); err != nil {
		t.Fatal(err)
	}
	if p := c.Check(docs["b.md"]); len(p) > 0 {
		t.Errorf("Check(b.md) with the same Checker = %v, want no problems: it read x_test.go again", p)
	}
	if p := NewChecker().Check(docs["b.md"]); len(p) != 1 {
		t.Errorf("Check(b.md) with a new Checker = %v, want x_test.go missing", p)
	}
}
