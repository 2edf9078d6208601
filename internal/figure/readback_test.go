package figure

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opslab/opslab/internal/prop"
)

// The read-back tests hold a figure to its data the way a reader reads it:
// from the SVG alone, the axis's labelled ticks give the scale, and every
// bar, mark, line and series, found by its tooltip, must sit where that
// scale puts its values, in its own row, within the rounding to whole
// units. They draw random timelines and charts, and shrink a failing one
// to the smallest.

// An element is one SVG element, flattened: its name, attributes, text,
// and the text of its <title> child (its tooltip).
type element struct {
	name, text, title string
	attr              map[string]string
}

func (e element) num(name string) float64 {
	v, err := strconv.ParseFloat(e.attr[name], 64)
	if err != nil {
		panic(fmt.Sprintf("<%s %s=%q> is not a number", e.name, name, e.attr[name]))
	}
	return v
}

// parse flattens an SVG document into its elements, in document order.
func parse(svg []byte) ([]element, error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []element
	var open []int // indexes in out of the elements being read
	for {
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			out = append(out, e)
			open = append(open, len(out)-1)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			if len(open) == 0 {
				continue
			}
			i := open[len(open)-1]
			out[i].text += string(tok)
			if out[i].name == "title" && len(open) > 1 {
				out[open[len(open)-2]].title += string(tok)
			}
		}
	}
}

// outside names the first element drawn outside the figure's view box, or
// returns "": a mark outside it is cut off, whatever it encodes.
func outside(els []element) string {
	var w, h float64
	fmt.Sscanf(els[0].attr["viewBox"], "0 0 %g %g", &w, &h)
	in := func(x, y float64) bool { return x >= 0 && x <= w && y >= 0 && y <= h }
	for _, e := range els {
		var pts [][2]float64
		switch e.name {
		case "text":
			pts = [][2]float64{{e.num("x"), e.num("y")}}
		case "rect":
			if e.attr["x"] == "" {
				continue // the background
			}
			x, y := e.num("x"), e.num("y")
			pts = [][2]float64{{x, y}, {x + e.num("width"), y + e.num("height")}}
		case "circle":
			pts = [][2]float64{{e.num("cx"), e.num("cy")}}
		case "line":
			pts = [][2]float64{{e.num("x1"), e.num("y1")}, {e.num("x2"), e.num("y2")}}
		case "path":
			for _, v := range vertices(e.attr["d"]) {
				pts = append(pts, [2]float64{v.x, v.y})
			}
		}
		for _, p := range pts {
			if !in(p[0], p[1]) {
				return fmt.Sprintf("a <%s> %q is drawn at (%g, %g), outside the %gx%g figure", e.name, e.text+e.title, p[0], p[1], w, h)
			}
		}
	}
	return ""
}

// drawn parses a figure and checks that nothing leaves its view box.
func drawn(svg []byte) ([]element, string) {
	els, err := parse(svg)
	if err != nil {
		return nil, "not XML: " + err.Error()
	}
	return els, outside(els)
}

// A scale maps a value to a position: pos = at + per*value.
type scale struct{ at, per float64 }

func (s scale) value(pos float64) float64 { return (pos - s.at) / s.per }

// fit returns the scale through labelled ticks (position, value), from the
// first and the last, and checks the others against it.
func fit(ticks [][2]float64) (scale, string) {
	if len(ticks) < 2 {
		return scale{}, fmt.Sprintf("%d labelled ticks, want at least 2 to read a scale from", len(ticks))
	}
	a, b := ticks[0], ticks[len(ticks)-1]
	per := (b[0] - a[0]) / (b[1] - a[1])
	s := scale{at: a[0] - per*a[1], per: per}
	for _, tk := range ticks {
		if d := math.Abs(s.at + s.per*tk[1] - tk[0]); d > 1.5 {
			return s, fmt.Sprintf("the tick %g sits at %g, %.1f units off the scale of the others", tk[1], tk[0], d)
		}
	}
	return s, ""
}

