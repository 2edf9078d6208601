package check

import (
	"fmt"
	"sort"
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

// t0 is when the lab's namespace was created in the fixtures; at(s) is s
// seconds later.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// An actor is who sends a request, as the audit log records it, with the
// requests of the chapter's lab it may send.
type actor struct{ audittest.Actor }

var kubectlAgent = audittest.KubectlAgent

var (
	learner    = actor{audittest.Learner}
	scheduler  = actor{audittest.Scheduler}
	kwok       = actor{audittest.Kwok}
	manager    = actor{audittest.Manager}
	nodeCtl    = actor{audittest.Controller("node-controller")}
	podGC      = actor{audittest.Controller("pod-garbage-collector")}
	stsCtl     = actor{audittest.Controller("statefulset-controller")}
	asPodGC    = actor{audittest.Impersonating(audit.PodGC)}
	podGCToken = actor{audittest.WithToken(audit.PodGC)}
)

// req is one granted request of a at s seconds: res is "pods", "pods/binding",
// "nodes/status"...; a node's name goes with an empty namespace. The query
// (a field manager) is added to the URI.
func (a actor) req(s float64, verb, res, ns, name, query string) audit.Event {
	r, sub, _ := strings.Cut(res, "/")
	code := 200
	if verb == "create" {
		code = 201
	}
	uri := "/api/v1/" + r + "/" + name
	if ns != "" {
		uri = "/api/v1/namespaces/" + ns + "/" + r + "/" + name
	}
	if sub != "" {
		uri += "/" + sub
	}
	if query != "" {
		uri += "?" + query
	}
	return audit.Event{Received: at(s - 0.005), Time: at(s), User: a.User, Impersonated: a.As, Agent: audit.AgentHint(a.Agent), Borrowed: a.Borrowed,
		Verb: verb, Resource: r, Subresource: sub, Namespace: ns, Name: name, URI: uri, Code: code}
}

func (a actor) pod(s float64, verb, res string) audit.Event {
	return a.req(s, verb, res, Namespace, Pod, "")
}

func (a actor) node(s float64, verb, res, name string) audit.Event {
	return a.req(s, verb, res, "", name, "")
}

// bind is the scheduler's binding of the db-0 with the given UID.
func bind(s float64, uid string) audit.Event {
	e := scheduler.pod(s, "create", "pods/binding")
	e.UID = uid
	return e
}

// createEvent is the request that wrote an Event object.
func (a actor) createEvent(s float64, name string) audit.Event {
	return a.req(s, "create", "events", Namespace, name, "")
}

func kubectlTaint(s float64, node string) audit.Event {
	return learner.req(s, "patch", "nodes", "", node, "fieldManager=kubectl-taint&fieldValidation=Strict")
}

func kubectlLabel(s float64, node string) audit.Event {
	return learner.req(s, "patch", "nodes", "", node, "fieldManager=kubectl-label")
}

func scheduled(name, uid, node string, s float64) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: Pod, UID: types.UID(uid)},
		Reason:         "Scheduled", Message: fmt.Sprintf("Successfully assigned %s/%s to %s", Namespace, Pod, node),
		FirstTimestamp: metav1.NewTime(at(s)), LastTimestamp: metav1.NewTime(at(s)), Count: 1,
	}
}

// eviction is the taint eviction controller's event: no UID for the pod, and
// a firstTimestamp and count that may come from its cache of an earlier
// namespace's pod of the same name; first is when the object was created.
func eviction(first, last float64, count int32) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "db-0.evict", Namespace: Namespace, CreationTimestamp: *sec(first)},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: Pod},
		Source:         corev1.EventSource{Component: "taint-eviction-controller"}, ReportingController: "taint-eviction-controller",
		Reason: "TaintManagerEviction", Message: fmt.Sprintf("Marking for deletion Pod %s/%s", Namespace, Pod),
		FirstTimestamp: metav1.NewTime(at(-600)), LastTimestamp: metav1.NewTime(at(last)), Count: count,
	}
}

func sec(s float64) *metav1.Time { t := metav1.NewTime(at(s).Truncate(time.Second)); return &t }

func readyNode(name string) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(at(-3600)), Labels: map[string]string{"opslab.dev/pool": Pool}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at(-3600)), Message: "kubelet is ready"},
		}},
	}
}

