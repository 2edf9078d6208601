package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/opslab/opslab/labcheck/version"
)

// testdata/sample.jsonl holds two lines from the lab cluster's audit log,
// the taint eviction controller deleting a pod and a learner's dry-run
// eviction refused with 429, and then a half-written line.

func TestParse(t *testing.T) {
	events, err := Parse(strings.NewReader(readSample(t, "sample.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("Parse kept %d events, want 2 (the half-written last line is skipped)", len(events))
	}
	evict, del := events[0], events[1] // sorted by completion time
	if !evict.Is("create", "pods/eviction") || !evict.DryRun || evict.OK() || evict.Code != 429 {
		t.Errorf("eviction = %+v, want a refused dry-run create of pods/eviction", evict)
	}
	if evict.Actor() != "system:serviceaccount:pdb-lab:default" || evict.ByAController() {
		t.Errorf("eviction acted as %s, controller=%v; want the impersonated account, not a controller", evict.Actor(), evict.ByAController())
	}
	if !del.Is("delete", "pods") || !del.OK() || !del.ByController(TaintEviction) || del.Is("delete", "pods/eviction") {
		t.Errorf("delete = %+v, want the taint eviction controller's stored delete of a pod", del)
	}
	if got, want := evict.String(), "15:42:30 kwok-admin as system:serviceaccount:pdb-lab:default (kubectl) create pods/eviction pdb-lab/web-2 (dry run): 429"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	l := &Log{Events: events}
	if got := l.Since(del.Time); len(got) != 1 || got[0].Name != "web-1" {
		t.Errorf("Since(%v) = %v, want the delete alone", del.Time, got)
	}
	if l.Covers(evict.Received.Add(-time.Second)) || !l.Covers(del.Time) {
		t.Error("Covers: a log covers the times from its first request on, and no earlier")
	}
}

func TestReadAndLocate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KWOK_WORKDIR", dir)
	if _, err := Locate("minikube"); err == nil || !strings.Contains(err.Error(), "--audit-log") {
		t.Errorf("Locate(minikube) = %v, want an error that names --audit-log", err)
	}
	if _, err := Locate("kwok-opslab"); err == nil || !strings.Contains(err.Error(), "not on this machine") {
		t.Errorf("Locate of a missing cluster = %v, want 'not on this machine'", err)
	}
	logs := filepath.Join(dir, "clusters", "opslab", "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate("kwok-opslab"); err == nil || !strings.Contains(err.Error(), "make lab-reset") {
		t.Errorf("Locate of a cluster without a log = %v, want the fix make lab-reset", err)
	}
	path := filepath.Join(logs, "audit.log")
	if err := os.WriteFile(path, []byte(readSample(t, "sample.jsonl")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Locate("kwok-opslab-admin"); got != path || err != nil {
		t.Errorf("Locate(kwok-opslab-admin) = %q, %v; want the learner's cluster's log %q", got, err, path)
	}
	got, err := Locate("kwok-opslab")
	if err != nil || got != path {
		t.Fatalf("Locate = %q, %v; want %q", got, err, path)
	}
	l, err := Read(path)
	if err != nil || len(l.Events) != 2 {
		t.Fatalf("Read = %v, %v; want 2 events", l, err)
	}
	notLog := filepath.Join(dir, "kubeconfig")
	os.WriteFile(notLog, []byte("apiVersion: v1\nkind: Config\n"), 0o644)
	if _, err := Read(notLog); err == nil || !strings.Contains(err.Error(), "not an audit log") {
		t.Errorf("Read of a kubeconfig = %v, want 'not an audit log'", err)
	}
	if _, err := Read(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Read of a missing file = %v, want 'does not exist'", err)
	}
}

// TestParseBindingUID: a binding names the UID of the pod it binds, so two
// pods of one name are told apart.
func TestParseBindingUID(t *testing.T) {
	events, err := Parse(strings.NewReader(readSample(t, "binding.jsonl")))
	if err != nil || len(events) != 1 {
		t.Fatalf("Parse = %v, %v; want one event", events, err)
	}
	if e := events[0]; !e.Is("create", "pods/binding") || e.UID != "595fc003-48b2-4048-bba3-13ab6f92d778" {
		t.Errorf("binding = %+v, want create pods/binding with the pod's UID", e)
	}
}

// TestRefreshReadsOnlyWhatWasAppended: a log read once is read on from where
// it stopped, and a line the server was still writing is read once finished.
func TestRefreshReadsOnlyWhatWasAppended(t *testing.T) {
	lines := strings.SplitAfter(readSample(t, "sample.jsonl"), "\n") // two whole lines and half of a third
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(lines[0]+lines[1]+lines[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Read(path)
	if err != nil || len(l.Events) != 2 {
		t.Fatalf("Read = %v, %v; want 2 events", l, err)
	}
	// The server finishes the third line: the same request, completed later.
	rest := strings.Replace(lines[0], `"auditID":"a"`, `"auditID":"c"`, 1)
	rest = strings.Replace(rest, "15:42:36.528255Z", "15:43:00.000000Z", 1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(lines[0] + lines[1] + rest)
	f.Close()
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	if len(l.Events) != 3 || l.Events[2].Time.Minute() != 43 {
		t.Fatalf("after Refresh: %d events, last at %v; want 3, the new one last", len(l.Events), l.Events[len(l.Events)-1].Time)
	}
	if l.Size() != int64(len(lines[0]+lines[1]+rest)) {
		t.Errorf("Size = %d, want the whole file, %d", l.Size(), len(lines[0]+lines[1]+rest))
	}
	// A truncated log (rotated) is read again from its start.
	os.WriteFile(path, []byte(lines[1]), 0o644)
	if err := l.Refresh(); err != nil || len(l.Events) != 1 {
		t.Errorf("after truncation: %d events, %v; want 1", len(l.Events), err)
	}
}

// TestSenders: the lab's control plane is told from a person by the user the
// API server authenticated, each component by credentials of its own; an
// agent claims nothing (the admin's requests in the scheduler's, kwok's or the
// controller manager's agent are a person's), and a request made with --as
// is a person's, whoever it names.
func TestSenders(t *testing.T) {
	const admin = "kwok-admin"
	var (
		kubectl   = "kubectl/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format"
		scheduler = "kube-scheduler/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/scheduler"
		kwok      = "kwok-controller/" + version.Kwok + " (linux/amd64)"
		manager   = "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format"
	)
	tests := []struct {
		name, user, as, agent           string
		groups                          []string
		borrowed                        bool
		scheduler, node, manager, plane bool
		forged                          string
	}{
		{"learner", admin, "", kubectl, nil, false, false, false, false, false, ""},
		{"scheduler", string(Scheduler), "", scheduler, nil, false, true, false, false, true, ""},
		{"kwok", string(NodeAgent), "", kwok, nil, false, false, true, false, true, ""},
		{"kubelet", "system:node:n1", "", "kubelet/" + version.Kubernetes, []string{"system:nodes"}, false, false, true, false, true, ""},
		{"a node's name without the nodes' group", "system:node:n1", "", "kubelet/" + version.Kubernetes, nil, false, false, false, false, false, "kubelet"},
		{"a controller", PodGC, "", manager + "/" + PodGC, nil, false, false, false, true, true, ""},
		{"the manager asking a token", string(ControllerManager), "", manager, nil, false, false, false, true, true, ""},
		{"the API server", string(APIServer), "", "kube-apiserver/" + version.Kubernetes, nil, false, false, false, false, true, ""},
		{"the admin in the scheduler's agent", admin, "", scheduler, nil, false, false, false, false, false, "kube-scheduler"},
		{"the admin in kwok's agent", admin, "", kwok, nil, false, false, false, false, false, "kwok-controller"},
		{"the admin in the controller manager's agent", admin, "", manager, nil, false, false, false, false, false, "kube-controller-manager"},
		{"a person as the scheduler with --as", admin, string(Scheduler), scheduler, nil, false, false, false, false, false, "kube-scheduler"},
		{"a person as a controller with --as", admin, PodGC, kubectl, nil, false, false, false, false, false, ""},
		{"a controller's borrowed token", PodGC, "", manager, nil, true, false, false, false, false, "kube-controller-manager"},
	}
	for _, tt := range tests {
		e := Event{User: tt.user, Groups: tt.groups, Impersonated: tt.as, Agent: AgentHint(tt.agent), Borrowed: tt.borrowed}
		got := []bool{e.FromScheduler(), e.FromNodeAgent(), e.FromControllerManager(), e.FromControlPlane()}
		want := []bool{tt.scheduler, tt.node, tt.manager, tt.plane}
		for i, what := range []string{"FromScheduler", "FromNodeAgent", "FromControllerManager", "FromControlPlane"} {
			if got[i] != want[i] {
				t.Errorf("%s: %s = %v, want %v", tt.name, what, got[i], want[i])
			}
		}
		if got := e.Forged(); got != tt.forged {
			t.Errorf("%s: Forged() = %q, want %q", tt.name, got, tt.forged)
		}
	}
}

// TestBorrowed: once someone other than the controller manager is granted a
// token of a kube-system account, or makes a secret in kube-system, that
// account's later requests are not the controller's; the manager's own token
// requests and refused ones change nothing.
func TestBorrowed(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	token := func(s int, user string, code int) Event {
		return Event{Received: at(s), Time: at(s), User: user, Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "kube-system", Name: "pod-garbage-collector", Code: code}
	}
	del := func(s int, user string) Event {
		return Event{Received: at(s), Time: at(s), User: user, Verb: "delete", Resource: "pods", Namespace: "lab", Name: "db-0", Code: 200}
	}
	tests := []struct {
		name   string
		events []Event
		want   []bool // Borrowed, for each event
	}{
		{"the manager's own token", []Event{token(1, string(ControllerManager), 201), del(2, PodGC)}, []bool{false, false}},
		{"a person's token, then the account acts", []Event{del(1, PodGC), token(2, "kwok-admin", 201), del(3, PodGC), del(4, NodeController)}, []bool{false, false, true, false}},
		{"a refused token", []Event{token(1, "kwok-admin", 403), del(2, PodGC)}, []bool{false, false}},
		{"a secret in kube-system", []Event{{Received: at(1), Time: at(1), User: "kwok-admin", Verb: "create", Resource: "secrets", Namespace: "kube-system", Name: "t", Code: 201}, del(2, NodeController)}, []bool{false, true}},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := Write(&b, tt.events...); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		MarkBorrowed(got)
		for i, e := range got {
			if e.Borrowed != tt.want[i] {
				t.Errorf("%s: event %d (%s) Borrowed = %v, want %v", tt.name, i, e, e.Borrowed, tt.want[i])
			}
		}
		if got[len(got)-1].Borrowed && got[len(got)-1].ByController(got[len(got)-1].User) {
			t.Errorf("%s: a borrowed request counts as the controller's", tt.name)
		}
	}
}

// TestWriteRoundTrip: what Write writes, Parse reads back as it was, URI
// included when Write made it up, and a request's body where it has one.
func TestWriteRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	events := []Event{
		{Received: t0, Time: t0.Add(time.Millisecond), User: "kwok-admin", Groups: []string{"system:masters"}, Agent: AgentHint("kubectl/" + version.Kubernetes),
			Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "pdb-lab", Name: "web-1", Code: 201},
		{Received: t0.Add(time.Second), Time: t0.Add(time.Second), User: "kwok-admin", Impersonated: "system:serviceaccount:kube-system:node-controller",
			Verb: "delete", Group: "policy", Resource: "poddisruptionbudgets", Namespace: "pdb-lab", Name: "web", UID: "u-1", Code: 200, DryRun: true},
		{Received: t0.Add(2 * time.Second), Time: t0.Add(2 * time.Second), User: NodeController,
			Verb: "patch", Resource: "nodes", Name: "a-01", Code: 200,
			Request: json.RawMessage(`{"metadata":{"resourceVersion":"7"},"spec":{"taints":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready"}]}}`)},
	}
	var b strings.Builder
	if err := Write(&b, events...); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	events[0].URI = "/api/v1/namespaces/pdb-lab/pods/web-1/eviction"
	events[1].URI = "/apis/policy/v1/namespaces/pdb-lab/poddisruptionbudgets/web?dryRun=All"
	events[2].URI = "/api/v1/nodes/a-01"
	if !reflect.DeepEqual(got, events) {
		t.Errorf("Parse(Write(events)) =\n%+v\nwant\n%+v", got, events)
	}
}

// readSample reads a recording of the lab cluster's audit log from testdata.
func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRotatedSegments: the API server's rotated segments (NAME-TIMESTAMP.EXT
// beside the log) are read before the live file, oldest first, and again
// when the live file is rotated under a reader; other files beside the log
// are not.
func TestRotatedSegments(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ev := func(h int, name string) Event {
		at := t0.Add(time.Duration(h) * time.Hour)
		return Event{Received: at, Time: at, User: "kwok-admin", Verb: "create", Resource: "pods", Namespace: "lab", Name: name, Code: 201}
	}
	live := filepath.Join(dir, "audit.log")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(WriteFile(filepath.Join(dir, "audit-2026-12-01T11-00-00.000.log"), ev(1, "second")))
	must(WriteFile(filepath.Join(dir, "audit-2026-12-01T10-00-00.000.log"), ev(0, "first")))
	must(WriteFile(filepath.Join(dir, "audit-policy.yaml.log"), ev(5, "not-a-segment")))
	must(WriteFile(live, ev(2, "third")))
	l, err := Read(live)
	must(err)
	names := func() []string {
		var out []string
		for _, e := range l.Events {
			out = append(out, e.Name)
		}
		return out
	}
	if got, want := names(), []string{"first", "second", "third"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if len(l.Segments) != 2 {
		t.Errorf("segments %v, want the two rotated files", l.Segments)
	}
	// The server rotates: the live file becomes a segment and starts anew.
	must(os.Rename(live, filepath.Join(dir, "audit-2026-12-01T12-30-00.000.log")))
	must(WriteFile(live, ev(3, "fourth")))
	must(l.Refresh())
	if got, want := names(), []string{"first", "second", "third", "fourth"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after rotation: events %v, want %v", got, want)
	}
}