// near says whether a value read back at a position rounded to whole units
// is v: within 1.5 units of the scale.
func near(s scale, got, v float64) bool { return math.Abs(got-v) <= 1.5/math.Abs(s.per)+1e-9 }

// genTimeline draws a random timeline: up to five rows of one or two lanes,
// bars (some open), dots and crosses with distinct tooltips, and vertical
// lines, on an axis from the data or a given maximum.
func genTimeline(r *rand.Rand) Timeline {
	tl := Timeline{Title: "t", Desc: "d"}
	hi := prop.Pick(r, 1.0, 10, 90, 600, 3600, 86400)
	end := 0.0
	for i := range 1 + r.IntN(5) {
		row := Row{Label: fmt.Sprintf("row-%d", i), Lanes: r.IntN(3)}
		for j := range r.IntN(4) {
			from := math.Round(r.Float64()*hi*10) / 10
			s := Span{From: from, To: from + math.Round(r.Float64()*hi*10)/10, Lane: r.IntN(max(row.Lanes, 1)),
				Tone: prop.Pick(r, Blue, Green, Red), Shape: prop.Pick(r, Bar, Bar, Dot, Cross), Open: r.IntN(6) == 0,
				Title: fmt.Sprintf("span-%d-%d", i, j)}
			end = max(end, s.To)
			row.Spans = append(row.Spans, s)
		}
		tl.Rows = append(tl.Rows, row)
	}
	for k := range r.IntN(3) {
		x := math.Round(r.Float64() * hi)
		end = max(end, x)
		tl.Lines = append(tl.Lines, VLine{X: x, Label: fmt.Sprintf("line-%d", k)})
	}
	if r.IntN(3) == 0 {
		tl.X.Max = math.Ceil(max(end, 1) * (1 + r.Float64()))
	}
	return tl
}

// without returns xs without its i-th element, leaving xs as it was.
func without[T any](xs []T, i int) []T { return slices.Delete(slices.Clone(xs), i, i+1) }

// fewer returns copies of c, each with one of xs[from:] left out, put in
// the copy by set: the shrinkers' one move.
func fewer[C, T any](c C, xs []T, from int, set func(*C, []T)) []C {
	var out []C
	for i := from; i < len(xs); i++ {
		less := c
		set(&less, without(xs, i))
		out = append(out, less)
	}
	return out
}

func shrinkTimeline(tl Timeline) []Timeline {
	out := fewer(tl, tl.Rows, 0, func(t *Timeline, rows []Row) { t.Rows = rows })
	for i, r := range tl.Rows {
		out = append(out, fewer(tl, r.Spans, 0, func(t *Timeline, spans []Span) {
			t.Rows = slices.Clone(t.Rows)
			t.Rows[i].Spans = spans
		})...)
	}
	return append(out, fewer(tl, tl.Lines, 0, func(t *Timeline, lines []VLine) { t.Lines = lines })...)
}

