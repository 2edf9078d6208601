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
		*withTolerations(pod("control", "taints-1", 1), notReady, unreach),
		*pod("link-3600s", "taints-3", 1, tol(LinkKey, s(3600))),
		*pod("twin-forever", "taints-2", 1, tol(MaintKey, nil)),
		*pod("pending", "", 1), // not on a node: not in a timetable
	}
	log := logLab(cat(placedBy("control", 1), placedBy("link-3600s", 1), placedBy("twin-forever", 1), []audit.Event{req(learner, "create", "pods", "pending", 1)})...)
	const link = "opslab.dev/link-down:NoExecute"
	pinned := append([]corev1.Pod{}, pods...)
	pinned[2] = *byHand(pod("twin-forever", "taints-2", 1, tol(MaintKey, nil)))
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
			log, myTimetable(link, "control now\ntwin-forever now\nlink-3600s after 3600s\n"), pods, true, "agrees with the chapter's, line for line (3 pods)"},
		{"spacing_ignored", "columns may be aligned with any spaces",
			log, myTimetable(link, "control       now\ntwin-forever  now\nlink-3600s    after 3600s"), pods, true, "line for line"},
		{"wrong_order", "soonest first: link-3600s comes after the pods that leave now",
			log, myTimetable(link, "link-3600s after 3600s\ncontrol now\ntwin-forever now\n"), pods, false, `line 1 of your timetable is "link-3600s after 3600s"`},
		{"used_last_toleration", "a program that ignores the seconds says never for link-3600s",
			log, myTimetable(link, "control now\ntwin-forever now\nlink-3600s never\n"), pods, false, `line 3 of your timetable is "link-3600s never"`},
		{"missing_pod", "every pod on a node has a line",
			log, myTimetable(link, "control now\ntwin-forever now\n"), pods, false, `line 3 of your timetable is "(nothing)"`},
		{"copied_from_the_chapter", "the chapter's example is for pods this namespace does not have",
			log, myTimetable(link, "link-0s now\nno-toleration now\nlink-20s after 20s\n"), pods, false, `line 1 of your timetable is "link-0s now"`},
		{"noschedule", "a NoSchedule taint removes nobody: nothing to time",
			log, myTimetable("opslab.dev/link-down:NoSchedule", ""), pods, false, "is not NoExecute"},
		{"all_the_same", "a taint every pod leaves for at once tells nothing apart",
			log, myTimetable("opslab.dev/other:NoExecute", "control now\nlink-3600s now\ntwin-forever now\n"), pods, false, "every pod of taints-lab leaves the same way"},
		{"pinned_pods", "pods created with spec.nodeName are not the lab's",
			logLab(cat(placedBy("control", 1), placedBy("link-3600s", 1), []audit.Event{req(learner, "create", "pods", "twin-forever", 1)})...),
			myTimetable(link, "control now\ntwin-forever now\nlink-3600s after 3600s\n"), pods, false, "twin-forever was placed by hand"},
		{"api_agrees", "no log: nobody wrote the pods' spec.nodeName",
			apiLab(), myTimetable(link, "control now\ntwin-forever now\nlink-3600s after 3600s\n"), pods, true, "line for line"},
		{"api_pinned", "no log: kubectl wrote twin-forever's spec.nodeName",
			apiLab(), myTimetable(link, "control now\ntwin-forever now\nlink-3600s after 3600s\n"), pinned, false, "its spec.nodeName was written by kubectl-create"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, judgeMyTimetable(tt.lab, tt.cm, tt.pods), tt.pass, tt.message, "", tt.reason)
		})
	}
}
