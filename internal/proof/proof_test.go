package proof

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fixture course: chapter 1 has two plants that its tests kill, and
// markers for both claims; chapter 2 has one plant of each way to fail.
const (
	course = "testdata/course"
	demo   = course + "/chapters/01-demo"
	bad    = course + "/chapters/02-bad"
)

func TestParse(t *testing.T) {
	p, err := ParseFile(filepath.Join(demo, "plants", "above-floor.plant"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Plant{
		Name: "above-floor", Chapter: demo, Claim: "above-floor",
		If: "the budget allowed an eviction at its floor", File: "floor.go", Pkg: ".",
		Tests:    []string{"TestAllowed/at_floor"},
		Upstream: "https://github.com/kubernetes/kubernetes/blob/v1.99.9/pkg/controller/disruption/disruption.go#L1",
		Old:      []byte("\treturn healthy > floor"), New: []byte("\treturn healthy >= floor"),
	}
	if diff := cmp.Diff(want, p, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Source" }, cmp.Ignore())); diff != "" {
		t.Errorf("ParseFile (-want +got):\n%s", diff)
	}
}

func TestParseRefuses(t *testing.T) {
	const good = "claim: x\nif: y\nfile: a.go\ntests: TestA\nupstream: https://example.com/a.go#L1\n"
	const files = "-- old --\na\n-- new --\nb\n"
	for _, tt := range []struct {
		name, plant, want string
	}{
		{"no claim", strings.Replace(good, "claim: x\n", "", 1) + files, "no claim: line"},
		{"no tests", strings.Replace(good, "tests: TestA\n", "", 1) + files, "no tests: line"},
		{"unknown key", good + "test: TestB\n" + files, `unknown key "test"`},
		{"twice", good + "claim: z\n" + files, "claim is given twice"},
		{"not a line", good + "claim\n" + files, "want KEY: VALUE"},
		{"bad id", strings.Replace(good, "claim: x", "claim: Ready_Only", 1) + files, "is not a footnote id"},
		{"not a test", strings.Replace(good, "TestA", "Crash", 1) + files, `"Crash" is not a test name`},
		{"outside", strings.Replace(good, "a.go", "../02-other/a.go", 1) + files, "must be a Go file of the chapter"},
		{"not go", strings.Replace(good, "a.go", "testdata/a.txt", 1) + files, "must be a Go file of the chapter"},
		{"upstream", strings.Replace(good, "https://example.com/a.go#L1", "disruption.go", 1) + files, "is not a https:// link"},
		{"no new", good + "-- old --\na\n", "want two sections"},
		{"third file", good + files + "-- more --\nc\n", `section "more"`},
		{"empty old", good + "-- old --\n\n-- new --\nb\n", "old is empty"},
		{"same", good + "-- old --\na\n-- new --\na\n", "changes nothing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("chapters/01-x", "p", []byte(tt.plant))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), filepath.Join("chapters/01-x", "plants", "p.plant")) {
				t.Errorf("Parse = %v, want an error naming the plant and saying %q", err, tt.want)
			}
		})
	}
	if p, err := Parse("c", "p", []byte(strings.Replace(good, "a.go", "cmd/sim/main.go", 1)+"tags: e2e\n"+files)); err != nil || p.Pkg != "cmd/sim" || !p.NeedsCluster() {
		t.Errorf("Parse = %+v, %v; want pkg cmd/sim, the file's directory, and tags e2e", p, err)
	}
}

func TestApplyStale(t *testing.T) {
	src := []byte("a := 1\nb := a\n")
	for _, tt := range []struct {
		old, want string
	}{
		{"c := 2", `its old text, "c := 2", is not in a.go`},
		{":=", `occurs 2 times in a.go: add lines around it`},
	} {
		p := &Plant{Name: "p", Chapter: "ch", File: "a.go", Old: []byte(tt.old), New: []byte("x")}
		_, err := p.ApplyTo(src)
		var stale *StaleError
		if !errors.As(err, &stale) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "plant "+filepath.Join("ch", "plants", "p.plant")+" is stale") {
			t.Errorf("ApplyTo(old %q) = %v, want a stale plant: %s", tt.old, err, tt.want)
		}
	}
	p := &Plant{Name: "p", Chapter: "ch", File: "a.go", Old: []byte("b := a"), New: []byte("b := 2")}
	if got, err := p.ApplyTo(src); err != nil || string(got) != "a := 1\nb := 2\n" {
		t.Errorf("ApplyTo = %q, %v", got, err)
	}
}