// readTimeline checks a drawn timeline against its data.
func readTimeline(tl Timeline) string {
	els, msg := drawn(tl.SVG())
	if msg != "" {
		return msg
	}
	grid := map[float64]bool{}
	axisEnd := math.NaN()
	for _, e := range els {
		if e.name == "line" && e.attr["class"] == "grid" {
			grid[e.num("x1")] = true
		}
		if e.name == "line" && e.attr["class"] == "s-muted" {
			axisEnd = e.num("x2")
		}
	}
	var ticks [][2]float64
	rowY := map[string]float64{}
	var rows []string
	for _, e := range els {
		if e.name != "text" {
			continue
		}
		if v, err := strconv.ParseFloat(e.text, 64); err == nil && e.attr["text-anchor"] == "middle" && grid[e.num("x")] {
			ticks = append(ticks, [2]float64{e.num("x"), v})
		}
		if strings.HasPrefix(e.text, "row-") {
			rowY[e.text] = e.num("y")
			rows = append(rows, e.text)
		}
	}
	var want []string
	for _, r := range tl.Rows {
		want = append(want, r.Label)
	}
	if !slices.Equal(rows, want) {
		return fmt.Sprintf("rows drawn top to bottom %q, want %q", rows, want)
	}
	for i := 1; i < len(rows); i++ {
		if rowY[rows[i]] <= rowY[rows[i-1]] {
			return fmt.Sprintf("row %s is drawn above row %s", rows[i], rows[i-1])
		}
	}
	s, msg := fit(ticks)
	if msg != "" {
		return msg
	}
	if s.per <= 0 {
		return fmt.Sprintf("the axis runs right to left (%g units a unit of value)", s.per)
	}
	byTitle := map[string]element{}
	for _, e := range els {
		if e.title != "" && e.name != "svg" {
			byTitle[e.title] = e
		}
	}
	for _, r := range tl.Rows {
		lanes := float64(max(r.Lanes, 1))
		rowTop := rowY[r.Label] - 4 - lanes*laneH/2
		for _, sp := range r.Spans {
			e, ok := byTitle[sp.Title]
			var x, cy float64
			switch {
			case sp.Shape == Dot || sp.Shape == Cross:
				if !ok {
					return fmt.Sprintf("%s (a mark at %g) is not drawn", sp.Title, sp.From)
				}
				if sp.Shape == Dot {
					x, cy = e.num("cx"), e.num("cy")
				} else {
					m := regexp.MustCompile(`^M(-?[0-9.]+) (-?[0-9.]+)`).FindStringSubmatch(e.attr["d"])
					mx, _ := strconv.ParseFloat(m[1], 64)
					my, _ := strconv.ParseFloat(m[2], 64)
					x, cy = mx+4, my+4
				}
				if got := s.value(x); !near(s, got, sp.From) {
					return fmt.Sprintf("%s marks %g, drawn at %g", sp.Title, sp.From, got)
				}
			default:
				if !ok {
					if sp.To > sp.From || sp.Open {
						return fmt.Sprintf("%s (a bar from %g to %g) is not drawn", sp.Title, sp.From, sp.To)
					}
					continue
				}
				x, w := e.num("x"), e.num("width")
				cy = e.num("y") + e.num("height")/2
				if got := s.value(x); !near(s, got, sp.From) {
					return fmt.Sprintf("%s starts at %g, drawn from %g", sp.Title, sp.From, got)
				}
				switch {
				case sp.Open && math.Abs(x+w-axisEnd) > 1.5:
					return fmt.Sprintf("%s is open but ends at %g, not at the axis's end %g", sp.Title, x+w, axisEnd)
				case !sp.Open && !near(s, s.value(x+w), sp.To):
					return fmt.Sprintf("%s ends at %g, drawn to %g", sp.Title, sp.To, s.value(x+w))
				}
			}
			if want := rowTop + float64(sp.Lane)*laneH + laneH/2; math.Abs(cy-want) > 1.5 {
				return fmt.Sprintf("%s (lane %d of %s) is drawn at y %g, want %g", sp.Title, sp.Lane, r.Label, cy, want)
			}
		}
	}
	var lines []float64
	for _, e := range els {
		if e.name == "line" && e.attr["stroke-dasharray"] == "6 4" {
			lines = append(lines, s.value(e.num("x1")))
		}
	}
	if len(lines) != len(tl.Lines) {
		return fmt.Sprintf("%d reference lines drawn, want %d", len(lines), len(tl.Lines))
	}
	for i, l := range tl.Lines {
		if !near(s, lines[i], l.X) {
			return fmt.Sprintf("%s at %g is drawn at %g", l.Label, l.X, lines[i])
		}
	}
	return ""
}

func TestTimelineReadsBack(t *testing.T) {
	prop.Check(t, 300, 2026, genTimeline, shrinkTimeline, readTimeline)
}

