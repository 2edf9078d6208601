package pdb

import (
	"fmt"
	"strings"
	"time"
)

// An EventKind says what happened.
type EventKind string

const (
	EventDeployed          EventKind = "deployed"
	EventCreated           EventKind = "created"
	EventScheduled         EventKind = "scheduled"
	EventReady             EventKind = "ready"
	EventEvict             EventKind = "evict"
	EventNodeDown          EventKind = "node-down"
	EventNodeUnreachable   EventKind = "node-unreachable"
	EventTaintEviction     EventKind = "taint-eviction"
	EventContainerCrash    EventKind = "container-crash"
	EventBudgetResync      EventKind = "budget-resync"
	EventDelete            EventKind = "delete"
	EventCordon            EventKind = "cordon"
	EventUncordon          EventKind = "uncordon"
	EventScale             EventKind = "scale"
	EventRollout           EventKind = "rollout"
	EventBudgetAdded       EventKind = "budget-added"
	EventBudgetChanged     EventKind = "budget-changed"
	EventControllerStopped EventKind = "controller-stopped"
	EventControllerStarted EventKind = "controller-started"
	EventProbeFails        EventKind = "probe-fails"
	EventProbePasses       EventKind = "probe-passes"
	EventDrainStarted      EventKind = "drain-started"
	EventDrainEnded        EventKind = "drain-ended"
)

// An Event is one line of the cluster's log.
type Event struct {
	At         time.Duration
	Kind       EventKind
	Pod        string
	Node       string
	Controller string
	Budget     string
	ReadyAt    time.Duration // for EventCreated and EventScheduled
	Placed     bool          // for EventCreated: false when it stays Pending
	Decision   *Decision     // for EventEvict
	Drain      *DrainResult  // for EventDrainEnded
	Detail     string
}

// At formats a time on the logical clock as the timeline shows it: "t=15s".
func At(t time.Duration) string { return "t=" + t.String() }

// String returns the event as a line of a timeline.
func (e Event) String() string {
	var s string
	switch e.Kind {
	case EventDeployed:
		s = fmt.Sprintf("deployment %s, Ready: %s", e.Controller, e.Detail)
	case EventCreated:
		if e.Placed {
			s = fmt.Sprintf("%s created on %s, Ready at %s", e.Pod, e.Node, At(e.ReadyAt))
		} else {
			s = fmt.Sprintf("%s created, Pending: no schedulable node", e.Pod)
		}
	case EventScheduled:
		s = fmt.Sprintf("%s scheduled on %s, Ready at %s", e.Pod, e.Node, At(e.ReadyAt))
	case EventReady:
		s = fmt.Sprintf("%s is Ready", e.Pod)
	case EventEvict:
		conflict := ""
		if n := e.Decision.Conflicts; n > 0 {
			conflict = fmt.Sprintf("the budget changed since it was read (%s), read again; ", plural(n, "conflict", "conflicts"))
		}
		s = fmt.Sprintf("evict %s%s: %s%s", e.Pod, on(e.Node), conflict, e.Decision)
		if e.Detail != "" {
			s += " " + e.Detail
		}
	case EventNodeDown:
		s = fmt.Sprintf("%s loses power: its pods (%s) stop, and no budget is asked; the API server still shows them Ready", e.Node, e.Detail)
	case EventNodeUnreachable:
		s = fmt.Sprintf("%s unreachable: the node lifecycle controller taints it node.kubernetes.io/unreachable and marks its pods not Ready (%s)", e.Node, e.Detail)
	case EventTaintEviction:
		s = fmt.Sprintf("%s on %s deleted by the taint eviction controller after %v of toleration: no budget was asked; it stays Terminating on the dead node", e.Pod, e.Node, DefaultTolerationSeconds)
	case EventContainerCrash:
		s = fmt.Sprintf("%s%s: its container crashed and the kubelet restarted it in the same pod (restart %s): no budget was asked, not Ready until %s", e.Pod, on(e.Node), e.Detail, At(e.ReadyAt))
	case EventBudgetResync:
		s = fmt.Sprintf("budget %s updated without a spec change: the disruption controller syncs it", e.Budget)
	case EventDelete:
		s = fmt.Sprintf("delete %s%s: no budget was asked", e.Pod, on(e.Node))
	case EventCordon:
		s = "cordon " + e.Node
	case EventUncordon:
		s = "uncordon " + e.Node
	case EventScale:
		s = fmt.Sprintf("scale %s: %s", e.Controller, e.Detail)
	case EventRollout:
		s = fmt.Sprintf("rolling update of %s: %s", e.Controller, e.Detail)
	case EventBudgetAdded:
		s = fmt.Sprintf("budget %s added: %s", e.Budget, e.Detail)
	case EventBudgetChanged:
		s = fmt.Sprintf("budget %s changed to %s", e.Budget, e.Detail)
	case EventControllerStopped:
		s = "disruption controller stopped: budget status is no longer updated"
	case EventControllerStarted:
		s = "disruption controller started"
	case EventProbeFails:
		s = fmt.Sprintf("%s fails its readiness probe", e.Pod)
	case EventProbePasses:
		s = fmt.Sprintf("%s passes its readiness probe", e.Pod)
	case EventDrainStarted:
		s = fmt.Sprintf("drain %s: %s", e.Node, e.Detail)
	case EventDrainEnded:
		s = fmt.Sprintf("drain %s: %s", e.Node, e.Drain.Summary())
	default:
		s = string(e.Kind)
	}
	return At(e.At) + " " + s
}

func on(node string) string {
	if node == "" {
		return ""
	}
	return " on " + node
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func names(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
