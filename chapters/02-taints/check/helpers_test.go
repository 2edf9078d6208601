package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/audit/audittest"
)

// The judges are tested on what a cluster would hold after each way the lab
// can go: the audit log's requests, and the API's objects with the
// managedFields the server would have stamped. The cheat tests
// (cheat_e2e_test.go) build the same on the real cluster.

// cacheName is the name the ReplicaSet of Deployment cache gave its pod.
const cacheName = "cache-85d9c566bf-vf5dj"

// t0 is when the lab's namespace was made; at(s) is s seconds later.
var t0 = time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// An actor is who sent a request, as the audit log names them.
type actor = audittest.Actor

var (
	learner   = audittest.Learner
	scheduler = audittest.Scheduler
	kwok      = audittest.Kwok
	taintCtl  = audittest.Controller("node-controller")
	stsCtl    = audittest.Controller("statefulset-controller")
	rsCtl     = audittest.Controller("replicaset-controller")
	asCtl     = audittest.Impersonating(audit.TaintEviction)
	// A learner who minted the controller's token and used it with kubectl.
	withCtlToken = audittest.WithToken(audit.TaintEviction)
	// The learner's own client sending in a component's user agent.
	claiming = audittest.Claiming
)

// req is a granted request of a at s seconds into the lab, on res ("pods",
// "pods/binding", "nodes") named name.
func req(a actor, verb, res, name string, s float64) audit.Event {
	r, sub, _ := strings.Cut(res, "/")
	ns := Namespace
	if r == "nodes" {
		ns = ""
	}
	code := 200
	if verb == "create" {
		code = 201
	}
	return audit.Event{
		Received: at(s), Time: at(s).Add(5 * time.Millisecond),
		User: a.User, Impersonated: a.As, Agent: audit.AgentHint(a.Agent), Borrowed: a.Borrowed,
		Verb: verb, Resource: r, Subresource: sub, Namespace: ns, Name: name, Code: code,
	}
}

// logLab is a lab whose audit log holds events, checked 300 s in.
func logLab(events ...audit.Event) lab {
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b audit.Event) int { return a.Time.Compare(b.Time) })
	return lab{start: t0, now: at(300), hasLog: true, log: events}
}

// apiLab is a lab judged without a log, checked 300 s in.
func apiLab() lab { return lab{start: t0, now: at(300), noLog: "none in this test"} }

// placedBy is the log of a pod created by the learner at s and bound by
// the scheduler a moment later.
func placedBy(name string, s float64) []audit.Event {
	return []audit.Event{req(learner, "create", "pods", name, s), req(scheduler, "create", "pods/binding", name, s+0.01)}
}

// evictedAt is the log of the taint eviction controller removing a pod at s.
func evictedAt(name string, s float64) []audit.Event {
	return []audit.Event{
		req(taintCtl, "create", "events", name+".ev", s),
		req(taintCtl, "patch", "pods/status", name, s+0.01),
		req(taintCtl, "delete", "pods", name, s+0.02),
		req(kwok, "delete", "pods", name, s+0.03),
	}
}

func cat(parts ...[]audit.Event) []audit.Event { return slices.Concat(parts...) }

// managed is a managedFields entry of manager at s, owning fields (JSON).
func managed(manager string, s float64, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
		Time:     &metav1.Time{Time: at(s).Truncate(time.Second)},
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)},
	}
}

// node is a node whose taints were last written at s by kubectl taint.
func node(name string, s float64, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}
	if len(taints) > 0 {
		n.ManagedFields = []metav1.ManagedFieldsEntry{managed("kubectl-taint", s, `{"f:spec":{"f:taints":{}}}`)}
	}
	return n
}

// pod is a running pod of the lab created at s and bound by the scheduler:
// its managedFields show kubectl's fields and no owner of spec.nodeName.
func pod(name, nodeName string, s float64, tols ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: Namespace, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.Time{Time: at(s).Truncate(time.Second)},
			ManagedFields: []metav1.ManagedFieldsEntry{
				managed("kubectl-client-side-apply", s, `{"f:spec":{"f:containers":{},"f:nodeSelector":{}`+tolerationFields(tols)+`}}`),
			},
		},
		Spec:   corev1.PodSpec{NodeName: nodeName, Tolerations: tols},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func tolerationFields(tols []corev1.Toleration) string {
	if len(tols) == 0 {
		return ""
	}
	return `,"f:tolerations":{}`
}

