//go:build e2e

package check

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/klient/decoder"

	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
)

// The cheat tests build on the lab cluster, in namespace taints-lab on nodes
// taints-1..3, what a learner who wants the points without the behaviour
// could build: pods that never existed and events written for them, pods
// put on nodes by hand, deletions by hand or in the controller's name with
// --as, a shorter toleration, a hand-made binding, tolerations written into
// a template and managedFields wiped, a reason that says nothing. Each check must
// fail, with the log and without it, and say what is missing. Each scenario
// makes the namespace afresh (the checks read what happened since it was
// made) and leaves the chapter as it found it: no namespace, no taints of
// the lab on its nodes.

// cheatAgent is what the requests of the tests look like: kubectl.
var cheatAgent = "kubectl/" + version.Kubernetes + " (linux/amd64) kubernetes/cheat"

// An expectation is what one check must say after a cheat: a part of its
// message with the audit log, and without it ("" when the API alone cannot
// tell, which the check's evidence then says), and optionally a part of
// its evidence in each case.
type expectation struct {
	check                      string
	withLog, noLog             string
	logEvidence, noLogEvidence string
	// pass: the check must pass, for what a program can judge, and its
	// message must still say what it could not (a reason's prose).
	pass bool
}

type cheat struct {
	name   string
	reason string
	phases []phase
}

// A phase builds part of a cheat, then runs checks on it.
type phase struct {
	build func(ctx context.Context, t *testing.T, h *hand)
	want  []expectation
}

// A hand is the learner's kubectl.
type hand struct {
	k      kubernetes.Interface
	asCtrl kubernetes.Interface // the same, with --as the taint eviction controller
	cfg    *rest.Config         // k's configuration
}

func TestCheatsFailChapter2(t *testing.T) {
	ctx := context.Background()
	withLog, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if withLog.AuditPath == "" {
		t.Fatalf("the lab cluster keeps no audit log here (%s): the cheat tests need it", withLog.NoAudit)
	}
	noLog, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	noLog.AuditPath, noLog.NoAudit = "", "switched off by the cheat test"
	h := newHand(t, withLog.Config)
	untouched(ctx, t, h.k)

	for _, c := range cheats {
		t.Run(c.name, func(t *testing.T) {
			startLab(ctx, t, h.k)
			for _, ph := range c.phases {
				ph.build(ctx, t, h)
				// The API server writes a request's audit line as the
				// answer leaves: give the last ones a moment.
				time.Sleep(300 * time.Millisecond)
				for _, w := range ph.want {
					runCheat(ctx, t, withLog, w.check, w.pass, w.withLog, w.logEvidence, c.reason)
					if w.noLog != "" {
						runCheat(ctx, t, noLog, w.check, w.pass, w.noLog, w.noLogEvidence, c.reason+" (without the audit log)")
					}
				}
			}
		})
	}
}

func runCheat(ctx context.Context, t *testing.T, c *labcheck.Cluster, id string, pass bool, want, evidence, reason string) {
	t.Helper()
	chk, ok := lookup(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	res, err := chk.Run(ctx, c)
	if err != nil {
		t.Fatalf("%s could not look: %v", id, err)
	}
	ev := strings.Join(res.Evidence, "\n  ")
	t.Logf("%s: %v %s", id, res.Pass, res.Message)
	outcome := "a failure"
	if pass {
		outcome = "a pass"
	}
	if res.Pass != pass || !strings.Contains(res.Message, want) || !strings.Contains(ev, evidence) {
		t.Errorf("%s = pass %v %q, want %s with %q and evidence %q (%s)\nevidence:\n  %s", id, res.Pass, res.Message, outcome, want, evidence, reason, ev)
	}
}

// lookup returns the chapter's check with the given ID.
func lookup(id string) (labcheck.Check, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c, true
		}
	}
	return labcheck.Check{}, false
}

