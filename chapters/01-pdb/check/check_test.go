package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/gradertest"
)

// A state is a cluster as the checks would read it: objects, the pods
// whose eviction the API server refuses with 429, and the audit log's
// events (none: no log).
type state struct {
	objects []runtime.Object
	refuse  map[string]bool
	events  []audit.Event
}

func node(name string, cordonedAt *time.Time) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{poolLabel: Pool}}}
	if cordonedAt != nil {
		n.Spec.Unschedulable = true
		n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: *cordonedAt}}}
	}
	return n
}

func budget(name string, minAvailable int, created time.Time, writes []specWrite, st policyv1.PodDisruptionBudgetStatus) *policyv1.PodDisruptionBudget {
	v := intstr.FromInt32(int32(minAvailable))
	st.ObservedGeneration = 1
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Generation: 1, CreationTimestamp: metav1.Time{Time: created}},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &v,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": App}}},
		Status: st,
	}
	for _, w := range writes {
		b.ManagedFields = append(b.ManagedFields, metav1.ManagedFieldsEntry{Manager: w.Manager, Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: w.Time}})
	}
	return b
}

// state turns a run into what the API and the audit log show at its end,
// with the budget's status as the disruption controller would write it.
func (r *run) state(minAvailable int, st policyv1.PodDisruptionBudgetStatus) state {
	cordoned := r.whole(r.cordon)
	s := state{objects: []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, CreationTimestamp: metav1.Time{Time: r.t0}}},
		node("pdb-1", nil), node("pdb-2", nil), node("pdb-3", &cordoned),
		budget("ledger", minAvailable, r.whole(r.budget), r.writes, st),
	}}
	for _, p := range r.pods {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: Namespace, Labels: map[string]string{"app": App},
				CreationTimestamp: metav1.Time{Time: p.Created},
				OwnerReferences:   []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "ledger-7d9", Controller: ptr(true)}},
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: p.Created}},
					{Manager: "kwok-controller", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: &metav1.Time{Time: p.ReadyAt}},
				}},
			Spec:   corev1.PodSpec{NodeName: p.Node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}},
		}
		if p.ready() {
			pod.Status.Conditions[0] = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: p.ReadyAt}}
		}
		s.objects = append(s.objects, pod)
	}
	if !r.noAudit {
		// The log began with the cluster, before the lab.
		s.events = append([]audit.Event{{User: "kwok-admin", Verb: "create", Resource: "nodes", Name: "pdb-1", Code: 201,
			Received: r.t0.Add(-time.Hour), Time: r.t0.Add(-time.Hour)}}, r.events...)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func untouched() state {
	return state{objects: []runtime.Object{node("pdb-1", nil), node("pdb-2", nil), node("pdb-3", nil)}}
}

// solved is the state lab/solve.sh ends in: five Ready replicas on pdb-1
// and pdb-2 under minAvailable 4, pdb-3 cordoned and empty, reached by a
// drain that waited for each replacement.
func solved() state {
	return solvedRun().state(4, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 5, DesiredHealthy: 4, CurrentHealthy: 5, DisruptionsAllowed: 1})
}

// stalled is the state after step 4: minAvailable 4 over four replicas,
// all on pdb-3, which a drain that timed out left cordoned.
func stalled() state {
	r := started().cordoned(100).refuse(100.03, 130, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
	s := r.state(4, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 4, DesiredHealthy: 4, CurrentHealthy: 4})
	s.refuse = map[string]bool{"ledger-a": true, "ledger-b": true, "ledger-c": true, "ledger-d": true}
	return s
}

// budgetPutBack is a wrong repair: the budget deleted so that the drain
// could finish at once, then made again.
func budgetPutBack() state {
	return atOnce().state(4, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 5, DesiredHealthy: 4, CurrentHealthy: 5, DisruptionsAllowed: 1})
}

// solvedNoLog is solved, graded with no audit log.
func solvedNoLog() state {
	r := solvedRun()
	r.noAudit = true
	return r.state(4, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 5, DesiredHealthy: 4, CurrentHealthy: 5, DisruptionsAllowed: 1})
}

// writeLog writes events as the API server's audit log, one JSON line each.
func writeLog(t *testing.T, events []audit.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := audit.WriteFile(path, events...); err != nil {
		t.Fatal(err)
	}
	return path
}