func TestRunPattern(t *testing.T) {
	for _, tt := range []struct {
		tests []string
		want  string
	}{
		{[]string{"TestA"}, `^(TestA)$`},
		{[]string{"TestA", "TestB"}, `^(TestA|TestB)$`},
		{[]string{"TestA/x.y", "TestA/z"}, `^(TestA)$/^(x\.y|z)$`},
		{[]string{"TestA/x", "TestB/y"}, `^(TestA|TestB)$/^(x|y)$`},
		// A whole test and a subtest of another: the subtest filter would
		// cut the whole one, so both run whole.
		{[]string{"TestA", "TestB/y"}, `^(TestA|TestB)$`},
		{[]string{"TestB/y", "TestA"}, `^(TestB|TestA)$`},
		{[]string{"TestScript/drain_stalls"}, `^(TestScript)$/^(drain_stalls)$`},
	} {
		if got := RunPattern(tt.tests); got != tt.want {
			t.Errorf("RunPattern(%q) = %s, want %s", tt.tests, got, tt.want)
		}
	}
}

// TestRun runs each fixture plant and reads its verdict.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	r := &Runner{}
	for _, tt := range []struct {
		dir, plant string
		verdict    Verdict
		reason     string
	}{
		{demo, "above-floor", Killed, ""},
		{demo, "ready-only", Killed, ""},
		{bad, "survives", Survived, "survived: if the budget allowed an eviction at its floor, TestWeak, TestAllowed/above-floor passed"},
		{bad, "gone", Stale, `is stale: its old text, "return healthy > floor + 1", is not in floor.go`},
		{bad, "twice", Stale, "occurs 2 times in floor.go"},
		{bad, "broken", Broken, "does not compile"},
		{bad, "unmarked", Broken, "TestNoSuchTest did not run"},
	} {
		t.Run(tt.plant, func(t *testing.T) {
			t.Parallel()
			p, err := ParseFile(filepath.Join(tt.dir, "plants", tt.plant+".plant"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tt.verdict || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("Run(%s) = %s: %s\nwant %s: %s\n%s", tt.plant, res.Verdict, res.Reason, tt.verdict, tt.reason, res.Output)
			}
			if tt.verdict != Killed && !strings.Contains(res.Reason, p.Path()) {
				t.Errorf("Run(%s): reason %q does not name the plant", tt.plant, res.Reason)
			}
			if tt.verdict == Broken && tt.plant == "broken" && !strings.Contains(res.Output, "floor.go") {
				t.Errorf("Run(broken): output does not show the compiler's error:\n%s", res.Output)
			}
		})
	}
}

func TestMarkers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(demo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	refs, defs := Markers("README.md", src)
	wantRefs := []Marker{
		{ID: "above-floor", File: "README.md", Line: 4, Sentence: "A budget allows an eviction only while the healthy pods are above its floor."},
		{ID: "ready-only", File: "README.md", Line: 4, Sentence: "Only ready pods count as healthy."},
		{ID: "ready-only", File: "README.md", Line: 5, Sentence: "The same claim may be cited twice."},
	}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("Markers' references (-want +got):\n%s", diff)
	}
	wantDefs := []Definition{
		{ID: "above-floor", Line: 14, Text: "[How we know](EVIDENCE.md#above-the-floor)"},
		{ID: "ready-only", Line: 15, Text: "[How we know](EVIDENCE.md#ready-only)"},
	}
	if diff := cmp.Diff(wantDefs, defs); diff != "" {
		t.Errorf("Markers' definitions (-want +got):\n%s", diff)
	}
}