// powerOff makes n what power.sh off leaves at s seconds once the node
// lifecycle controller has marked it: Ready=False, its not-ready taints.
func powerOff(n *corev1.Node, s, noExecute float64) {
	n.Labels["opslab.dev/power"] = "off"
	n.Status.Conditions[0] = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: *sec(s),
		Reason: "KubeletNotReady", Message: "opslab: the node is powered off; no kubelet posts its status"}
	n.Spec.Taints = append(n.Spec.Taints,
		corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule, TimeAdded: sec(s)},
		corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: sec(noExecute)})
}

// leftover dates n's not-ready taint of the given effect 20 s before the lab
// began: the node lifecycle controller added it when the node went NotReady
// in an earlier run and had not taken it off when this run powered the node
// off again.
func leftover(n *corev1.Node, effect corev1.TaintEffect) {
	for i, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == effect {
			n.Spec.Taints[i].TimeAdded = sec(-20)
		}
	}
}

// taintOOS adds the out-of-service taint as kubectl taint does: no
// timeAdded, and kubectl-taint's managedFields entry owning the taints.
func taintOOS(n *corev1.Node, s float64) {
	n.Spec.Taints = append([]corev1.Taint{{Key: OutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}}, n.Spec.Taints...)
	n.ManagedFields = append(n.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl-taint", Operation: metav1.ManagedFieldsOperationUpdate,
		Time: sec(s), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:taints":{}}}`)}})
}

func runningPod(uid, node string, created float64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: Pod, Namespace: Namespace, UID: types.UID(uid), CreationTimestamp: *sec(created)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}},
	}
}

func terminating(p *corev1.Pod, deleted float64) *corev1.Pod {
	grace := int64(30)
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = sec(deleted+30), &grace
	return p
}

// solved is the record lab/solve.sh leaves, as measured on the lab cluster:
// db-0 (uid-1) on shutdown-2; power off at 3 s; the node lifecycle
// controller's NoSchedule taint at once and its NoExecute taint at 14 s;
// db-0 marked for deletion 5 s later; the learner's taint at 21 s; the pod
// GC's force delete at 39 s; db-0 (uid-2) on shutdown-1.
func solved() record {
	n1, n2 := readyNode("shutdown-1"), readyNode("shutdown-2")
	powerOff(&n2, 3, 14)
	taintOOS(&n2, 21)
	return record{
		Start: t0,
		Log: []audit.Event{
			stsCtl.pod(1, "create", "pods"),
			bind(1.1, "uid-1"),
			scheduler.createEvent(1.2, "db-0.a"),
			kubectlLabel(3, "shutdown-2"),
			kwok.node(3.01, "patch", "nodes/status", "shutdown-2"),
			nodeCtl.node(3.05, "patch", "nodes", "shutdown-2"),
			learner.pod(3.3, "patch", "pods"),
			nodeCtl.node(14, "patch", "nodes", "shutdown-2"),
			nodeCtl.createEvent(19, "db-0.evict"),
			nodeCtl.pod(19, "patch", "pods/status"),
			nodeCtl.pod(19.01, "delete", "pods"),
			kubectlTaint(21, "shutdown-2"),
			nodeCtl.pod(21.02, "delete", "pods"),
			podGC.pod(39, "patch", "pods/status"),
			podGC.pod(39.02, "delete", "pods"),
			stsCtl.pod(39.03, "create", "pods"),
			bind(39.04, "uid-2"),
			scheduler.createEvent(39.05, "db-0.c"),
		},
		Pod:    runningPod("uid-2", "shutdown-1", 39),
		Nodes:  []corev1.Node{n1, n2},
		Events: []corev1.Event{scheduled("db-0.a", "uid-1", "shutdown-2", 1.2), eviction(19, 21, 27), scheduled("db-0.c", "uid-2", "shutdown-1", 39.05)},
	}
}

// Edits of a record, for the cases.
func (r *record) add(es ...audit.Event) {
	r.Log = append(r.Log, es...)
	sort.SliceStable(r.Log, func(i, j int) bool { return r.Log[i].Time.Before(r.Log[j].Time) })
}

func (r *record) drop(keep func(audit.Event) bool) {
	var out []audit.Event
	for _, e := range r.Log {
		if keep(e) {
			out = append(out, e)
		}
	}
	r.Log = out
}

