package taints

import (
	"fmt"
	"slices"

	"github.com/opslab/opslab/internal/figure"
)

// OutageFigure draws runs of the zone-outage lab as a timeline: for each
// experiment, each zone where a taint went on or came off, the model's
// taints in one lane and the ones the lab saw in the other, dots for a
// taint put on and crosses for one taken off, in seconds from the health
// pass the lab switched the nodes after. The model's lane is its replay of
// the run (Replay): the controller's settings and the flips and passes the
// lab saw.
func OutageFigure(runs []Run) []byte {
	var rows []figure.Row
	end := 0.0
	for _, r := range runs {
		i := slices.IndexFunc(Experiments(OutageLayout), func(e Experiment) bool { return e.Name == r.Experiment })
		if i < 0 || len(r.Passes) == 0 {
			continue
		}
		e := Experiments(OutageLayout)[i]
		o := Outage{Rates: r.Rates, MonitorPeriod: r.MonitorPeriod, Layout: OutageLayout}
		fit, _ := o.Replay(e, r)
		observed := e
		observed.Flips, observed.Watch = r.Flips, r.End
		model := fit.Predict(observed).Marks
		zero := r.Passes[0]
		end = max(end, (r.End - zero).Seconds())
		for _, z := range OutageLayout {
			var spans []figure.Span
			add := func(marks []Mark, lane int, tone figure.Tone, who string) {
				for _, m := range marks {
					if m.Zone != z.Name {
						continue
					}
					at := (m.At - zero).Seconds()
					shape, verb := figure.Dot, "on"
					if !m.Added {
						shape, verb = figure.Cross, "off"
					}
					spans = append(spans, figure.Span{From: max(at, 0), Lane: lane, Tone: tone, Shape: shape,
						Title: fmt.Sprintf("%s %s %.1f s", who, verb, at)})
				}
			}
			add(model, 0, figure.Blue, "model")
			add(r.Marks, 1, figure.Orange, "controller")
			if len(spans) == 0 && z.Name != e.zoneOfInterest() {
				continue
			}
			// Past the end of its watch the lab saw nothing: a taint the
			// model puts there, or at its edge, is not one the lab missed.
			stop := (r.End - zero).Seconds()
			spans = append(spans, figure.Span{From: stop, Lane: 1, Tone: figure.Muted, Open: true,
				Title: fmt.Sprintf("the lab stopped watching at %.1f s", stop)})
			rows = append(rows, figure.Row{Label: e.Name + " · " + z.Name, Lanes: 2, Spans: spans})
		}
	}
	tl := figure.Timeline{
		Title: "A zone goes dark: the NoExecute taints, predicted and seen",
		Desc: "Per experiment and zone, the taints the model predicts (upper lane) and the controller's (lower), " +
			"in seconds from the health pass after the switch: one every 2 s for a few failed nodes, one every 10 s " +
			"when most of the large zone fails, none when most of the small zone fails, one every 2 s in a dead zone " +
			"while others live, none when every zone is dead. A pale bar marks where the lab stopped watching.",
		X:    figure.Axis{Label: "seconds from the health pass after the switch", Max: end, Steps: figure.TimeSteps},
		Rows: rows,
		Legend: []figure.Key{
			{Tone: figure.Blue, Shape: figure.Dot, Text: "the model: taint put on"},
			{Tone: figure.Orange, Shape: figure.Dot, Text: "the controller: taint put on"},
			{Tone: figure.Orange, Shape: figure.Cross, Text: "taken off"},
			{Tone: figure.Muted, Shape: figure.Bar, Open: true, Text: "no longer watched"},
		},
	}
	return tl.SVG()
}

// zoneOfInterest is the zone an experiment is about, shown even when
// nothing happened there: the point of small-partial is that nothing does.
func (e Experiment) zoneOfInterest() string {
	for _, f := range e.Flips {
		n := f.Node
		for _, z := range OutageLayout {
			if len(n) > 0 && n[0] == z.Name[len(z.Name)-1] {
				return z.Name
			}
		}
	}
	return ""
}
