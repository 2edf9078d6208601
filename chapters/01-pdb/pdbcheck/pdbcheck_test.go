package pdbcheck

import (
	"context"
	"testing"

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
)

// A state is a cluster as the checks would read it: objects, and the pods
// whose eviction the API server refuses with 429.
type state struct {
	objects []runtime.Object
	refuse  map[string]bool
}

func node(name string, cordoned bool) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{poolLabel: Pool}},
		Spec:       corev1.NodeSpec{Unschedulable: cordoned},
	}
}

func webPod(name, nodeName string, isReady bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if isReady {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"app": App}},
		Spec:       corev1.PodSpec{NodeName: nodeName},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: status},
		}},
	}
}

func budget(name string, minAvailable int, st policyv1.PodDisruptionBudgetStatus) *policyv1.PodDisruptionBudget {
	v := intstr.FromInt32(int32(minAvailable))
	st.ObservedGeneration = 1
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &v,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": App}}},
		Status: st,
	}
}

func untouched() state {
	return state{objects: []runtime.Object{node("pdb-1", false), node("pdb-2", false), node("pdb-3", false)}}
}

// solved is the state lab/solve.sh ends in: four Ready replicas on pdb-1
// and pdb-2 under minAvailable 3, pdb-3 cordoned and empty.
func solved() state {
	return state{objects: []runtime.Object{
		node("pdb-1", false), node("pdb-2", false), node("pdb-3", true),
		webPod("web-a", "pdb-1", true), webPod("web-b", "pdb-1", true),
		webPod("web-c", "pdb-2", true), webPod("web-d", "pdb-2", true),
		budget("web", 3, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 4, DesiredHealthy: 3, CurrentHealthy: 4, DisruptionsAllowed: 1}),
	}}
}

// stalled is the state after step 4: minAvailable 3 over three replicas,
// all on pdb-3, which a drain that timed out left cordoned.
func stalled() state {
	return state{
		objects: []runtime.Object{
			node("pdb-1", false), node("pdb-2", false), node("pdb-3", true),
			webPod("web-a", "pdb-3", true), webPod("web-b", "pdb-3", true), webPod("web-c", "pdb-3", true),
			budget("web", 3, policyv1.PodDisruptionBudgetStatus{ExpectedPods: 3, DesiredHealthy: 3, CurrentHealthy: 3}),
		},
		refuse: map[string]bool{"web-a": true, "web-b": true, "web-c": true},
	}
}

// noBudget is a wrong repair: the budget deleted so that the drain could
// finish.
func noBudget() state {
	s := solved()
	s.objects = s.objects[:len(s.objects)-1]
	return s
}

func (s state) cluster() *labcheck.Cluster {
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
	return &labcheck.Cluster{Kube: kube}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		state  state
		want   map[string]bool // check ID → passes
	}{
		{name: "untouched", reason: "nothing applied: every check fails", state: untouched(),
			want: map[string]bool{"pdb-budget-protects-web": false, "pdb-eviction-allowed": false, "pdb-node-drained": false, "pdb-web-placed": false}},
		{name: "solved", reason: "the state solve.sh ends in: every check passes", state: solved(),
			want: map[string]bool{"pdb-budget-protects-web": true, "pdb-eviction-allowed": true, "pdb-node-drained": true, "pdb-web-placed": true}},
		{name: "stalled", reason: "the budget is there, but nothing can be evicted and pdb-3 still runs web", state: stalled(),
			want: map[string]bool{"pdb-budget-protects-web": true, "pdb-eviction-allowed": false, "pdb-node-drained": false, "pdb-web-placed": false}},
		{name: "budget-deleted", reason: "deleting the budget finishes the drain but is not the repair", state: noBudget(),
			want: map[string]bool{"pdb-budget-protects-web": false, "pdb-eviction-allowed": false, "pdb-node-drained": true, "pdb-web-placed": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.state.cluster()
			for _, chk := range Checks() {
				r, err := chk.Run(context.Background(), c)
				if err != nil {
					t.Fatalf("%s: %v", chk.ID, err)
				}
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

func TestChecksAreRegistered(t *testing.T) {
	for _, chk := range Checks() {
		got, ok := labcheck.Lookup(chk.ID)
		if !ok || got.Chapter != 1 {
			t.Errorf("check %s is not registered for chapter 1", chk.ID)
		}
		if chk.Points <= 0 || chk.Claim == "" || chk.Reads == "" || len(chk.Hints) == 0 {
			t.Errorf("check %s lacks points, claim, reads or hints", chk.ID)
		}
	}
}
