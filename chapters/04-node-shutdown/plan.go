package shutdown

import (
	"math"
	"sort"
	"time"
)

// A Pod is what a graceful shutdown reads of a pod.
type Pod struct {
	Namespace, Name string
	// Priority is the pod's spec.priority; a pod without one has 0.
	Priority int32
	// TerminationGracePeriodSeconds is the pod's own grace, or nil when it
	// sets none.
	TerminationGracePeriodSeconds *int64
}

// A PodStep is what a graceful shutdown does to one pod. Times are measured
// from the moment logind announces the shutdown.
type PodStep struct {
	Namespace, Name string
	Priority        int32
	// Group is the priority of the group the pod joined.
	Group int32
	// GracePeriodSeconds is the grace period the shutdown manager asks for
	// (upstream's gracePeriodOverride): the group's seconds, or the pod's
	// terminationGracePeriodSeconds when that is smaller or equal, compared
	// as whole seconds.
	GracePeriodSeconds int64
	// Start is when the kubelet asks the pod to stop; Grace is the time its
	// containers get, GracePeriodSeconds but never less than
	// RuntimeMinimumGraceSeconds (the floor of the kubelet's killContainer,
	// above the pod worker's one second); End is when that grace runs out.
	Start, Grace, End time.Duration
}

// A GroupStep is one group of the plan.
type GroupStep struct {
	Group
	Pods int
	// Skipped groups have no pods; the kubelet does not wait for them.
	Skipped bool
	// Start and End bound the group; a group without pods takes no time.
	Start, End time.Duration
	// NoWait says the kubelet does not wait for this group at all: its
	// seconds, times time.Second, are zero or less (negative seconds, or so
	// many that the product wraps around), so its timer fires at once and the
	// next group starts while these pods are still ending.
	NoWait bool
}

// A Plan is the timeline of one graceful shutdown.
type Plan struct {
	Groups []GroupStep
	Pods   []PodStep
	// Requested is what the kubelet asks logind for (Config.Total).
	Requested time.Duration
	// End is when the last pod is gone if every pod uses all of its grace.
	End time.Duration
}

// podGroup is upstream's podShutdownGroup.
type podGroup struct {
	Group
	Pods []*Pod
}

// groupByPriority puts every pod into the group with the largest priority at
// or below the pod's own; a pod below every group joins the lowest one. groups
// must be sorted by ascending priority. It follows the kubelet's function of
// the same name, including its use of sort.Search: when a priority is listed
// twice, pods of exactly that priority join the first of the two and pods
// above it (up to the next priority) the second.
func groupByPriority(groups []Group, pods []Pod) []podGroup {
	out := make([]podGroup, len(groups))
	for i, g := range groups {
		out[i].Group = g
	}
	if len(out) == 0 {
		return out
	}
	for p := range pods {
		pod := &pods[p]
		index := sort.Search(len(out), func(i int) bool { return out[i].Priority >= pod.Priority })
		switch {
		case index == len(out):
			// Above the highest group: the highest group takes it.
			index = len(out) - 1
		case index > 0 && out[index].Priority > pod.Priority:
			// Between two groups: the lower one takes it.
			index--
		}
		// Left at 0, the pod is at or below the lowest group, which takes it.
		out[index].Pods = append(out[index].Pods, pod)
	}
	return out
}

// NewPlan returns the timeline of a graceful shutdown under c for pods.
//
// Groups run one after another in ascending priority, as upstream's killPods
// runs them. A pod's grace period is its group's seconds, or its own
// terminationGracePeriodSeconds when that is smaller or equal; the kubelet
// compares the two as whole seconds, so no value is too large. The pod worker
// raises a grace below one second to one (calculateEffectiveGracePeriod in
// pkg/kubelet/pod_workers.go), and killContainer then raises anything below
// RuntimeMinimumGraceSeconds to that before it asks the runtime to stop the
// container (pkg/kubelet/kuberuntime): no container gets less than 2 s. A
// preStop hook's time comes out of the grace before that floor applies; the
// plan has no hooks.
//
// The kubelet waits for a group until its pods are gone or a timer of the
// group's seconds, times time.Second, fires, whichever is first; the plan
// assumes every pod uses all of its grace, the longest a group can take. That
// product is not bounded: when it is zero or less the timer fires at once and
// the next group starts at once (see [GroupStep.NoWait]). A group without pods
// is skipped and takes no time. Times past the largest time.Duration, about
// 292 years, are cut there.
func NewPlan(c Config, pods []Pod) Plan {
	p := Plan{Requested: c.Total()}
	if !c.Enabled {
		return p
	}
	p.Groups = make([]GroupStep, 0, len(c.Groups))
	p.Pods = make([]PodStep, 0, len(pods))
	var now, last time.Duration
	for _, g := range groupByPriority(c.Groups, pods) {
		step := GroupStep{Group: g.Group, Pods: len(g.Pods), Skipped: len(g.Pods) == 0, Start: now, End: now}
		if step.Skipped {
			p.Groups = append(p.Groups, step)
			continue
		}
		// upstream: groupTerminationWaitDuration, unbounded like this.
		wait := time.Duration(g.Seconds) * time.Second
		step.NoWait = wait <= 0
		var longest time.Duration
		for _, pod := range g.Pods {
			// upstream: killPods takes the pod's own period when it is at
			// most the group's (<=, where min picks either when equal).
			override := g.Seconds
			if t := pod.TerminationGracePeriodSeconds; t != nil {
				override = min(override, *t)
			}
			grace := secondsDuration(max(override, RuntimeMinimumGraceSeconds))
			longest = max(longest, grace)
			end := add(now, grace)
			last = max(last, end)
			p.Pods = append(p.Pods, PodStep{
				Namespace: pod.Namespace, Name: pod.Name,
				Priority: pod.Priority, Group: g.Priority,
				GracePeriodSeconds: override,
				Start:              now, Grace: grace, End: end,
			})
		}
		if !step.NoWait {
			step.End = add(now, min(wait, longest))
		}
		p.Groups = append(p.Groups, step)
		now = step.End
	}
	p.End = max(now, last)
	return p
}

// secondsDuration is s seconds as a Duration, cut at the largest Duration.
func secondsDuration(s int64) time.Duration {
	if s > math.MaxInt64/int64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s) * time.Second
}

// add is a+b for non-negative durations, cut at the largest Duration.
func add(a, b time.Duration) time.Duration {
	return min(a, math.MaxInt64-b) + b
}

// GroupFor returns the group a pod of the given priority joins under c, and
// false when graceful shutdown is off.
func (c Config) GroupFor(priority int32) (Group, bool) {
	if !c.Enabled || len(c.Groups) == 0 {
		return Group{}, false
	}
	for _, g := range groupByPriority(c.Groups, []Pod{{Priority: priority}}) {
		if len(g.Pods) == 1 {
			return g.Group, true
		}
	}
	return Group{}, false
}
