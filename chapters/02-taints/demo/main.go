//go:build js && wasm

// Command demo is chapter 2's interactive demo on the course site: the
// chapter's model of taints and tolerations, compiled to WebAssembly. Four
// of the lab's pods run on taints-3, each with a NoExecute toleration of
// the custom opslab.dev/link-down taint whose tolerationSeconds the reader
// chooses (or none at all): the cache with none, the dispatcher for 30 s,
// the session store for 600 s, the node agent for good. The reader adds a NoSchedule or a NoExecute taint and
// moves the clock. When a pod leaves is decided by package taints: Evict
// gives the verdict and one Timer per pod follows the taint eviction
// controller's scheduled deletion.
//
// It registers its functions as window.opslabDemoAPI; demo.js draws them.
package main

import (
	"errors"
	"strconv"
	"syscall/js"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
)

const (
	node = "taints-3"
	key  = "opslab.dev/link-down"
)

// start is the zero of the demo's clock; the model takes absolute times.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type pod struct {
	name string
	// toleration is how the pod tolerates the taint: "none" (no
	// toleration), "forever" (no seconds) or a number of seconds.
	toleration string
	timer      taints.Timer
	left       bool
	leftAt     time.Duration
}

func (p *pod) tolerations() []taints.Toleration {
	switch p.toleration {
	case "none":
		return nil
	case "forever":
		return []taints.Toleration{{Key: key, Operator: taints.Exists, Effect: taints.NoExecute}}
	}
	s, _ := strconv.ParseInt(p.toleration, 10, 64)
	return []taints.Toleration{{Key: key, Operator: taints.Exists, Effect: taints.NoExecute, Seconds: &s}}
}

var (
	now       time.Duration
	nodeTaint []taints.Taint
	pods      []*pod
)

func reset() {
	now, nodeTaint = 0, nil
	pods = []*pod{
		{name: "cache", toleration: "none"},
		{name: "dispatcher", toleration: "30"},
		{name: "session", toleration: "600"},
		{name: "agent", toleration: "forever"},
	}
}

// observe is the taint eviction controller seeing the node's taints or a
// pod's tolerations change.
func observe(p *pod) {
	if !p.left {
		p.timer.Observe(start.Add(now), nodeTaint, p.tolerations())
	}
}

// sweep deletes every pod whose scheduled deletion has come.
func sweep() {
	for _, p := range pods {
		if at, ok := p.timer.FireAt(); ok && !p.left && !at.After(start.Add(now)) {
			p.left, p.leftAt = true, at.Sub(start)
		}
	}
}

func addTaint(effect taints.Effect) {
	for _, t := range nodeTaint {
		if t.Effect == effect {
			return
		}
	}
	nodeTaint = append(nodeTaint, taints.Taint{Key: key, Effect: effect})
	for _, p := range pods {
		observe(p)
	}
	sweep()
}

func at(d time.Duration) string { return "t=" + d.String() }

func state() map[string]any {
	var ts []any
	for _, t := range nodeTaint {
		ts = append(ts, t.String())
	}
	var list []any
	for _, p := range pods {
		tols := p.tolerations()
		v := taints.Evict(nodeTaint, tols)
		m := map[string]any{
			"name":       p.name,
			"toleration": p.toleration,
			"verdict":    v.Leave.String(),
			"onNode":     !p.left,
		}
		if len(tols) > 0 {
			m["tolerates"] = tols[0].String()
		}
		if len(nodeTaint) > 0 {
			if t, ok := taints.Placeable(nodeTaint, tols); ok {
				m["placeable"] = "yes"
			} else {
				m["placeable"] = "no: " + t.String() + " is not tolerated"
			}
		}
		if fire, ok := p.timer.FireAt(); ok {
			m["fireAt"] = at(fire.Sub(start))
			m["fireSec"] = fire.Sub(start).Seconds()
		}
		if p.left {
			m["leftAt"] = at(p.leftAt)
			m["leftSec"] = p.leftAt.Seconds()
		}
		list = append(list, m)
	}
	return map[string]any{"now": at(now), "nowSec": now.Seconds(), "node": node, "taints": ts, "pods": list}
}

func call(action func(args []js.Value) error) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				result = map[string]any{"error": "the model panicked"}
			}
		}()
		if err := action(args); err != nil {
			return map[string]any{"error": err.Error()}
		}
		return state()
	})
}

func main() {
	reset()
	api := map[string]any{
		"state": call(func([]js.Value) error { return nil }),
		"reset": call(func([]js.Value) error { reset(); return nil }),
		"taint": call(func(a []js.Value) error {
			switch e := taints.Effect(a[0].String()); e {
			case taints.NoSchedule, taints.NoExecute:
				addTaint(e)
				return nil
			default:
				return errors.New("the demo adds NoSchedule or NoExecute taints, not " + string(e))
			}
		}),
		"untaint": call(func([]js.Value) error {
			nodeTaint = nil
			for _, p := range pods {
				observe(p)
			}
			return nil
		}),
		"advance": call(func(a []js.Value) error {
			now += time.Duration(a[0].Int()) * time.Second
			sweep()
			return nil
		}),
		"tolerate": call(func(a []js.Value) error {
			name, value := a[0].String(), a[1].String()
			if value != "none" && value != "forever" {
				if _, err := strconv.ParseInt(value, 10, 64); err != nil {
					return errors.New("tolerationSeconds " + strconv.Quote(value) + " is not a whole number of seconds")
				}
			}
			for _, p := range pods {
				if p.name == name {
					p.toleration = value
					observe(p)
					sweep()
					return nil
				}
			}
			return errors.New("no pod " + strconv.Quote(name))
		}),
	}
	js.Global().Set("opslabDemoAPI", js.ValueOf(api))
	select {}
}