func (r *record) node(name string) *corev1.Node {
	for i := range r.Nodes {
		if r.Nodes[i].Name == name {
			return &r.Nodes[i]
		}
	}
	panic("no node " + name)
}

func notBy(a actor) func(audit.Event) bool {
	return func(e audit.Event) bool { return !a.Sent(e) }
}

// restarted adds a restart of db-0 on shutdown-1 at s seconds: a graceful
// delete that the node finishes, and a new db-0 (uid).
func restarted(r *record, s float64, uid string) {
	r.add(learner.pod(s, "delete", "pods"), kwok.pod(s+0.05, "delete", "pods"),
		stsCtl.pod(s+0.1, "create", "pods"), bind(s+0.11, uid), scheduler.createEvent(s+0.12, "db-0."+uid))
	r.Events = append(r.Events, scheduled("db-0."+uid, uid, "shutdown-1", s+0.12))
	r.Pod = runningPod(uid, "shutdown-1", s+0.1)
}

// forceDeleted replaces the pod GC's removal with a's delete at 22 s.
func forceDeleted(a actor) func(*record) {
	return func(r *record) {
		r.drop(notBy(podGC))
		r.add(a.pod(22, "delete", "pods"))
	}
}

// taintOnReadyNode: the out-of-service taint on shutdown-2 while it runs
// db-0 and is Ready. The taint eviction controller deletes db-0 at once and
// the node finishes the deletion; the StatefulSet recreates it elsewhere.
func taintOnReadyNode() record {
	n1, n2 := readyNode("shutdown-1"), readyNode("shutdown-2")
	taintOOS(&n2, 3)
	return record{
		Start: t0,
		Log: []audit.Event{
			stsCtl.pod(1, "create", "pods"), bind(1.1, "uid-1"), scheduler.createEvent(1.2, "db-0.a"),
			kubectlTaint(3, "shutdown-2"),
			nodeCtl.pod(3.1, "delete", "pods"), kwok.pod(3.15, "delete", "pods"),
			stsCtl.pod(3.2, "create", "pods"), bind(3.21, "uid-2"), scheduler.createEvent(3.22, "db-0.c"),
		},
		Pod:    runningPod("uid-2", "shutdown-1", 3.2),
		Nodes:  []corev1.Node{n1, n2},
		Events: []corev1.Event{scheduled("db-0.a", "uid-1", "shutdown-2", 1.2), scheduled("db-0.c", "uid-2", "shutdown-1", 3.22)},
	}
}

// handMadeEvent: db-0 never left shutdown-1. The learner powers off the idle
// shutdown-2, restarts db-0 on shutdown-1, taints shutdown-2, and writes a
// Scheduled event that says an earlier db-0 ran on shutdown-2.
func handMadeEvent() record {
	n1, n2 := readyNode("shutdown-1"), readyNode("shutdown-2")
	powerOff(&n2, 3, 14)
	taintOOS(&n2, 21)
	r := record{
		Start: t0,
		Log: []audit.Event{
			stsCtl.pod(1, "create", "pods"), bind(1.1, "uid-1"), scheduler.createEvent(1.2, "db-0.a"),
			kubectlLabel(3, "shutdown-2"), kwok.node(3.01, "patch", "nodes/status", "shutdown-2"), nodeCtl.node(3.05, "patch", "nodes", "shutdown-2"),
			nodeCtl.node(14, "patch", "nodes", "shutdown-2"),
			kubectlTaint(21, "shutdown-2"),
			learner.createEvent(25, "db-0.forged"),
		},
		Pod:    runningPod("uid-1", "shutdown-1", 1),
		Nodes:  []corev1.Node{n1, n2},
		Events: []corev1.Event{scheduled("db-0.a", "uid-1", "shutdown-1", 1.2), scheduled("db-0.forged", "uid-1", "shutdown-2", 25)},
	}
	restarted(&r, 20, "uid-2")
	return r
}

type judgeCase struct {
	name, reason string
	record       func() record
	// want is the message each check must give, "" to pass with any message.
	// A check missing from the map passes.
	wantFail map[string]string
	// wantPass is the message of each check that passes, when it matters.
	wantPass map[string]string
}