// genChart draws a random chart: up to three series, some steps, some
// dashed, with points in increasing X, and marks.
func genChart(r *rand.Rand) Chart {
	ch := Chart{Title: "c", Desc: "d"}
	hx := prop.Pick(r, 1.0, 10, 90, 600, 3600)
	hy := prop.Pick(r, 1.0, 5, 12, 400, 10000)
	for i := range 1 + r.IntN(3) {
		s := Series{Name: fmt.Sprintf("series-%d", i), Tone: prop.Pick(r, Blue, Green, Purple), Step: r.IntN(2) == 0, Dashed: r.IntN(4) == 0}
		x := 0.0
		for range 1 + r.IntN(8) {
			s.Points = append(s.Points, Point{X: x, Y: math.Round(r.Float64() * hy)})
			x += math.Round(r.Float64()*hx/4*10) / 10
		}
		ch.Series = append(ch.Series, s)
	}
	for k := range r.IntN(5) {
		ch.Marks = append(ch.Marks, Mark{X: math.Round(r.Float64() * hx), Tone: Red, Shape: prop.Pick(r, Dot, Cross), Title: fmt.Sprintf("mark-%d", k)})
	}
	if r.IntN(2) == 0 {
		ch.MarksLabel = "marks"
	}
	return ch
}

func shrinkChart(ch Chart) []Chart {
	out := fewer(ch, ch.Series, 0, func(c *Chart, series []Series) { c.Series = series })
	for i, s := range ch.Series {
		// A series keeps its first point, at X 0.
		out = append(out, fewer(ch, s.Points, 1, func(c *Chart, points []Point) {
			c.Series = slices.Clone(c.Series)
			c.Series[i].Points = points
		})...)
	}
	return append(out, fewer(ch, ch.Marks, 0, func(c *Chart, marks []Mark) { c.Marks = marks })...)
}

// vertex is a corner of a drawn path.
type vertex struct{ x, y float64 }

// vertices reads the corners of a path drawn with M, L, H and V.
func vertices(d string) []vertex {
	var out []vertex
	var cur vertex
	for _, m := range regexp.MustCompile(`([MLHV])(-?[0-9.]+)(?: (-?[0-9.]+))?`).FindAllStringSubmatch(d, -1) {
		a, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseFloat(m[3], 64)
		switch m[1] {
		case "M", "L":
			cur = vertex{a, b}
		case "H":
			cur.x = a
			continue // the corner is where V ends
		case "V":
			cur.y = a
		}
		out = append(out, cur)
	}
	return out
}

// readChart checks a drawn chart against its data.
func readChart(ch Chart) string {
	els, msg := drawn(ch.SVG())
	if msg != "" {
		return msg
	}
	var xt, yt [][2]float64
	for _, e := range els {
		if e.name != "text" || e.attr["class"] != "f-muted" {
			continue
		}
		v, err := strconv.ParseFloat(e.text, 64)
		if err != nil {
			continue
		}
		switch e.attr["text-anchor"] {
		case "middle":
			xt = append(xt, [2]float64{e.num("x"), v})
		case "end":
			yt = append(yt, [2]float64{e.num("y") - 4, v})
		}
	}
	sx, msg := fit(xt)
	if msg != "" {
		return "x axis: " + msg
	}
	sy, msg := fit(yt)
	if msg != "" {
		return "y axis: " + msg
	}
	if sx.per <= 0 || sy.per >= 0 {
		return fmt.Sprintf("the x axis grows by %g units a unit of value and the y axis by %g: want x to the right, y upwards", sx.per, sy.per)
	}
	byTitle := map[string]element{}
	for _, e := range els {
		if e.title != "" && e.name != "svg" {
			byTitle[e.title] = e
		}
	}
	for _, s := range ch.Series {
		e, ok := byTitle[s.Name]
		if !ok {
			return fmt.Sprintf("%s is not drawn", s.Name)
		}
		vs := vertices(e.attr["d"])
		for j, p := range s.Points {
			if s.Step {
				// A step holds its value from its point to the next: the
				// value drawn at p.X is the last corner's at or before
				// it, once every point at p.X is drawn.
				if j+1 < len(s.Points) && s.Points[j+1].X == p.X {
					continue
				}
				// Points closer than a unit share their corners: any of
				// those may carry the value, or the one before them
				// when the value held there.
				held, ok := math.NaN(), false
				for _, v := range vs {
					switch x := sx.value(v.x); {
					case near(sx, x, p.X):
						ok = ok || near(sy, sy.value(v.y), p.Y)
					case x < p.X:
						held = sy.value(v.y)
					}
				}
				if !ok && !near(sy, held, p.Y) {
					return fmt.Sprintf("%s holds %g from %g, drawn as %g", s.Name, p.Y, p.X, held)
				}
				continue
			}
			// A line has a corner at each point.
			if !slices.ContainsFunc(vs, func(v vertex) bool { return near(sx, sx.value(v.x), p.X) && near(sy, sy.value(v.y), p.Y) }) {
				return fmt.Sprintf("%s has no corner at its point (%g, %g)", s.Name, p.X, p.Y)
			}
		}
	}
	for _, m := range ch.Marks {
		e, ok := byTitle[m.Title]
		if !ok {
			return fmt.Sprintf("%s is not drawn", m.Title)
		}
		x := 0.0
		if m.Shape == Dot {
			x = e.num("cx")
		} else {
			mx, _ := strconv.ParseFloat(regexp.MustCompile(`^M(-?[0-9.]+)`).FindStringSubmatch(e.attr["d"])[1], 64)
			x = mx + 4
		}
		if got := sx.value(x); !near(sx, got, m.X) {
			return fmt.Sprintf("%s at %g is drawn at %g", m.Title, m.X, got)
		}
	}
	return ""
}

