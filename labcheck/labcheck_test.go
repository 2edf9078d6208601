package labcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opslab/opslab/labcheck/version"
)

func TestParseRoster(t *testing.T) {
	tests := []struct {
		name, roster string
		want         []Student
		wantErr      string
		reason       string
	}{
		{
			name:   "comments, blanks, optional context, relative paths",
			roster: "# class\n\nalice a.kubeconfig kwok-opslab\nbob /abs/b.kubeconfig\n",
			want: []Student{
				{Name: "alice", Kubeconfig: "class/a.kubeconfig", Context: "kwok-opslab"},
				{Name: "bob", Kubeconfig: "/abs/b.kubeconfig"},
			},
			reason: "relative kubeconfigs are relative to the roster, as a class directory is laid out",
		},
		{
			name:   "an audit log, with the current context",
			roster: "carol c.kubeconfig - logs/carol-audit.log\ndan d.kubeconfig kwok-x /abs/d.log\n",
			want: []Student{
				{Name: "carol", Kubeconfig: "class/c.kubeconfig", AuditLog: "class/logs/carol-audit.log"},
				{Name: "dan", Kubeconfig: "class/d.kubeconfig", Context: "kwok-x", AuditLog: "/abs/d.log"},
			},
			reason: "a grader given each student's audit log names it after the context, - for the current one",
		},
		{name: "no kubeconfig", roster: "alice a.kc\nbob\n", wantErr: `class/roster.txt:2: "bob" has no kubeconfig; write NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]`, reason: "the line that is wrong is named"},
		{name: "too many fields", roster: "alice a.kc ctx audit.log extra\n", wantErr: "class/roster.txt:1: 5 fields, want NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]", reason: "a stray field is not silently dropped"},
		{name: "duplicate", roster: "alice a.kc\n# x\nalice b.kc\n", wantErr: `class/roster.txt:3: student "alice" is already on line 1`, reason: "two reports would overwrite each other"},
		{name: "bad name", roster: "al/ice a.kc\n", wantErr: `class/roster.txt:1: student name "al/ice" may hold only letters, digits, '.', '_' and '-'`, reason: "a name becomes a directory"},
		{name: "empty", roster: "# nobody\n", wantErr: "class/roster.txt: no students; write one line per student: NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]", reason: "grading nobody is a mistake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRoster("class/roster.txt", strings.NewReader(tt.roster))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseRoster error = %v, want %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRoster (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

func sampleReport() *Report {
	checks := []Check{
		{Chapter: 1, ID: "a", Title: "A", Points: 2, Claim: "claim a"},
		{Chapter: 1, ID: "b", Title: "B", Points: 3, Claim: "claim b", Hints: []string{"look", "look harder"}},
		{Chapter: 2, ID: "c", Title: "C", Points: 1, Claim: "claim c"},
	}
	outcomes := []Outcome{
		{Check: checks[0], Result: Result{Pass: true, Message: "ok", Evidence: []string{"event X at 12:03:41"}}, Duration: time.Second},
		{Check: checks[1], Result: Result{Message: "not yet"}},
		{Check: checks[2], Err: errors.New("timed out after 20s")},
	}
	r := NewReport(Identity{Server: "https://127.0.0.1:6443", Version: version.Kubernetes, KubeSystemUID: "uid-1"},
		[]Chapter{{Number: 1, Title: "One"}, {Number: 2, Title: "Two"}}, outcomes, 2*time.Second)
	r.Evidence = "the API server alone"
	r.Student, r.GradedAt = "alice", time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return r
}

// learnerRun is sampleReport as a learner's run has it: no student, no
// time of grading, no digest.
func learnerRun() *Report {
	r := sampleReport()
	r.Student, r.GradedAt = "", time.Time{}
	return r
}

func TestReportScores(t *testing.T) {
	r := sampleReport()
	if r.Score != 2 || r.MaxScore != 6 {
		t.Errorf("score = %d/%d, want 2/6", r.Score, r.MaxScore)
	}
	if got, max := r.ChapterScore(1); got != 2 || max != 5 {
		t.Errorf("chapter 1 = %d/%d, want 2/5", got, max)
	}
	var statuses, numbers []string
	for _, c := range r.Checks {
		statuses = append(statuses, c.Status)
		numbers = append(numbers, c.Number)
	}
	if diff := cmp.Diff([]string{"pass", "fail", "error"}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1.1", "1.2", "2.1"}, numbers); diff != "" {
		t.Errorf("numbers (-want +got):\n%s", diff)
	}
}

func TestDigestShowsEdits(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("a key of sixteen bytes or more")} {
		r := sampleReport()
		r.Seal(key)
		if err := r.Verify(key); err != nil {
			t.Fatalf("Verify of an untouched report = %v, want nil", err)
		}
		r.Score = 6
		if err := r.Verify(key); !errors.Is(err, ErrEdited) {
			t.Errorf("Verify after editing the score = %v, want ErrEdited (key %q)", err, key)
		}
	}
	r := sampleReport()
	r.Seal([]byte("the grader's own secret key"))
	if err := r.Verify([]byte("someone else's key entirely")); !errors.Is(err, ErrEdited) {
		t.Errorf("Verify with the wrong key = %v, want ErrEdited: a student cannot re-sign an edited report", err)
	}
	if err := r.Verify(nil); err == nil || errors.Is(err, ErrEdited) {
		t.Errorf("Verify of a signed report without a key = %v, want an error asking for the key", err)
	}
}

func TestFormats(t *testing.T) {
	r := sampleReport()
	r.Seal(nil)
	var b bytes.Buffer

	if err := Write(&b, r, "exercism"); err != nil {
		t.Fatal(err)
	}
	var ex map[string]any
	json.Unmarshal(b.Bytes(), &ex)
	for _, k := range []string{"version", "status", "tests", "score", "max_score"} {
		if _, ok := ex[k]; !ok {
			t.Errorf("exercism results lack %q", k)
		}
	}
	if ex["version"] != 3.0 || ex["status"] != "fail" {
		t.Errorf("exercism version, status = %v, %v; want 3, fail", ex["version"], ex["status"])
	}
	test0 := ex["tests"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "status", "output", "task_id", "test_code", "tags"} {
		if _, ok := test0[k]; !ok {
			t.Errorf("exercism test lacks %q", k)
		}
	}

	b.Reset()
	if err := Write(&b, r, "gradescope"); err != nil {
		t.Fatal(err)
	}
	var gs struct {
		Score         int     `json:"score"`
		ExecutionTime float64 `json:"execution_time"`
		Tests         []struct {
			Score, MaxScore  int
			Status, Number   string
			Name, Visibility string
			Tags             []string
		} `json:"tests"`
	}
	json.Unmarshal(b.Bytes(), &gs)
	if gs.Score != 2 || len(gs.Tests) != 3 || gs.Tests[0].Status != "passed" || gs.Tests[1].Status != "failed" || gs.Tests[2].Number != "2.1" {
		t.Errorf("gradescope results = %+v", gs)
	}

	b.Reset()
	if err := Write(&b, r, "junit"); err != nil {
		t.Fatal(err)
	}
	var ju junitSuites
	if err := xml.Unmarshal(b.Bytes(), &ju); err != nil {
		t.Fatalf("junit is not XML: %v", err)
	}
	if len(ju.Suites) != 2 || ju.Suites[0].Tests != 2 || ju.Suites[0].Failures != 1 || ju.Suites[1].Errors != 1 {
		t.Errorf("junit: one suite per chapter, one case per check; got %+v", ju)
	}

	b.Reset()
	if err := Write(&b, r, "yaml"); err == nil {
		t.Error("Write in an unknown format: no error")
	}
}

// TestTextReport: a learner's run and a grader's report are written by one
// writer; each line is there when the report has what it says.
func TestTextReport(t *testing.T) {
	const checks = `Chapter 1: One
  ✓ 1.1 A (2/2) [a]
      ok
      · event X at 12:03:41
  ✗ 1.2 B (0/3) [b]
      not yet
%sChapter 2: Two
  ! 2.1 C (0/1) [c]
      could not check: timed out after 20s
Chapter 1: 2/5
Chapter 2: 0/1
Score: 2/6
`
	graded := sampleReport()
	graded.Seal(nil)
	tests := []struct {
		name   string
		report *Report
		opts   TextOptions
		want   string
		reason string
	}{
		{
			name: "a grader's", report: graded,
			want: "Student alice, graded 2026-11-30 12:00:00 UTC by labcheck " + graded.Labcheck + "\nEvidence: the API server alone\nCluster https://127.0.0.1:6443, Kubernetes " + version.Kubernetes + ", kube-system UID uid-1\n" +
				fmt.Sprintf(checks, "") + "Digest: " + graded.Digest + "\n",
			reason: "a grader's report is read for what was done: it names whose it is and which labcheck judged it, can be verified, and gives no hint",
		},
		{
			name: "a learner's, with hints", report: learnerRun(), opts: TextOptions{Hints: true},
			want: "Evidence: the API server alone\nCluster https://127.0.0.1:6443, Kubernetes " + version.Kubernetes + ", kube-system UID uid-1\n" +
				fmt.Sprintf(checks, "      hint: look\n      next hint: go run ./cmd/labcheck hint b\n"),
			reason: "a learner's run begins with what the checks judged from, has no student or digest, and says what to try next; a check that could not look has no hint",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, tt.report, tt.opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("WriteText (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestVerifyRefuses: verify says why it cannot tell, rather than calling a
// report edited, when the report is a learner's run or of another schema.
func TestVerifyRefuses(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(r *Report)
		wantErr string
	}{
		{name: "a learner's run", edit: func(r *Report) { r.Digest = "" }, wantErr: "the report has no digest: a learner's run (labcheck -o json) is not sealed; labcheck grade seals reports"},
		{name: "before the schema field", edit: func(r *Report) { r.Schema = "" }, wantErr: "the report has no schema field: an older labcheck wrote it, and this one cannot recompute its digest; verify it with that labcheck, or grade again"},
		{name: "a later schema", edit: func(r *Report) { r.Schema = "opslab.labcheck/v2" }, wantErr: "the report is of schema opslab.labcheck/v2, and this labcheck knows only opslab.labcheck/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleReport()
			r.Seal(nil)
			tt.edit(r)
			if err := r.Verify(nil); err == nil || err.Error() != tt.wantErr {
				t.Errorf("Verify = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestSchemaIsUnderTheDigest: the schema field is part of what the digest
// covers, so a report cannot be passed off as another schema's.
func TestSchemaIsUnderTheDigest(t *testing.T) {
	r := sampleReport()
	r.Seal(nil)
	before := r.Digest
	r.Schema = "opslab.labcheck/v0"
	if r.digest(nil) == before {
		t.Error("the digest does not change with the schema field")
	}
}

func TestRunTimesOutOneCheckAndGoesOn(t *testing.T) {
	slow := Check{ID: "slow", Run: func(ctx context.Context, _ *Cluster) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	}}
	quick := Check{ID: "quick", Run: func(context.Context, *Cluster) (Result, error) { return Passf("fine"), nil }}
	broken := Check{ID: "broken", Run: func(context.Context, *Cluster) (Result, error) { panic("nil map") }}
	out := Run(context.Background(), nil, []Check{slow, quick, broken}, 50*time.Millisecond)
	if out[0].Err == nil || out[0].Err.Error() != "timed out after 50ms" {
		t.Errorf("slow check: err = %v, want timed out after 50ms", out[0].Err)
	}
	if !out[1].Passed() {
		t.Errorf("quick check after a slow one: %+v, want passed", out[1])
	}
	if out[2].Err == nil || !strings.Contains(out[2].Err.Error(), "panicked") {
		t.Errorf("a panicking check: err = %v, want it reported as an error", out[2].Err)
	}
}

func TestPermissionErrorNamesVerbAndResource(t *testing.T) {
	err := apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}, "",
		errors.New(`User "system:serviceaccount:x:y" cannot list resource "poddisruptionbudgets" in API group "policy" in the namespace "pdb-lab"`))
	got := permissionError(err, "reading").Error()
	want := "the grader may not list poddisruptionbudgets.policy; bind it to the opslab-grader ClusterRole (labcheck/rbac/grader.yaml)"
	if got != want {
		t.Errorf("permissionError = %q, want %q", got, want)
	}
}

func TestGraderRulesAreShipped(t *testing.T) {
	rules := GraderRules()
	var verbs []string
	for _, r := range rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				verbs = append(verbs, v+" "+strings.Join(r.Resources, ","))
			}
		}
	}
	// Least privilege: beyond reading, the grader creates evictions (dry-run
	// only, enforced by the policy in the same file) and impersonates.
	want := []string{"create pods/eviction", "impersonate serviceaccounts"}
	if diff := cmp.Diff(want, verbs); diff != "" {
		t.Errorf("grader's non-read permissions (-want +got):\n%s", diff)
	}
}