var judges = map[string]func(record) labcheck.Result{
	"shutdown-db-moved":        judgeMoved,
	"shutdown-taint-after-off": judgeTaint,
	"shutdown-podgc-deleted":   judgePodGC,
}

func edit(base func() record, edits ...func(*record)) func() record {
	return func() record {
		r := base()
		for _, e := range edits {
			e(&r)
		}
		return r
	}
}

func withoutLog(r *record) { r.Log, r.NoAudit = nil, "cluster opslab is not on this machine" }

// TestJudgeUnplanned: the reference solution passes all three checks, with or
// without later restarts; each shortcut fails the check whose claim it
// skips, with a message that names the powered-off node.
func TestJudgeUnplanned(t *testing.T) {
	const (
		movedMsg = "db-0 was stuck Terminating on shutdown-2 after it lost power and now runs on shutdown-1, which is Ready"
		taintMsg = "shutdown-2 went NotReady at 12:00:03, the node lifecycle controller marked it at 12:00:03.05, db-0 was Terminating from 12:00:19.01, and the out-of-service taint came at 12:00:21"
		gcMsg    = "the pod GC force-deleted db-0 (uid uid-1) from shutdown-2 at 12:00:39.02, 18s after the out-of-service taint"
		readyMsg = "shutdown-2 carries the out-of-service taint but is Ready: no node of the pool was powered off"
		// leftoverMsg is the same with or without the log: the taints' dates decide.
		leftoverMsg = "shutdown-2 still carries the taint node.kubernetes.io/not-ready:NoSchedule from 11:59:40, before it went NotReady at 12:00:03: it is left from an earlier power-off, not a mark of this one. Run chapters/04-node-shutdown/lab/reset.sh, which powers the pool on and waits until the node lifecycle controller has taken its taints off, then start again from step 1"
	)
	tests := []judgeCase{
		{name: "solved", reason: "what lab/solve.sh does",
			record:   solved,
			wantPass: map[string]string{"shutdown-db-moved": movedMsg, "shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "restarted afterwards", reason: "two restarts of db-0 on shutdown-1 change neither the verdicts nor the node named",
			record:   edit(solved, func(r *record) { restarted(r, 60, "uid-3") }, func(r *record) { restarted(r, 70, "uid-4") }),
			wantPass: map[string]string{"shutdown-db-moved": movedMsg, "shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "the other node went down later", reason: "shutdown-1 lost power after the move and came back; the pod GC removed that db-0 too, but the one stuck on shutdown-2 is the one to judge",
			record: edit(solved, func(r *record) {
				r.add(learner.pod(60, "delete", "pods"), learner.req(61, "update", "nodes", "", "shutdown-1", ""),
					podGC.pod(70, "delete", "pods"), stsCtl.pod(70.1, "create", "pods"), bind(70.2, "uid-3"))
				r.Pod = runningPod("uid-3", "shutdown-1", 70.1)
			}),
			wantPass: map[string]string{"shutdown-db-moved": movedMsg, "shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "bound before created", reason: "the scheduler's binding often completes before the create's answer; the binding still belongs to the new pod",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool { return !e.Time.Equal(at(39.04)) && !e.Time.Equal(at(39.03)) })
				create, b := stsCtl.pod(39.05, "create", "pods"), bind(39.04, "uid-2")
				create.Received, b.Received = at(39.025), at(39.03)
				r.add(create, b)
			}),
			wantPass: map[string]string{"shutdown-db-moved": movedMsg, "shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "learner marked db-0 for deletion", reason: "a graceful delete on a node without power also leaves db-0 stuck Terminating",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool { return !(e.ByController(audit.NodeController) && e.Resource == "pods") })
				r.add(learner.pod(19.01, "delete", "pods"))
			}),
			wantPass: map[string]string{"shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "taint on a Ready node", reason: "the taint eviction controller moves db-0 and the node finishes the deletion; nothing was powered off",
			record: taintOnReadyNode,
			wantFail: map[string]string{"shutdown-db-moved": readyMsg, "shutdown-taint-after-off": readyMsg,
				"shutdown-podgc-deleted": readyMsg}},
		{name: "taint on a Ready node, restarted afterwards", reason: "a restart gives the checks no other node to blame",
			record: edit(taintOnReadyNode, func(r *record) { restarted(r, 30, "uid-3") }),
			wantFail: map[string]string{"shutdown-db-moved": readyMsg, "shutdown-taint-after-off": readyMsg,
				"shutdown-podgc-deleted": readyMsg}},
		{name: "hand-made Scheduled event", reason: "an event the learner wrote does not place db-0 on the powered-off node; the scheduler's own does not either",
			record: handMadeEvent,
			wantFail: map[string]string{
				"shutdown-db-moved":        "the db-0 marked for deletion (uid uid-1) ran on shutdown-1, not on the powered-off shutdown-2",
				"shutdown-taint-after-off": "the db-0 marked for deletion (uid uid-1) ran on shutdown-1, not on the powered-off shutdown-2",
				"shutdown-podgc-deleted":   "shutdown-1 finished deleting db-0 (uid uid-1) itself at 12:00:20.05, as only a node with power does: the pod GC had nothing to remove"}},
		{name: "force delete", reason: "kubectl delete --force by the learner after the taint: the pod GC did not remove it",
			record: edit(solved, forceDeleted(learner)),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "db-0 (uid uid-1) on shutdown-2 was removed at 12:00:22 by kwok-admin (kubectl), not by the pod GC: a hand's delete skips the pod GC's test that the node is really off"}},
		{name: "force delete, restarted afterwards", reason: "a restart does not hide who removed the stuck db-0, nor move the blame to shutdown-1",
			record: edit(solved, forceDeleted(learner), func(r *record) { restarted(r, 60, "uid-3") }),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "db-0 (uid uid-1) on shutdown-2 was removed at 12:00:22 by kwok-admin (kubectl), not by the pod GC: a hand's delete skips the pod GC's test that the node is really off"}},
		{name: "force delete as the pod GC", reason: "kubectl --as the pod GC's account is recorded as an impersonation",
			record: edit(solved, forceDeleted(asPodGC)),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "db-0 (uid uid-1) on shutdown-2 was force-deleted at 12:00:22 by kwok-admin as system:serviceaccount:kube-system:pod-garbage-collector (kubectl): acting as the pod GC's account is not the pod GC"}},
		{name: "force delete with the pod GC's token", reason: "the account's own token, used from kubectl, is not the controller manager",
			record: edit(solved, forceDeleted(podGCToken), func(r *record) {
				r.add(learner.req(10, "create", "serviceaccounts/token", "kube-system", "pod-garbage-collector", ""))
			}),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "db-0 (uid uid-1) on shutdown-2 was force-deleted at 12:00:22 with the pod GC's token from system:serviceaccount:kube-system:pod-garbage-collector (kubectl) (with a borrowed token), not by the pod GC in the controller manager"}},
		{name: "force delete with the pod GC's token, answered after the taint eviction controller's", reason: "the two deletes ran at once: the force delete arrived first and removed db-0, the controller's graceful one arrived later and was answered first; the one answered last removed the pod",
			record: edit(solved, forceDeleted(podGCToken), func(r *record) {
				r.drop(func(e audit.Event) bool { return !(e.Resource == "pods" && e.Verb == "delete" && e.Time.After(at(21))) })
				forced, graceful := podGCToken.pod(22.04, "delete", "pods"), nodeCtl.pod(22.02, "delete", "pods")
				forced.Received, graceful.Received = at(22), at(22.01)
				r.add(forced, graceful, learner.req(10, "create", "serviceaccounts/token", "kube-system", "pod-garbage-collector", ""))
			}),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "db-0 (uid uid-1) on shutdown-2 was force-deleted at 12:00:22.04 with the pod GC's token from system:serviceaccount:kube-system:pod-garbage-collector (kubectl) (with a borrowed token), not by the pod GC in the controller manager"}},
		{name: "the pod GC's token with the controller manager's user agent", reason: "a token the learner made for the pod GC's account makes its every request suspect",
			record: edit(solved, func(r *record) {
				r.add(learner.req(10, "create", "serviceaccounts/token", "kube-system", "pod-garbage-collector", ""),
					manager.req(11, "create", "serviceaccounts/token", "kube-system", "node-controller", ""))
			}),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "a token of the pod GC's service account was made at 12:00:10 by kwok-admin (kubectl), so its deletes cannot be told from a hand's"}},
		{name: "taint right after the power-off", reason: "the taint came before db-0 was Terminating: the taint eviction controller deleted db-0 because of it; the pod GC then did its part",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool {
					return !(e.ByController(audit.NodeController) && e.Resource == "pods") && !(e.Resource == "nodes" && e.Time.Equal(at(21)))
				})
				r.add(kubectlTaint(3.5, "shutdown-2"), nodeCtl.pod(3.6, "delete", "pods"))
			}),
			wantFail: map[string]string{
				"shutdown-taint-after-off": "db-0 (uid uid-1) was marked for deletion at 12:00:03.6, after the out-of-service taint at 12:00:03.5: the taint is for a pod already stuck Terminating"}},
		{name: "taint before the power-off", reason: "the taint moved db-0 while its node was Ready; the power-off came later",
			record: edit(taintOnReadyNode, func(r *record) {
				powerOff(r.node("shutdown-2"), 10, 20)
				r.add(kubectlLabel(10, "shutdown-2"), kwok.node(10.01, "patch", "nodes/status", "shutdown-2"), nodeCtl.node(10.05, "patch", "nodes", "shutdown-2"))
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        "no db-0 was marked for deletion after shutdown-2 went NotReady at 12:00:10: power off the node db-0 runs on, and wait until db-0 is Terminating",
				"shutdown-taint-after-off": "the out-of-service taint came at 12:00:03, before shutdown-2 went NotReady at 12:00:10: it must follow the power-off",
				"shutdown-podgc-deleted":   "no db-0 was marked for deletion after shutdown-2 went NotReady at 12:00:10, so the pod GC had nothing to remove"}},
		{name: "not marked by the controller", reason: "NotReady for a moment: the node lifecycle controller never tainted or wrote the node",
			record: edit(solved, func(r *record) {
				n := r.node("shutdown-2")
				n.Spec.Taints = n.Spec.Taints[:1]
				r.drop(func(e audit.Event) bool { return !(e.ByController(audit.NodeController) && e.Resource == "nodes") })
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        "shutdown-2 is NotReady since 12:00:03, but the node lifecycle controller has not marked it yet (no not-ready taint of its own): wait a few seconds",
				"shutdown-taint-after-off": "shutdown-2 is NotReady since 12:00:03, but the node lifecycle controller has not marked it yet (no not-ready taint of its own): wait a few seconds"}},
		{name: "a taint left from the run before", reason: "an honest run on a node whose NoExecute taint the controller had not yet taken off: it marks the node again with its NoSchedule taint only, and that is this power-off's mark",
			record: edit(solved, func(r *record) {
				leftover(r.node("shutdown-2"), corev1.TaintEffectNoExecute)
				r.drop(func(e audit.Event) bool {
					return !(e.ByController(audit.NodeController) && e.Resource == "nodes" && e.Time.Equal(at(14)))
				})
			}),
			wantPass: map[string]string{"shutdown-db-moved": movedMsg, "shutdown-taint-after-off": taintMsg, "shutdown-podgc-deleted": gcMsg}},
		{name: "a taint left from the run before, no audit log", reason: "the taints' timeAdded alone tells this power-off's mark from the leftover",
			record: edit(solved, withoutLog, func(r *record) { leftover(r.node("shutdown-2"), corev1.TaintEffectNoExecute) }),
			wantPass: map[string]string{"shutdown-db-moved": movedMsg,
				"shutdown-taint-after-off": "shutdown-2 went NotReady at 12:00:03, the node lifecycle controller marked it at 12:00:03, db-0 was Terminating from 12:00:19, and the out-of-service taint came at 12:00:21"},
			wantFail: map[string]string{"shutdown-podgc-deleted": "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
		{name: "only taints left from the run before", reason: "the controller did not mark the node for this power-off: the taints it carries are older than its NotReady, which waiting does not change",
			record: edit(solved, func(r *record) {
				n := r.node("shutdown-2")
				leftover(n, corev1.TaintEffectNoSchedule)
				leftover(n, corev1.TaintEffectNoExecute)
				r.drop(func(e audit.Event) bool { return !(e.ByController(audit.NodeController) && e.Resource == "nodes") })
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        leftoverMsg,
				"shutdown-taint-after-off": leftoverMsg}},
		{name: "only taints left from the run before, no audit log", reason: "the same, told from the taints' timeAdded",
			record: edit(solved, withoutLog, func(r *record) {
				n := r.node("shutdown-2")
				leftover(n, corev1.TaintEffectNoSchedule)
				leftover(n, corev1.TaintEffectNoExecute)
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        leftoverMsg,
				"shutdown-taint-after-off": leftoverMsg,
				"shutdown-podgc-deleted":   "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
		{name: "not-ready taints written by hand", reason: "taints dated after the power-off that no write of the controller's own added are not its mark",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool { return !(e.ByController(audit.NodeController) && e.Resource == "nodes") })
				r.add(learner.node(3.05, "patch", "nodes", "shutdown-2"))
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        "shutdown-2 carries the taint node.kubernetes.io/not-ready:NoSchedule dated 12:00:03, but no write of the node lifecycle controller's own to shutdown-2 since then is in the audit log: only the controller's taint shows that it saw the node off",
				"shutdown-taint-after-off": "shutdown-2 carries the taint node.kubernetes.io/not-ready:NoSchedule dated 12:00:03, but no write of the node lifecycle controller's own to shutdown-2 since then is in the audit log: only the controller's taint shows that it saw the node off"}},
		{name: "status written by hand", reason: "a Ready=False the learner patched is not a node that lost power",
			record: edit(solved, func(r *record) { r.add(learner.node(2.9, "patch", "nodes/status", "shutdown-2")) }),
			wantFail: map[string]string{
				"shutdown-db-moved":        "shutdown-2's status was written at 12:00:02.9 by kwok-admin (kubectl), not by the node: power a node off with lab/scripts/power.sh",
				"shutdown-taint-after-off": "shutdown-2's status was written at 12:00:02.9 by kwok-admin (kubectl), not by the node: power a node off with lab/scripts/power.sh"}},
		{name: "still Terminating", reason: "no taint yet: db-0 waits on shutdown-2",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool { return e.Time.Before(at(21)) })
				n := r.node("shutdown-2")
				n.Spec.Taints, n.ManagedFields = n.Spec.Taints[1:], nil
				r.Pod = terminating(runningPod("uid-1", "shutdown-2", 1), 19)
			}),
			wantFail: map[string]string{
				"shutdown-db-moved":        "db-0 (uid uid-1) is still Terminating on shutdown-2: mark the node out of service",
				"shutdown-taint-after-off": "shutdown-2 has no node.kubernetes.io/out-of-service taint",
				"shutdown-podgc-deleted":   "db-0 (uid uid-1) is still Terminating on shutdown-2: the pod GC removes it within 20s once the node is NotReady and tainted out-of-service"}},
		{name: "taint from before the lab", reason: "a taint no request of this run wrote proves nothing about this run's order",
			record: edit(solved, func(r *record) { r.drop(func(e audit.Event) bool { return e.Resource != "nodes" || e.Time != at(21) }) }),
			wantFail: map[string]string{
				"shutdown-taint-after-off": "shutdown-2 carries the out-of-service taint, but no write of it during this lab run is in the audit log: it was there before db-0 was created (start over with lab/reset.sh)"}},
		{name: "node deleted", reason: "the pod GC also removes the pods of a deleted Node, as orphans",
			record: edit(solved, func(r *record) { r.add(learner.node(25, "delete", "nodes", "shutdown-2")) }),
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "the Node shutdown-2 was deleted at 12:00:25, so the pod GC removed db-0 as an orphan, not for the out-of-service taint"}},
		{name: "placed by hand", reason: "a db-0 bound by a person was not placed by the scheduler",
			record: edit(solved, func(r *record) {
				r.drop(func(e audit.Event) bool { return !e.Time.Equal(at(39.04)) })
				b := learner.pod(39.04, "create", "pods/binding")
				b.UID = "uid-2"
				r.add(b)
			}),
			wantFail: map[string]string{
				"shutdown-db-moved": "db-0 (uid uid-2) was not placed by the scheduler during this lab run: no binding of it is in the audit log"}},
		{name: "nothing off", reason: "the untouched lab: db-0 runs, no node is off",
			record: func() record {
				return record{Start: t0, Log: []audit.Event{stsCtl.pod(1, "create", "pods"), bind(1.1, "uid-1")},
					Pod: runningPod("uid-1", "shutdown-2", 1), Nodes: []corev1.Node{readyNode("shutdown-1"), readyNode("shutdown-2")}}
			},
			wantFail: map[string]string{
				"shutdown-db-moved":        "no node of the shutdown pool is NotReady: power off shutdown-2, where db-0 runs (lab/scripts/power.sh off shutdown-2)",
				"shutdown-taint-after-off": "no node of the shutdown pool is NotReady: power off shutdown-2, where db-0 runs (lab/scripts/power.sh off shutdown-2)",
				"shutdown-podgc-deleted":   "no node of the shutdown pool is NotReady: power off shutdown-2, where db-0 runs (lab/scripts/power.sh off shutdown-2)"}},
		{name: "no audit log", reason: "the first two judge from the API alone and say so; only the log shows who removed db-0",
			record: edit(solved, withoutLog),
			wantPass: map[string]string{
				"shutdown-db-moved":        movedMsg,
				"shutdown-taint-after-off": "shutdown-2 went NotReady at 12:00:03, the node lifecycle controller marked it at 12:00:03, db-0 was Terminating from 12:00:19, and the out-of-service taint came at 12:00:21"},
			wantFail: map[string]string{
				"shutdown-podgc-deleted": "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
		{name: "no audit log, taint before Terminating", reason: "without the log, the taint eviction controller's event dates the deletion",
			record: edit(solved, withoutLog, func(r *record) { r.Events[1] = eviction(22, 22, 26) }),
			wantFail: map[string]string{
				"shutdown-taint-after-off": "db-0 was marked for deletion at 12:00:22, after the out-of-service taint at 12:00:21: the taint is for a pod already stuck Terminating",
				"shutdown-podgc-deleted":   "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
		{name: "no audit log, hand-made Scheduled event", reason: "without the log a restart looks like a move, but nothing marked a db-0 for deletion on the powered-off node",
			record: edit(handMadeEvent, withoutLog),
			wantFail: map[string]string{
				"shutdown-db-moved":        "nothing shows a db-0 marked for deletion after shutdown-2 went NotReady: without the audit log only the taint eviction controller's event can",
				"shutdown-taint-after-off": "nothing shows db-0 Terminating on shutdown-2 before the taint: without the audit log only the taint eviction controller's event can",
				"shutdown-podgc-deleted":   "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
		{name: "no audit log, taint on a Ready node", reason: "the node side needs no log",
			record: edit(taintOnReadyNode, withoutLog),
			wantFail: map[string]string{"shutdown-db-moved": readyMsg, "shutdown-taint-after-off": readyMsg,
				"shutdown-podgc-deleted": "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"}},
	}
	ids := []string{"shutdown-db-moved", "shutdown-taint-after-off", "shutdown-podgc-deleted"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, id := range ids {
				r := judges[id](tt.record())
				want, fail := tt.wantFail[id]
				switch {
				case fail && (r.Pass || r.Message != want):
					t.Errorf("%s = pass %v, %q;\nwant fail, %q (%s)\nevidence:\n  %s", id, r.Pass, r.Message, want, tt.reason, strings.Join(r.Evidence, "\n  "))
				case !fail && !r.Pass:
					t.Errorf("%s = fail, %q; want pass (%s)\nevidence:\n  %s", id, r.Message, tt.reason, strings.Join(r.Evidence, "\n  "))
				case !fail && tt.wantPass[id] != "" && r.Message != tt.wantPass[id]:
					t.Errorf("%s passes with %q, want %q (%s)", id, r.Message, tt.wantPass[id], tt.reason)
				}
			}
		})
	}
}

// TestJudgeUnplannedSaysItsSource: every verdict's first line of evidence
// says whether the audit log was read, and why not.
func TestJudgeUnplannedSaysItsSource(t *testing.T) {
	r := solved()
	withoutLog(&r)
	for id, judge := range judges {
		res := judge(r)
		if len(res.Evidence) == 0 || res.Evidence[0] != "no audit log (cluster opslab is not on this machine): judged from the API server alone" {
			t.Errorf("%s without a log: first evidence %q, want the reason there is no log", id, res.Evidence)
		}
		res = judge(solved())
		if len(res.Evidence) == 0 || !strings.HasPrefix(res.Evidence[0], "audit log: 18 requests since the lab began at 12:00:00") {
			t.Errorf("%s with the log: first evidence %q, want the log's extent", id, res.Evidence)
		}
	}
}
