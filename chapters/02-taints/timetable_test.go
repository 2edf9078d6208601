package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTimetableSoonestFirst(t *testing.T) {
	pods := []Pod{
		{Namespace: "lab", Name: "forever", Node: "n1", Tolerations: []Toleration{tolerate(linkDown.Key, NoExecute, nil)}},
		{Namespace: "lab", Name: "t3600", Node: "n1", Tolerations: []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(3600))}},
		{Namespace: "lab", Name: "t20", Node: "n1", Tolerations: []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))}},
		{Namespace: "lab", Name: "pending", Tolerations: nil},
		{Namespace: "lab", Name: "b-none", Node: "n2"},
		{Namespace: "lab", Name: "a-none", Node: "n1"},
	}
	var got []string
	for _, r := range Timetable(pods, []Taint{linkDown}) {
		got = append(got, r.Pod.Name+" "+r.Verdict.Leave.String())
	}
	want := []string{"a-none now", "b-none now", "t20 after 20s", "t3600 after 3600s", "forever never"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Timetable order (-want +got):\n%s", diff)
	}
}
