package figure

import (
	"fmt"
	"strings"
)

// A Chart plots values over a shared x axis: series as lines (or steps, for
// a count that changes at instants), and marks, events at an instant, in a
// band under the plot, stacked when they share an instant.
type Chart struct {
	Title string // shown above the chart, and its <title>
	Desc  string // what it shows, in words: its <desc>
	X, Y  Axis
	// Series are drawn in order, the first under the others.
	Series []Series
	// Marks are drawn in the band under the plot; MarksLabel names the
	// band at its left.
	Marks      []Mark
	MarksLabel string
	// Legend lists the keys under the title; nil: one per series.
	Legend []Key
}

// A Series is a line through points sorted by X.
type Series struct {
	Name   string
	Tone   Tone
	Dashed bool // a limit rather than a measure
	// Step draws a value that holds until the next point, as a count
	// does: horizontal to the next X, then vertical.
	Step   bool
	Points []Point
}

// A Point of a series.
type Point struct{ X, Y float64 }

// A Mark is an event at an instant.
type Mark struct {
	X     float64
	Tone  Tone
	Shape Shape  // Dot or Cross
	Title string // its tooltip, and what a screen reader's exploration finds
}

const (
	chartW     = 720.0
	plotH      = 200.0
	markStep   = 12.0
	chartRight = 24.0
)

// SVG draws the chart.
func (ch *Chart) SVG() []byte {
	xmax, ymax := ch.X.Max, ch.Y.Max
	for _, s := range ch.Series {
		for _, p := range s.Points {
			xmax, ymax = max(xmax, p.X), max(ymax, p.Y)
		}
	}
	if ch.X.Max == 0 {
		for _, m := range ch.Marks {
			xmax = max(xmax, m.X)
		}
	}
	if ch.Y.Max == 0 {
		ymax = ymax * 1.1
	}
	xmax, ymax = max(xmax, 1), max(ymax, 1)

	// Marks at the same instant stack downwards.
	stack := map[float64]int{}
	depth := 0
	levels := make([]int, len(ch.Marks))
	for i, m := range ch.Marks {
		levels[i] = stack[m.X]
		stack[m.X]++
		depth = max(depth, stack[m.X])
	}

	legend := ch.Legend
	if legend == nil {
		for _, s := range ch.Series {
			shape := Line
			if s.Dashed {
				shape = Dashed
			}
			legend = append(legend, Key{Tone: s.Tone, Shape: shape, Text: s.Name})
		}
	}
	left := 16 + ch.Y.labelWidth(ymax) + 10
	if ch.Y.Label != "" {
		left += 20
	}
	top := 56 + legendExtra(legend, chartW)
	if len(legend) == 0 {
		top = 40
	}
	x0, x1 := left, chartW-chartRight
	y0, y1 := top, top+plotH // y1 is the axis
	band := 0.0
	if len(ch.Marks) > 0 {
		band = 14 + float64(depth)*markStep
		if ch.MarksLabel != "" {
			band += 14
		}
	}
	height := y1 + band + 44
	c := newCanvas(chartW, height, ch.Title, ch.Desc)
	c.text(16, 22, "start", Ink, ch.Title, ` font-weight="600" font-size="14"`)
	if len(legend) > 0 {
		c.legend(44, legend)
	}
	px := func(v float64) float64 { return x0 + (x1-x0)*v/xmax }
	py := func(v float64) float64 { return y1 - (y1-y0)*v/ymax }

	// Grid and y ticks.
	for _, v := range ch.Y.ticks(ymax) {
		if v > ymax {
			continue
		}
		y := py(v)
		c.line(x0, y, x1, y, "grid", "")
		c.text(x0-6, y+4, "end", Muted, ch.Y.format(v), "")
	}
	if ch.Y.Label != "" {
		mid := (y0 + y1) / 2
		c.text(16, mid, "middle", Muted, ch.Y.Label, fmt.Sprintf(` transform="rotate(-90 16 %s)"`, n(mid)))
	}
	// Series.
	for _, s := range ch.Series {
		if len(s.Points) == 0 {
			continue
		}
		var d strings.Builder
		for i, p := range s.Points {
			if s.Step && i > 0 && i < len(s.Points)-1 && p.Y == s.Points[i-1].Y {
				continue // the line holds: no point to draw
			}
			switch {
			case i == 0:
				fmt.Fprintf(&d, "M%s %s", n(px(p.X)), n(py(p.Y)))
			case s.Step:
				fmt.Fprintf(&d, "H%sV%s", n(px(p.X)), n(py(p.Y)))
			default:
				fmt.Fprintf(&d, "L%s %s", n(px(p.X)), n(py(p.Y)))
			}
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&c.b, `<path d="%s" fill="none" class="s-%s" stroke-width="2"%s><title>%s</title></path>`+"\n", d.String(), s.Tone, dash, esc(s.Name))
	}
	// The x axis, the marks' band under it, then the ticks' labels.
	c.line(x0, y1, x1, y1, "s-muted", "")
	by := y1
	if len(ch.Marks) > 0 {
		if ch.MarksLabel != "" {
			c.text(x0, y1+16, "start", Muted, ch.MarksLabel, "")
			by += 14
		}
		for i, m := range ch.Marks {
			c.shape(px(m.X), by+12+float64(levels[i])*markStep, m.Tone, m.Shape, m.Title)
		}
		by += band - 14*boolf(ch.MarksLabel != "")
	}
	for _, v := range ch.X.ticks(xmax) {
		if v > xmax {
			continue
		}
		x := px(v)
		c.line(x, y1, x, y1+4, "s-muted", "")
		c.text(x, by+16, "middle", Muted, ch.X.format(v), "")
	}
	if ch.X.Label != "" {
		c.text((x0+x1)/2, by+36, "middle", Muted, ch.X.Label, "")
	}
	return c.bytes()
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
