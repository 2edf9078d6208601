package figure

import (
	"fmt"
	"math"
	"strings"
)

// A States diagram draws states as boxes on a grid and transitions as
// labelled arrows between them. The caller places each state in a column
// and a row: the layout is the author's, the states and the transitions
// are the model's.
type States struct {
	Title  string // shown above the diagram, and its <title>
	Desc   string // what it shows, in words: its <desc>
	States []State
	Edges  []Edge
	Legend []Key
}

// A State is one box, its label on one or two lines (split at "\n"), at a
// column and a row of the grid; halves place a box between two others.
type State struct {
	ID       string
	Label    string
	Col, Row float64
	Tone     Tone // its border; Muted if empty
}

// An Edge is a transition from one state to another, labelled with what
// causes it.
type Edge struct {
	From, To string
	Label    string
	Tone     Tone    // Muted if empty
	At       float64 // where along the edge its label sits, 0 to 1; 0: the middle
}

const (
	cellW, cellH = 210.0, 92.0
	boxW, boxH   = 192.0, 40.0
)

// SVG draws the diagram. An edge whose states are missing is drawn from
// or to nowhere, so the mistake shows.
func (st *States) SVG() []byte {
	cols, rows := 1.0, 1.0
	for _, s := range st.States {
		cols, rows = max(cols, s.Col+1), max(rows, s.Row+1)
	}
	top := 40.0
	if len(st.Legend) > 0 {
		top = 56 + legendExtra(st.Legend, chartW)
	}
	w := max(cols*cellW+32, chartW)
	h := top + rows*cellH + 8
	c := newCanvas(w, h, st.Title, st.Desc)
	c.text(16, 22, "start", Ink, st.Title, ` font-weight="600" font-size="14"`)
	if len(st.Legend) > 0 {
		c.legend(44, st.Legend)
	}
	left := (w - cols*cellW) / 2
	centre := map[string][2]float64{}
	for _, s := range st.States {
		centre[s.ID] = [2]float64{left + (s.Col+0.5)*cellW, top + (s.Row+0.5)*cellH}
	}
	for _, e := range st.Edges {
		a, b := centre[e.From], centre[e.To]
		pa, pb := clip(a, b), clip(b, a)
		ax, ay, bx, by := pa[0], pa[1], pb[0], pb[1]
		tone := e.Tone
		if tone == "" {
			tone = Muted
		}
		c.line(ax, ay, bx, by, "s-"+string(tone), ` stroke-width="1.5"`)
		// The arrowhead, drawn rather than a marker: a marker needs an id.
		ang := math.Atan2(by-ay, bx-ax)
		p1x, p1y := bx-9*math.Cos(ang-0.4), by-9*math.Sin(ang-0.4)
		p2x, p2y := bx-9*math.Cos(ang+0.4), by-9*math.Sin(ang+0.4)
		fmt.Fprintf(&c.b, `<path d="M%s %sL%s %sL%s %sZ" class="f-%s"/>`+"\n", n(bx), n(by), n(p1x), n(p1y), n(p2x), n(p2y), tone)
		if e.Label != "" {
			f := e.At
			if f == 0 {
				f = 0.5
			}
			mx, my := ax+(bx-ax)*f, ay+(by-ay)*f
			anchor, dx, dy := "middle", 0.0, -8.0
			if math.Abs(bx-ax) < 1 { // vertical: label beside it
				anchor, dx, dy = "start", 6, 4
			}
			c.text(mx+dx, my+dy, anchor, Ink, e.Label, ` font-size="11"`)
		}
	}
	for _, s := range st.States {
		p := centre[s.ID]
		tone := s.Tone
		if tone == "" {
			tone = Muted
		}
		fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" rx="8" class="bg s-%s" stroke-width="2"/>`+"\n", n(p[0]-boxW/2), n(p[1]-boxH/2), n(boxW), n(boxH), tone)
		if first, second, two := strings.Cut(s.Label, "\n"); two {
			c.text(p[0], p[1]-3, "middle", Ink, first, "")
			c.text(p[0], p[1]+12, "middle", Muted, second, ` font-size="11"`)
		} else {
			c.text(p[0], p[1]+4, "middle", Ink, s.Label, "")
		}
	}
	return c.bytes()
}

// clip returns where the segment from a's centre towards b's leaves a's box.
func clip(a, b [2]float64) [2]float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	if dx == 0 && dy == 0 {
		return a
	}
	t := math.Inf(1)
	if dx != 0 {
		t = min(t, (boxW/2+2)/math.Abs(dx))
	}
	if dy != 0 {
		t = min(t, (boxH/2+2)/math.Abs(dy))
	}
	return [2]float64{a[0] + dx*t, a[1] + dy*t}
}
