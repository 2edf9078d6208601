package main

import (
	"fmt"
	"strings"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/internal/figure"
)

// drawPlan draws a shutdown plan as a Gantt chart: a row per priority group
// and, under each, a row per pod, on seconds since logind announced the
// shutdown; a line at what the kubelet asks logind for and, when logind's
// files were read (r is not nil), one at the InhibitDelayMaxSec logind
// grants.
func drawPlan(cfg shutdown.Config, p shutdown.Plan, r *shutdown.LogindReport) []byte {
	tl := &figure.Timeline{
		Title: "Graceful node shutdown: each priority group's pods and their grace",
		X:     figure.Axis{Label: "time since logind announced the shutdown", Fmt: figure.Seconds, Steps: figure.TimeSteps},
		Legend: []figure.Key{
			{Tone: figure.Blue, Shape: figure.Bar, Text: "a group, until its pods are gone"},
			{Tone: figure.Purple, Shape: figure.Bar, Text: "a pod's grace"},
			{Tone: figure.Muted, Shape: figure.Dot, Text: "a group without pods"},
		},
	}
	if !cfg.Enabled {
		tl.Desc = "Graceful node shutdown is off: the kubelet asks logind for nothing and the pods are not ended."
		tl.Rows = []figure.Row{{Label: "graceful shutdown off"}}
		return tl.SVG()
	}
	var desc []string
	for _, g := range p.Groups {
		label := fmt.Sprintf("priority ≥ %d (%ds)", g.Priority, g.Seconds)
		if g.Skipped {
			tl.Rows = append(tl.Rows, figure.Row{Label: label, Spans: []figure.Span{{From: g.Start.Seconds(), Tone: figure.Muted, Shape: figure.Dot, Text: "no pods: skipped"}}})
			desc = append(desc, fmt.Sprintf("group %d has no pods", g.Priority))
			continue
		}
		pods := "pods"
		if g.Pods == 1 {
			pods = "pod"
		}
		text := fmt.Sprintf("%d %s, %v to %v", g.Pods, pods, g.Start, g.End)
		if g.NoWait {
			text += ", no wait"
		}
		tl.Rows = append(tl.Rows, figure.Row{Label: label, Spans: []figure.Span{{From: g.Start.Seconds(), To: g.End.Seconds(), Tone: figure.Blue, Text: text}}})
		desc = append(desc, fmt.Sprintf("group %d from %v to %v", g.Priority, g.Start, g.End))
		for _, pod := range p.Pods {
			if pod.Group != g.Priority {
				continue
			}
			name := pod.Name
			if pod.Namespace != "" {
				name = pod.Namespace + "/" + pod.Name
			}
			tl.Rows = append(tl.Rows, figure.Row{Label: name, Spans: []figure.Span{{From: pod.Start.Seconds(), To: pod.End.Seconds(), Tone: figure.Purple, Text: "grace " + pod.Grace.String()}}})
			desc = append(desc, fmt.Sprintf("%s ends from %v to %v", name, pod.Start, pod.End))
		}
	}
	tl.Lines = append(tl.Lines, figure.VLine{X: p.Requested.Seconds(), Label: "kubelet asks " + p.Requested.String(), Tone: figure.Blue})
	verdict := ""
	if r != nil {
		tone, what := figure.Green, "logind allows "+r.After.Value.String()
		verdict = fmt.Sprintf(" logind's InhibitDelayMaxSec is %v, which covers it.", r.After.Value)
		if r.Conflict {
			tone = figure.Red
			what += ": too short"
			verdict = fmt.Sprintf(" logind's InhibitDelayMaxSec is %v (from %s), shorter: the kubelet's shutdown manager does not start, and none of this happens.", r.After.Value, r.After.From)
		}
		tl.Lines = append(tl.Lines, figure.VLine{X: r.After.Value.Seconds(), Label: what, Tone: tone})
	}
	tl.Desc = fmt.Sprintf("The kubelet ends the pods group by group, lowest priority first: %s. It asks logind to hold the shutdown for %v.%s", strings.Join(desc, "; "), p.Requested, verdict)
	return tl.SVG()
}
