package check

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck/audit"
)

func myTimetable(taint, out string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: MyTimetable, Namespace: Namespace},
		Data:       map[string]string{"taint": taint, "out": out},
	}
}

func TestCheckMyTimetable(t *testing.T) {
	pods := []corev1.Pod{
		*withTolerations(pod("queue", "taints-2", 1), notReady, unreach),
		*pod("session", "taints-3", 1, tol(LinkKey, s(600))),
		*pod("agent", "taints-2", 1, tol(MaintKey, nil)),
		*pod("pending", "", 1), // not on a node: not in a timetable
	}
	log := logLab(cat(placedBy("queue", 1), placedBy("session", 1), placedBy("agent", 1), []audit.Event{req(learner, "create", "pods", "pending", 1)})...)
	const link = "opslab.dev/link-down:NoExecute"
	pinned := append([]corev1.Pod{}, pods...)
	pinned[2] = *byHand(pod("agent", "taints-2", 1, tol(MaintKey, nil)))
	cases := []struct {
		name, reason string
		lab          lab
		cm           *corev1.ConfigMap
		pods         []corev1.Pod
		pass         bool
		message      string
	}{
		{"untouched", "no ConfigMap yet", log, nil, pods, false, "there is no ConfigMap my-timetable"},
		{"agrees", "the learner's lines are the chapter's, soonest first, ties by name",
			log, myTimetable(link, "agent now\nqueue now\nsession after 600s\n"), pods, true, "agrees with the chapter's, line for line (3 pods)"},
		{"spacing_ignored", "columns may be aligned with any spaces",
			log, myTimetable(link, "agent     now\nqueue     now\nsession   after 600s"), pods, true, "line for line"},
		{"wrong_order", "soonest first: session comes after the pods that leave now",
			log, myTimetable(link, "session after 600s\nagent now\nqueue now\n"), pods, false, `line 1 of your timetable is "session after 600s"`},
		{"used_last_toleration", "a program that ignores the seconds says never for session",
			log, myTimetable(link, "agent now\nqueue now\nsession never\n"), pods, false, `line 3 of your timetable is "session never"`},
		{"missing_pod", "every pod on a node has a line",
			log, myTimetable(link, "agent now\nqueue now\n"), pods, false, `line 3 of your timetable is "(nothing)"`},
		{"copied_from_the_chapter", "the chapter's example is for pods this namespace does not have",
			log, myTimetable(link, "dispatcher now\nqueue now\nsession after 600s\n"), pods, false, `line 1 of your timetable is "dispatcher now"`},
		{"noschedule", "a NoSchedule taint removes nobody: nothing to time",
			log, myTimetable("opslab.dev/link-down:NoSchedule", ""), pods, false, "is not NoExecute"},
		{"all_the_same", "a taint every pod leaves for at once tells nothing apart",
			log, myTimetable("opslab.dev/other:NoExecute", "agent now\nqueue now\nsession now\n"), pods, false, "every pod of taints-lab leaves the same way"},
		{"pinned_pods", "pods created with spec.nodeName are not the lab's",
			logLab(cat(placedBy("queue", 1), placedBy("session", 1), []audit.Event{req(learner, "create", "pods", "agent", 1)})...),
			myTimetable(link, "agent now\nqueue now\nsession after 600s\n"), pods, false, "agent was placed by hand"},
		{"api_agrees", "no log: nobody wrote the pods' spec.nodeName",
			apiLab(), myTimetable(link, "agent now\nqueue now\nsession after 600s\n"), pods, true, "line for line"},
		{"api_pinned", "no log: kubectl wrote agent's spec.nodeName",
			apiLab(), myTimetable(link, "agent now\nqueue now\nsession after 600s\n"), pinned, false, "its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeMyTimetable(tt.lab, tt.cm, tt.pods), tt.pass, tt.message, "", tt.reason)
		})
	}
}

// A pod the taint eviction controller removed after the recording (session,
// 600 s after step 5's taint) leaves the recorded timetable right: its line
// is not compared. Removed by anyone else, before the recording, or with no
// log to say who, it is.
func TestCheckMyTimetableAfterALeave(t *testing.T) {
	pods := []corev1.Pod{
		*withTolerations(pod("queue", "taints-2", 1), notReady, unreach),
		*pod("agent", "taints-2", 1, tol(MaintKey, nil)),
		*pod("db-0", "taints-3", 1, tol(LinkKey, s(900))),
	}
	const link = "opslab.dev/link-down:NoExecute"
	recorded := myTimetable(link, "agent now\nqueue now\nsession after 600s\ndb-0 after 900s\n")
	placed := cat(placedBy("queue", 1), placedBy("agent", 1), placedBy("session", 1), placedBy("db-0", 1))
	write := req(learner, "create", "configmaps", MyTimetable, 100)
	cases := []struct {
		name, reason string
		lab          lab
		pass         bool
		message      string
	}{
		{"left_after", "the controller removed session after the recording",
			logLab(append(placed, write, req(taintCtl, "delete", "pods", "session", 200))...), true, "line for line (3 pods)"},
		{"left_before", "session was gone when the learner recorded it: the line is wrong",
			logLab(append(placed, req(taintCtl, "delete", "pods", "session", 50), write)...), false, `line 3 of your timetable is "session after 600s"`},
		{"deleted_by_learner", "a learner's delete is not the lab going on",
			logLab(append(placed, write, req(learner, "delete", "pods", "session", 200))...), false, `line 3 of your timetable is "session after 600s"`},
		{"no_log", "without a log nobody can say who removed session",
			apiLab(), false, `line 3 of your timetable is "session after 600s"`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeMyTimetable(tt.lab, recorded, pods), tt.pass, tt.message, "", tt.reason)
		})
	}
}
