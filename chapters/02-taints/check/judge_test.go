package check

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck/audit"
)

// solvedTaints3 is the log of the lab's pods on taints-3 and the link-down
// taint at 5 s, as solve.sh leaves it (without the deletion).
var solvedTaints3 = cat(placedBy("link-20s", 1), placedBy("link-3600s", 1.1), []audit.Event{req(learner, "patch", "nodes", "taints-3", 5)})

func TestJudgeLink20(t *testing.T) {
	n := node("taints-3", 5, linkDown)
	apiEvents := []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), mark("link-20s", 25)}
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
			logLab(solvedTaints3...), linkInput{node: n, pod: pod("link-20s", "taints-3", 1)},
			false, "link-20s is still there", ""},
		{"evicted_on_time", "the controller deleted it 20 s after the learner's taint",
			logLab(cat(solvedTaints3, evictedAt("link-20s", 25.01))...), linkInput{node: n, events: []corev1.Event{mark("link-20s", 25.01)}},
			true, "removed link-20s", "the deletion was sent 20.0 s later"},
		{"later_label_ignored", "a write to taints-3 after the eviction does not move its clock",
			logLab(cat(solvedTaints3, evictedAt("link-20s", 25.01), []audit.Event{req(learner, "patch", "nodes", "taints-3", 60)})...), linkInput{node: n},
			true, "removed link-20s", ""},
		{"taint_before_pod", "a pod placed under the taint is timed from its placement",
			logLab(req(learner, "patch", "nodes", "taints-3", 0.5), placedBy("link-20s", 1)[0], placedBy("link-20s", 1)[1], evictedAt("link-20s", 21.02)[2]), linkInput{node: n},
			true, "removed link-20s", "when it was placed on taints-3"},
		{"deleted_by_hand", "the learner deleted it with kubectl after 20 s",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "delete", "pods", "link-20s", 26), req(kwok, "delete", "pods", "link-20s", 26.1)})...), linkInput{node: n},
			false, "link-20s was deleted by kwok-admin (kubectl), not by the taint eviction controller", ""},
		{"deleted_as_controller", "kubectl delete --as the controller's account",
			logLab(cat(solvedTaints3, []audit.Event{req(asCtl, "delete", "pods", "link-20s", 26)})...), linkInput{node: n},
			false, "with --as", ""},
		{"deleted_with_minted_token", "the controller's account, but from kubectl",
			logLab(cat(solvedTaints3, []audit.Event{req(withCtlToken, "delete", "pods", "link-20s", 26)})...), linkInput{node: n},
			false, "someone borrowed the account's token", ""},
		{"too_early", "evicted 10 s after the taint: its tolerationSeconds was not 20",
			logLab(cat(solvedTaints3, evictedAt("link-20s", 15))...), linkInput{node: n},
			false, "earlier than its 20 s", ""},
		{"second_write_during_the_wait", "the learner wrote taints-3 again 10 s in: the deletion is 10 s after the last change",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "patch", "nodes", "taints-3", 15)}, evictedAt("link-20s", 25.01))...), linkInput{node: n},
			false, "earlier than its 20 s", "the last change to taints-3"},
		{"too_late", "evicted a minute after the taint: something else removed it",
			logLab(cat(solvedTaints3, evictedAt("link-20s", 65))...), linkInput{node: n},
			false, "long after its 20 s", ""},
		{"edited_pod", "the learner patched link-20s before the taint",
			logLab(cat(solvedTaints3, []audit.Event{req(learner, "patch", "pods", "link-20s", 3)}, evictedAt("link-20s", 25.01))...), linkInput{node: n},
			false, "link-20s was changed after it was created", ""},
		{"never_created", "an event for a pod that never existed",
			logLab(cat(placedBy("link-3600s", 1), []audit.Event{req(learner, "patch", "nodes", "taints-3", 5), req(learner, "create", "events", "link-20s.cheat", 6)})...),
			linkInput{node: n, events: []corev1.Event{event("link-20s.cheat", "link-20s", evictReason, markMessage+Namespace+"/link-20s", taintEvictionName, "kubectl-create", 6)}},
			false, "link-20s was never created", "written by kwok-admin (kubectl), not by taint-eviction-controller"},
		{"pinned", "created with spec.nodeName: nobody bound it",
			logLab(req(learner, "create", "pods", "link-20s", 1), req(learner, "patch", "nodes", "taints-3", 5), evictedAt("link-20s", 25.01)[2]), linkInput{node: n},
			false, "link-20s was placed by hand", ""},
		{"api_on_time", "no log: the controller's event 20 s after the server's record of the taints",
			apiLab(), linkInput{node: n, events: apiEvents},
			true, "removed link-20s", "no audit log (none in this test)"},
		{"api_forged_manager", "no log: the event was written by kubectl create",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), event("link-20s.x", "link-20s", evictReason, markMessage+Namespace+"/link-20s", taintEvictionName, "kubectl-create", 25)}},
			false, "is not the controller's: it was written by kubectl-create", ""},
		{"api_future", "no log: the event names the controller's manager but is dated an hour ahead",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), func() corev1.Event {
				e := mark("link-20s", 25)
				e.LastTimestamp = metav1.Time{Time: at(3600)}
				return e
			}()}},
			false, "later than the server's clock", ""},
		{"api_future_event_time", "no log: an events.k8s.io event with eventTime ahead",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), func() corev1.Event {
				e := mark("link-20s", 25)
				e.FirstTimestamp, e.LastTimestamp = metav1.Time{}, metav1.Time{}
				e.EventTime = metav1.MicroTime{Time: at(4000)}
				return e
			}()}},
			false, "later than the server's clock", ""},
		{"api_cancelled_only", "no log: the controller only called the deletion off (the taint went), then the pod was deleted by hand",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), cancelled("link-20s", 8)}},
			false, "the taint eviction controller only cancelled the deletion of link-20s", "cancelled the deletion of link-20s (the taint went before its time was up)"},
		{"api_no_event", "no log, no event",
			apiLab(), linkInput{node: n, events: apiEvents[:1]},
			false, "no TaintManagerEviction event of the taint eviction controller names it", ""},
		{"api_expired", "two hours on, no event: it may have expired",
			lab{start: t0, now: at(7200), noLog: "none"}, linkInput{node: n},
			false, "events live 1h0m0s", ""},
		{"api_too_early", "no log: 10 s between the taints' record and the event",
			apiLab(), linkInput{node: n, events: []corev1.Event{scheduledEv("link-20s", "taints-3", "", 1), mark("link-20s", 15)}},
			false, "earlier than its 20 s", ""},
		{"api_taints_changed_since", "no log: the taints were written after the eviction, so its timing is lost",
			apiLab(), linkInput{node: node("taints-3", 40, linkDown), events: apiEvents},
			false, "without the audit log the taint's time cannot be read", ""},
		{"api_not_scheduled", "no log: no Scheduled event for link-20s",
			apiLab(), linkInput{node: n, events: []corev1.Event{mark("link-20s", 25)}},
			false, "no Scheduled event of the scheduler names link-20s", ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeLink20(tt.lab, tt.in), tt.pass, tt.message, tt.evidence, tt.reason)
		})
	}
}

