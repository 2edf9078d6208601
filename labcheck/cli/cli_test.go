package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/version"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"labcheck": func() { Main(chapters.Course) }})
}

// TestScript runs the transcripts in testdata: what labcheck says to bad
// input, to a cluster that is not there, and to a report edited after
// grading. None of them needs a cluster.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(e *testscript.Env) error {
			e.Setenv("OPSLAB_HINTS_FILE", e.WorkDir+"/hints.json")
			return nil
		},
	})
}

// TestNothingSeenScoresNothing: when no check could read the cluster within
// --timeout, labcheck exits 2 (it could not see) rather than 1 (the lab
// fails), and says so in one line. The server answers only /version, as an
// API server too slow for the timeout would.
func TestNothingSeenScoresNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			fmt.Fprintf(w, `{"major":"1","minor":"0","gitVersion":%q}`, version.Kubernetes)
			return
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	kubeconfig := filepath.Join(t.TempDir(), "slow.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: slow\n  cluster: {server: %q}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: slow\n  context: {cluster: slow, user: u}\ncurrent-context: slow\n", srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := Run(context.Background(), chapters.Course, []string{"--chapter", "1", "--kubeconfig", kubeconfig, "--timeout", "1ns"}, &stdout, &stderr)
	if code != 2 {
		t.Errorf("labcheck --timeout 1ns exited %d, want 2 (nothing could be checked)\nstderr: %s", code, stderr.String())
	}
	if want := "labcheck: no check could read the cluster (timed out after 1ns), so nothing was scored"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start %q", stderr.String(), want)
	}
}

// TestFailureSaysHowToGetTheNextHint: a failed check shows its first hint
// and, when it has more, the command that gives the next; a check with a
// single hint already shown does not promise another.
func TestFailureSaysHowToGetTheNextHint(t *testing.T) {
	staged := labcheck.Check{Chapter: 1, ID: "staged", Title: "t", Points: 1, Hints: []string{"first", "second"}}
	single := labcheck.Check{Chapter: 1, ID: "single", Title: "t", Points: 1, Hints: []string{"only"}}
	own := labcheck.Check{Chapter: 1, ID: "own", Title: "t", Points: 1, Hints: []string{"staged one"}}
	ch, _ := chapters.Course.Chapter(1)
	r := labcheck.NewReport(labcheck.Identity{}, []labcheck.Chapter{ch}, []labcheck.Outcome{
		{Check: staged, Result: labcheck.Failf("no")},
		{Check: single, Result: labcheck.Failf("no")},
		{Check: own, Result: labcheck.Result{Message: "no", Hint: "this failure's own"}},
	}, time.Second)
	r.Evidence = "the API server alone"
	var out strings.Builder
	if err := write(&out, r, "text"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"hint: first\n      next hint: go run ./cmd/labcheck hint staged\n", "hint: this failure's own\n      next hint: go run ./cmd/labcheck hint own\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hint single") {
		t.Errorf("a check whose one hint was shown promises another:\n%s", got)
	}
}

