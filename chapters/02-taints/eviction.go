package taints

import (
	"fmt"
	"time"
)

// A Kind is one of the three answers to "when does this pod leave?".
type Kind int

// The kinds, in the order a timetable lists them.
const (
	AtOnce Kind = iota // deleted as soon as the controller sees the taint
	After              // deleted after Leave.After, unless the taint goes first
	Never              // stays for as long as the taint is there
)

// A Leave says when a pod leaves a tainted node, counted from the moment
// the taint eviction controller observes the taint.
type Leave struct {
	Kind  Kind
	After time.Duration // set only when Kind is After
}

// String returns "now", "after 20s" or "never".
func (l Leave) String() string {
	switch l.Kind {
	case AtOnce:
		return "now"
	case After:
		return fmt.Sprintf("after %ds", int64(l.After/time.Second))
	default:
		return "never"
	}
}

// Before reports whether l comes before m in a timetable: at once first,
// then the shorter delays, never last.
func (l Leave) Before(m Leave) bool {
	if l.Kind != m.Kind {
		return l.Kind < m.Kind
	}
	return l.Kind == After && l.After < m.After
}

// A Use pairs a NoExecute taint with the toleration that tolerated it: the
// first one in the pod's list that does.
type Use struct {
	Taint      Taint
	Toleration Toleration
}

// A Verdict is what the taint eviction controller decides for one pod.
type Verdict struct {
	Leave Leave
	// Uses lists, for each NoExecute taint in the node's order, the
	// toleration that tolerated it. It is empty when a taint was not
	// tolerated.
	Uses []Use
	// By is the use that decided Leave: the one with the smallest
	// tolerationSeconds, or the first when none has seconds. It is nil when
	// the node has no NoExecute taint or when a taint was not tolerated.
	By *Use
	// Untolerated is the first NoExecute taint that no toleration
	// tolerates; nil when every one is tolerated.
	Untolerated *Taint
}

// Evict decides when a pod with tolerations tols leaves a node with taints,
// as the taint eviction controller does (processPodOnNode in
// pkg/controller/tainteviction): taints other than NoExecute are ignored;
// an untolerated NoExecute taint means at once; otherwise the uses decide
// through MinTolerationTime. tols are tolerations the API server accepted:
// for a pod as a client wrote it, ask EvictPod.
func Evict(taints []Taint, tols []Toleration) Verdict {
	var uses []Use
	for _, taint := range taints {
		if taint.Effect != NoExecute {
			continue
		}
		tol, ok := firstTolerating(tols, taint)
		if !ok {
			return Verdict{Leave: Leave{Kind: AtOnce}, Untolerated: &taint}
		}
		uses = append(uses, Use{Taint: taint, Toleration: tol})
	}
	if len(uses) == 0 {
		// Upstream keeps no record of a node without NoExecute taints, so
		// nothing is scheduled for its pods.
		return Verdict{Leave: Leave{Kind: Never}}
	}
	used := make([]Toleration, len(uses))
	for i, u := range uses {
		used[i] = u.Toleration
	}
	leave, by := minTolerationTime(used)
	return Verdict{Leave: leave, Uses: uses, By: &uses[by]}
}

// EvictPod is Evict for a pod as a client writes it. A pod whose
// tolerations the API server refuses (ValidatePod) cannot exist on any
// node, so there is no verdict to give: EvictPod returns the server's
// refusal instead.
func EvictPod(p Pod, taints []Taint) (Verdict, error) {
	if err := ValidatePod(p.Name, p.Tolerations); err != nil {
		return Verdict{}, err
	}
	return Evict(taints, p.Tolerations), nil
}

// firstTolerating returns the first toleration of tols, in the pod's order,
// that tolerates taint: the one the controller and the scheduler use, even
// when a later one would give a shorter time.
func firstTolerating(tols []Toleration, taint Taint) (Toleration, bool) {
	for _, tol := range tols {
		if tol.Tolerates(taint) {
			return tol, true
		}
	}
	return Toleration{}, false
}

// MinTolerationTime returns how long a pod may stay given the tolerations
// used for a node's NoExecute taints, with the rules of upstream's
// getMinTolerationTime: any tolerationSeconds of zero or less means at once,
// none set means never, otherwise the smallest value. An empty list means
// at once, because it is what upstream is given when a taint is not
// tolerated.
func MinTolerationTime(used []Toleration) Leave {
	if len(used) == 0 {
		return Leave{Kind: AtOnce}
	}
	leave, _ := minTolerationTime(used)
	return leave
}

// minTolerationTime is MinTolerationTime for a non-empty list; it also
// returns the index of the toleration that decided.
func minTolerationTime(used []Toleration) (Leave, int) {
	by := 0
	var min *int64
	for i, tol := range used {
		if tol.Seconds == nil {
			continue
		}
		if *tol.Seconds <= 0 {
			return Leave{Kind: AtOnce}, i
		}
		if min == nil || *tol.Seconds < *min {
			min, by = tol.Seconds, i
		}
	}
	if min == nil {
		return Leave{Kind: Never}, 0
	}
	return Leave{Kind: After, After: time.Duration(*min) * time.Second}, by
}
