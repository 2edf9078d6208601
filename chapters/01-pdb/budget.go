package pdb

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// DeletionTimeout is how long the disruption controller keeps a pod that an
// eviction approved in DisruptedPods while waiting to see it deleted
// (DeletionTimeout in pkg/controller/disruption). After it, a pod that was
// never deleted counts as healthy again.
const DeletionTimeout = 2 * time.Minute

// A Selector selects pods whose labels include all of MatchLabels. A nil
// *Selector selects no pod and an empty one selects every pod, as
// metav1.LabelSelectorAsSelector decides.
type Selector struct {
	MatchLabels map[string]string
}

// Matches reports whether s selects a pod with the given labels.
func (s *Selector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// String returns s in kubectl's selector syntax, "app=ledger,tier=front",
// "<none>" for a nil selector and "<everything>" for an empty one.
func (s *Selector) String() string {
	if s == nil {
		return "<none>"
	}
	if len(s.MatchLabels) == 0 {
		return "<everything>"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		parts = append(parts, k+"="+s.MatchLabels[k])
	}
	return strings.Join(parts, ",")
}

// An UnhealthyPodEvictionPolicy says when a pod that is not Ready may be
// evicted (spec.unhealthyPodEvictionPolicy).
type UnhealthyPodEvictionPolicy string

const (
	// IfHealthyBudget, the default, evicts a pod that is not Ready only
	// while the application is not disrupted: CurrentHealthy ≥
	// DesiredHealthy > 0. Otherwise the pod takes the normal path and needs
	// DisruptionsAllowed > 0.
	IfHealthyBudget UnhealthyPodEvictionPolicy = "IfHealthyBudget"
	// AlwaysAllow evicts a pod that is not Ready without looking at the
	// budget, so that a crash-looping pod never blocks a drain.
	AlwaysAllow UnhealthyPodEvictionPolicy = "AlwaysAllow"
)

// A Budget is a PodDisruptionBudget: which pods it protects and how many of
// them must stay available. Exactly one of MinAvailable and MaxUnavailable is
// set, or neither (then the budget expects no pods and refuses every
// eviction of a healthy pod).
type Budget struct {
	Name           string
	Selector       *Selector
	MinAvailable   *IntOrPercent
	MaxUnavailable *IntOrPercent
	// UnhealthyPodEvictionPolicy is IfHealthyBudget when empty.
	UnhealthyPodEvictionPolicy UnhealthyPodEvictionPolicy

	// Generation counts changes to the spec, as metadata.generation does.
	Generation int64
	// ResourceVersion changes with every write of the object, spec or
	// status, as metadata.resourceVersion does. A status update that names
	// an older one fails with a conflict.
	ResourceVersion int64
	// Status is what the disruption controller last wrote.
	Status Status
}

func (b *Budget) validate() error {
	if b.Name == "" {
		return fmt.Errorf("budget without a name")
	}
	if b.MinAvailable != nil && b.MaxUnavailable != nil {
		return fmt.Errorf("budget %s: minAvailable and maxUnavailable cannot be both set", b.Name)
	}
	for _, v := range []*IntOrPercent{b.MinAvailable, b.MaxUnavailable} {
		if v == nil {
			continue
		}
		if err := v.validate(); err != nil {
			return fmt.Errorf("budget %s: %w", b.Name, err)
		}
	}
	switch b.UnhealthyPodEvictionPolicy {
	case "", IfHealthyBudget, AlwaysAllow:
	default:
		return fmt.Errorf("budget %s: unhealthyPodEvictionPolicy %q is not IfHealthyBudget or AlwaysAllow", b.Name, b.UnhealthyPodEvictionPolicy)
	}
	return nil
}

// Spec returns the budget's floor as it is written: "minAvailable: 2",
// "maxUnavailable: 25%" or "no minAvailable or maxUnavailable".
func (b *Budget) Spec() string {
	switch {
	case b.MinAvailable != nil:
		return "minAvailable: " + b.MinAvailable.String()
	case b.MaxUnavailable != nil:
		return "maxUnavailable: " + b.MaxUnavailable.String()
	}
	return "no minAvailable or maxUnavailable"
}

// A Status is what the disruption controller writes into a budget's status.
type Status struct {
	ObservedGeneration int64
	ExpectedPods       int
	DesiredHealthy     int
	CurrentHealthy     int
	DisruptionsAllowed int
	// DisruptedPods maps a pod that an eviction approved to the time of the
	// approval, until the controller sees the pod deleted or DeletionTimeout
	// passes.
	DisruptedPods map[string]time.Duration
}

// copy returns a copy of b that shares no map with it.
func (b *Budget) copy() Budget {
	out := *b
	out.Status.DisruptedPods = maps.Clone(b.Status.DisruptedPods)
	return out
}

// equal reports whether two statuses would be written the same.
func (s Status) equal(o Status) bool {
	return s.ObservedGeneration == o.ObservedGeneration && s.ExpectedPods == o.ExpectedPods &&
		s.DesiredHealthy == o.DesiredHealthy && s.CurrentHealthy == o.CurrentHealthy &&
		s.DisruptionsAllowed == o.DisruptionsAllowed && maps.Equal(s.DisruptedPods, o.DisruptedPods)
}

// String returns the status the way a reader compares it with kubectl's
// output: "expected 3, desired 2, healthy 3, allowed 1".
func (s Status) String() string {
	return fmt.Sprintf("expected %d, desired %d, healthy %d, allowed %d",
		s.ExpectedPods, s.DesiredHealthy, s.CurrentHealthy, s.DisruptionsAllowed)
}

// expected returns the budget's ExpectedPods and DesiredHealthy for the
// selected pods, as getExpectedPodCount does. owner gives the controller
// whose scale counts for a pod's owner, and that scale: the two ReplicaSets
// of a Deployment's rolling update are one controller, the Deployment, with
// its replicas (getPodDeployment), so each controller counts once. Pods
// without a controller count nowhere in a sum of scales (upstream warns
// with an UnmanagedPods event and carries on).
func expected(b *Budget, pods []*Pod, owner func(name string) (controller string, scale int)) (expectedPods, desiredHealthy int) {
	sumOfScales := func() int {
		var seen []string // a budget selects the pods of few controllers
		total := 0
		for _, p := range pods {
			if p.Owner == "" {
				continue
			}
			ctl, scale := owner(p.Owner)
			if slices.Contains(seen, ctl) {
				continue
			}
			seen = append(seen, ctl)
			total += scale
		}
		return total
	}
	switch {
	case b.MaxUnavailable != nil:
		expectedPods = sumOfScales()
		desiredHealthy = max(0, expectedPods-b.MaxUnavailable.Scaled(expectedPods))
	case b.MinAvailable != nil && !b.MinAvailable.IsPercent():
		// An integer floor needs no controller: it is compared with the pods
		// that exist, whoever created them.
		desiredHealthy = b.MinAvailable.Scaled(0)
		expectedPods = len(pods)
	case b.MinAvailable != nil:
		expectedPods = sumOfScales()
		desiredHealthy = b.MinAvailable.Scaled(expectedPods)
	}
	return expectedPods, desiredHealthy
}

// disrupted returns the entries of DisruptedPods the controller keeps at
// now, as buildDisruptedPodMap does: those of pods that still exist, are not
// being deleted, and were approved less than DeletionTimeout ago.
func disrupted(prev map[string]time.Duration, pods []*Pod, now time.Duration) map[string]time.Duration {
	var out map[string]time.Duration
	if len(prev) == 0 {
		return out
	}
	for _, p := range pods {
		at, ok := prev[p.Name]
		if !ok || p.Terminating {
			continue
		}
		if at+DeletionTimeout < now {
			continue // approved but never deleted: the controller gives up on it
		}
		if out == nil {
			out = map[string]time.Duration{}
		}
		out[p.Name] = at
	}
	return out
}

// countHealthy counts the pods that may be disrupted, as countHealthyPods
// does: Ready, not being deleted, and not promised to an eviction in the
// last DeletionTimeout.
func countHealthy(pods []*Pod, disruptedPods map[string]time.Duration, now time.Duration) int {
	n := 0
	for _, p := range pods {
		if p.Terminating {
			continue
		}
		if at, ok := disruptedPods[p.Name]; ok && at+DeletionTimeout > now {
			continue
		}
		if p.Ready(now) {
			n++
		}
	}
	return n
}

// computeStatus is the disruption controller's sync of one budget.
func computeStatus(b *Budget, pods []*Pod, owner func(name string) (controller string, scale int), now time.Duration) Status {
	expectedPods, desiredHealthy := expected(b, pods, owner)
	dp := disrupted(b.Status.DisruptedPods, pods, now)
	currentHealthy := countHealthy(pods, dp, now)
	allowed := currentHealthy - desiredHealthy
	// Upstream requires expectedPods > 0 so that a budget whose pods have not
	// appeared yet is safe when they do appear before the next sync.
	if expectedPods <= 0 || allowed < 0 {
		allowed = 0
	}
	return Status{
		ObservedGeneration: b.Generation,
		ExpectedPods:       expectedPods,
		DesiredHealthy:     desiredHealthy,
		CurrentHealthy:     currentHealthy,
		DisruptionsAllowed: allowed,
		DisruptedPods:      dp,
	}
}