func TestCheckChapter(t *testing.T) {
	if got := CheckChapter(demo); len(got) > 0 {
		t.Errorf("CheckChapter(%s) = %q, want nothing", demo, got)
	}
	got := CheckChapter(bad)
	for _, want := range []string{
		"README.md:3: claim [^lonely] has no plant",
		"README.md:3: claim marker [^undefined] has no definition",
		"README.md:3: claim [^undefined] has no plant",
		"plant " + filepath.Join("plants", "unmarked.plant") + ": claim nowhere is marked in no page of the chapter",
		"gone.plant is stale",
		"twice.plant is stale",
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("CheckChapter(%s) does not say %q; it says:\n%s", bad, want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 6 {
		t.Errorf("CheckChapter(%s) says %d things, want 6:\n%s", bad, len(got), strings.Join(got, "\n"))
	}
}

// TestCheckChapterBeforeMarkers: a chapter whose path has no marker yet
// may hold plants of claims it does not mark, ready for its rewrite; once
// it marks one claim, every plant's claim must be marked.
func TestCheckChapterBeforeMarkers(t *testing.T) {
	dir := copyCourse(t)
	ch := filepath.Join(dir, "chapters", "01-demo")
	write(t, filepath.Join(ch, "README.md"), "# 1. Demo\n\nNo claims yet.\n")
	if got := CheckChapter(ch); len(got) > 0 {
		t.Errorf("CheckChapter = %q, want nothing before the chapter marks its claims", got)
	}
	write(t, filepath.Join(ch, "README.md"), "# 1. Demo\n\nOne claim.[^above-floor]\n\n[^above-floor]: [How we know](EVIDENCE.md#x)\n")
	if got := CheckChapter(ch); len(got) != 1 || !strings.Contains(got[0], "claim ready-only is marked in no page") {
		t.Errorf("CheckChapter = %q, want ready-only's plant named", got)
	}
	// A marker on the evidence page is a marker of the chapter.
	write(t, filepath.Join(ch, "EVIDENCE.md"), "# Evidence\n\nOnly ready pods count.[^ready-only]\n\n[^ready-only]: cited\n")
	if got := CheckChapter(ch); len(got) > 0 {
		t.Errorf("CheckChapter = %q, want nothing", got)
	}
}

func TestSum(t *testing.T) {
	const file = "b h1:Bbbb= survived\na h1:Aaaa= killed\n"
	s, err := ParseSum("verdicts.sum", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(s.Bytes()), "a h1:Aaaa= killed\nb h1:Bbbb= survived\n"; got != want {
		t.Errorf("Bytes = %q, want %q", got, want)
	}
	for _, bad := range []string{"a h1:x= killed extra\n", "a sha:x killed\n", "a h1:x= maybe\n", "a h1:x= killed\na h1:y= killed\n"} {
		if _, err := ParseSum("verdicts.sum", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "verdicts.sum:") {
			t.Errorf("ParseSum(%q) = %v, want an error naming the line", bad, err)
		}
	}
}

// TestKeys: a plant's key changes with the plant, its package's files and
// testdata, and not with another package's.
func TestKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	dir := copyCourse(t)
	ch := filepath.Join(dir, "chapters", "01-demo")
	k := &Keyer{Root: dir}
	keys := func() []string {
		t.Helper()
		plants, err := Load(ch)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := k.Keys(context.Background(), plants)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	before := keys()
	if before[0] == before[1] {
		t.Errorf("two plants of one package have one key, %s", before[0])
	}
	appendTo := func(f, s string) {
		b, _ := os.ReadFile(f)
		write(t, f, string(b)+s)
	}
	appendTo(filepath.Join(dir, "chapters", "02-bad", "floor.go"), "\n// another chapter\n")
	appendTo(filepath.Join(ch, "README.md"), "\nMore prose.\n")
	if got := keys(); !slices.Equal(got, before) {
		t.Errorf("keys changed with another package's file and the prose: %q, were %q", got, before)
	}
	for _, change := range []string{"floor.go", "floor_test.go", "testdata/pods.txt", "plants/ready-only.plant", "../../go.mod"} {
		appendTo(filepath.Join(ch, change), "\n// changed\n")
		got := keys()
		if got[1] == before[1] {
			t.Errorf("ready-only's key did not change with %s", change)
		}
		before = got
	}
}

// TestCheck runs the fixture chapter's plants once, records them, then
// runs none of them until an input changes.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := copyCourse(t)
	ch := filepath.Join(dir, "chapters", "01-demo")
	opts := Options{Chapters: []string{ch}, Jobs: 2, Runner: &Runner{}, Keyer: &Keyer{Root: dir}}
	check := func(opts Options) map[string]*Outcome {
		t.Helper()
		out, err := Check(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*Outcome{}
		for _, o := range out {
			m[o.Plant.Name] = o
		}
		return m
	}
	w := opts
	w.Write = true
	for name, o := range check(w) {
		if o.Result == nil || o.Failed() || !strings.Contains(o.Note, "no verdict recorded") {
			t.Errorf("%s: first check: ran %v, problem %q, note %q; want a run, killed, unrecorded", name, o.Result != nil, o.Problem, o.Note)
		}
	}
	sum, err := ReadSum(filepath.Join(ch, "plants", SumFile))
	if err != nil || len(sum) != 2 || sum["ready-only"].Verdict != Killed {
		t.Fatalf("verdicts.sum after -w: %v, %v", sum, err)
	}
	for name, o := range check(opts) {
		if o.Result != nil || o.Failed() || o.Verdict != Killed {
			t.Errorf("%s: nothing changed, yet it ran (%v) or failed (%q)", name, o.Result != nil, o.Problem)
		}
	}
	// A recorded verdict that is not killed fails without a run, and
	// names the claim's sentence.
	e := sum["above-floor"]
	e.Verdict = Survived
	sum["above-floor"] = e
	write(t, filepath.Join(ch, "plants", SumFile), string(sum.Bytes()))
	o := check(opts)["above-floor"]
	if o.Result != nil || !strings.Contains(o.Problem, `survived when it was last run`) || !strings.Contains(o.Problem, `"A budget allows an eviction only while the healthy pods are above its floor."`) {
		t.Errorf("a recorded survivor: ran %v, problem %q", o.Result != nil, o.Problem)
	}
	// The test weakened: the plant runs again, survives and fails the check.
	test := filepath.Join(ch, "floor_test.go")
	b, _ := os.ReadFile(test)
	write(t, test, strings.Replace(string(b), `t.Errorf("Healthy = %d, want 2", got)`, `t.Logf("Healthy = %d", got)`, 1))
	out := check(opts)
	if o := out["ready-only"]; o.Result == nil || o.Verdict != Survived || !strings.Contains(o.Problem, `"Only ready pods count as healthy."`) || !strings.Contains(o.Problem, "README.md:4") {
		t.Errorf("a plant whose test was weakened: ran %v, verdict %s, problem %q", o.Result != nil, o.Verdict, o.Problem)
	}
	// The other plant tests the same package: its inputs changed too.
	if o := out["above-floor"]; o.Result == nil || o.Failed() {
		t.Errorf("above-floor: ran %v, problem %q; want a run, killed", o.Result != nil, o.Problem)
	}
}

func copyCourse(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(course, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, strings.TrimPrefix(p, course))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, f, s string) {
	t.Helper()
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// courseWithoutPlants copies the fixture course and takes chapter 1's
// plants out; it returns the copy and chapter 1's directory in it.
func courseWithoutPlants(t *testing.T) (dir, chapter string) {
	t.Helper()
	dir = copyCourse(t)
	chapter = filepath.Join(dir, "chapters", "01-demo")
	for _, name := range []string{"above-floor", "ready-only"} {
		os.Remove(filepath.Join(chapter, "plants", name+".plant"))
	}
	return dir, chapter
}

// TestCheckLeavesClusterPlants: a plant whose tests need a cluster (tags:
// e2e) runs only when the check is given one; without, it is named and
// keeps its recorded verdict, and fails nothing.
func TestCheckLeavesClusterPlants(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	dir, ch := courseWithoutPlants(t)
	write(t, filepath.Join(ch, "plants", "on-cluster.plant"), "claim: above-floor\nif: x\nfile: floor.go\ntests: TestAllowed\ntags: e2e\nupstream: https://example.com/\n-- old --\n\treturn healthy > floor\n-- new --\n\treturn true\n")
	out, err := Check(context.Background(), Options{Chapters: []string{ch}, Runner: &Runner{}, Keyer: &Keyer{Root: dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Result != nil || out[0].Failed() || !strings.Contains(out[0].Note, "needs a cluster") {
		t.Errorf("Check = %+v, want the plant named as needing a cluster, not run, not failed", out[0])
	}
}

// TestCheckRunsClusterTestsUnplantedFirst: a plant whose tests need a
// cluster is run only when they pass without it. A test against a cluster
// also fails when none answers, and a kill then proves nothing: such a
// plant is broken, names the tests, and keeps no verdict; a plant of the
// same package whose tests pass unplanted runs and is killed.
func TestCheckRunsClusterTestsUnplantedFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir, ch := courseWithoutPlants(t)
	write(t, filepath.Join(ch, "cluster_test.go"), "//go:build e2e\n\npackage demo\n\nimport \"testing\"\n\nfunc TestOnCluster(t *testing.T) { t.Fatal(\"no cluster answers\") }\n")
	plant := "claim: above-floor\nif: x\nfile: floor.go\ntests: %s\ntags: e2e\nupstream: https://example.com/\n-- old --\n\treturn healthy > floor\n-- new --\n\treturn true\n"
	write(t, filepath.Join(ch, "plants", "no-cluster.plant"), fmt.Sprintf(plant, "TestOnCluster"))
	write(t, filepath.Join(ch, "plants", "on-cluster.plant"), fmt.Sprintf(plant, "TestAllowed"))
	out, err := Check(context.Background(), Options{Chapters: []string{ch}, Cluster: true, Write: true, Jobs: 2, Runner: &Runner{}, Keyer: &Keyer{Root: dir}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Outcome{}
	for _, o := range out {
		got[o.Plant.Name] = o
	}
	if o := got["no-cluster"]; o == nil || o.Verdict != Broken || !strings.Contains(o.Problem, "TestOnCluster did not pass either") {
		t.Errorf("the plant whose test fails unplanted: %+v; want broken, naming TestOnCluster as failing without it", o)
	}
	if o := got["on-cluster"]; o == nil || o.Verdict != Killed || o.Failed() {
		t.Errorf("the plant whose test passes unplanted: %+v; want run and killed", o)
	}
	sum, err := ReadSum(filepath.Join(ch, "plants", SumFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sum["no-cluster"]; ok || sum["on-cluster"].Verdict != Killed {
		t.Errorf("verdicts.sum = %v; want on-cluster killed and no line for no-cluster", sum)
	}
}