var cheats = []cheat{
	{
		name:   "forged_the_whole_lab_in_seconds",
		reason: "taints first, then workloads put on the nodes by hand, cache's template with the 300 s tolerations written out, and events for queue and dispatcher, which never existed, dated in the future",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoSchedule)
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoExecute)
				h.taint(ctx, t, "taints-3", LinkKey, "rack-switch", corev1.TaintEffectNoExecute)
				cache := labCache()
				cache.Spec.Template.Spec.NodeSelector = nil
				cache.Spec.Template.Spec.NodeName = "taints-1"
				cache.Spec.Template.Spec.Tolerations = defaults()
				h.createCache(ctx, t, cache)
				h.create(ctx, t, pinned(labPod("agent"), "taints-2", everyNoExecute))
				h.create(ctx, t, pinned(labPod("session"), "taints-3", tolerate(LinkKey, ptr.To[int64](600))))
				h.running(ctx, t, "agent", "session")
				h.cacheRunning(ctx, t)
				future := time.Now().Add(time.Hour)
				h.event(ctx, t, "queue", markMessage+Namespace+"/queue", future, "kubectl-create")
				// The events API, with the controller's manager name borrowed.
				h.eventV1(ctx, t, "dispatcher", markMessage+Namespace+"/dispatcher", future, controllerAgent)
				h.timetable(ctx, t, h.cacheName(ctx, t)+" after 300s\nsession after 300s\nagent never\n")
			},
			want: []expectation{
				{check: "taints-cache-defaults", withLog: "cache's template writes the toleration", noLog: "cache's template writes the toleration"},
				{check: "taints-noschedule-evicted-nothing", withLog: "agent was placed by hand", noLog: "agent was placed by hand"},
				{check: "taints-maintenance-removed-queue", withLog: "queue was never created", noLog: "is not the controller's: it was written by kubectl-create"},
				{check: "taints-dispatcher-evicted", withLog: "dispatcher was never created", noLog: "later than the server's clock"},
				{check: "taints-session-stays", withLog: "session was placed by hand", noLog: "session was placed by hand"},
				{check: "taints-my-timetable", withLog: "was placed by hand", noLog: "was placed by hand"},
			},
		}},
	},
	{
		name:   "deleted_the_pods_by_hand_and_as_the_controller",
		reason: "the lab's workloads, placed by the scheduler; queue deleted with kubectl before the maintenance; the switch taken down and up again (the controller cancels), dispatcher deleted with --as the controller and an event written with --as; a timetable copied from the chapter",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.createCache(ctx, t, labCache())
				for _, p := range labPods() {
					h.create(ctx, t, p)
				}
				h.running(ctx, t, "agent", "queue", "session", "dispatcher")
				h.cacheRunning(ctx, t)
				h.delete(ctx, t, h.k, "queue")
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoSchedule)
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoExecute)
				h.taint(ctx, t, "taints-3", LinkKey, "rack-switch", corev1.TaintEffectNoExecute)
				time.Sleep(time.Second)
				h.untaint(ctx, t, "taints-3", LinkKey)
				h.eventually(ctx, t, "the controller's cancellation for dispatcher", func(evs []corev1.Event) bool {
					for _, e := range evs {
						if e.Message == cancelMessage+Namespace+"/dispatcher" {
							return true
						}
					}
					return false
				})
				h.delete(ctx, t, h.asCtrl, "dispatcher")
				h.eventAs(ctx, t, "dispatcher", markMessage+Namespace+"/dispatcher")
				h.taint(ctx, t, "taints-3", LinkKey, "rack-switch", corev1.TaintEffectNoExecute)
				// The chapter's own expected output, copied from the README:
				// another run's cache pod, and a db this namespace does not have.
				h.timetable(ctx, t, "cache-85d9c566bf-vf5dj after 300s\nsession after 600s\ndb-0 after 900s\nagent never\n")
			},
			want: []expectation{
				{check: "taints-maintenance-removed-queue", withLog: "queue was deleted by kwok-admin (kubectl), not by the taint eviction controller", noLog: "no TaintManagerEviction event of the taint eviction controller names it"},
				{check: "taints-dispatcher-evicted", withLog: "as system:serviceaccount:kube-system:node-controller (kubectl) with --as", noLog: "is not the controller's: it was written by kubectl-create",
					logEvidence: "the taint eviction controller cancelled the deletion of dispatcher", noLogEvidence: "the taint eviction controller cancelled the deletion of dispatcher"},
				{check: "taints-my-timetable", withLog: `line 1 of your timetable is "cache-85d9c566bf-vf5dj after 300s"`, noLog: `line 1 of your timetable is "cache-85d9c566bf-vf5dj after 300s"`},
			},
		}},
	},
	{
		name:   "the_controller_removed_other_pods",
		reason: "the real controller at work, on pods that are not the lab's: dispatcher with tolerationSeconds 2, queue put on taints-2 by hand",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				short := labPod("dispatcher")
				short.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "taints-3"}
				short.Spec.Tolerations = []corev1.Toleration{tolerate(LinkKey, ptr.To[int64](2))}
				h.create(ctx, t, short)
				h.create(ctx, t, pinned(labPod("queue"), "taints-2", kernelOnly))
				agent := labPod("agent")
				agent.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "taints-2"}
				agent.Spec.Tolerations = []corev1.Toleration{everyNoExecute}
				h.create(ctx, t, agent)
				h.running(ctx, t, "dispatcher", "queue", "agent")
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoExecute)
				h.taint(ctx, t, "taints-3", LinkKey, "rack-switch", corev1.TaintEffectNoExecute)
				h.gone(ctx, t, 15*time.Second, "queue", "dispatcher")
			},
			want: []expectation{
				{check: "taints-dispatcher-evicted", withLog: "earlier than its 30 s", noLog: "earlier than its 30 s"},
				{check: "taints-maintenance-removed-queue", withLog: "queue was placed by hand", noLog: "no Scheduled event of the scheduler names queue"},
			},
		}},
	},
	{
		name:   "bound_queue_by_hand_under_the_taint",
		reason: "the NoSchedule taint first, then queue bound to taints-2 through the binding subresource by hand, with a Scheduled event written for it",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoSchedule)
				p := labPod("queue")
				p.Spec.SchedulerName = "nobody"
				p.Spec.Tolerations = []corev1.Toleration{kernelOnly}
				p = h.create(ctx, t, p)
				if err := h.k.CoreV1().Pods(Namespace).Bind(ctx, &corev1.Binding{
					ObjectMeta: metav1.ObjectMeta{Name: p.Name},
					Target:     corev1.ObjectReference{Kind: "Node", Name: "taints-2"},
				}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				h.running(ctx, t, "queue")
				ev := &corev1.Event{
					ObjectMeta:          metav1.ObjectMeta{Name: "queue.scheduled", Namespace: Namespace},
					InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: p.Name, UID: p.UID},
					Reason:              scheduledReason,
					Message:             "Successfully assigned " + Namespace + "/queue to taints-2",
					Source:              corev1.EventSource{Component: schedulerName},
					ReportingController: schedulerName,
					FirstTimestamp:      metav1.Now(),
					LastTimestamp:       metav1.Now(),
					Type:                corev1.EventTypeNormal,
				}
				if _, err := h.k.CoreV1().Events(Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
					t.Fatal(err)
				}
			},
			want: []expectation{
				{check: "taints-noschedule-evicted-nothing", withLog: "queue was bound to its node by kwok-admin (kubectl), not by the scheduler", noLog: "no Scheduled event of the scheduler names queue", noLogEvidence: `event queue.scheduled ("Successfully assigned taints-lab/queue to taints-2") not counted`},
			},
		}},
	},
	{
		name:   "wrote_cache_and_db_by_hand",
		reason: "cache's pod, made by its ReplicaSet, then its managedFields wiped; db's pod given 900 s by hand while its template keeps the default; then a template of 900 s with a reason that is words a keyword list wanted",
		phases: []phase{
			{
				build: func(ctx context.Context, t *testing.T, h *hand) {
					h.createCache(ctx, t, labCache())
					h.cacheRunning(ctx, t)
					h.patch(ctx, t, h.cacheName(ctx, t), types.MergePatchType, `{"metadata":{"managedFields":[{}]}}`)
					h.createDB(ctx, t)
					h.rolledOut(ctx, t)
					h.patch(ctx, t, "db-0", types.JSONPatchType, `[{"op":"replace","path":"/spec/tolerations/0/tolerationSeconds","value":900},{"op":"replace","path":"/spec/tolerations/1/tolerationSeconds","value":900}]`)
					h.annotateDB(ctx, t, "db restarts for nothing when its node is cut off, so it waits 900 s")
				},
				want: []expectation{
					{check: "taints-cache-defaults", withLog: "was changed after it was created", noLog: "managedFields was cleared"},
					{check: "taints-db-value-and-reason", withLog: "db's pod template does not wait longer than the default 300 s", noLog: "db's pod template does not wait longer than the default 300 s"},
				},
			},
			{
				build: func(ctx context.Context, t *testing.T, h *hand) {
					patch := `{"metadata":{"annotations":{"` + ReasonKey + `":"900 900 900 900 900 data"}},"spec":{"template":{"spec":{"tolerations":[` +
						`{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":900},` +
						`{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":900}]}}}}`
					if _, err := h.k.AppsV1().StatefulSets(Namespace).Patch(ctx, "db", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
						t.Fatal(err)
					}
					h.rolledOut(ctx, t)
				},
				// The words a keyword list once wanted, and the value: all a
				// program can judge is there, so the check passes, and its
				// report leaves the reason to a person.
				want: []expectation{
					{check: "taints-db-value-and-reason", pass: true, withLog: "a person must read the reason", noLog: "a person must read the reason",
						logEvidence: `db's reason, for a person to read: "900 900 900 900 900 data"`, noLogEvidence: `db's reason, for a person to read: "900 900 900 900 900 data"`},
				},
			},
		},
	},
	{
		name:   "bound_under_the_taint_claiming_the_scheduler",
		reason: "the NoSchedule taint first, then queue bound to taints-2 by the admin through pods/binding in kube-scheduler's user agent, with a Scheduled event sent the same way",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoSchedule)
				time.Sleep(2100 * time.Millisecond)
				k := h.agent(t, schedulerUserAgent)
				bindUnder(ctx, t, h, k, "queue", "kube-scheduler")
			},
			want: []expectation{
				{check: "taints-noschedule-evicted-nothing", withLog: "was bound to its node by kwok-admin (claims to be kube-scheduler), not by the scheduler", noLog: "after the taints of taints-2 last changed"},
			},
		}},
	},
	{
		name:   "bound_under_the_taint_with_the_schedulers_credentials",
		reason: "the NoSchedule taint first, then queue bound to taints-2 with the scheduler's own certificate (on the learner's disk beside the cluster), and its Scheduled event written with it: the scheduler's user, after the taint",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.taint(ctx, t, "taints-2", MaintKey, "firmware", corev1.TaintEffectNoSchedule)
				// Without the log the server's records are in whole seconds.
				time.Sleep(2100 * time.Millisecond)
				k := component(t, "kube-scheduler", schedulerUserAgent)
				bindUnder(ctx, t, h, k, "queue", "kube-scheduler")
			},
			want: []expectation{
				{check: "taints-noschedule-evicted-nothing", withLog: "after the taints of taints-2 first changed in this run of the lab", noLog: "after the taints of taints-2 last changed"},
			},
		}},
	},
	{
		name: "template_changed_under_partition",
		reason: "db's template given 900 s under partition: 1, so the StatefulSet never makes db-0 from it; db-0 then rewritten to look like the new revision: " +
			"its tolerationSeconds with kwok's certificate (in the controller manager's field manager), its controller-revision-hash through pods/status",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.partitionDB(ctx, t)
				h.rewriteDB(ctx, t)
			},
			want: []expectation{
				{check: "taints-db-value-and-reason", withLog: "before db's current template (revision", noLog: "before db's current template (revision"},
			},
		}},
	},
	{
		name: "template_changed_under_partition_pod_made_again",
		reason: "db's template given 900 s under partition: 1; db-0 deleted, so the controller makes it again after the change, but from the old revision; " +
			"then rewritten to look like the new one as above",
		phases: []phase{{
			build: func(ctx context.Context, t *testing.T, h *hand) {
				h.partitionDB(ctx, t)
				h.remake(ctx, t, "db-0")
				// Without the log the server's records are in whole seconds.
				time.Sleep(2100 * time.Millisecond)
				h.rewriteDB(ctx, t)
			},
			want: []expectation{
				{check: "taints-db-value-and-reason", withLog: "db-0 was changed after the StatefulSet controller made it", noLog: "db-0's tolerations were last written at"},
			},
		}},
	},
}