func (s state) cluster(t *testing.T) *labcheck.Cluster {
	kube := fake.NewClientset(s.objects...)
	kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca, ok := a.(k8stesting.CreateAction)
		if !ok || a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := ca.GetObject().(*policyv1.Eviction)
		if len(ev.DeleteOptions.DryRun) == 0 {
			panic("a check sent an eviction without dryRun")
		}
		if s.refuse[ev.Name] {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		return true, nil, nil
	})
	// The fake does not filter pods by spec.nodeName; the real server does.
	kube.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		la := a.(k8stesting.ListAction)
		want, ok := la.GetListRestrictions().Fields.RequiresExactMatch("spec.nodeName")
		if !ok {
			return false, nil, nil
		}
		obj, err := kube.Tracker().List(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "")
		if err != nil {
			return true, nil, err
		}
		list := obj.(*corev1.PodList)
		var keep []corev1.Pod
		for _, p := range list.Items {
			if p.Spec.NodeName == want {
				keep = append(keep, p)
			}
		}
		list.Items = keep
		return true, list, nil
	})
	gradertest.Guard(t, kube)
	c := &labcheck.Cluster{Kube: kube, NoAudit: "none was given"}
	if s.events != nil {
		l, err := audit.Read(writeLog(t, s.events))
		if err != nil {
			t.Fatal(err)
		}
		c.UseAuditLog(l)
	}
	return c
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		state  state
		want   map[string]bool // check ID → passes
	}{
		{name: "untouched", reason: "nothing applied: every check fails", state: untouched(),
			want: map[string]bool{"pdb-budget-protects-ledger": false, "pdb-eviction-allowed": false, "pdb-node-drained": false, "pdb-ledger-placed": false}},
		{name: "solved", reason: "the state solve.sh ends in, by the drain it makes: every check passes", state: solved(),
			want: map[string]bool{"pdb-budget-protects-ledger": true, "pdb-eviction-allowed": true, "pdb-node-drained": true, "pdb-ledger-placed": true}},
		{name: "stalled", reason: "the budget is there, but it has not seen a drain through, nothing can be evicted and pdb-3 still runs ledger", state: stalled(),
			want: map[string]bool{"pdb-budget-protects-ledger": false, "pdb-eviction-allowed": false, "pdb-node-drained": false, "pdb-ledger-placed": false}},
		{name: "budget-put-back", reason: "deleting the budget finishes the drain at once; putting it back afterwards does not hide it", state: budgetPutBack(),
			want: map[string]bool{"pdb-budget-protects-ledger": false, "pdb-eviction-allowed": false, "pdb-node-drained": true, "pdb-ledger-placed": false}},
		{name: "solved-without-audit-log", reason: "the API shows the budget older than the drain and the replacements one after another, but neither refusals nor evictions", state: solvedNoLog(),
			want: map[string]bool{"pdb-budget-protects-ledger": true, "pdb-eviction-allowed": false, "pdb-node-drained": false, "pdb-ledger-placed": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.state.cluster(t)
			for _, chk := range Checks() {
				r, err := chk.Run(context.Background(), c)
				if err != nil {
					t.Fatalf("%s: %v", chk.ID, err)
				}
				t.Logf("%s %v: %s", chk.ID, r.Pass, r.Message)
				if r.Pass != tt.want[chk.ID] {
					t.Errorf("%s passed = %v, want %v: %s; evidence %q (%s)", chk.ID, r.Pass, tt.want[chk.ID], r.Message, r.Evidence, tt.reason)
				}
				if len(r.Evidence) == 0 {
					t.Errorf("%s gave no evidence: %s", chk.ID, r.Message)
				}
			}
		})
	}
}

// TestChecksAreComplete requires of every check what a learner reads next
// to it: points, the claim it verifies, what it reads, and hints.
func TestChecksAreComplete(t *testing.T) {
	for _, chk := range Checks() {
		if chk.Points <= 0 || chk.Claim == "" || chk.Reads == "" || len(chk.Hints) == 0 {
			t.Errorf("check %s lacks points, claim, reads or hints", chk.ID)
		}
	}
}

// checkedTooSoon is solved, read a few seconds after the drain: the last
// replacement, ledger-h, is not Ready yet, so the budget has no room and
// ledger is at its floor.
func checkedTooSoon() state {
	r := solvedRun()
	h := r.pods["ledger-h"]
	h.ReadyAt = time.Time{}
	r.pods["ledger-h"] = h
	var events []audit.Event
	for _, e := range r.events {
		if e.Name == "ledger-h" && e.Subresource == "status" && e.Time.After(r.at(194)) {
			continue // kwok has not made it Ready yet
		}
		events = append(events, e)
	}
	r.events = events
	s := r.state(4, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 5, DesiredHealthy: 4, CurrentHealthy: 4})
	s.refuse = map[string]bool{"ledger-s": true, "ledger-e": true, "ledger-f": true, "ledger-g": true}
	return s
}

// TestCheckedBeforeTheLastReplacementIsReady: checked right after the
// drain, the checks that count Ready pods fail, and say first that a pod
// is not Ready yet and how to wait for it, not that the budget is in the
// way; the others pass.
func TestCheckedBeforeTheLastReplacementIsReady(t *testing.T) {
	c := checkedTooSoon().cluster(t)
	for _, chk := range Checks() {
		o := labcheck.Outcome{Check: chk}
		var err error
		o.Result, err = chk.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", chk.ID, err)
		}
		r := o.Result
		t.Logf("%s %v: %s (hint: %s)", chk.ID, r.Pass, r.Message, o.FirstHint())
		wantFail := chk.ID == "pdb-eviction-allowed" || chk.ID == "pdb-ledger-placed"
		if r.Pass == wantFail {
			t.Errorf("%s passed = %v, want %v: %s", chk.ID, r.Pass, !wantFail, r.Message)
			continue
		}
		if !wantFail {
			continue
		}
		if !strings.HasPrefix(r.Message, "ledger-h is not Ready yet") {
			t.Errorf("%s message = %q, want it to begin with %q", chk.ID, r.Message, "ledger-h is not Ready yet")
		}
		if h := o.FirstHint(); !strings.Contains(h, "kubectl -n pdb-lab wait pod -l app=ledger --for=condition=Ready") {
			t.Errorf("%s hint = %q, want the command that waits for the pods", chk.ID, h)
		}
	}
}
