//go:build js && wasm

// Command demo is chapter 4's interactive demo on the course site: the
// chapter's model of a graceful node shutdown (package shutdown, the one the
// chapter's command and tests use), compiled to WebAssembly. The reader writes
// the kubelet's grace periods (the two-value form or a priority table) and the
// pods' priorities and grace; Validate turns the configuration into groups as
// the kubelet does, NewPlan lays out the shutdown, and CheckLogind says
// whether logind, with or without unattended-upgrades' drop-in, lets the
// kubelet hold it that long. It imports no Kubernetes package, which keeps
// the wasm small.
//
// It registers its functions as window.opslabDemoAPI; demo.js draws the
// plan as a Gantt chart.
package main

import (
	"errors"
	"strconv"
	"syscall/js"
	"time"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
)

// dropIn is the drop-in Debian's unattended-upgrades package ships.
const dropIn = "unattended-upgrades-logind-maxdelay.conf"

func plan(in js.Value) (any, error) {
	var s shutdown.Settings
	if in.Get("mode").String() == "two" {
		s.ShutdownGracePeriod = time.Duration(in.Get("grace").Int()) * time.Second
		s.ShutdownGracePeriodCriticalPods = time.Duration(in.Get("critical").Int()) * time.Second
	} else {
		rows := in.Get("table")
		for i := range rows.Length() {
			r := rows.Index(i)
			s.ShutdownGracePeriodByPodPriority = append(s.ShutdownGracePeriodByPodPriority, shutdown.Group{
				Priority: int32(r.Get("priority").Int()), Seconds: int64(r.Get("seconds").Int()),
			})
		}
	}
	cfg, err := shutdown.Validate(s)
	if err != nil {
		return nil, errors.New("the kubelet refuses this configuration: " + err.Error())
	}
	var pods []shutdown.Pod
	ps := in.Get("pods")
	for i := range ps.Length() {
		p := ps.Index(i)
		grace := int64(p.Get("grace").Int())
		pods = append(pods, shutdown.Pod{Name: p.Get("name").String(), Priority: int32(p.Get("priority").Int()), TerminationGracePeriodSeconds: &grace})
	}
	pl := shutdown.NewPlan(cfg, pods)

	var files []shutdown.LogindFile
	if in.Get("dropIn").Bool() {
		files = append(files, shutdown.LogindFile{Layer: shutdown.Lib, Name: dropIn,
			Content: "[Login]\nInhibitDelayMaxSec=" + strconv.Itoa(in.Get("dropInSeconds").Int()) + "\n"})
		if in.Get("masked").Bool() {
			files = append(files, shutdown.LogindFile{Layer: shutdown.Etc, Name: dropIn, Masked: true})
		}
	}
	rep := shutdown.CheckLogind(files, pl.Requested)

	var groups []any
	for _, g := range pl.Groups {
		groups = append(groups, map[string]any{
			"priority": int(g.Priority), "seconds": int(g.Seconds), "pods": g.Pods, "skipped": g.Skipped,
			"start": g.Start.Seconds(), "end": g.End.Seconds(),
		})
	}
	var steps []any
	for _, p := range pl.Pods {
		steps = append(steps, map[string]any{
			"name": p.Name, "priority": int(p.Priority), "group": int(p.Group),
			"start": p.Start.Seconds(), "grace": p.Grace.Seconds(), "end": p.End.Seconds(),
		})
	}
	limit := map[string]any{"text": rep.After.String(), "infinite": rep.After.Infinite, "seconds": rep.After.Value.Seconds(), "from": rep.After.From}
	return map[string]any{
		"enabled":       cfg.Enabled,
		"byPriority":    cfg.ByPriority,
		"groups":        groups,
		"pods":          steps,
		"requested":     pl.Requested.Seconds(),
		"end":           pl.End.Seconds(),
		"before":        rep.Before.String(),
		"limit":         limit,
		"kubeletWrites": rep.KubeletWrites,
		"conflict":      rep.Conflict,
	}, nil
}

func main() {
	api := map[string]any{
		"plan": js.FuncOf(func(this js.Value, a []js.Value) (result any) {
			defer func() {
				if r := recover(); r != nil {
					result = map[string]any{"error": "the model panicked"}
				}
			}()
			v, err := plan(a[0])
			if err != nil {
				return map[string]any{"error": err.Error()}
			}
			return v
		}),
	}
	js.Global().Set("opslabDemoAPI", js.ValueOf(api))
	select {}
}