// remake deletes a pod of the StatefulSet and waits until the controller
// has made it again and it runs.
func (h *hand) remake(ctx context.Context, t *testing.T, pod string) {
	t.Helper()
	old, err := h.k.CoreV1().Pods(Namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.k.CoreV1().Pods(Namespace).Delete(ctx, pod, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", pod, err)
	}
	labenv.Poll(ctx, t, 30*time.Second, pod+" made again", func(ctx context.Context) (bool, error) {
		p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, pod, metav1.GetOptions{})
		return err == nil && p.UID != old.UID && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning, nil
	})
}

// partitionDB creates db as the lab does, waits for db-0, then gives db's
// template 900 s and a reason under partition: 1, in a later second, as a
// learner's pace would.
func (h *hand) partitionDB(ctx context.Context, t *testing.T) {
	t.Helper()
	h.createDB(ctx, t)
	h.rolledOut(ctx, t)
	time.Sleep(1100 * time.Millisecond)
	patch := `{"metadata":{"annotations":{"` + ReasonKey + `":"` + referenceReason + `"}},"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1}},"template":{"spec":{"tolerations":[` +
		`{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":900},` +
		`{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":900}]}}}}`
	if _, err := h.k.AppsV1().StatefulSets(Namespace).Patch(ctx, "db", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatal(err)
	}
}

