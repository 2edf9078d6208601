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
	EventCrash             EventKind = "crash"
	EventDelete            EventKind = "delete"
	EventCordon            EventKind = "cordon"
	EventUncordon          EventKind = "uncordon"
	EventScale             EventKind = "scale"
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
		s = fmt.Sprintf("evict %s%s: %s", e.Pod, on(e.Node), e.Decision)
		if e.Detail != "" {
			s += " " + e.Detail
		}
	case EventCrash:
		s = fmt.Sprintf("%s%s crashed: no budget was asked", e.Pod, on(e.Node))
	case EventDelete:
		s = fmt.Sprintf("delete %s%s: no budget was asked", e.Pod, on(e.Node))
	case EventCordon:
		s = "cordon " + e.Node
	case EventUncordon:
		s = "uncordon " + e.Node
	case EventScale:
		s = fmt.Sprintf("scale %s: %s", e.Controller, e.Detail)
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