// byHand is a pod created with spec.nodeName: kubectl owns the field.
func byHand(p *corev1.Pod) *corev1.Pod {
	p.ManagedFields = []metav1.ManagedFieldsEntry{managed("kubectl-create", p.CreationTimestamp.Sub(t0).Seconds(), `{"f:spec":{"f:nodeName":{},"f:tolerations":{}}}`)}
	return p
}

// withTolerations adds tolerations admission would have added, owned by
// nobody.
func withTolerations(p *corev1.Pod, tols ...corev1.Toleration) *corev1.Pod {
	p.Spec.Tolerations = append(p.Spec.Tolerations, tols...)
	return p
}

func tol(key string, seconds *int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
}

func s(n int64) *int64 { return &n }

var (
	linkDown = corev1.Taint{Key: LinkKey, Value: "rack-switch", Effect: corev1.TaintEffectNoExecute}
	maintNS  = corev1.Taint{Key: MaintKey, Value: "firmware", Effect: corev1.TaintEffectNoSchedule}
	maintNE  = corev1.Taint{Key: MaintKey, Value: "firmware", Effect: corev1.TaintEffectNoExecute}
	// agent's toleration (lab/pods.yaml): every NoExecute taint, for good.
	everyNoExecute = corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	// queue's: a kernel maintenance only.
	kernelOnly = corev1.Toleration{Key: MaintKey, Operator: corev1.TolerationOpEqual, Value: "kernel", Effect: corev1.TaintEffectNoExecute}
	notReady   = tol("node.kubernetes.io/not-ready", s(300))
	unreach    = tol("node.kubernetes.io/unreachable", s(300))
)

// event is an Event object of the lab, written at s by manager, with its
// own dates at s unless set otherwise.
func event(name, podName, reason, message, component, manager string, s float64) corev1.Event {
	e := corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: Namespace,
			CreationTimestamp: metav1.Time{Time: at(s).Truncate(time.Second)},
			ManagedFields:     []metav1.ManagedFieldsEntry{managed(manager, s, `{"f:message":{},"f:reason":{}}`)},
		},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: podName},
		Reason:         reason,
		Message:        message,
		Source:         corev1.EventSource{Component: component},
		FirstTimestamp: metav1.Time{Time: at(s).Truncate(time.Second)},
		LastTimestamp:  metav1.Time{Time: at(s).Truncate(time.Second)},
	}
	return e
}

// mark is the taint eviction controller's event for a pod at s.
func mark(podName string, s float64) corev1.Event {
	return event(podName+".ev", podName, evictReason, markMessage+Namespace+"/"+podName, taintEvictionName, controllerAgent, s)
}

// cancelled is the controller's event when it calls a deletion off.
func cancelled(podName string, s float64) corev1.Event {
	return event(podName+".cancel", podName, evictReason, cancelMessage+Namespace+"/"+podName, taintEvictionName, controllerAgent, s)
}

// scheduledEv is the scheduler's Scheduled event for a pod at s; uid may be
// empty for a pod that is gone.
func scheduledEv(podName, nodeName string, uid types.UID, s float64) corev1.Event {
	e := event(fmt.Sprintf("%s.sched", podName), podName, scheduledReason, "Successfully assigned "+Namespace+"/"+podName+" to "+nodeName, schedulerName, schedulerAgent, s)
	e.InvolvedObject.UID = uid
	return e
}

// expect checks a Result against a want: pass or not, a part of the
// message, and optionally a part of the evidence.
func expect(t *testing.T, r labcheck.Result, pass bool, message, evidence, reason string) {
	t.Helper()
	ev := strings.Join(r.Evidence, "\n  ")
	t.Logf("%v: %s", r.Pass, r.Message)
	if r.Pass != pass || !strings.Contains(r.Message, message) || !strings.Contains(ev, evidence) {
		t.Errorf("check = pass %v %q, want pass %v with %q, evidence with %q (%s)\nevidence:\n  %s", r.Pass, r.Message, pass, message, evidence, reason, ev)
	}
}
