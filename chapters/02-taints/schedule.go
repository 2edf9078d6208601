package taints

// Placeable reports whether the scheduler may place a pod with tols on a
// node with taints, as its TaintToleration filter does
// (FindMatchingUntoleratedTaint in k8s.io/component-helpers): every
// NoSchedule and NoExecute taint must be tolerated, with the same
// Tolerates that decides evictions. PreferNoSchedule only lowers the
// node's score, so it never refuses. When the pod may not be placed, the
// first taint it does not tolerate is returned. Like the scheduler, it
// never reads tolerationSeconds: a toleration for 0 s is a toleration.
func Placeable(taints []Taint, tols []Toleration) (Taint, bool) {
	for _, taint := range taints {
		if taint.Effect == PreferNoSchedule {
			continue
		}
		if _, ok := firstTolerating(tols, taint); !ok {
			return taint, false
		}
	}
	return Taint{}, true
}