// referenceReason is a reason as the lab's own answer writes it.
const referenceReason = "a switch reboot took db's node away for eight minutes, and deleting db-0 then only restarted it; so it waits 900 s"

// The user agents of the lab's components, as a cheat sends them.
var (
	schedulerUserAgent = "kube-scheduler/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/scheduler"
	kwokUserAgent      = "kwok-controller/" + version.Kwok + " (linux/amd64) kubernetes/$Format"
)

// bindUnder makes pod (schedulerName nobody, so the scheduler leaves it)
// as the admin, binds it to taints-2 with k, and writes the scheduler's
// Scheduled event for it with k under manager.
func bindUnder(ctx context.Context, t *testing.T, h *hand, k kubernetes.Interface, name, manager string) {
	t.Helper()
	p := labPod(name)
	p.Spec.SchedulerName = "nobody"
	p.Spec.Tolerations = []corev1.Toleration{kernelOnly}
	p = h.create(ctx, t, p)
	if err := k.CoreV1().Pods(Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "taints-2"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.running(ctx, t, name)
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: name + ".scheduled", Namespace: Namespace},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Namespace: Namespace, Name: p.Name, UID: p.UID},
		Reason:              scheduledReason,
		Message:             "Successfully assigned " + Namespace + "/" + name + " to taints-2",
		Source:              corev1.EventSource{Component: schedulerName},
		ReportingController: schedulerName,
		FirstTimestamp:      metav1.Now(),
		LastTimestamp:       metav1.Now(),
		Type:                corev1.EventTypeNormal,
	}
	if _, err := k.CoreV1().Events(Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
}

