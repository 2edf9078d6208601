package taintcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/opslab/opslab/labcheck"
)

// The checks are run here against a fake API server holding what a cluster
// would hold after each way the lab can go; the lab itself shows them
// failing on an untouched cluster and passing after solve.sh.

func node(name string, written time.Time, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}
	if len(taints) > 0 {
		n.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: "kubectl-taint", Operation: metav1.ManagedFieldsOperationUpdate,
			Time:     &metav1.Time{Time: written},
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:taints":{}}}`)},
		}}
	}
	return n
}

func pod(name, nodeName string, created time.Time, tols ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, CreationTimestamp: metav1.Time{Time: created}},
		Spec:       corev1.PodSpec{NodeName: nodeName, Tolerations: tols},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func event(podName string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", podName, at.Unix()), Namespace: Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: podName},
		Reason:         evictReason,
		Message:        "Marking for deletion Pod " + Namespace + "/" + podName,
		Source:         corev1.EventSource{Component: "taint-eviction-controller"},
		FirstTimestamp: metav1.Time{Time: at.Add(-time.Hour)}, // folded into an older event
		LastTimestamp:  metav1.Time{Time: at},
	}
}

// scheduled is the scheduler's Scheduled event for a pod, as the
// events.k8s.io API writes it (eventTime, reportingController).
func scheduled(p *corev1.Pod, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%s.scheduled.%d", p.Name, at.UnixNano()), Namespace: Namespace},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: p.Name, UID: p.UID},
		Reason:              scheduledReason,
		Message:             "Successfully assigned " + Namespace + "/" + p.Name + " to " + p.Spec.NodeName,
		ReportingController: schedulerName,
		EventTime:           metav1.MicroTime{Time: at},
	}
}

// withUID gives a pod a UID, as the API server does.
func withUID(p *corev1.Pod, uid string) *corev1.Pod {
	p.UID = types.UID(uid)
	return p
}

func tol(key string, seconds *int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
}

func s(n int64) *int64 { return &n }

var (
	linkDown = corev1.Taint{Key: LinkKey, Value: "switch-4", Effect: corev1.TaintEffectNoExecute}
	maintNS  = corev1.Taint{Key: MaintKey, Value: "planned", Effect: corev1.TaintEffectNoSchedule}
	maintNE  = corev1.Taint{Key: MaintKey, Value: "planned", Effect: corev1.TaintEffectNoExecute}
)

type checkCase struct {
	name    string
	reason  string
	objects []runtime.Object
	pass    bool
	message string // a part of the message
}

func runCases(t *testing.T, run func(context.Context, *labcheck.Cluster) (labcheck.Result, error), cases []checkCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			c := &labcheck.Cluster{Kube: fake.NewClientset(tt.objects...)}
			r, err := run(context.Background(), c)
			if err != nil {
				t.Fatalf("check could not look: %v", err)
			}
			if r.Pass != tt.pass || !strings.Contains(r.Message, tt.message) {
				t.Errorf("check = pass %v %q, want pass %v with %q (%s)\nevidence:\n  %s", r.Pass, r.Message, tt.pass, tt.message, tt.reason, strings.Join(r.Evidence, "\n  "))
			}
		})
	}
}

func TestCheckLink20(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	tainted := now.Add(-2 * time.Minute)
	runCases(t, checkLink20, []checkCase{
		{"untouched", "no taint on taints-3", []runtime.Object{node("taints-3", time.Time{})},
			false, "taints-3 has no opslab.dev/link-down NoExecute taint"},
		{"still_running", "the pod is still there",
			[]runtime.Object{node("taints-3", tainted, linkDown), pod("link-20s", "taints-3", tainted.Add(-time.Minute))},
			false, "link-20s is still there"},
		{"deleted_by_hand", "gone without the controller's event",
			[]runtime.Object{node("taints-3", tainted, linkDown)},
			false, "no TaintManagerEviction event names it"},
		{"earlier_experiment", "the only event predates the current taint",
			[]runtime.Object{node("taints-3", tainted, linkDown), event("link-20s", tainted.Add(-time.Minute))},
			false, "an earlier experiment's"},
		{"too_early", "evicted 10 s after the taint: not the lab's 20 s pod",
			[]runtime.Object{node("taints-3", tainted, linkDown), event("link-20s", tainted.Add(10*time.Second))},
			false, "10 s after the taint, earlier than its 20 s"},
		{"on_time", "evicted by the controller 20 s after the taint",
			[]runtime.Object{node("taints-3", tainted, linkDown), event("link-20s", tainted.Add(20*time.Second))},
			true, "removed link-20s 20 s after"},
		{"expired", "two hours on, no event: it may have expired",
			[]runtime.Object{node("taints-3", now.Add(-2*time.Hour), linkDown)},
			false, "events live 1h0m0s"},
	})
}

func TestCheckLink3600(t *testing.T) {
	now := time.Now()
	runCases(t, checkLink3600, []checkCase{
		{"running", "a minute into its hour",
			[]runtime.Object{node("taints-3", now.Add(-time.Minute), linkDown), pod("link-3600s", "taints-3", now.Add(-2*time.Minute), tol(LinkKey, s(3600)))},
			true, "still runs"},
		{"gone", "the pod is gone before its hour",
			[]runtime.Object{node("taints-3", now.Add(-time.Minute), linkDown)},
			false, "link-3600s is gone"},
		{"not_the_lab_pod", "a pod of that name that tolerates only 30 s cannot still be there legitimately",
			[]runtime.Object{node("taints-3", now.Add(-time.Minute), linkDown), pod("link-3600s", "taints-3", now.Add(-2*time.Minute), tol(LinkKey, s(30)))},
			false, "should leave after 30s"},
	})
}

