package check

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/audit/audittest"
)

// solvedTaints3 is the log of the lab's pods on taints-3 and the link-down
// taint at 5 s, as solve.sh leaves it (without the deletion).
var solvedTaints3 = cat(placedBy("dispatcher", 1), placedBy("session", 1.1), []audit.Event{req(learner, "patch", "nodes", "taints-3", 5)})

func TestJudgeDispatcher(t *testing.T) {
	n := node("taints-3", 5, linkDown)
	apiEvents := []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), mark("dispatcher", 35)}
	cases := []struct {
		name, reason string
		lab          lab
		in           linkInput
		pass         bool
		message      string
		evidence     string
	}{
		{"untouched", "no taint on taints-3", logLab(), linkInput{node: node("taints-3", 0)},
			false, "taints-3 has no opslab.dev/link-down NoExecute taint", ""},
		{"still_running", "the pod is still there",
			logLab(solvedTaints3...), linkInput{node: n, pod: pod("dispatcher", "taints-3", 1)},
			false, "dispatcher is still there", ""},
		{"evicted_on_time", "the controller deleted it 30 s after the learner's taint",
			logLab(cat(solvedTaints3, evictedAt("dispatcher", 35.01))...), linkInput{node: n, events: []corev1.Event{mark("dispatcher", 35.01)}},
			true, "removed dispatcher", "the deletion was sent 30.0 s later"},
		{"later_label_ignored", "a write to taints-3 after the eviction does not move its clock",
			logLab(cat(solvedTaints3, evictedAt("dispatcher", 35.01), []audit.Event{req(learner, "patch", "nodes", "taints-3", 60)})...), linkInput{node: n},
			true, "removed dispatcher", ""},
		{"taint_before_pod", "a pod placed under the taint is timed from its placement",
			logLab(req(learner, "patch", "nodes", "taints-3", 0.5), placedBy("dispatcher", 1)[0], placedBy("dispatcher", 1)[1], evictedAt("dispatcher", 31.02)[2]), linkInput{node: n},
			true, "removed dispatcher", "when it was placed on taints-3"},
		{"deleted_by_hand", "the learner deleted it with kubectl after 30 s",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "delete", "pods", "dispatcher", 36), req(kwok, "delete", "pods", "dispatcher", 36.1)})...), linkInput{node: n},
			false, "dispatcher was deleted by kwok-admin (kubectl), not by the taint eviction controller", ""},
		{"deleted_as_controller", "kubectl delete --as the controller's account",
			logLab(cat(solvedTaints3, []audit.Event{req(asCtl, "delete", "pods", "dispatcher", 26)})...), linkInput{node: n},
			false, "with --as", ""},
		{"deleted_with_minted_token", "the controller's account, but from kubectl",
			logLab(cat(solvedTaints3, []audit.Event{req(withCtlToken, "delete", "pods", "dispatcher", 26)})...), linkInput{node: n},
			false, "someone borrowed the account's token", ""},
		{"too_early", "evicted 10 s after the taint: its tolerationSeconds was not 30",
			logLab(cat(solvedTaints3, evictedAt("dispatcher", 15))...), linkInput{node: n},
			false, "earlier than its 30 s", ""},
		{"second_write_during_the_wait", "the learner wrote taints-3 again 10 s in: the deletion is 20 s after the last change",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "patch", "nodes", "taints-3", 15)}, evictedAt("dispatcher", 35.01))...), linkInput{node: n},
			false, "earlier than its 30 s", "the last change to taints-3"},
		{"too_late", "evicted a minute after the taint: something else removed it",
			logLab(cat(solvedTaints3, evictedAt("dispatcher", 65))...), linkInput{node: n},
			false, "long after its 30 s", ""},
		{"edited_pod", "the learner patched dispatcher before the taint",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "patch", "pods", "dispatcher", 3)}, evictedAt("dispatcher", 35.01))...), linkInput{node: n},
			false, "dispatcher was changed after it was created", ""},
		{"never_created", "an event for a pod that never existed",
			logLab(cat(placedBy("session", 1), []audit.Event{req(learner, "patch", "nodes", "taints-3", 5), req(learner, "create", "events", "dispatcher.cheat", 6)})...),
			linkInput{node: n, events: []corev1.Event{event("dispatcher.cheat", "dispatcher", evictReason, markMessage+Namespace+"/dispatcher", taintEvictionName, "kubectl-create", 6)}},
			false, "dispatcher was never created", "written by kwok-admin (kubectl), not by taint-eviction-controller"},
		{"pinned", "created with spec.nodeName: nobody bound it",
			logLab(req(learner, "create", "pods", "dispatcher", 1), req(learner, "patch", "nodes", "taints-3", 5), evictedAt("dispatcher", 35.01)[2]), linkInput{node: n},
			false, "dispatcher was placed by hand", ""},
		{"api_on_time", "no log: the controller's event 30 s after the server's record of the taints",
			apiLab(), linkInput{node: n, events: apiEvents},
			true, "removed dispatcher", "no audit log (none in this test)"},
		{"api_forged_manager", "no log: the event was written by kubectl create",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), event("dispatcher.x", "dispatcher", evictReason, markMessage+Namespace+"/dispatcher", taintEvictionName, "kubectl-create", 25)}},
			false, "is not the controller's: it was written by kubectl-create", ""},
		{"api_future", "no log: the event names the controller's manager but is dated an hour ahead",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), func() corev1.Event {
				e := mark("dispatcher", 35)
				e.LastTimestamp = metav1.Time{Time: at(3600)}
				return e
			}()}},
			false, "later than the server's clock", ""},
		{"api_future_event_time", "no log: an events.k8s.io event with eventTime ahead",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), func() corev1.Event {
				e := mark("dispatcher", 35)
				e.FirstTimestamp, e.LastTimestamp = metav1.Time{}, metav1.Time{}
				e.EventTime = metav1.MicroTime{Time: at(4000)}
				return e
			}()}},
			false, "later than the server's clock", ""},
		{"api_cancelled_only", "no log: the controller only called the deletion off (the taint went), then the pod was deleted by hand",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), cancelled("dispatcher", 8)}},
			false, "the taint eviction controller only cancelled the deletion of dispatcher", "cancelled the deletion of dispatcher (the taint went before its time was up)"},
		{"api_no_event", "no log, no event",
			apiLab(), linkInput{node: n, events: apiEvents[:1]},
			false, "no TaintManagerEviction event of the taint eviction controller names it", ""},
		{"api_expired", "two hours on, no event: it may have expired",
			lab{start: t0, now: at(7200), noLog: "none"}, linkInput{node: n},
			false, "events live 1h0m0s", ""},
		{"api_too_early", "no log: 10 s between the taints' record and the event",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("dispatcher", "taints-3", "", 1), mark("dispatcher", 15)}},
			false, "earlier than its 30 s", ""},
		{"api_taints_changed_since", "no log: the taints were written after the eviction, so its timing is lost",
			apiLab(), linkInput{node: node("taints-3", 40, linkDown), events: apiEvents},
			false, "without the audit log the taint's time cannot be read", ""},
		{"api_not_scheduled", "no log: no Scheduled event for dispatcher",
			apiLab(), linkInput{node: n, events: []corev1.Event{mark("dispatcher", 35)}},
			false, "no Scheduled event of the scheduler names dispatcher", ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeDispatcher(tt.lab, tt.in), tt.pass, tt.message, tt.evidence, tt.reason)
		})
	}
}

