package main

import (
	"fmt"
	"strings"
	"time"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/internal/figure"
)

// A drawing samples a scenario as it plays, for its figure: for each
// budget, how many of the pods it selects are Ready and its floor (the
// desiredHealthy the disruption controller computes), at the end of every
// instant of the logical clock.
type drawing struct {
	budgets []string
	ready   map[string][]figure.Point
	floor   map[string][]figure.Point
}

func newDrawing(c *pdb.Cluster) *drawing {
	d := &drawing{ready: map[string][]figure.Point{}, floor: map[string][]figure.Point{}}
	c.Watch(d.sample)
	return d
}

// sample records the cluster's state now, where it changed.
func (d *drawing) sample(c *pdb.Cluster) {
	now := c.Now().Seconds()
	for _, name := range c.BudgetNames() {
		b, _ := c.Budget(name)
		st, _ := c.FreshStatus(name)
		if _, ok := d.ready[name]; !ok {
			d.budgets = append(d.budgets, name)
		}
		ready := 0
		for _, p := range c.Pods() {
			if b.Selector.Matches(p.Labels) && p.Ready(c.Now()) {
				ready++
			}
		}
		d.ready[name] = addStep(d.ready[name], now, float64(ready))
		d.floor[name] = addStep(d.floor[name], now, float64(st.DesiredHealthy))
	}
}

// addStep appends a point of a step series where its value changes.
func addStep(ps []figure.Point, x, y float64) []figure.Point {
	if n := len(ps); n > 0 && ps[n-1].Y == y {
		return ps
	}
	if n := len(ps); n > 0 && ps[n-1].X == x {
		ps[n-1].Y = y
		return ps
	}
	return append(ps, figure.Point{X: x, Y: y})
}

// figure draws the scenario played on c: a step line per budget of its
// Ready pods, its floor dashed, and each eviction asked, allowed or
// refused, under the plot.
func (d *drawing) figure(title string, c *pdb.Cluster) []byte {
	d.sample(c)
	end := c.Now().Seconds()
	ch := &figure.Chart{
		Title:      title,
		X:          figure.Axis{Label: "time on the logical clock", Max: max(end, 1), Fmt: figure.Seconds, Steps: figure.TimeSteps},
		Y:          figure.Axis{Label: "pods", Fmt: func(v float64) string { return fmt.Sprint(v) }},
		MarksLabel: "evictions asked",
	}
	readyTones := []figure.Tone{figure.Blue, figure.Purple}
	floorTones := []figure.Tone{figure.Orange, figure.Muted}
	var desc []string
	for i, name := range d.budgets {
		ready := append(d.ready[name], figure.Point{X: end, Y: last(d.ready[name])})
		floor := append(d.floor[name], figure.Point{X: end, Y: last(d.floor[name])})
		ch.Series = append(ch.Series,
			figure.Series{Name: "Ready pods budget " + name + " selects", Tone: readyTones[i%2], Step: true, Points: ready},
			figure.Series{Name: "floor of " + name + " (desiredHealthy)", Tone: floorTones[i%2], Dashed: true, Step: true, Points: floor})
		desc = append(desc, fmt.Sprintf("Budget %s: Ready pods %s; floor %s; below the floor %s.", name, values(ready), values(floor), below(ready, floor)))
	}
	allowed, refused := 0, 0
	for _, e := range c.Log() {
		if e.Kind != pdb.EventEvict || e.Decision == nil || e.Decision.DryRun {
			continue
		}
		m := figure.Mark{X: e.At.Seconds(), Tone: figure.Green, Shape: figure.Dot, Title: fmt.Sprintf("%s %s allowed", pdb.At(e.At), e.Pod)}
		if e.Decision.Allowed {
			allowed++
		} else {
			refused++
			m.Tone, m.Shape, m.Title = figure.Red, figure.Cross, fmt.Sprintf("%s %s refused %d", pdb.At(e.At), e.Pod, e.Decision.Code)
		}
		ch.Marks = append(ch.Marks, m)
	}
	for _, s := range ch.Series {
		shape := figure.Line
		if s.Dashed {
			shape = figure.Dashed
		}
		ch.Legend = append(ch.Legend, figure.Key{Tone: s.Tone, Shape: shape, Text: s.Name})
	}
	ch.Legend = append(ch.Legend, figure.Key{Tone: figure.Green, Shape: figure.Dot, Text: "allowed"}, figure.Key{Tone: figure.Red, Shape: figure.Cross, Text: "refused"})
	asked := fmt.Sprintf("%d evictions were asked", allowed+refused)
	if allowed+refused == 1 {
		asked = "1 eviction was asked"
	}
	ch.Desc = fmt.Sprintf("Over %s of the logical clock, %s: %d allowed, %d refused. %s",
		time.Duration(end*float64(time.Second)), asked, allowed, refused, strings.Join(desc, " "))
	return ch.SVG()
}

func last(ps []figure.Point) float64 {
	if len(ps) == 0 {
		return 0
	}
	return ps[len(ps)-1].Y
}

// values says how a step series went: "3, then 2 at t=0s, then 3 at t=15s".
func values(ps []figure.Point) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 && p.Y == ps[i-1].Y {
			continue
		}
		if i == 0 {
			fmt.Fprintf(&b, "%v at %s", p.Y, pdb.At(secs(p.X)))
		} else {
			fmt.Fprintf(&b, ", then %v at %s", p.Y, pdb.At(secs(p.X)))
		}
	}
	return b.String()
}

// below lists the instants at which ready fell under floor.
func below(ready, floor []figure.Point) string {
	var at []string
	was := false
	for _, x := range instants(ready, floor) {
		is := valueAt(ready, x) < valueAt(floor, x)
		if is && !was {
			at = append(at, pdb.At(secs(x)))
		}
		was = is
	}
	if len(at) == 0 {
		return "never"
	}
	return "from " + strings.Join(at, ", from ")
}

func instants(a, b []figure.Point) []float64 {
	var xs []float64
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].X < b[j].X):
			xs = append(xs, a[i].X)
			i++
		case i == len(a) || b[j].X < a[i].X:
			xs = append(xs, b[j].X)
			j++
		default:
			xs = append(xs, a[i].X)
			i, j = i+1, j+1
		}
	}
	return xs
}

func valueAt(ps []figure.Point, x float64) float64 {
	v := 0.0
	for _, p := range ps {
		if p.X > x {
			break
		}
		v = p.Y
	}
	return v
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