func TestJudgeTwins(t *testing.T) {
	n := node("taints-2", 3.5, maintNS, maintNE)
	forever := pod("twin-forever", "taints-2", 1, tol(MaintKey, nil))
	solved := cat(placedBy("twin-0s", 1), placedBy("twin-forever", 1.1),
		[]audit.Event{req(learner, "patch", "nodes", "taints-2", 3), req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("twin-0s", 3.52))
	apiEvents := []corev1.Event{scheduledEv("twin-0s", "taints-2", "", 1), scheduledEv("twin-forever", "taints-2", forever.UID, 1), mark("twin-0s", 3.5)}
	cases := []struct {
		name, reason string
		lab          lab
		in           twinsInput
		pass         bool
		message      string
	}{
		{"evicted", "the controller removed twin-0s at once; twin-forever stays",
			logLab(solved...), twinsInput{node: n, forever: forever}, true, "removed twin-0s"},
		{"no_noexecute", "only the NoSchedule taint",
			logLab(solved...), twinsInput{node: node("taints-2", 3, maintNS), forever: forever}, false, "no opslab.dev/maintenance NoExecute taint"},
		{"forever_gone", "twin-forever must stay",
			logLab(solved...), twinsInput{node: n}, false, "twin-forever does not run"},
		{"zero_still_there", "twin-0s must go",
			logLab(solved...), twinsInput{node: n, forever: forever, zero: pod("twin-0s", "taints-2", 1)}, false, "twin-0s is still there"},
		{"by_hand", "twin-0s deleted with kubectl before the taint",
			logLab(cat(placedBy("twin-0s", 1), placedBy("twin-forever", 1.1), []audit.Event{req(learner, "delete", "pods", "twin-0s", 2), req(learner, "patch", "nodes", "taints-2", 3.5)})...),
			twinsInput{node: n, forever: forever}, false, "twin-0s was deleted by kwok-admin (kubectl), not by the taint eviction controller"},
		{"forever_came_later", "twin-forever was placed after twin-0s had gone",
			logLab(cat(placedBy("twin-0s", 1), []audit.Event{req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("twin-0s", 3.52), placedBy("twin-forever", 10))...),
			twinsInput{node: n, forever: forever}, false, "twin-forever came to taints-2"},
		{"forever_pinned", "twin-forever created with spec.nodeName",
			logLab(cat(placedBy("twin-0s", 1), []audit.Event{req(learner, "create", "pods", "twin-forever", 1.1), req(learner, "patch", "nodes", "taints-2", 3.5)}, evictedAt("twin-0s", 3.52))...),
			twinsInput{node: n, forever: forever}, false, "twin-forever was placed by hand"},
		{"api_evicted", "no log: the controller's event and the scheduler's",
			apiLab(), twinsInput{node: n, forever: forever, events: apiEvents}, true, "removed twin-0s"},
		{"api_by_hand", "no log and no event",
			apiLab(), twinsInput{node: n, forever: forever, events: apiEvents[:2]}, false, "no TaintManagerEviction event of the taint eviction controller names it"},
		{"api_forever_pinned", "no log: twin-forever's spec.nodeName was written by kubectl",
			apiLab(), twinsInput{node: n, forever: byHand(pod("twin-forever", "taints-2", 1, tol(MaintKey, nil))), events: apiEvents}, false, "twin-forever was placed by hand: its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeTwins(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeNoSchedule(t *testing.T) {
	twin := pod("twin-forever", "taints-2", 1, tol(MaintKey, nil))
	n := node("taints-2", 3, maintNS)
	solved := cat(placedBy("twin-forever", 1), []audit.Event{req(learner, "patch", "nodes", "taints-2", 3)})
	cases := []struct {
		name, reason string
		lab          lab
		in           noScheduleInput
		pass         bool
		message      string
	}{
		{"untouched", "no NoSchedule taint", logLab(), noScheduleInput{node: node("taints-2", 0)}, false, "no NoSchedule taint yet"},
		{"survivor", "the scheduler bound twin-forever, then the taint came, and it still runs",
			logLab(solved...), noScheduleInput{node: n, pods: []corev1.Pod{*twin}}, true, "twin-forever kept running"},
		{"later_noexecute_step", "the NoExecute step writes the node's taints again later: placement is judged by the scheduler's binding, not by the last write",
			logLab(cat(solved, []audit.Event{req(learner, "patch", "nodes", "taints-2", 3.5)})...), noScheduleInput{node: node("taints-2", 3.5, maintNS, maintNE), pods: []corev1.Pod{*twin}}, true, "twin-forever kept running"},
		{"bound_after_taint", "the scheduler's own binding, after the NoSchedule taint came: placed under it, not kept through it",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "twin-forever", 2), req(scheduler, "create", "pods/binding", "twin-forever", 2.1)), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "after the taints of taints-2 first changed in this run of the lab"},
		{"taint_before_lab", "the taint was there before the lab began: no change to taints-2 in the run, so every binding came after it",
			logLab(placedBy("twin-forever", 1)...), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "nobody changed the taints of taints-2 in this run of the lab"},
		{"bound_claiming_scheduler", "the learner posted the binding in the scheduler's user agent after the taint",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "twin-forever", 2), req(claiming(scheduler), "create", "pods/binding", "twin-forever", 2.1)), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "claims to be kube-scheduler"},
		{"pinned", "created with spec.nodeName after the taint: nobody bound it",
			logLab(req(learner, "patch", "nodes", "taints-2", 1), req(learner, "create", "pods", "twin-forever", 3)), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "twin-forever was placed by hand"},
		{"bound_by_hand", "the learner bound it through pods/binding",
			logLab(req(learner, "create", "pods", "twin-forever", 1), req(learner, "create", "pods/binding", "twin-forever", 2)), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "bound to its node by kwok-admin (kubectl), not by the scheduler"},
		{"recreated_pinned", "the scheduler bound an earlier twin-forever; the one running now was made with spec.nodeName",
			logLab(cat(solved, []audit.Event{req(learner, "delete", "pods", "twin-forever", 4), req(learner, "create", "pods", "twin-forever", 5)})...), noScheduleInput{node: n, pods: []corev1.Pod{*twin}},
			false, "twin-forever was placed by hand"},
		{"tolerated", "a pod that tolerates the NoSchedule taint proves nothing",
			logLab(solved...), noScheduleInput{node: n, pods: []corev1.Pod{*pod("twin-forever", "taints-2", 1, corev1.Toleration{Operator: corev1.TolerationOpExists})}},
			false, "no pod the scheduler placed on taints-2"},
		{"api_survivor", "no log: the scheduler's event for this very pod",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*twin}, events: []corev1.Event{scheduledEv("twin-forever", "taints-2", twin.UID, 1)}}, true, "twin-forever kept running"},
		{"api_pinned", "no log: kubectl wrote spec.nodeName",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*byHand(pod("twin-forever", "taints-2", 3, tol(MaintKey, nil)))}},
			false, "its spec.nodeName was written by kubectl-create"},
		{"api_bound_after_taint", "no log: the scheduler's event 2 s after the taints' last change",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*twin}, events: []corev1.Event{scheduledEv("twin-forever", "taints-2", twin.UID, 5)}},
			false, "after the taints of taints-2 last changed"},
		{"api_forged_scheduled", "no log: a Scheduled event written by kubectl",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*twin}, events: []corev1.Event{event("x", "twin-forever", scheduledReason, "Successfully assigned taints-lab/twin-forever to taints-2", schedulerName, "kubectl-create", 1)}},
			false, "no Scheduled event of the scheduler names twin-forever"},
		{"api_earlier_pod", "no log: the Scheduled event of an earlier pod of the same name",
			apiLab(), noScheduleInput{node: n, pods: []corev1.Pod{*twin}, events: []corev1.Event{scheduledEv("twin-forever", "taints-2", "uid-old", 1)}},
			false, "no Scheduled event of the scheduler names twin-forever"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeNoSchedule(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeLink3600(t *testing.T) {
	n := node("taints-3", 5, linkDown)
	p := pod("link-3600s", "taints-3", 1, tol(LinkKey, s(3600)))
	cases := []struct {
		name, reason string
		lab          lab
		in           linkInput
		pass         bool
		message      string
	}{
		{"running", "placed by the scheduler, under the taint for 295 s",
			logLab(solvedTaints3...), linkInput{node: n, pod: p}, true, "still runs 295 s into its 3600 s"},
		{"gone", "the pod is gone before its hour",
			logLab(solvedTaints3...), linkInput{node: n}, false, "link-3600s is gone"},
		{"too_soon", "the taint came 10 s ago: it has not outlasted link-20s",
			func() lab { l := logLab(solvedTaints3...); l.now = at(15); return l }(), linkInput{node: n, pod: p}, false, "under the taint for only 10 s"},
		{"not_the_lab_pod", "a pod of that name that tolerates only 30 s cannot still be there",
			logLab(solvedTaints3...), linkInput{node: n, pod: pod("link-3600s", "taints-3", 1, tol(LinkKey, s(30)))}, false, "should leave after 30s"},
		{"pinned", "created with spec.nodeName",
			logLab(req(learner, "patch", "nodes", "taints-3", 1), req(learner, "create", "pods", "link-3600s", 2)), linkInput{node: n, pod: p}, false, "link-3600s was placed by hand"},
		{"api_running", "no log: Scheduled event, the taints' record 295 s old",
			apiLab(), linkInput{node: n, pod: p, events: []corev1.Event{scheduledEv("link-3600s", "taints-3", p.UID, 1)}}, true, "still runs"},
		{"api_pinned", "no log: kubectl wrote spec.nodeName",
			apiLab(), linkInput{node: n, pod: byHand(pod("link-3600s", "taints-3", 1, tol(LinkKey, s(3600))))}, false, "its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeLink3600(tt.lab, tt.in), tt.pass, tt.message, "", tt.reason)
		})
	}
}

func TestJudgeControl(t *testing.T) {
	admitted := withTolerations(pod("control", "taints-1", 1), notReady, unreach)
	written := pod("control", "taints-1", 1, notReady, unreach)
	wiped := withTolerations(pod("control", "taints-1", 1), notReady, unreach)
	wiped.ManagedFields = nil
	elsewhere := withTolerations(pod("control", "taints-2", 1), notReady, unreach)
	lacking := withTolerations(pod("control", "taints-1", 1), notReady)
	created := req(learner, "create", "pods", "control", 1)
	cases := []struct {
		name, reason string
		lab          lab
		p            *corev1.Pod
		pass         bool
		message      string
	}{
		{"untouched", "no pod", logLab(), nil, false, "there is no pod control"},
		{"admitted", "no client sent a toleration, and the pod carries two", logLab(created), admitted, true, "the DefaultTolerationSeconds admission plugin added them"},
		{"written_by_hand", "kubectl create sent the 300 s tolerations", logLab(created), written, false, "control's tolerations were sent by kubectl-client-side-apply"},
		{"wiped_then_edited", "the learner changed the pod after creating it", logLab(created, req(learner, "patch", "pods", "control", 2)), admitted, false, "control was changed after it was created"},
		{"wiped", "no log: managedFields cleared", apiLab(), wiped, false, "managedFields was cleared"},
		{"api_admitted", "no log: managedFields show no toleration sent", apiLab(), admitted, true, "added them"},
		{"api_written", "no log: managedFields show the tolerations sent", apiLab(), written, false, "tolerations were sent by"},
		{"wrong_node", "not on the control node", logLab(created), elsewhere, false, "not on the control node taints-1"},
		{"admission_off", "only one of the two", logLab(created), lacking, false, "lacks the default toleration node.kubernetes.io/unreachable"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeControl(tt.lab, tt.p), tt.pass, tt.message, "", tt.reason)
		})
	}
}

