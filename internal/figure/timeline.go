package figure

import "fmt"

// A Timeline lays spans out in labelled rows on a shared x axis: a Gantt
// chart when the axis is time, a bar chart when the spans start at zero.
// A row may hold several lanes, such as a prediction and an observation of
// the same thing one above the other.
type Timeline struct {
	Title  string // shown above the timeline, and its <title>
	Desc   string // what it shows, in words: its <desc>
	X      Axis
	Rows   []Row
	Lines  []VLine // vertical references across every row: a deadline, a limit
	Legend []Key
}

// A Row is one labelled line of the timeline.
type Row struct {
	Label string
	Lanes int // 0 or 1: one lane
	Spans []Span
}

// A Span is a bar from From to To in one lane of its row, or, when Shape
// is Dot or Cross, a mark at From.
type Span struct {
	From, To float64
	Lane     int
	Tone     Tone
	Shape    Shape
	// Open draws a span with no end: it runs to the axis's end, pale.
	Open  bool
	Text  string // written just after the span
	Title string // its tooltip; Text if empty
}

// A VLine is a vertical reference line, labelled at its top.
type VLine struct {
	X     float64
	Label string
	Tone  Tone
}

const laneH = 18.0

// SVG draws the timeline.
func (tl *Timeline) SVG() []byte {
	xmax := tl.X.Max
	labelW := 0.0
	textW := 0.0
	for _, r := range tl.Rows {
		labelW = max(labelW, textWidth(r.Label))
		for _, s := range r.Spans {
			if tl.X.Max == 0 {
				xmax = max(xmax, s.To, s.From)
			}
			if !s.Open {
				textW = max(textW, textWidth(s.Text))
			}
		}
	}
	open := false
	for _, r := range tl.Rows {
		for _, s := range r.Spans {
			open = open || s.Open
		}
	}
	for _, l := range tl.Lines {
		if tl.X.Max == 0 {
			xmax = max(xmax, l.X)
		}
	}
	if open && tl.X.Max == 0 {
		xmax *= 1.15 // an open span runs past every end
	}
	xmax = max(xmax, 1)
	x0 := 16 + labelW + 12
	x1 := chartW - chartRight - min(textW+8, 200)
	top := 40.0
	if len(tl.Legend) > 0 {
		top = 56 + legendExtra(tl.Legend, chartW)
	}
	if len(tl.Lines) > 0 {
		top += 16 * float64(len(tl.Lines)) // each line's label on its own level
	}
	y := top
	height := top
	for _, r := range tl.Rows {
		height += float64(max(r.Lanes, 1))*laneH + 8
	}
	height += 48
	c := newCanvas(chartW, height, tl.Title, tl.Desc)
	c.text(16, 22, "start", Ink, tl.Title, ` font-weight="600" font-size="14"`)
	if len(tl.Legend) > 0 {
		c.legend(44, tl.Legend)
	}
	px := func(v float64) float64 { return x0 + (x1-x0)*v/xmax }
	bottom := height - 48
	for _, v := range tl.X.ticks(xmax) {
		if v > xmax {
			continue
		}
		c.line(px(v), top-4, px(v), bottom, "grid", "")
		c.text(px(v), bottom+16, "middle", Muted, tl.X.format(v), "")
	}
	if tl.X.Label != "" {
		c.text((x0+x1)/2, bottom+36, "middle", Muted, tl.X.Label, "")
	}
	for _, r := range tl.Rows {
		lanes := float64(max(r.Lanes, 1))
		c.text(16, y+lanes*laneH/2+4, "start", Ink, r.Label, "")
		for _, s := range r.Spans {
			ly := y + float64(s.Lane)*laneH
			title := s.Title
			if title == "" {
				title = s.Text
			}
			if s.Shape == Dot || s.Shape == Cross {
				c.shape(px(s.From), ly+laneH/2, s.Tone, s.Shape, title)
				if s.Text != "" {
					c.text(px(s.From)+10, ly+laneH/2+4, "start", Ink, s.Text, "")
				}
				continue
			}
			to := s.To
			opacity := ""
			if s.Open {
				to = xmax
				opacity = ` fill-opacity="0.35"`
			}
			if w := px(to) - px(s.From); w > 0 {
				fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" rx="2" class="f-%s"%s><title>%s</title></rect>`+"\n", n(px(s.From)), n(ly+3), n(w), n(laneH-6), s.Tone, opacity, esc(title))
			}
			switch {
			case s.Text == "":
			case s.Open:
				c.text(px(to)-6, ly+laneH/2+4, "end", Ink, s.Text, "")
			default:
				c.text(px(to)+6, ly+laneH/2+4, "start", Ink, s.Text, "")
			}
		}
		y += lanes*laneH + 8
	}
	c.line(x0, bottom, x1, bottom, "s-muted", "")
	for i, l := range tl.Lines {
		ty := top - 10 - 16*float64(len(tl.Lines)-1-i)
		tone := l.Tone
		if tone == "" {
			tone = Orange
		}
		c.line(px(l.X), ty+4, px(l.X), bottom, "s-"+string(tone), ` stroke-width="2" stroke-dasharray="6 4"`)
		anchor := "middle"
		if px(l.X)+textWidth(l.Label)/2 > chartW-8 {
			anchor = "end"
		}
		c.text(px(l.X), ty, anchor, tone, l.Label, "")
	}
	return c.bytes()
}
