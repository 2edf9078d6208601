package shutdown

import (
	"fmt"
	"strings"
	"time"

	"github.com/opslab/opslab/internal/figure"
)

// An Exit is one way out of Terminating for the pod of a node that lost
// power: what someone does, and the Scenario that Simulate plays for it.
type Exit struct {
	Action   string // what happens, as the diagram's arrow says it
	Scenario Scenario
}

// Exits are the ways out the chapter teaches, each played on a StatefulSet
// pod with a volume: the node loses power at 0, the taint eviction
// controller asks for the pod's deletion at 5 s, and at 12 s someone acts.
func Exits() []Exit {
	lost := []Event{{0, NodeNotReady}, {5 * time.Second, DeleteRequested}}
	exit := func(action string, e EventKind) Exit {
		return Exit{Action: action, Scenario: Scenario{
			Events: append(append([]Event(nil), lost...), Event{12 * time.Second, e}),
			Volume: true, GracePeriod: 30 * time.Second, Until: time.Hour,
		}}
	}
	return []Exit{
		exit("out-of-service taint", TaintOutOfService),
		exit("Node object deleted", NodeDeleted),
		exit("kubectl delete --force", ForceDeleted),
		exit("power back", NodeReady),
	}
}

// PathsFigure draws the non-graceful path as a state diagram: the pod runs,
// its node stops reporting, the pod is Terminating and stays so; each exit
// leads to a state labelled with what Simulate says of it: who removed the
// pod, when, and when its replacement could run.
func PathsFigure(exits []Exit) []byte {
	st := &figure.States{
		Title: "A node that lost power: its pod stays Terminating until someone acts (here at t+12s)",
		States: []figure.State{
			{ID: "running", Label: "Running\nvolume attached", Col: 1.5, Row: 0, Tone: figure.Green},
			{ID: "notready", Label: "node not Ready\nno kubelet to report", Col: 1.5, Row: 1, Tone: figure.Orange},
			{ID: "terminating", Label: "Terminating\nforever, if nobody acts", Col: 1.5, Row: 2, Tone: figure.Red},
		},
		Edges: []figure.Edge{
			{From: "running", To: "notready", Label: "power lost, t+0s"},
			{From: "notready", To: "terminating", Label: "taint eviction controller deletes it, t+5s"},
		},
	}
	var desc []string
	for i, e := range exits {
		o := Simulate(e.Scenario)
		id := fmt.Sprintf("exit-%d", i)
		label := "still Terminating\nno replacement"
		tone := figure.Red
		if !o.Gone.Never {
			label = fmt.Sprintf("gone %s: %s\nreplacement %s", o.Gone, short(o.By), o.Replacement)
			tone = figure.Green
		}
		st.States = append(st.States, figure.State{ID: id, Label: label, Col: float64(i), Row: 3.4, Tone: tone})
		at := ""
		for _, ev := range e.Scenario.Events {
			at = ev.At.String()
		}
		st.Edges = append(st.Edges, figure.Edge{From: "terminating", To: id, Label: e.Action, At: 0.82})
		desc = append(desc, fmt.Sprintf("%s at t+%s: the pod is removed by %s at %s, the volume detached (%s) at %s, the replacement can run at %s", e.Action, at, orNobody(o.By), o.Gone, orNone(o.How), o.Detached, o.Replacement))
	}
	st.Desc = "The pod of a StatefulSet, with a volume, on a node that loses power at t+0s: the taint eviction controller asks for its deletion at t+5s, and with no kubelet to confirm it the pod stays Terminating. The ways out, as the model plays them: " + strings.Join(desc, "; ") + "."
	return st.SVG()
}

// short drops what the arrow already says from a remover's name: the
// parenthesis, "force delete".
func short(by string) string {
	name, _, _ := strings.Cut(by, " (")
	return strings.TrimPrefix(name, "force delete ")
}

func orNobody(s string) string {
	if s == "" {
		return "nobody"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "not detached"
	}
	return s
}
