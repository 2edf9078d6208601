package graceful

import (
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
	// Start is when the kubelet asks the pod to stop, End when its grace runs out.
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
}

// A Plan is the timeline of one graceful shutdown.
type Plan struct {
	Groups []GroupStep
	Pods   []PodStep
	// Requested is what the kubelet asks logind for (Config.Total).
	Requested time.Duration
	// End is when the last group ends if every pod uses all of its grace.
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
// the same name, including its use of sort.Search.
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
// Groups run one after another in ascending priority. A pod's grace is the
// smaller of its group's seconds and its own terminationGracePeriodSeconds.
// A group ends when its pods are gone or its seconds run out, whichever is
// first; the plan assumes every pod uses all of its grace, the longest a group
// can take. A group without pods is skipped and takes no time.
func NewPlan(c Config, pods []Pod) Plan {
	p := Plan{Requested: c.Total()}
	if !c.Enabled {
		return p
	}
	p.Groups = make([]GroupStep, 0, len(c.Groups))
	p.Pods = make([]PodStep, 0, len(pods))
	var now time.Duration
	for _, g := range groupByPriority(c.Groups, pods) {
		step := GroupStep{Group: g.Group, Pods: len(g.Pods), Skipped: len(g.Pods) == 0, Start: now, End: now}
		if step.Skipped {
			p.Groups = append(p.Groups, step)
			continue
		}
		seconds := time.Duration(g.Seconds) * time.Second
		var longest time.Duration
		for _, pod := range g.Pods {
			grace := seconds
			if t := pod.TerminationGracePeriodSeconds; t != nil && time.Duration(*t)*time.Second < grace {
				grace = time.Duration(*t) * time.Second
			}
			longest = max(longest, grace)
			p.Pods = append(p.Pods, PodStep{
				Namespace: pod.Namespace, Name: pod.Name,
				Priority: pod.Priority, Group: g.Priority,
				Start: now, Grace: grace, End: now + grace,
			})
		}
		step.End = now + min(seconds, longest)
		p.Groups = append(p.Groups, step)
		now = step.End
	}
	p.End = now
	return p
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