const goodReason = "db rebuilds its local cache from scratch when it moves, which takes about an hour; so it waits 6000 s"

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
	long := []corev1.Toleration{tol("node.kubernetes.io/not-ready", s(6000)), tol("node.kubernetes.io/unreachable", s(6000))}
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
		{"chosen", "6000 s in the template, a reason, the controller's pod", logLab(made), sts(goodReason, long...), dbPod(long...), rev, true, "a person must read the reason"},
		{"kwok_status", "kwok writes db-0's status as it runs it: not a change", logLab(made, req(kwok, "patch", "pods/status", "db-0", 30.1)), sts(goodReason, long...), dbPod(long...), rev, true, "made by the StatefulSet from its own template"},
		{"default", "the template says nothing: admission's 300 s", logLab(made), sts(goodReason), dbPod(notReady, unreach), rev, false, "db's pod template does not wait longer than the default 300 s"},
		{"pod_edited_not_template", "the learner raised the pod's seconds, not the template's", logLab(made, req(learner, "patch", "pods", "db-0", 40)), sts(goodReason), dbPod(long...), rev, false, "db's pod template does not wait longer"},
		{"no_reason", "a value without a reason", logLab(made), sts("", long...), dbPod(long...), rev, false, "has no opslab.dev/toleration-reason annotation"},
		{"reason_without_value", "a reason that names no number", logLab(made), sts("because", long...), dbPod(long...), rev, false, "does not name the value it explains (6000 s"},
		{"keyword_salad", "words a list once wanted, and the value: a program can judge only that the value is named, and says a person must read it",
			logLab(made), sts("6000 6000 6000 6000 6000 data", long...), dbPod(long...), rev, true, "a person must read the reason"},
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
			logLab(made), sts(goodReason, long...), dbPod(tol("node.kubernetes.io/not-ready", s(6000)), tol("node.kubernetes.io/unreachable", s(7000))), rev, false, "its tolerations were changed on the pod"},
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
	v := []time.Duration{6000 * time.Second}
	cases := []struct {
		name, reason string
		text         string
		values       []time.Duration
		want         string // a part of what is missing; "" when a program finds nothing missing
	}{
		{"reference", "the lab's db-patch.yaml", "db rebuilds its local cache from scratch when it moves, which takes about an hour; a switch reboot or a short partition must not move it, so it waits 6000 s on not-ready and unreachable nodes", v, ""},
		{"minutes", "the value in minutes", "a short partition must not move db: it waits 100 minutes before it goes", v, ""},
		{"go_duration", "the value as a Go duration", "db waits 1h40m so that a switch reboot never moves it", v, ""},
		{"thousands", "the value with a thousands separator", "resyncing the replica from the primary costs an hour, hence 6,000 seconds", v, ""},
		{"empty", "no annotation", "", v, "has no opslab.dev/toleration-reason annotation"},
		{"no_value", "says why but not which number", "db rebuilds its local cache when it moves, which takes an hour", v, "does not name the value it explains (6000 s"},
		{"wrong_value", "names another number", "db rebuilds its local cache when it moves, so it waits 3600 s", v, "does not name the value"},
		{"keyword_salad", "the value and a word: what a program can judge is there; whether it is a reason is a person's to read", "6000 6000 6000 6000 6000 data", v, ""},
		{"filler", "the value and filler: the same", "db is stateful so it waits 6000 s", v, ""},
		{"two_values", "two keys, two values, both named", "a switch reboot must not move db: 6000 s when not-ready, 7200 s when unreachable", []time.Duration{6000 * time.Second, 7200 * time.Second}, ""},
		{"two_values_one_named", "two values, one named", "a switch reboot must not move db: it waits 6000 s on either key", []time.Duration{6000 * time.Second, 7200 * time.Second}, "7200 s"},
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