func TestChartReadsBack(t *testing.T) {
	prop.Check(t, 300, 2026, genChart, shrinkChart, readChart)
}

// genStates draws a random diagram: up to six states in distinct cells of
// a grid, on whole or half columns and whole rows, and edges between two
// different states.
func genStates(r *rand.Rand) States {
	st := States{Title: "s", Desc: "d"}
	used := map[[2]float64]bool{}
	for i := range 1 + r.IntN(6) {
		cell := [2]float64{float64(r.IntN(4)), float64(r.IntN(4))}
		if r.IntN(4) == 0 {
			cell[0] += 0.5
		}
		if used[cell] || used[[2]float64{cell[0] - 0.5, cell[1]}] || used[[2]float64{cell[0] + 0.5, cell[1]}] {
			continue
		}
		used[cell] = true
		st.States = append(st.States, State{ID: fmt.Sprintf("s%d", i), Label: fmt.Sprintf("state-%d\nsecond line", i), Col: cell[0], Row: cell[1], Tone: prop.Pick(r, Green, Red, Tone(""))})
	}
	for k := range r.IntN(6) {
		if len(st.States) < 2 {
			break
		}
		a, b := r.IntN(len(st.States)), r.IntN(len(st.States))
		if a == b {
			continue
		}
		st.Edges = append(st.Edges, Edge{From: st.States[a].ID, To: st.States[b].ID, Label: fmt.Sprintf("edge-%d", k), At: prop.Pick(r, 0, 0.3, 0.8)})
	}
	return st
}

func shrinkStates(st States) []States {
	return fewer(st, st.Edges, 0, func(s *States, edges []Edge) { s.Edges = edges })
}

