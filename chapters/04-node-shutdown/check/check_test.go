package check

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/gradertest"
)

// cluster is a fake cluster holding what r says the lab left: namespace
// shutdown-lab created at r.Start, db-0, the pool's nodes, the events about
// db-0 and, when data is not nil, ConfigMap kubelet-shutdown. Its audit log
// is a file holding r.Log; without r.Log the cluster has no log and says
// r.NoAudit.
func cluster(t *testing.T, r record, data map[string]string) *labcheck.Cluster {
	t.Helper()
	objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, CreationTimestamp: metav1.NewTime(r.Start)}}}
	if r.Pod != nil {
		objs = append(objs, r.Pod)
	}
	for i := range r.Nodes {
		objs = append(objs, &r.Nodes[i])
	}
	for i := range r.Events {
		objs = append(objs, &r.Events[i])
	}
	if data != nil {
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMap, Namespace: Namespace}, Data: data})
	}
	kube := fake.NewClientset(objs...)
	gradertest.Guard(t, kube)
	c := &labcheck.Cluster{Kube: kube, NoAudit: r.NoAudit}
	if r.Log != nil {
		c.AuditPath = writeLog(t, r.Log)
	}
	return c
}

// writeLog writes events as the API server's audit log, one JSON line each,
// and returns its path.
func writeLog(t *testing.T, events []audit.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := audit.WriteFile(path, events...); err != nil {
		t.Fatal(err)
	}
	return path
}

// withNamespaceCreated puts the learner's creation of the namespace, at
// r.Start, at the head of r's log, as the API server writes it.
func withNamespaceCreated(r *record) {
	if r.Log != nil {
		r.add(learner.req(0, "create", "namespaces", "", Namespace, ""))
	}
}

// TestChecksReadCluster: each check reads from the cluster the record its
// judge is given (the namespace's start, db-0, the pool's nodes, db-0's
// events, the audit log since the start) and answers as the judge does on
// that record, with and without the log; a cluster without the lab is told
// what to apply first.
func TestChecksReadCluster(t *testing.T) {
	tests := []struct {
		name, reason string
		record       func() record
		allPass      bool
	}{
		{name: "solved", reason: "the reference solution passes the three checks from the cluster as from the record", record: edit(solved, withNamespaceCreated), allPass: true},
		{name: "solved without log", reason: "without the log the checks judge from the API alone and say why there is no log", record: edit(solved, withoutLog)},
		{name: "taint on a Ready node", reason: "a shortcut fails from the cluster as it fails from the record", record: edit(taintOnReadyNode, withNamespaceCreated)},
		{name: "hand-made event", reason: "a forged event is seen through the cluster's own log", record: edit(handMadeEvent, withNamespaceCreated)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cluster(t, tt.record(), nil)
			for _, chk := range Checks() {
				judge, ok := judges[chk.ID]
				if !ok {
					continue
				}
				got, err := chk.Run(context.Background(), c)
				if err != nil {
					t.Fatalf("%s: %v", chk.ID, err)
				}
				if tt.allPass && !got.Pass {
					t.Errorf("%s = %q, want a pass", chk.ID, got.Message)
				}
				rec := tt.record()
				rec.advice = c.AuditAdvice()
				want := judge(rec)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s on the cluster differs from its judge on the record (-want +got):\n%s", chk.ID, diff)
				}
			}
		})
	}
}

// TestChecksLogBeginsLate: a log that begins after the namespace was
// created cannot tell the lab's story; the checks say so and judge from the
// API alone.
func TestChecksLogBeginsLate(t *testing.T) {
	r := solved()
	c := cluster(t, r, nil)
	want := r
	want.Log, want.NoAudit = nil, "the audit log "+c.AuditPath+" begins after the lab began at 12:00:00"
	want.advice = c.AuditAdvice()
	for _, chk := range Checks() {
		judge, ok := judges[chk.ID]
		if !ok {
			continue
		}
		got, err := chk.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", chk.ID, err)
		}
		if diff := cmp.Diff(judge(want), got); diff != "" {
			t.Errorf("%s with a log that begins late (-want +got):\n%s", chk.ID, diff)
		}
	}
}

// TestChecksUntouchedCluster: on a cluster without the lab every check
// fails and says what to do first.
func TestChecksUntouchedCluster(t *testing.T) {
	c := &labcheck.Cluster{Kube: fake.NewClientset(), NoAudit: "none was given"}
	want := map[string]string{
		"shutdown-db-moved":        "no namespace shutdown-lab: apply chapters/04-node-shutdown/lab/db.yaml first",
		"shutdown-taint-after-off": "no namespace shutdown-lab: apply chapters/04-node-shutdown/lab/db.yaml first",
		"shutdown-podgc-deleted":   "no namespace shutdown-lab: apply chapters/04-node-shutdown/lab/db.yaml first",
		"shutdown-graceful-config": "no ConfigMap shutdown-lab/kubelet-shutdown",
	}
	for _, chk := range Checks() {
		got, err := chk.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", chk.ID, err)
		}
		if got.Pass || got.Message != want[chk.ID] {
			t.Errorf("%s on an untouched cluster = pass %v, %q; want a failure %q", chk.ID, got.Pass, got.Message, want[chk.ID])
		}
	}
}

// TestConfigCheckReadsConfigMap: the configuration check judges the data of
// ConfigMap shutdown-lab/kubelet-shutdown: the lab's answer passes, the same
// table without its mask fails.
func TestConfigCheckReadsConfigMap(t *testing.T) {
	answer := solution(t)
	unmasked := map[string]string{"kubelet.yaml": answer["kubelet.yaml"]}
	for _, data := range []map[string]string{answer, unmasked} {
		c := cluster(t, record{Start: t0}, data)
		chk, ok := lookupCheck("shutdown-graceful-config")
		if !ok {
			t.Fatal("no check shutdown-graceful-config")
		}
		got, err := chk.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(judgeConfig(data), got); diff != "" {
			t.Errorf("shutdown-graceful-config on %v (-want +got):\n%s", data, diff)
		}
	}
	if got := judgeConfig(unmasked); got.Pass {
		t.Errorf("judgeConfig without the mask passes: %q", got.Message)
	}
}

func lookupCheck(id string) (labcheck.Check, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c, true
		}
	}
	return labcheck.Check{}, false
}