// fakeServer is an API server that answers what labcheck asks before the
// checks run: its version, namespace kube-system, and, for a grader, that
// it may do what the opslab-grader role allows. It returns a kubeconfig
// for it.
func fakeServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			fmt.Fprintf(w, `{"major":"1","minor":"0","gitVersion":%q}`, version.Kubernetes)
		case r.URL.Path == "/api/v1/namespaces/kube-system":
			fmt.Fprint(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"kube-system","uid":"uid-fake"}}`)
		case r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","spec":{},"status":{"allowed":true}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "fake.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster: {server: %q}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: fake\n  context: {cluster: fake, user: u}\ncurrent-context: fake\n", srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// fakeCourse has two chapters whose checks read nothing: one passes, one
// fails with staged hints, one cannot look.
func fakeCourse(t *testing.T) *labcheck.Course {
	t.Helper()
	readmes := fstest.MapFS{
		"01-one/README.md": {Data: []byte("# 1. One\n")},
		"02-two/README.md": {Data: []byte("# 2. Two\n")},
	}
	pass := func(context.Context, *labcheck.Cluster) (labcheck.Result, error) {
		r := labcheck.Passf("the drain finished")
		r.Seen("event Drained for node n1")
		return r, nil
	}
	fail := func(context.Context, *labcheck.Cluster) (labcheck.Result, error) {
		return labcheck.Failf("the pods are still there"), nil
	}
	blind := func(context.Context, *labcheck.Cluster) (labcheck.Result, error) {
		return labcheck.Result{}, errors.New("the server went away")
	}
	course, err := labcheck.NewCourse(readmes,
		labcheck.Chapter{Dir: "01-one", Checks: []labcheck.Check{
			{ID: "one-pass", Title: "It drained", Points: 2, Claim: "a drain finishes", Run: pass},
			{ID: "one-fail", Title: "It moved", Points: 1, Claim: "pods move", Hints: []string{"look", "look harder"}, Run: fail},
		}},
		labcheck.Chapter{Dir: "02-two", Checks: []labcheck.Check{
			{ID: "two-blind", Title: "It stayed", Points: 3, Claim: "a pod stays", Run: blind},
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return course
}

// TestLearnerAndGraderShareOneReport: labcheck -o json and a grader's
// report.json of the same outcomes decode into the same labcheck.Report and
// differ only in student, graded_at and digest (and in how long each took,
// which no two runs share); as text, the learner's run begins with what the
// checks judged from and shows hints, and the grader's names the student,
// ends with the digest, and shows no hint.
func TestLearnerAndGraderShareOneReport(t *testing.T) {
	kubeconfig := fakeServer(t)
	course := fakeCourse(t)
	roster := filepath.Join(t.TempDir(), "class.txt")
	if err := os.WriteFile(roster, []byte("alice "+kubeconfig+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := Run(context.Background(), course, args, &stdout, &stderr); code != wantCode {
			t.Fatalf("labcheck %s exited %d, want %d\nstderr: %s", strings.Join(args, " "), code, wantCode, stderr.String())
		}
		return stdout.String()
	}
	decode := func(name, js string) (labcheck.Report, map[string]any) {
		t.Helper()
		var r labcheck.Report
		dec := json.NewDecoder(strings.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s: not a labcheck.Report: %v\n%s", name, err, js)
		}
		var fields map[string]any
		json.Unmarshal([]byte(js), &fields)
		return r, fields
	}

	// A check that could not look: the learner's run exits 2, as before.
	learner, lfields := decode("labcheck -o json", run(2, "--kubeconfig", kubeconfig, "-o", "json"))
	grader, gfields := decode("labcheck grade --format json", run(0, "grade", "--roster", roster, "--format", "json"))

	if learner.Schema != labcheck.ReportSchema || grader.Schema != labcheck.ReportSchema {
		t.Errorf("schemas %q and %q, want both %q", learner.Schema, grader.Schema, labcheck.ReportSchema)
	}
	for _, k := range []string{"student", "graded_at", "digest"} {
		if _, ok := lfields[k]; ok {
			t.Errorf("the learner's JSON has %q, want it absent", k)
		}
		if _, ok := gfields[k]; !ok {
			t.Errorf("the grader's JSON lacks %q", k)
		}
	}
	if err := grader.Verify(nil); err != nil {
		t.Errorf("the grader's report does not verify: %v", err)
	}
	if grader.Student != "alice" || grader.GradedAt.IsZero() {
		t.Errorf("the grader's report names %q at %v, want alice at the time of grading", grader.Student, grader.GradedAt)
	}
	ignore := cmp.Options{
		cmpopts.IgnoreFields(labcheck.Report{}, "Student", "GradedAt", "Digest", "Seconds"),
		cmpopts.IgnoreFields(labcheck.CheckReport{}, "Seconds"),
	}
	if diff := cmp.Diff(learner, grader, ignore); diff != "" {
		t.Errorf("the learner's and the grader's reports differ beyond student, graded_at and digest (-learner +grader):\n%s", diff)
	}
	wantCluster := labcheck.Identity{Server: learner.Cluster.Server, Version: version.Kubernetes, KubeSystemUID: "uid-fake"}
	if learner.Cluster != wantCluster {
		t.Errorf("the learner's report names the cluster %+v, want %+v", learner.Cluster, wantCluster)
	}
	var got []string
	for _, c := range learner.Checks {
		got = append(got, fmt.Sprintf("%s %s %s %d/%d hint=%q more=%v", c.Number, c.ID, c.Status, c.Points, c.MaxPoints, c.Hint, c.MoreHints))
	}
	want := []string{
		`1.1 one-pass pass 2/2 hint="" more=false`,
		`1.2 one-fail fail 0/1 hint="look" more=true`,
		`2.1 two-blind error 0/3 hint="" more=false`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the learner's checks (-want +got):\n%s", diff)
	}

	text := run(2, "--kubeconfig", kubeconfig)
	if !strings.HasPrefix(text, "Evidence: the API server alone (") {
		t.Errorf("the learner's text does not begin with what the checks judged from:\n%s", text)
	}
	for _, want := range []string{
		"\nCluster " + learner.Cluster.Server + ", Kubernetes " + version.Kubernetes + ", kube-system UID uid-fake\n",
		"\n  ✗ 1.2 It moved (0/1) [one-fail]\n      the pods are still there\n      hint: look\n      next hint: go run ./cmd/labcheck hint one-fail\n",
		"\n  ! 2.1 It stayed (0/3) [two-blind]\n      could not check: reading the cluster: the server went away\nChapter 1: 2/3\nChapter 2: 0/3\nScore: 2/6\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the learner's text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Student") || strings.Contains(text, "Digest") {
		t.Errorf("the learner's text names a student or a digest:\n%s", text)
	}
	graded := run(0, "grade", "--roster", roster)
	if !strings.HasPrefix(graded, "Student alice, graded ") || !strings.Contains(graded, "\nDigest: sha256:") {
		t.Errorf("the grader's text does not name the student and the digest:\n%s", graded)
	}
	if strings.Contains(graded, "hint") {
		t.Errorf("the grader's text shows hints:\n%s", graded)
	}
}

// TestOnlyAndSkipChooseChecks: --only and --skip run part of a chapter's
// checks; each keeps its number in the chapter, the score counts only the
// checks that ran, the report says so, and --expect judges those alone.
func TestOnlyAndSkipChooseChecks(t *testing.T) {
	kubeconfig := fakeServer(t)
	course := fakeCourse(t)
	for _, c := range []struct {
		args    []string
		code    int
		checks  string
		warning string
	}{
		{args: []string{"--chapter", "1", "--only", "one-fail"}, code: 1, checks: "1.2 one-fail", warning: "1 of the 2 checks ran (--only one-fail), so the score is theirs, not the lab's"},
		{args: []string{"--chapter", "1", "--skip", "*-fail"}, code: 0, checks: "1.1 one-pass", warning: "1 of the 2 checks ran (--skip *-fail), so the score is theirs, not the lab's"},
		{args: []string{"--only", "one-*,two-*", "--skip", "two-blind"}, code: 1, checks: "1.1 one-pass, 1.2 one-fail", warning: "2 of the 3 checks ran (--only one-*,two-* --skip two-blind), so the score is theirs, not the lab's"},
		{args: []string{"--chapter", "1", "--only", "one-*"}, code: 1, checks: "1.1 one-pass, 1.2 one-fail"},
		{args: []string{"--chapter", "1", "--skip", "one-fail", "--expect", "pass"}, code: 0, checks: "1.1 one-pass", warning: "1 of the 2 checks ran (--skip one-fail), so the score is theirs, not the lab's"},
	} {
		var stdout, stderr strings.Builder
		args := append([]string{"--kubeconfig", kubeconfig, "-o", "json"}, c.args...)
		if code := Run(context.Background(), course, args, &stdout, &stderr); code != c.code {
			t.Errorf("labcheck %s exited %d, want %d\nstderr: %s", strings.Join(c.args, " "), code, c.code, stderr.String())
			continue
		}
		var r labcheck.Report
		if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
			t.Errorf("labcheck %s: %v", strings.Join(c.args, " "), err)
			continue
		}
		var got []string
		max := 0
		for _, k := range r.Checks {
			got = append(got, k.Number+" "+k.ID)
			max += k.MaxPoints
		}
		if strings.Join(got, ", ") != c.checks {
			t.Errorf("labcheck %s ran %q, want %q", strings.Join(c.args, " "), strings.Join(got, ", "), c.checks)
		}
		if r.MaxScore != max {
			t.Errorf("labcheck %s: the report is out of %d, want %d, the points of the checks that ran", strings.Join(c.args, " "), r.MaxScore, max)
		}
		if w := strings.Join(r.Warnings, "; "); w != c.warning {
			t.Errorf("labcheck %s warns %q, want %q", strings.Join(c.args, " "), w, c.warning)
		}
	}
}