// rewriteDB makes db-0 look as if the StatefulSet had made it from its
// update revision: tolerationSeconds 900 with kwok's certificate, in the
// controller manager's field manager, and the update revision's
// controller-revision-hash through pods/status, which keeps the labels it
// is sent. The controller then counts db-0 as updated and reports the
// rollout done.
func (h *hand) rewriteDB(ctx context.Context, t *testing.T) {
	t.Helper()
	var rev string
	labenv.Poll(ctx, t, 30*time.Second, "db's new revision", func(ctx context.Context) (bool, error) {
		s, err := h.k.AppsV1().StatefulSets(Namespace).Get(ctx, "db", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		rev = s.Status.UpdateRevision
		return s.Status.ObservedGeneration >= s.Generation && rev != "" && rev != s.Status.CurrentRevision, nil
	})
	kwok := component(t, "kwok-controller", kwokUserAgent)
	p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, "db-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for i, tl := range p.Spec.Tolerations {
		if tl.Key == "node.kubernetes.io/not-ready" || tl.Key == "node.kubernetes.io/unreachable" {
			ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/spec/tolerations/%d/tolerationSeconds","value":900}`, i))
		}
	}
	if _, err := kwok.CoreV1().Pods(Namespace).Patch(ctx, "db-0", types.JSONPatchType, []byte("["+strings.Join(ops, ",")+"]"), metav1.PatchOptions{FieldManager: controllerAgent}); err != nil {
		t.Fatalf("patch db-0's tolerations as kwok: %v", err)
	}
	label := `{"metadata":{"labels":{"controller-revision-hash":"` + rev + `"}}}`
	if _, err := h.agent(t, kwokUserAgent).CoreV1().Pods(Namespace).Patch(ctx, "db-0", types.MergePatchType, []byte(label), metav1.PatchOptions{FieldManager: controllerAgent}, "status"); err != nil {
		t.Fatalf("relabel db-0 through pods/status: %v", err)
	}
	h.rolledOut(ctx, t)
}

