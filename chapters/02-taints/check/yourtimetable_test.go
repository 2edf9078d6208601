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