func TestCheckNoSchedule(t *testing.T) {
	now := time.Now()
	twin := withUID(pod("twin-forever", "taints-2", now.Add(-time.Minute), tol(MaintKey, nil)), "uid-twin")
	runCases(t, checkNoSchedule, []checkCase{
		{"untouched", "no NoSchedule taint", []runtime.Object{node("taints-2", time.Time{})}, false, "no NoSchedule taint yet"},
		{"survivor", "the scheduler placed a pod before the NoSchedule taint, and it still runs without tolerating it",
			[]runtime.Object{node("taints-2", now, maintNS), twin, scheduled(twin, now.Add(-time.Minute))},
			true, "twin-forever kept running"},
		{"created_with_nodename", "a pod created with spec.nodeName never met the scheduler: no Scheduled event, so it proves nothing",
			[]runtime.Object{node("taints-2", now, maintNS), twin},
			false, "no pod of taints-lab runs on taints-2"},
		{"bound_after_taint", "a pod the scheduler bound after the taint was written (it tolerated the taint then) proves nothing about running pods",
			[]runtime.Object{node("taints-2", now, maintNS), twin, scheduled(twin, now.Add(time.Minute))},
			false, "no pod of taints-lab runs on taints-2"},
		{"earlier_pod_same_name", "the Scheduled event of an earlier pod of the same name (another UID) is not this pod's",
			[]runtime.Object{node("taints-2", now, maintNS), twin, scheduled(withUID(pod("twin-forever", "taints-2", now.Add(-time.Hour)), "uid-old"), now.Add(-time.Hour))},
			false, "no pod of taints-lab runs on taints-2"},
		{"tolerated", "a pod that tolerates the NoSchedule taint proves nothing",
			[]runtime.Object{node("taints-2", now, maintNS), pod("twin-forever", "taints-2", now.Add(-time.Minute), corev1.Toleration{Operator: corev1.TolerationOpExists})},
			false, "no pod of taints-lab runs on taints-2 without tolerating"},
		{"other_node", "a pod on another node proves nothing",
			[]runtime.Object{node("taints-2", now, maintNS), pod("twin-forever", "taints-1", now.Add(-time.Minute))},
			false, "no pod of taints-lab runs on taints-2"},
	})
}

func TestCheckTwins(t *testing.T) {
	now := time.Now()
	n := node("taints-2", now.Add(-time.Minute), maintNS, maintNE)
	forever := pod("twin-forever", "taints-2", now.Add(-2*time.Minute), tol(MaintKey, nil))
	runCases(t, checkTwins, []checkCase{
		{"evicted", "twin-0s went with the controller's event", []runtime.Object{n, forever, event("twin-0s", now.Add(-time.Minute))}, true, "removed twin-0s"},
		{"by_hand", "twin-0s went without an event", []runtime.Object{n, forever}, false, "no TaintManagerEviction event"},
		{"forever_gone", "twin-forever must stay", []runtime.Object{n, event("twin-0s", now.Add(-time.Minute))}, false, "twin-forever does not run"},
	})
}

func TestCheckDB(t *testing.T) {
	sts := func(reason string) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: Namespace, Annotations: map[string]string{ReasonKey: reason}},
			Status:     appsv1.StatefulSetStatus{CurrentRevision: "db-2", UpdateRevision: "db-2", ReadyReplicas: 1},
		}
	}
	long := pod("db-0", "taints-1", time.Now(), tol("node.kubernetes.io/not-ready", s(6000)), tol("node.kubernetes.io/unreachable", s(6000)))
	def := pod("db-0", "taints-1", time.Now(), tol("node.kubernetes.io/not-ready", s(300)), tol("node.kubernetes.io/unreachable", s(300)))
	runCases(t, checkDB, []checkCase{
		{"untouched", "no StatefulSet", nil, false, "there is no StatefulSet db"},
		{"chosen", "6000 s with a reason", []runtime.Object{sts("local cache takes an hour to rebuild"), long}, true, "waits longer than 300 s"},
		{"default", "300 s is admission's value, not a choice", []runtime.Object{sts("local cache"), def}, false, "does not wait longer than the default 300 s"},
		{"no_reason", "a value without a reason", []runtime.Object{sts(""), long}, false, "has no opslab.dev/toleration-reason annotation"},
	})
}

func TestCheckControl(t *testing.T) {
	admitted := pod("control", "taints-1", time.Now(), tol("node.kubernetes.io/not-ready", s(300)), tol("node.kubernetes.io/unreachable", s(300)))
	admitted.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Pod","spec":{}}`}
	own := admitted.DeepCopy()
	own.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = `{"spec":{"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}}`
	elsewhere := admitted.DeepCopy()
	elsewhere.Spec.NodeName = "taints-2"
	runCases(t, checkControl, []checkCase{
		{"untouched", "no pod", nil, false, "there is no pod control"},
		{"admitted", "no toleration written, two carried", []runtime.Object{admitted}, true, "admission added them"},
		{"written_by_hand", "the manifest wrote a toleration", []runtime.Object{own}, false, "writes its own tolerations"},
		{"wrong_node", "not on the control node", []runtime.Object{elsewhere}, false, "not on the control node taints-1"},
	})
}