// component is a client with the certificate of one of the lab's
// components (kube-scheduler, kwok-controller), read where the strongest
// learner finds it: on their own machine, beside the cluster kwokctl runs
// (lab/scripts/pki.sh writes it there). agent is the user agent it sends.
func component(t *testing.T, name, agent string) kubernetes.Interface {
	t.Helper()
	_, dir, ok, err := audit.KwokCluster(strings.TrimSuffix(labenv.Context(), "-admin"))
	if !ok || err != nil {
		t.Fatalf("context %s is not a kwokctl cluster's on this machine (%v): the cheat needs %s's certificate", labenv.Context(), err, name)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "pki", name+".kubeconfig"))
	if err != nil {
		t.Fatalf("%s's kubeconfig: %v", name, err)
	}
	cfg.UserAgent = agent
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// agent is the hand's own client (the admin) sending another user agent.
func (h *hand) agent(t *testing.T, agent string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(h.cfg)
	c.UserAgent = agent
	k, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// untouched stops the tests when chapter 2's part of the cluster is in use:
// they would destroy a learner's lab.
func untouched(ctx context.Context, t *testing.T, k kubernetes.Interface) {
	t.Helper()
	if _, err := k.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{}); err == nil {
		t.Fatalf("namespace %s exists: the cheat tests need chapter 2 untouched (delete it and the lab's taints first)", Namespace)
	}
	for _, n := range []string{"taints-1", "taints-2", "taints-3"} {
		node, err := k.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range node.Spec.Taints {
			if tn.Key == MaintKey || tn.Key == LinkKey {
				t.Fatalf("node %s has the lab's taint %s: the cheat tests need chapter 2 untouched", n, tn.Key)
			}
		}
	}
}

