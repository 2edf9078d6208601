package apf

import (
	"fmt"
	"strings"

	"github.com/opslab/opslab/internal/figure"
)

// SeatsFigure draws each level's nominal seats out of serverSeats, one
// level a row, split into the seats it keeps (Min) and those it lends when
// idle; an Exempt level has none to draw. apfctl seats -o svg draws it.
func SeatsFigure(serverSeats int, seats []LevelSeats) []byte {
	tl := &figure.Timeline{
		Title: fmt.Sprintf("Seats of each priority level, out of the server's %d", serverSeats),
		X:     figure.Axis{Label: "seats"},
		Legend: []figure.Key{
			{Tone: figure.Blue, Shape: figure.Bar, Text: "seats the level keeps"},
			{Tone: figure.Purple, Shape: figure.Bar, Text: "seats it lends when idle"},
			{Tone: figure.Muted, Shape: figure.Dot, Text: "exempt: never limited"},
		},
	}
	var desc []string
	for _, s := range seats {
		r := figure.Row{Label: s.Level}
		if s.Exempt {
			r.Spans = []figure.Span{{Tone: figure.Muted, Shape: figure.Dot, Text: "exempt", Title: s.Level + " is exempt: its requests take no seat"}}
			desc = append(desc, s.Level+" exempt")
		} else {
			text := fmt.Sprintf("%d (lends %d)", s.Nominal, s.Lendable)
			r.Spans = []figure.Span{
				{From: 0, To: float64(s.Min), Tone: figure.Blue, Title: fmt.Sprintf("%s keeps %d seats", s.Level, s.Min)},
				{From: float64(s.Min), To: float64(s.Nominal), Tone: figure.Purple, Text: text, Title: fmt.Sprintf("%s: %d nominal seats, %d lent when idle", s.Level, s.Nominal, s.Lendable)},
			}
			desc = append(desc, fmt.Sprintf("%s %d nominal, %d lendable", s.Level, s.Nominal, s.Lendable))
		}
		tl.Rows = append(tl.Rows, r)
	}
	tl.Desc = fmt.Sprintf("Nominal seats of each priority level when the server has %d seats, and how many of them each lends: %s.", serverSeats, strings.Join(desc, "; "))
	return tl.SVG()
}

// RunFigure draws a traced simulation (Trace) of flows: the requests the
// first flow has waiting in queues, the other flows' together, and the
// first flow's requests rejected with 429 in each interval of `every`
// ticks between samples.
func RunFigure(title string, flows []Flow, res SimResult, samples []Sample, every int64) []byte {
	first := "the first flow"
	if len(flows) > 0 {
		first = flows[0].Name
	}
	var mine, others, rejected []figure.Point
	prev := 0
	peak, peakOthers, peakRejected := 0, 0, 0
	for _, s := range samples {
		q, o := 0, 0
		if len(s.Queued) > 0 {
			q = s.Queued[0]
			for _, n := range s.Queued[1:] {
				o += n
			}
		}
		r := 0
		if len(s.Rejected) > 0 {
			r = s.Rejected[0] - prev
			prev = s.Rejected[0]
		}
		peak, peakOthers, peakRejected = max(peak, q), max(peakOthers, o), max(peakRejected, r)
		x := float64(s.At)
		mine = append(mine, figure.Point{X: x, Y: float64(q)})
		others = append(others, figure.Point{X: x, Y: float64(o)})
		rejected = append(rejected, figure.Point{X: x, Y: float64(r)})
	}
	ch := &figure.Chart{
		Title: title,
		X:     figure.Axis{Label: "ticks of the logical clock"},
		Y:     figure.Axis{Label: "requests"},
		Series: []figure.Series{
			{Name: fmt.Sprintf("%s: queued", short(first)), Tone: figure.Orange, Step: true, Points: mine},
			{Name: fmt.Sprintf("%s: rejected (429) per %d ticks", short(first), every), Tone: figure.Red, Step: true, Points: rejected},
			{Name: fmt.Sprintf("the other %d flows: queued", max(len(flows)-1, 0)), Tone: figure.Blue, Step: true, Points: others},
		},
	}
	var othersRejected int
	for _, f := range res.Flows[min(1, len(res.Flows)):] {
		othersRejected += f.Rejected
	}
	sent, rej := 0, 0
	if len(res.Flows) > 0 {
		sent, rej = res.Flows[0].Sent, res.Flows[0].Rejected
	}
	ch.Desc = fmt.Sprintf("Over %d ticks, %s sent %d requests and had %d rejected with 429; at most %d of its requests waited in queues at once, and at most %d were rejected in %d ticks. The other %d flows had at most %d requests queued together and %d rejected.",
		res.End, first, sent, rej, peak, peakRejected, every, max(len(flows)-1, 0), peakOthers, othersRejected)
	return ch.SVG()
}

// short returns a flow's name without a service account's prefix.
func short(name string) string {
	if i := strings.LastIndex(name, ":"); i >= 0 {
		return name[i+1:]
	}
	return name
}