func TestJudgeMaintenance(t *testing.T) {
	n := node("taints-2", 3.5, maintNS, maintNE)
	agent := pod("agent", "taints-2", 1, everyNoExecute)
	solved := cat(placedBy("queue", 1), placedBy("agent", 1.1),
		[]audit.Event{req(learner, "patch", "nodes", "taints-2", 3), req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("queue", 3.52))
	apiEvents := []corev1.Event{scheduledEv("queue", "taints-2", "", 1), scheduledEv("agent", "taints-2", agent.UID, 1), mark("queue", 3.5)}
	cases := []struct {
		name, reason string
		lab          lab
		in           maintenanceInput
		pass         bool
		message      string
	}{
		{"evicted", "the controller removed queue at once; agent stays",
			logLab(solved...), maintenanceInput{node: n, agent: agent}, true, "removed queue"},
		{"no_noexecute", "only the NoSchedule taint",
			logLab(solved...), maintenanceInput{node: node("taints-2", 3, maintNS), agent: agent}, false, "no opslab.dev/maintenance NoExecute taint"},
		{"agent_gone", "agent must stay",
			logLab(solved...), maintenanceInput{node: n}, false, "agent does not run"},
		{"queue_still_there", "queue tolerates a kernel maintenance only: it must go",
			logLab(solved...), maintenanceInput{node: n, agent: agent, queue: pod("queue", "taints-2", 1, kernelOnly)}, false, "queue is still there"},
		{"by_hand", "queue deleted with kubectl before the taint",
			logLab(cat(placedBy("queue", 1), placedBy("agent", 1.1), []audit.Event{req(learner, "delete", "pods", "queue", 2), req(learner, "patch", "nodes", "taints-2", 3.5)})...),
			maintenanceInput{node: n, agent: agent}, false, "queue was deleted by kwok-admin (kubectl), not by the taint eviction controller"},
		{"agent_came_later", "agent was placed after queue had gone",
			logLab(cat(placedBy("queue", 1), []audit.Event{req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("queue", 3.52), placedBy("agent", 10))...),
			maintenanceInput{node: n, agent: agent}, false, "agent came to taints-2"},
		{"agent_pinned", "agent created with spec.nodeName",
			logLab(cat(placedBy("queue", 1), []audit.Event{req(learner, "create", "pods", "agent", 1.1), req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("queue", 3.52))...),
			maintenanceInput{node: n, agent: agent}, false, "agent was placed by hand"},
		{"api_evicted", "no log: the controller's event and the scheduler's",
			apiLab(), maintenanceInput{node: n, agent: agent, events: apiEvents}, true, "removed queue"},
		{"api_by_hand", "no log and no event",
			apiLab(), maintenanceInput{node: n, agent: agent, events: apiEvents[:2]}, false, "no TaintManagerEviction event of the taint eviction controller names it"},
		{"api_agent_pinned", "no log: agent's spec.nodeName was written by kubectl",
			apiLab(), maintenanceInput{node: n, agent: byHand(pod("agent", "taints-2", 1, everyNoExecute)), events: apiEvents}, false, "agent was placed by hand: its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeMaintenance(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeNoSchedule(t *testing.T) {
	queue := pod("queue", "taints-2", 1, kernelOnly)
	n := node("taints-2", 3, maintNS)
	solved := cat(placedBy("queue", 1), []audit.Event{req(learner, "patch", "nodes", "taints-2", 3)})
	cases := []struct {
		name, reason string
		lab          lab
		in           noScheduleInput
		pass         bool
		message      string
	}{
		{"untouched", "no NoSchedule taint", logLab(), noScheduleInput{node: node("taints-2", 0)}, false, "no NoSchedule taint yet"},
		{"survivor", "the scheduler bound queue, then the taint came, and it still runs",
			logLab(solved...), noScheduleInput{node: n, pods: []corev1.Pod{*queue}}, true, "queue kept running"},
		{"later_noexecute_step", "the NoExecute step writes the node's taints again later: placement is judged by the scheduler's binding, not by the last write",
			logLab(cat(solved, []audit.Event{req(learner, "patch", "nodes", "taints-2", 3.5)})...), noScheduleInput{node: node("taints-2", 3.5, maintNS, maintNE), pods: []corev1.Pod{*queue}}, true, "queue kept running"},
		{"bound_after_taint", "the scheduler's own binding, after the NoSchedule taint came: placed under it, not kept through it",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "queue", 2), req(scheduler, "create", "pods/binding", "queue", 2.1)), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "after the taints of taints-2 first changed in this run of the lab"},
		{"taint_before_lab", "the taint was there before the lab began: no change to taints-2 in the run, so every binding came after it",
			logLab(placedBy("queue", 1)...), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "nobody changed the taints of taints-2 in this run of the lab"},
		{"bound_claiming_scheduler", "the learner posted the binding in the scheduler's user agent after the taint",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "queue", 2), req(claiming(scheduler), "create", "pods/binding", "queue", 2.1)), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "claims to be kube-scheduler"},
		{"pinned", "created with spec.nodeName after the taint: nobody bound it",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "queue", 3)), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "queue was placed by hand"},
		{"bound_by_hand", "the learner bound it through pods/binding",
			logLab(req(learner, "create", "pods", "queue", 1), req(learner, "create", "pods/binding", "queue", 2)), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "bound to its node by kwok-admin (kubectl), not by the scheduler"},
		{"recreated_pinned", "the scheduler bound an earlier queue; the one running now was made with spec.nodeName",
			logLab(cat(solved, []audit.Event{req(learner, "delete", "pods", "queue", 4), req(learner, "create", "pods", "queue", 5)})...), noScheduleInput{node: n, pods: []corev1.Pod{*queue}},
			false, "queue was placed by hand"},
		{"tolerated", "a pod that tolerates the NoSchedule taint proves nothing",
			logLab(solved...), noScheduleInput{node: n, pods: []corev1.Pod{*pod("queue", "taints-2", 1, corev1.Toleration{Operator: corev1.TolerationOpExists})}},
			false, "no pod the scheduler placed on taints-2"},
		{"api_survivor", "no log: the scheduler's event for this very pod",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*queue}, events: []corev1.Event{scheduledEv("queue", "taints-2", queue.UID, 1)}}, true, "queue kept running"},
		{"api_pinned", "no log: kubectl wrote spec.nodeName",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*byHand(pod("queue", "taints-2", 3, kernelOnly))}},
			false, "its spec.nodeName was written by kubectl-create"},
		{"api_bound_after_taint", "no log: the scheduler's event 2 s after the taints' last change",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*queue}, events: []corev1.Event{scheduledEv("queue", "taints-2", queue.UID, 5)}},
			false, "after the taints of taints-2 last changed"},
		{"api_forged_scheduled", "no log: a Scheduled event written by kubectl",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*queue}, events: []corev1.Event{event("x", "queue", scheduledReason, "Successfully assigned taints-lab/queue to taints-2", schedulerName, "kubectl-create", 1)}},
			false, "no Scheduled event of the scheduler names queue"},
		{"api_earlier_pod", "no log: the Scheduled event of an earlier pod of the same name",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*queue}, events: []corev1.Event{scheduledEv("queue", "taints-2", "uid-old", 1)}},
			false, "no Scheduled event of the scheduler names queue"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeNoSchedule(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeSession(t *testing.T) {
	n := node("taints-3", 5, linkDown)
	p := pod("session", "taints-3", 1, tol(LinkKey, s(600)))
	cases := []struct {
		name, reason string
		lab          lab
		in           linkInput
		pass         bool
		message      string
	}{
		{"running", "placed by the scheduler, under the taint for 295 s",
			logLab(solvedTaints3...), linkInput{node: n, pod: p}, true, "still runs 295 s into its 600 s"},
		{"rode_it_out", "the controller removed it 600 s after the taint: it stayed its time",
			func() lab {
				l := logLab(cat(solvedTaints3, evictedAt("session", 605.01))...)
				l.now = at(700)
				return l
			}(), linkInput{node: n}, true, "session rode out its 600 s"},
		{"gone_early", "the controller removed it after 300 s: its toleration was not the lab's",
			logLab(cat(solvedTaints3, evictedAt("session", 295))...), linkInput{node: n}, false, "earlier than its 600 s"},
		{"gone_by_hand", "the learner deleted it",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "delete", "pods", "session", 40)})...), linkInput{node: n}, false, "session was deleted by kwok-admin (kubectl), not by the taint eviction controller"},
		{"gone", "the pod is gone, and the log records no deletion",
			logLab(solvedTaints3...), linkInput{node: n}, false, "session is gone, but the audit log records no deletion of it"},
		{"too_soon", "the taint came 10 s ago: it has not outlasted dispatcher",
			func() lab { l := logLab(solvedTaints3...); l.now = at(15); return l }(), linkInput{node: n, pod: p}, false, "under the taint for only 10 s"},
		{"not_the_lab_pod", "a pod of that name that tolerates only 30 s cannot still be there",
			logLab(solvedTaints3...), linkInput{node: n, pod: pod("session", "taints-3", 1, tol(LinkKey, s(30)))}, false, "should leave after 30s"},
		{"pinned", "created with spec.nodeName",
			logLab(req(learner, "patch", "nodes", "taints-3", 1), req(learner, "create", "pods", "session", 2)), linkInput{node: n, pod: p}, false, "session was placed by hand"},
		{"api_running", "no log: Scheduled event, the taints' record 295 s old",
			apiLab(), linkInput{node: n, pod: p, events: []corev1.Event{scheduledEv("session", "taints-3", p.UID, 1)}}, true, "still runs"},
		{"api_pinned", "no log: kubectl wrote spec.nodeName",
			apiLab(), linkInput{node: n, pod: byHand(pod("session", "taints-3", 1, tol(LinkKey, s(600))))}, false, "its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeSession(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeCache(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: Namespace, UID: "uid-cache"}}
	written := dep.DeepCopy()
	written.Spec.Template.Spec.Tolerations = []corev1.Toleration{notReady, unreach}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "cache-85d9c566bf", Namespace: Namespace,
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "cache", UID: "uid-cache", Controller: new(true)}}}}
	foreign := rs.DeepCopy()
	foreign.OwnerReferences = nil
	owned := func(rs *appsv1.ReplicaSet) map[string]*appsv1.ReplicaSet {
		return map[string]*appsv1.ReplicaSet{rs.Name: rs}
	}
	// cachePod is cache's pod as its ReplicaSet made it at 1.2 s, on node.
	cachePod := func(node string, tols ...corev1.Toleration) *corev1.Pod {
		p := withTolerations(pod(cacheName, node, 1.2), tols...)
		p.Labels = map[string]string{"app": "cache"}
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, Controller: new(true)}}
		p.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, 1.2, `{"f:metadata":{"f:labels":{}},"f:spec":{"f:containers":{},"f:nodeSelector":{}}}`)}
		return p
	}
	admitted := cachePod("taints-1", notReady, unreach)
	sent := cachePod("taints-1", notReady, unreach)
	sent.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, 1.2, `{"f:spec":{"f:tolerations":{}}}`)}
	wiped := cachePod("taints-1", notReady, unreach)
	wiped.ManagedFields = nil
	byLearner := cachePod("taints-1", notReady, unreach)
	byLearner.ManagedFields = []metav1.ManagedFieldsEntry{managed("kubectl-create", 1.2, `{"f:spec":{"f:tolerations":{}}}`)}
	// The ReplicaSet controller's create carries no name: generateName.
	created := req(audittest.Controller("replicaset-controller"), "create", "pods", "", 1.2)
	cases := []struct {
		name, reason string
		lab          lab
		in           cacheInput
		pass         bool
		message      string
	}{
		{"untouched", "no Deployment", logLab(), cacheInput{}, false, "there is no Deployment cache"},
		{"no_pod_yet", "the Deployment, no pod running", logLab(), cacheInput{deployment: dep}, false, "cache has no running pod"},
		{"admitted", "no client sent a toleration, and the pod carries two", logLab(created), cacheInput{dep, []corev1.Pod{*admitted}, owned(rs)}, true, "the DefaultTolerationSeconds admission plugin added them"},
		{"template_writes_them", "the Deployment's template writes the 300 s tolerations", logLab(created), cacheInput{written, []corev1.Pod{*sent}, owned(rs)}, false, "cache's template writes the toleration"},
		{"sent_by_controller", "the pod's tolerations were sent by its maker (a template changed in place)", logLab(created), cacheInput{dep, []corev1.Pod{*sent}, owned(rs)}, false, "tolerations were sent by kube-controller-manager"},
		{"pod_of_its_own", "a pod made by the learner in the same second, labelled as cache's", logLab(created, req(learner, "create", "pods", cacheName, 1.3)), cacheInput{dep, []corev1.Pod{*admitted}, owned(rs)}, false, "also created a pod"},
		{"not_the_deployments", "the pod's ReplicaSet is not the Deployment's", logLab(created), cacheInput{dep, []corev1.Pod{*admitted}, owned(foreign)}, false, "no ReplicaSet of Deployment cache made it"},
		{"no_create_in_log", "the log has no create by the ReplicaSet controller when the pod was made", logLab(), cacheInput{dep, []corev1.Pod{*admitted}, owned(rs)}, false, "no create by the ReplicaSet controller"},
		{"edited", "the learner changed the pod after it was made", logLab(created, req(learner, "patch", "pods", cacheName, 2)), cacheInput{dep, []corev1.Pod{*admitted}, owned(rs)}, false, "was changed after it was created"},
		{"wiped", "no log: managedFields cleared", apiLab(), cacheInput{dep, []corev1.Pod{*wiped}, owned(rs)}, false, "managedFields was cleared"},
		{"api_admitted", "no log: managedFields show no toleration sent", apiLab(), cacheInput{dep, []corev1.Pod{*admitted}, owned(rs)}, true, "added them"},
		{"api_written", "no log: managedFields show the tolerations sent", apiLab(), cacheInput{dep, []corev1.Pod{*byLearner}, owned(rs)}, false, "tolerations were sent by kubectl-create"},
		{"wrong_node", "not on taints-1", logLab(created), cacheInput{dep, []corev1.Pod{*cachePod("taints-2", notReady, unreach)}, owned(rs)}, false, "not on taints-1"},
		{"admission_off", "only one of the two", logLab(created), cacheInput{dep, []corev1.Pod{*cachePod("taints-1", notReady)}, owned(rs)}, false, "lacks the default toleration node.kubernetes.io/unreachable"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeCache(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

const goodReason = "a switch reboot took db's node away for eight minutes and deleting db-0 only restarted it; so it waits 900 s"

func TestJudgeDB(t *testing.T) {
	sts := func(reason string, tols ...corev1.Toleration) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: Namespace, UID: "uid-db", Generation: 2, Annotations: map[string]string{ReasonKey: reason}},
			Status:     appsv1.StatefulSetStatus{ObservedGeneration: 2, CurrentRevision: "db-2", UpdateRevision: "db-2", ReadyReplicas: 1},
		}
		s.Spec.Template.Spec.Tolerations = tols
		return s
	}
	partitioned := func(s *appsv1.StatefulSet) *appsv1.StatefulSet {
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: new(int32(1))}
		return s
	}
	long := []corev1.Toleration{tol("node.kubernetes.io/not-ready", s(900)), tol("node.kubernetes.io/unreachable", s(900))}
	dbPodAt := func(sec float64, tols ...corev1.Toleration) *corev1.Pod {
		p := pod("db-0", "taints-1", sec, tols...)
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "StatefulSet", Name: "db", UID: "uid-db", Controller: &yes}}
		p.Labels = map[string]string{"controller-revision-hash": "db-2"}
		p.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, sec, `{"f:metadata":{"f:labels":{"f:controller-revision-hash":{}}},"f:spec":{"f:tolerations":{}}}`)}
		return p
	}
	dbPod := func(tols ...corev1.Toleration) *corev1.Pod { return dbPodAt(30, tols...) }
	// rev is db's ControllerRevision db-2, made when the template changed at 29 s.
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "db-2", Namespace: Namespace, CreationTimestamp: metav1.Time{Time: at(29)},
		OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "db", UID: "uid-db", Controller: new(true)}}}, Revision: 2}
	foreign := rev.DeepCopy()
	foreign.OwnerReferences = nil
	withFields := func(p *corev1.Pod, fields ...metav1.ManagedFieldsEntry) *corev1.Pod {
		p.ManagedFields = append(p.ManagedFields, fields...)
		return p
	}
	made := req(stsCtl, "create", "pods", "db-0", 30)
	// A pod made before the change, under a partition, then rewritten to
	// look like the new revision's: tolerations by kwok's credentials, the
	// label through pods/status.
	madeEarly := req(stsCtl, "create", "pods", "db-0", 1.2)
	cases := []struct {
		name, reason string
		lab          lab
		sts          *appsv1.StatefulSet
		p            *corev1.Pod
		rev          *appsv1.ControllerRevision
		pass         bool
		message      string
	}{
		{"untouched", "no StatefulSet", logLab(), nil, nil, nil, false, "there is no StatefulSet db"},
		{"chosen", "900 s in the template, a reason, the controller's pod", logLab(made), sts(goodReason, long...), dbPod(long...), rev, true, "a person must read the reason"},
		{"kwok_status", "kwok writes db-0's status as it runs it: not a change", logLab(made, req(kwok, "patch", "pods/status", "db-0", 30.1)), sts(goodReason, long...), dbPod(long...), rev, true, "made by the StatefulSet from its own template"},
		{"default", "the template says nothing: admission's 300 s", logLab(made), sts(goodReason), dbPod(notReady, unreach), rev, false, "db's pod template does not wait longer than the default 300 s"},
		{"pod_edited_not_template", "the learner raised the pod's seconds, not the template's", logLab(made, req(learner, "patch", "pods", "db-0", 40)), sts(goodReason), dbPod(long...), rev, false, "db's pod template does not wait longer"},
		{"no_reason", "a value without a reason", logLab(made), sts("", long...), dbPod(long...), rev, false, "has no opslab.dev/toleration-reason annotation"},
		{"reason_without_value", "a reason that names no number", logLab(made), sts("because", long...), dbPod(long...), rev, false, "does not name the value it explains (900 s"},
		{"keyword_salad", "words a list once wanted, and the value: a program can judge only that the value is named, and says a person must read it",
			logLab(made), sts("900 900 900 900 900 data", long...), dbPod(long...), rev, true, "a person must read the reason"},
		{"not_rolled_out", "the pod still runs the old template",
			logLab(made), func() *appsv1.StatefulSet { s := sts(goodReason, long...); s.Status.UpdateRevision = "db-3"; return s }(), dbPod(long...), rev, false, "rollout has not finished"},
		{"pod_of_its_own", "a pod db-0 that the StatefulSet did not make", logLab(req(learner, "create", "pods", "db-0", 30)), sts(goodReason, long...), dbPod(long...), rev, false, "db-0 was created by kwok-admin (kubectl), not by the StatefulSet controller"},
		{"pod_changed", "db-0 changed by hand after the controller made it", logLab(made, req(learner, "patch", "pods", "db-0", 40)), sts(goodReason, long...), dbPod(long...), rev, false, "db-0 was changed after the StatefulSet controller made it"},
		{"relabelled_through_status", "the learner gave db-0 another revision label through pods/status, which keeps the labels it is sent",
			logLab(made, req(learner, "patch", "pods/status", "db-0", 40)), sts(goodReason, long...), dbPod(long...), rev, false, "db-0 was changed after the StatefulSet controller made it"},
		{"changed_as_kwok", "db-0's tolerations rewritten with kwok's credentials: a node agent writes a pod's status, never the pod",
			logLab(made, req(kwok, "patch", "pods", "db-0", 40)), sts(goodReason, long...), dbPod(long...), rev, false, "db-0 was changed after the StatefulSet controller made it"},
		{"partition_made_before_revision", "under partition 1 the controller made db-0 before the template changed; it was then rewritten to look like the new revision",
			logLab(madeEarly, req(kwok, "patch", "pods", "db-0", 40), req(kwok, "patch", "pods/status", "db-0", 40.1)), partitioned(sts(goodReason, long...)), dbPodAt(1.2, long...), rev, false, "before db's current template (revision db-2) existed"},
		{"no_revision", "the ControllerRevision the status names is missing", logLab(made), sts(goodReason, long...), dbPod(long...), nil, false, "db's current revision db-2 is missing"},
		{"foreign_revision", "a ControllerRevision of that name that db does not own", logLab(made), sts(goodReason, long...), dbPod(long...), foreign, false, "is not StatefulSet db's own"},
		{"pod_differs", "the pod's tolerations are not the template's",
			logLab(made), sts(goodReason, long...), dbPod(tol("node.kubernetes.io/not-ready", s(900)), tol("node.kubernetes.io/unreachable", s(7000))), rev, false, "its tolerations were changed on the pod"},
		{"api_chosen", "no log: the controller's manager owns the tolerations", apiLab(), sts(goodReason, long...), dbPod(long...), rev, true, "a person must read the reason"},
		{"api_pod_written", "no log: kubectl wrote the pod's tolerations",
			apiLab(), sts(goodReason, long...), withFields(dbPod(long...), managed("kubectl-patch", 40, `{"f:spec":{"f:tolerations":{}}}`)), rev, false, "db-0's tolerations were written by kubectl-patch"},
		{"api_written_as_the_controller", "no log: the tolerations patched later under the controller's manager name, which moves its entry's time",
			apiLab(), sts(goodReason, long...), func() *corev1.Pod {
				p := dbPod(long...)
				p.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, 40, `{"f:spec":{"f:tolerations":{}}}`)}
				return p
			}(), rev, false, "db-0's tolerations were last written at 15:00:40, after the pod was made at 15:00:30"},
		{"api_label_through_status", "no log: the revision label written through pods/status",
			apiLab(), sts(goodReason, long...), withFields(dbPod(long...), func() metav1.ManagedFieldsEntry {
				m := managed(controllerAgent, 40, `{"f:metadata":{"f:labels":{"f:controller-revision-hash":{}}}}`)
				m.Subresource = "status"
				return m
			}()), rev, false, "revision label was written through its status subresource"},
		{"api_wiped", "no log: managedFields cleared", apiLab(), sts(goodReason, long...), func() *corev1.Pod { p := dbPod(long...); p.ManagedFields = nil; return p }(), rev, false, "managedFields was cleared"},
		{"api_partition_made_before_revision", "no log: the pod is older than the revision it claims",
			apiLab(), partitioned(sts(goodReason, long...)), dbPodAt(1.2, long...), rev, false, "before db's current template (revision db-2) existed"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeDB(tt.lab, tt.sts, tt.p, tt.rev), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeReason(t *testing.T) {
	v := []time.Duration{900 * time.Second}
	cases := []struct {
		name, reason string
		text         string
		values       []time.Duration
		want         string // a part of what is missing; "" when a program finds nothing missing
	}{
		{"reference", "the lab's db-patch.yaml", "a switch reboot took db's node away for eight minutes, and deleting db-0 then only restarted it: on a dead node its name is held, so no new db-0 starts anyway. It waits 900 s on not-ready and unreachable nodes, nearly twice the longest reboot we have seen", v, ""},
		{"minutes", "the value in minutes", "a switch reboot must not restart db: it waits 15 minutes before it goes", v, ""},
		{"go_duration", "the value as a Go duration", "db waits 14m60s so that a switch reboot never restarts it", v, ""},
		{"thousands", "the value with a thousands separator", "resyncing the replica from the primary costs 20 minutes, hence 1,200 seconds", []time.Duration{1200 * time.Second}, ""},
		{"empty", "no annotation", "", v, "has no opslab.dev/toleration-reason annotation"},
		{"no_value", "says why but not which number", "db restarts for nothing when its node is cut off for a while", v, "does not name the value it explains (900 s"},
		{"wrong_value", "names another number", "db restarts when it moves, so it waits 600 s", v, "does not name the value"},
		{"keyword_salad", "the value and a word: what a program can judge is there; whether it is a reason is a person's to read", "900 900 900 900 900 data", v, ""},
		{"filler", "the value and filler: the same", "db is stateful so it waits 900 s", v, ""},
		{"two_values", "two keys, two values, both named", "a switch reboot must not restart db: 900 s when not-ready, 1200 s when unreachable", []time.Duration{900 * time.Second, 1200 * time.Second}, ""},
		{"two_values_one_named", "two values, one named", "a switch reboot must not restart db: it waits 900 s on either key", []time.Duration{900 * time.Second, 1200 * time.Second}, "1200 s"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := judgeReason(tt.text, tt.values)
			if (tt.want == "") != (got == "") || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("judgeReason(%q) = %q, want %q (%s)", tt.text, got, tt.want, tt.reason)
			}
		})
	}
}