// startLab makes the lab's namespace, and when the test ends takes the
// lab's taints off its nodes and deletes the namespace, waiting until it is
// gone so that the next scenario starts a new run of the lab.
func startLab(ctx context.Context, t *testing.T, k kubernetes.Interface) {
	t.Helper()
	if _, err := k.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		h := &hand{k: k}
		for _, n := range []string{"taints-1", "taints-2", "taints-3"} {
			h.untaint(ctx, t, n, MaintKey, LinkKey)
		}
		if err := k.CoreV1().Namespaces().Delete(ctx, Namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete namespace %s: %v", Namespace, err)
		}
		labenv.Poll(ctx, t, 90*time.Second, "namespace "+Namespace+" gone", func(ctx context.Context) (bool, error) {
			_, err := k.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
	labenv.Poll(ctx, t, 30*time.Second, "service account default in "+Namespace, func(ctx context.Context) (bool, error) {
		_, err := k.CoreV1().ServiceAccounts(Namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

func newHand(t *testing.T, cfg *rest.Config) *hand {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.UserAgent = cheatAgent
	c.ContentType, c.AcceptContentTypes = "", ""
	k, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	as := rest.CopyConfig(c)
	as.Impersonate = rest.ImpersonationConfig{UserName: audit.TaintEviction}
	ka, err := kubernetes.NewForConfig(as)
	if err != nil {
		t.Fatal(err)
	}
	return &hand{k: k, asCtrl: ka, cfg: c}
}

func labPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
	}
}

// labPods reads the single pods of the lab's own pods.yaml.
func labPods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range labObjects() {
		if p, ok := o.(*corev1.Pod); ok {
			out = append(out, p)
		}
	}
	return out
}

// labCache reads Deployment cache of the lab's own pods.yaml.
func labCache() *appsv1.Deployment {
	for _, o := range labObjects() {
		if d, ok := o.(*appsv1.Deployment); ok {
			return d
		}
	}
	panic("lab/pods.yaml holds no Deployment")
}

func labObjects() []any {
	objs, err := decoder.DecodeAllFiles(context.Background(), os.DirFS("../lab"), "pods.yaml")
	if err != nil {
		panic(err)
	}
	var out []any
	for _, o := range objs {
		switch o.(type) {
		case *corev1.Pod, *appsv1.Deployment:
			out = append(out, o)
		default:
			panic(fmt.Sprintf("lab/pods.yaml holds a %T, want pods and a Deployment", o))
		}
	}
	return out
}

// createCache creates Deployment cache as kubectl create would.
func (h *hand) createCache(ctx context.Context, t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	if _, err := h.k.AppsV1().Deployments(Namespace).Create(ctx, d, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
}

// cacheRunning waits until cache's pod runs.
func (h *hand) cacheRunning(ctx context.Context, t *testing.T) {
	t.Helper()
	labenv.Poll(ctx, t, 30*time.Second, "cache's pod running", func(ctx context.Context) (bool, error) {
		list, err := h.k.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=cache"})
		return err == nil && len(list.Items) == 1 && list.Items[0].Status.Phase == corev1.PodRunning, nil
	})
}

// cacheName returns the name of cache's pod.
func (h *hand) cacheName(ctx context.Context, t *testing.T) string {
	t.Helper()
	list, err := h.k.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=cache"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("cache's pod: %d pods, %v", len(list.Items), err)
	}
	return list.Items[0].Name
}

func pinned(p *corev1.Pod, node string, tols ...corev1.Toleration) *corev1.Pod {
	p.Spec.NodeName = node
	p.Spec.Tolerations = tols
	return p
}

func tolerate(key string, seconds *int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
}

// defaults are admission's two tolerations, written out by hand.
func defaults() []corev1.Toleration {
	return []corev1.Toleration{
		tolerate("node.kubernetes.io/not-ready", ptr.To[int64](300)),
		tolerate("node.kubernetes.io/unreachable", ptr.To[int64](300)),
	}
}

func (h *hand) create(ctx context.Context, t *testing.T, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	p, err := h.k.CoreV1().Pods(Namespace).Create(ctx, p, metav1.CreateOptions{FieldManager: "kubectl-create"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (h *hand) patch(ctx context.Context, t *testing.T, pod string, pt types.PatchType, patch string) {
	t.Helper()
	if _, err := h.k.CoreV1().Pods(Namespace).Patch(ctx, pod, pt, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatalf("patch %s: %v", pod, err)
	}
}

func (h *hand) delete(ctx context.Context, t *testing.T, k kubernetes.Interface, pod string) {
	t.Helper()
	if err := k.CoreV1().Pods(Namespace).Delete(ctx, pod, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", pod, err)
	}
	h.gone(ctx, t, 15*time.Second, pod)
}

func (h *hand) running(ctx context.Context, t *testing.T, pods ...string) {
	t.Helper()
	for _, name := range pods {
		labenv.Poll(ctx, t, 30*time.Second, name+" running", func(ctx context.Context) (bool, error) {
			p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, nil
		})
	}
}

func (h *hand) gone(ctx context.Context, t *testing.T, timeout time.Duration, pods ...string) {
	t.Helper()
	for _, name := range pods {
		labenv.Poll(ctx, t, timeout, name+" gone", func(ctx context.Context) (bool, error) {
			_, err := h.k.CoreV1().Pods(Namespace).Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}
}

// taint adds a taint as kubectl taint does: a patch of the node's list.
func (h *hand) taint(ctx context.Context, t *testing.T, node, key, value string, effect corev1.TaintEffect) {
	t.Helper()
	h.updateTaints(ctx, t, node, func(ts []corev1.Taint) []corev1.Taint {
		return append(ts, corev1.Taint{Key: key, Value: value, Effect: effect})
	})
}

// untaint takes every taint with one of keys off a node.
func (h *hand) untaint(ctx context.Context, t *testing.T, node string, keys ...string) {
	t.Helper()
	h.updateTaints(ctx, t, node, func(ts []corev1.Taint) []corev1.Taint {
		var keep []corev1.Taint
		for _, x := range ts {
			if !slices.Contains(keys, x.Key) {
				keep = append(keep, x)
			}
		}
		return keep
	})
}

func (h *hand) updateTaints(ctx context.Context, t *testing.T, node string, change func([]corev1.Taint) []corev1.Taint) {
	t.Helper()
	// The node lifecycle controller writes nodes too: retry on conflict.
	labenv.Poll(ctx, t, 20*time.Second, "taints of "+node+" written", func(ctx context.Context) (bool, error) {
		n, err := h.k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		before := len(n.Spec.Taints)
		n.Spec.Taints = change(n.Spec.Taints)
		if len(n.Spec.Taints) == before && before == 0 {
			return true, nil
		}
		_, err = h.k.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{FieldManager: "kubectl-taint"})
		return err == nil, nil
	})
}

// event writes a core Event as kubectl create would, naming the taint
// eviction controller, dated at.
func (h *hand) event(ctx context.Context, t *testing.T, pod, msg string, at time.Time, manager string) {
	t.Helper()
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: pod + ".cheat", Namespace: Namespace},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: Namespace, Name: pod},
		Reason:              evictReason,
		Message:             msg,
		Source:              corev1.EventSource{Component: taintEvictionName},
		ReportingController: taintEvictionName,
		FirstTimestamp:      metav1.Time{Time: at},
		LastTimestamp:       metav1.Time{Time: at},
		Count:               1,
		Type:                corev1.EventTypeNormal,
	}
	if _, err := h.k.CoreV1().Events(Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
}

// eventAs writes the same event with --as the taint eviction controller.
func (h *hand) eventAs(ctx context.Context, t *testing.T, pod, msg string) {
	t.Helper()
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: pod + ".as", Namespace: Namespace},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: Namespace, Name: pod},
		Reason:              evictReason,
		Message:             msg,
		Source:              corev1.EventSource{Component: taintEvictionName},
		ReportingController: taintEvictionName,
		FirstTimestamp:      metav1.Now(),
		LastTimestamp:       metav1.Now(),
		Count:               1,
		Type:                corev1.EventTypeNormal,
	}
	if _, err := h.asCtrl.CoreV1().Events(Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
}

// eventV1 writes an event through the events.k8s.io API, with eventTime at.
func (h *hand) eventV1(ctx context.Context, t *testing.T, pod, note string, at time.Time, manager string) {
	t.Helper()
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: pod + ".cheat", Namespace: Namespace},
		EventTime:           metav1.MicroTime{Time: at},
		ReportingController: taintEvictionName,
		ReportingInstance:   taintEvictionName,
		Action:              "Delete",
		Reason:              evictReason,
		Regarding:           corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: Namespace, Name: pod},
		Note:                note,
		Type:                corev1.EventTypeNormal,
	}
	if _, err := h.k.EventsV1().Events(Namespace).Create(ctx, ev, metav1.CreateOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
}

// eventually waits until the lab's events satisfy ok.
func (h *hand) eventually(ctx context.Context, t *testing.T, what string, ok func([]corev1.Event) bool) {
	t.Helper()
	labenv.Poll(ctx, t, 15*time.Second, what, func(ctx context.Context) (bool, error) {
		evs, err := h.k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{})
		return err == nil && ok(evs.Items), nil
	})
}

