package taintcheck

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func myTimetable(taint, out string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: MyTimetable, Namespace: Namespace},
		Data:       map[string]string{"taint": taint, "out": out},
	}
}

func TestCheckMyTimetable(t *testing.T) {
	now := time.Now()
	pods := []runtime.Object{
		pod("control", "taints-1", now),
		pod("link-3600s", "taints-3", now, tol(LinkKey, s(3600))),
		pod("twin-forever", "taints-2", now, tol(MaintKey, nil)),
		pod("pending", "", now), // not on a node: not in a timetable
	}
	with := func(objs ...runtime.Object) []runtime.Object {
		return append(append([]runtime.Object{}, pods...), objs...)
	}
	const link = "opslab.dev/link-down:NoExecute"
	runCases(t, checkMyTimetable, []checkCase{
		{"untouched", "no ConfigMap yet", pods, false, "there is no ConfigMap my-timetable"},
		{"agrees", "the learner's lines are the chapter's, soonest first, ties by name",
			with(myTimetable(link, "control now\ntwin-forever now\nlink-3600s after 3600s\n")), true, "agrees with the chapter's, line for line (3 pods)"},
		{"spacing_ignored", "columns may be aligned with any spaces",
			with(myTimetable(link, "control       now\ntwin-forever  now\nlink-3600s    after 3600s")), true, "line for line"},
		{"wrong_order", "soonest first: link-3600s comes after the pods that leave now",
			with(myTimetable(link, "link-3600s after 3600s\ncontrol now\ntwin-forever now\n")), false, `line 1 of your timetable is "link-3600s after 3600s"`},
		{"used_last_toleration", "a program that ignores the seconds says never for link-3600s",
			with(myTimetable(link, "control now\ntwin-forever now\nlink-3600s never\n")), false, `line 3 of your timetable is "link-3600s never"`},
		{"missing_pod", "every pod on a node has a line",
			with(myTimetable(link, "control now\ntwin-forever now\n")), false, `line 3 of your timetable is "(nothing)"`},
		{"noschedule", "a NoSchedule taint removes nobody: nothing to time",
			with(myTimetable("opslab.dev/link-down:NoSchedule", "")), false, "is not NoExecute"},
		{"all_the_same", "a taint every pod leaves for at once tells nothing apart",
			with(myTimetable("opslab.dev/other:NoExecute", "control now\nlink-3600s now\ntwin-forever now\n")), false, "every pod of taints-lab leaves the same way"},
	})
}
