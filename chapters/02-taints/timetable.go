package taints

import (
	"cmp"
	"slices"
)

// A Pod is what the timetable needs of a pod: where it runs and what it
// tolerates (after admission, as the API server stores it).
type Pod struct {
	Namespace   string
	Name        string
	Node        string
	Tolerations []Toleration
}

// A Row is one line of a timetable: a pod and the controller's verdict.
type Row struct {
	Pod     Pod
	Verdict Verdict
}

// Timetable returns, for each pod, when it leaves its node once the node
// carries taints, soonest first: pods that leave at once, then by delay,
// then those that never leave; ties by namespace and name. Pods that are
// not on a node are left out: the taint eviction controller only looks at
// pods bound to the tainted node.
func Timetable(pods []Pod, taints []Taint) []Row {
	rows := make([]Row, 0, len(pods))
	for _, p := range pods {
		if p.Node == "" {
			continue
		}
		rows = append(rows, Row{Pod: p, Verdict: Evict(taints, p.Tolerations)})
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		switch {
		case a.Verdict.Leave.Before(b.Verdict.Leave):
			return -1
		case b.Verdict.Leave.Before(a.Verdict.Leave):
			return 1
		}
		return cmp.Or(cmp.Compare(a.Pod.Namespace, b.Pod.Namespace), cmp.Compare(a.Pod.Name, b.Pod.Name))
	})
	return rows
}
