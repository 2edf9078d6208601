package main

import (
	"fmt"
	"strings"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/internal/figure"
)

// drawTimetable draws the rows as a timeline, one pod a row: a cross at
// zero for a pod that leaves at once, a bar to its departure for one that
// leaves after a delay, a pale bar to the axis's end for one that stays.
func drawTimetable(rows []taints.Row, ts []taints.Taint) []byte {
	var names []string
	for _, t := range ts {
		names = append(names, t.String())
	}
	tl := &figure.Timeline{
		Title: "When each pod leaves its node under " + strings.Join(names, ", "),
		X:     figure.Axis{Label: "time after the taint", Fmt: figure.Seconds, Steps: figure.TimeSteps},
		Legend: []figure.Key{
			{Tone: figure.Red, Shape: figure.Cross, Text: "leaves at once"},
			{Tone: figure.Blue, Shape: figure.Bar, Text: "stays for its tolerationSeconds"},
			{Tone: figure.Green, Shape: figure.Bar, Open: true, Text: "never leaves"},
		},
	}
	var desc []string
	for _, r := range rows {
		label := r.Pod.Name
		if r.Pod.Namespace != "" {
			label = r.Pod.Namespace + "/" + r.Pod.Name
		}
		why := toleration(r.Verdict)
		var s figure.Span
		switch l := r.Verdict.Leave; l.Kind {
		case taints.AtOnce:
			s = figure.Span{Tone: figure.Red, Shape: figure.Cross, Text: "now", Title: label + " leaves at once: toleration " + why}
		case taints.After:
			s = figure.Span{To: l.After.Seconds(), Tone: figure.Blue, Text: l.String(), Title: label + " leaves " + l.String() + ": " + why}
		default:
			s = figure.Span{Tone: figure.Green, Open: true, Text: "never", Title: label + " never leaves: " + why}
		}
		tl.Rows = append(tl.Rows, figure.Row{Label: label, Spans: []figure.Span{s}})
		desc = append(desc, fmt.Sprintf("%s %s", label, r.Verdict.Leave))
	}
	if len(rows) == 0 {
		desc = append(desc, "no pod on a node")
	}
	tl.Desc = "Each pod's departure once its node carries " + strings.Join(names, ", ") + ": " + strings.Join(desc, "; ") + "."
	return tl.SVG()
}
