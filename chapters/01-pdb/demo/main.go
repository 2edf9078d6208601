//go:build js && wasm

// Command demo is chapter 1's interactive demo on the course site: the
// chapter's model of a PodDisruptionBudget, compiled to WebAssembly. Four
// replicas of ledger run on pdb-1, pdb-2 and pdb-3 (two of them on pdb-1)
// behind a budget with minAvailable between 1 and 4; the reader evicts pods, crashes their
// containers, powers their nodes off and moves the clock, and every answer
// comes from package pdb.
//
// It registers its functions as window.opslabDemoAPI; demo.js draws them.
// Each returns the whole state: the clock, the pods, the budget's status,
// the counts and the log, or {error} when the model refused the input.
package main

import (
	"syscall/js"
	"time"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
)

var cluster *pdb.Cluster

// reset starts the story again: four Ready replicas, each replacement
// Ready 15 s after it is placed, as in the chapter's lab.
func reset(floor int) error {
	c := pdb.NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		if err := c.AddNode(n); err != nil {
			return err
		}
	}
	labels := map[string]string{"app": "ledger"}
	if err := c.AddController(pdb.Controller{Name: "ledger", Replicas: 4, Labels: labels, ReadyAfter: 15 * time.Second}); err != nil {
		return err
	}
	min := pdb.Int(floor)
	if err := c.AddBudget(pdb.Budget{Name: "ledger", Selector: &pdb.Selector{MatchLabels: labels}, MinAvailable: &min}); err != nil {
		return err
	}
	cluster = c
	return nil
}

func state() map[string]any {
	now := cluster.Now()
	var pods []any
	for _, p := range cluster.Pods() {
		pods = append(pods, map[string]any{
			"name":    p.Name,
			"node":    p.Node,
			"phase":   string(p.Phase),
			"ready":   p.Ready(now),
			"readyAt": pdb.At(p.ReadyAt),
			"state":   podState(p, now),
		})
	}
	var log []any
	allowed, refused, crashed := 0, 0, 0
	for _, e := range cluster.Log() {
		kind := string(e.Kind)
		switch e.Kind {
		case pdb.EventEvict:
			if e.Decision.Allowed {
				allowed++
				kind = "allowed"
			} else {
				refused++
				kind = "refused"
			}
		case pdb.EventContainerCrash, pdb.EventNodeDown:
			crashed++
		}
		log = append(log, map[string]any{"kind": kind, "text": e.String()})
	}
	b, _ := cluster.Budget("ledger")
	return map[string]any{
		"now":     pdb.At(now),
		"budget":  b.Spec(),
		"status":  b.Status.String(),
		"pods":    pods,
		"allowed": allowed,
		"refused": refused,
		"crashed": crashed,
		"log":     log,
	}
}

// podState says in words what the model says of a pod.
func podState(p pdb.Pod, now time.Duration) string {
	switch {
	case p.Phase != pdb.Running:
		return string(p.Phase)
	case p.Terminating:
		return "Terminating (its node is dead)"
	case p.NodeLost:
		return "not Ready (node unreachable)"
	case p.Ready(now):
		return "Ready"
	}
	return "not Ready, Ready at " + pdb.At(p.ReadyAt)
}

// call wraps an action: it runs it and returns the new state, or the
// model's error as {error}.
func call(action func(args []js.Value) error) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				result = map[string]any{"error": "the model panicked: " + toString(r)}
			}
		}()
		if err := action(args); err != nil {
			return map[string]any{"error": err.Error()}
		}
		return state()
	})
}

func toString(v any) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case string:
		return v
	}
	return "unknown panic"
}

func main() {
	if err := reset(3); err != nil {
		panic(err)
	}
	api := map[string]any{
		"state": call(func([]js.Value) error { return nil }),
		"reset": call(func(a []js.Value) error { return reset(a[0].Int()) }),
		"setFloor": call(func(a []js.Value) error {
			min := pdb.Int(a[0].Int())
			return cluster.UpdateBudget("ledger", func(b *pdb.Budget) { b.MinAvailable = &min })
		}),
		"evict": call(func(a []js.Value) error {
			cluster.Evict(a[0].String()) // the decision is in the log
			return nil
		}),
		"crash":    call(func(a []js.Value) error { return cluster.CrashContainer(a[0].String()) }),
		"powerOff": call(func(a []js.Value) error { return cluster.PowerOff(a[0].String()) }),
		"advance": call(func(a []js.Value) error {
			return cluster.Advance(time.Duration(a[0].Int()) * time.Second)
		}),
	}
	js.Global().Set("opslabDemoAPI", js.ValueOf(api))
	select {}
}