// readStates checks a drawn diagram: every state is a box around its
// label, no two boxes overlap, and every edge runs from its first state's
// border to its second's, where its arrowhead points.
func readStates(st States) string {
	els, msg := drawn(st.SVG())
	if msg != "" {
		return msg
	}
	type box struct{ x, y, w, h float64 }
	var boxes []box
	var lines, heads []element
	labels := map[string]element{}
	for _, e := range els {
		switch {
		case e.name == "rect" && e.attr["rx"] == "8":
			boxes = append(boxes, box{e.num("x"), e.num("y"), e.num("width"), e.num("height")})
		case e.name == "line" && e.attr["stroke-width"] == "1.5":
			lines = append(lines, e)
		case e.name == "path" && strings.HasSuffix(e.attr["d"], "Z"):
			heads = append(heads, e)
		case e.name == "text":
			labels[e.text] = e
		}
	}
	if len(boxes) != len(st.States) || len(lines) != len(st.Edges) || len(heads) != len(st.Edges) {
		return fmt.Sprintf("%d boxes, %d lines and %d arrowheads for %d states and %d edges", len(boxes), len(lines), len(heads), len(st.States), len(st.Edges))
	}
	at := map[string]box{}
	for i, s := range st.States {
		b := boxes[i]
		at[s.ID] = b
		first, _, _ := strings.Cut(s.Label, "\n")
		l := labels[first]
		if x, y := l.num("x"), l.num("y"); x < b.x || x > b.x+b.w || y < b.y || y > b.y+b.h {
			return fmt.Sprintf("%s's label is at (%g, %g), outside its box %+v", s.ID, x, y, b)
		}
		for j, o := range boxes[:i] {
			if b.x < o.x+o.w && o.x < b.x+b.w && b.y < o.y+o.h && o.y < b.y+b.h {
				return fmt.Sprintf("the boxes of %s and %s overlap", s.ID, st.States[j].ID)
			}
		}
	}
	// onBorder says whether (x, y) is on b's border, give or take 3 units.
	onBorder := func(b box, x, y float64) bool {
		inOuter := x >= b.x-3 && x <= b.x+b.w+3 && y >= b.y-3 && y <= b.y+b.h+3
		inInner := x > b.x+1 && x < b.x+b.w-1 && y > b.y+1 && y < b.y+b.h-1
		return inOuter && !inInner
	}
	for k, e := range st.Edges {
		l := lines[k]
		x1, y1, x2, y2 := l.num("x1"), l.num("y1"), l.num("x2"), l.num("y2")
		if !onBorder(at[e.From], x1, y1) {
			return fmt.Sprintf("%s starts at (%g, %g), not on %s's border %+v", e.Label, x1, y1, e.From, at[e.From])
		}
		if !onBorder(at[e.To], x2, y2) {
			return fmt.Sprintf("%s ends at (%g, %g), not on %s's border %+v", e.Label, x2, y2, e.To, at[e.To])
		}
		if v := vertices(heads[k].attr["d"]); len(v) == 0 || math.Abs(v[0].x-x2) > 1 || math.Abs(v[0].y-y2) > 1 {
			return fmt.Sprintf("%s's arrowhead is not at its end (%g, %g)", e.Label, x2, y2)
		}
		if _, ok := labels[e.Label]; !ok {
			return fmt.Sprintf("%s's label is not drawn", e.Label)
		}
	}
	return ""
}

func TestStatesReadBack(t *testing.T) {
	prop.Check(t, 300, 2026, genStates, shrinkStates, readStates)
}

// TestOpenKeyLooksLikeAnOpenSpan: a legend key for open spans is drawn
// pale, as they are, and any other key solid.
func TestOpenKeyLooksLikeAnOpenSpan(t *testing.T) {
	tl := Timeline{Title: "t", Desc: "d", Legend: []Key{{Tone: Green, Shape: Bar, Text: "open", Open: true}, {Tone: Blue, Shape: Bar, Text: "closed"}},
		Rows: []Row{{Label: "r", Spans: []Span{{From: 1, Tone: Green, Open: true, Title: "a"}, {From: 0, To: 1, Tone: Blue, Title: "b"}}}}}
	els, msg := drawn(tl.SVG())
	if msg != "" {
		t.Fatal(msg)
	}
	pale := map[string]bool{}
	for _, e := range els {
		if e.name == "rect" && e.attr["class"] != "bg" {
			pale[e.attr["class"]+" "+e.title] = e.attr["fill-opacity"] != ""
		}
	}
	want := map[string]bool{"f-green ": true, "f-blue ": false, "f-green a": true, "f-blue b": false}
	for k, v := range want {
		if pale[k] != v {
			t.Errorf("%q drawn pale %v, want %v (all: %v)", k, pale[k], v, pale)
		}
	}
}