func (h *hand) timetable(ctx context.Context, t *testing.T, out string) {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: MyTimetable, Namespace: Namespace},
		Data:       map[string]string{"taint": "node.kubernetes.io/unreachable:NoExecute", "out": out},
	}
	if _, err := h.k.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
}

// createDB creates the lab's db.yaml.
func (h *hand) createDB(ctx context.Context, t *testing.T) {
	t.Helper()
	var sts appsv1.StatefulSet
	if err := decoder.DecodeFile(os.DirFS("../lab"), "db.yaml", &sts); err != nil {
		t.Fatal(err)
	}
	if _, err := h.k.AppsV1().StatefulSets(Namespace).Create(ctx, &sts, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
}

func (h *hand) annotateDB(ctx context.Context, t *testing.T, reason string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{ReasonKey: reason}}})
	if _, err := h.k.AppsV1().StatefulSets(Namespace).Patch(ctx, "db", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-annotate"}); err != nil {
		t.Fatal(err)
	}
}

// rolledOut waits until db runs its current template.
func (h *hand) rolledOut(ctx context.Context, t *testing.T) {
	t.Helper()
	labenv.Poll(ctx, t, 60*time.Second, "db rolled out", func(ctx context.Context) (bool, error) {
		s, err := h.k.AppsV1().StatefulSets(Namespace).Get(ctx, "db", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		st := s.Status
		if st.ObservedGeneration < s.Generation || st.UpdateRevision != st.CurrentRevision || st.ReadyReplicas < 1 {
			return false, nil
		}
		p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, "db-0", metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && p.Labels["controller-revision-hash"] == st.UpdateRevision, nil
	})
}
