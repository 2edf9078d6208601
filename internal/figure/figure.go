// Package figure draws the course's figures as SVG: charts of values over
// time, timelines of spans on a shared axis (Gantt charts, bar charts, a
// timetable) and state diagrams. The chapters' models compute what is
// drawn; this package only lays it out.
//
// A figure is a file a reader meets in three places, and the package is
// written for all three: on a Git host, where the SVG is an image; on the
// course's site, where it is inlined in the page; and on paper. So:
//
//   - text is SVG text, and the figure has a <title> and a <desc>, which a
//     screen reader reads: the SVG is role="img", its name the title;
//   - no script, no external font (a generic family), no id, so several
//     figures inlined in one page do not collide;
//   - colours come from custom properties set in the figure's own style
//     sheet, a light palette and a dark one. The dark one applies under
//     prefers-color-scheme: dark, and the site's theme toggle (the
//     data-theme attribute on the page's root) overrides the system's
//     choice, which only an inlined figure can see. Every colour, the
//     background included, comes from the same palette, so a figure is
//     legible whichever palette applies; print takes the light one;
//   - output is deterministic: the same figure gives the same bytes, which
//     is how a stale figure is caught (see package figuretest).
//
// Output stays small: a figure of the course's scenarios is a few
// kilobytes; MaxBytes is the most a committed figure may weigh.
package figure

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// MaxBytes is the most a figure may weigh.
const MaxBytes = 40 << 10

// A Tone is a colour role of the palette, not a colour: it names what a
// mark means, and each palette gives it a colour with enough contrast on
// that palette's background.
type Tone string

const (
	Ink    Tone = "ink"    // text and the main series
	Muted  Tone = "muted"  // axes, secondary text
	Blue   Tone = "blue"   // a neutral quantity
	Green  Tone = "green"  // allowed, done, within bounds
	Red    Tone = "red"    // refused, over a limit
	Orange Tone = "orange" // waiting, a limit
	Purple Tone = "purple" // a second neutral quantity
)

var tones = []Tone{Ink, Muted, Blue, Green, Red, Orange, Purple}

// The palettes: GitHub's Primer colours, as the site's stylesheet uses.
var (
	light = map[Tone]string{Ink: "#1f2328", Muted: "#59636e", Blue: "#0969da", Green: "#1a7f37", Red: "#cf222e", Orange: "#bc4c00", Purple: "#8250df"}
	dark  = map[Tone]string{Ink: "#e6edf3", Muted: "#9198a1", Blue: "#4493f8", Green: "#3fb950", Red: "#f85149", Orange: "#db6d28", Purple: "#ab7df8"}
)

const (
	lightBg, darkBg     = "#ffffff", "#0d1117"
	lightGrid, darkGrid = "#d1d9e0", "#3d444d"
)

func palette(bg, grid string, p map[Tone]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--fig-bg:%s;--fig-grid:%s;", bg, grid)
	for _, t := range tones {
		fmt.Fprintf(&b, "--fig-%s:%s;", t, p[t])
	}
	return b.String()
}

// StyleSheet is every figure's style sheet, the text of its <style>
// element: the same in every figure, so a site that inlines figures, and
// whose Content-Security-Policy refuses their <style>, can carry it once in
// its own style sheet (the course's site does). Its selectors start at the
// figure's own class, so it styles nothing else on the page.
var StyleSheet = func() string {
	l, d := palette(lightBg, lightGrid, light), palette(darkBg, darkGrid, dark)
	var b strings.Builder
	b.WriteString(".fig{" + l + "}")
	b.WriteString("@media (prefers-color-scheme:dark){.fig{" + d + "}}")
	b.WriteString("[data-theme=light] .fig{" + l + "}")
	b.WriteString("[data-theme=dark] .fig{" + d + "}")
	b.WriteString("@media print{.fig,[data-theme] .fig{" + l + "}}")
	b.WriteString(".fig text{fill:var(--fig-ink)}.fig .bg{fill:var(--fig-bg)}.fig .grid{stroke:var(--fig-grid)}")
	for _, t := range tones {
		fmt.Fprintf(&b, ".fig .f-%s{fill:var(--fig-%s)}.fig .s-%s{stroke:var(--fig-%s)}", t, t, t, t)
	}
	b.WriteString(".fig text.f-muted{fill:var(--fig-muted)}")
	return b.String()
}()

// canvas writes one SVG document.
type canvas struct {
	b    bytes.Buffer
	w, h float64
}

func newCanvas(w, h float64, title, desc string) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" class="fig" role="img" viewBox="0 0 %s %s" width="%s" height="%s" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="12">`+"\n", n(w), n(h), n(w), n(h))
	fmt.Fprintf(&c.b, "<title>%s</title>\n<desc>%s</desc>\n<style>%s</style>\n", esc(title), esc(desc), StyleSheet)
	fmt.Fprintf(&c.b, `<rect class="bg" width="%s" height="%s" rx="6"/>`+"\n", n(w), n(h))
	return c
}

func (c *canvas) bytes() []byte {
	c.b.WriteString("</svg>\n")
	return c.b.Bytes()
}

// n formats a coordinate in whole units of the 720-wide view box, finer
// than a reader can see, so the output is short (figures are inlined in
// pages that have a weight budget) and the same on every machine.
func n(v float64) string {
	v = math.Round(v)
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func esc(s string) string { return html.EscapeString(s) }

// text writes a text element; anchor is start, middle or end.
func (c *canvas) text(x, y float64, anchor string, tone Tone, s string, extra string) {
	cls := ""
	if tone != "" && tone != Ink {
		cls = fmt.Sprintf(` class="f-%s"`, tone)
	}
	a := ""
	if anchor != "" && anchor != "start" {
		a = fmt.Sprintf(` text-anchor="%s"`, anchor)
	}
	fmt.Fprintf(&c.b, `<text x="%s" y="%s"%s%s%s>%s</text>`+"\n", n(x), n(y), a, cls, extra, esc(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, class string, extra string) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"%s/>`+"\n", n(x1), n(y1), n(x2), n(y2), class, extra)
}

// textWidth estimates the width of s at the figures' font size: a layout
// that never measures, so it is the same everywhere.
func textWidth(s string) float64 { return float64(len([]rune(s))) * 6.8 }

// An Axis maps values to positions and labels its ticks.
type Axis struct {
	Label string
	Max   float64              // the axis runs from 0 to Max; 0: from the data
	Ticks []float64            // where to label; nil: about five round values
	Fmt   func(float64) string // a tick's label; nil: the number
	// Steps are the spacings the ticks may take, smallest first; nil: 1,
	// 2 or 5 times a power of ten. TimeSteps suits an axis in seconds.
	Steps []float64
}

// TimeSteps are tick spacings for an axis in seconds: round seconds,
// minutes and hours.
var TimeSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 4 * 3600, 6 * 3600, 12 * 3600, 24 * 3600}

func (a Axis) format(v float64) string {
	if a.Fmt != nil {
		return a.Fmt(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// labelWidth is the width of the widest tick label up to max.
func (a Axis) labelWidth(max float64) float64 {
	w := 0.0
	for _, v := range a.ticks(max) {
		w = math.Max(w, textWidth(a.format(v)))
	}
	return w
}

// ticks returns round values from 0 to max: steps of 1, 2 or 5 times a power
// of ten, about five of them.
func (a Axis) ticks(max float64) []float64 {
	if a.Ticks != nil {
		return a.Ticks
	}
	if max <= 0 {
		return []float64{0}
	}
	raw := max / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	for _, s := range a.Steps {
		if step = s; s >= raw {
			break
		}
	}
	var out []float64
	for v := 0.0; v <= max+step/1000; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// Seconds formats a tick of a time axis in seconds as Go writes a
// duration: 0s, 45s, 2m30s.
func Seconds(v float64) string {
	s := int64(math.Round(v))
	switch {
	case s == 0:
		return "0s"
	case s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	case s > 60:
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

// A Key is one entry of a legend.
type Key struct {
	Tone  Tone
	Shape Shape
	Text  string
	Open  bool // a Bar drawn pale, as a timeline's open span is
}

// A Shape is how a key or a mark is drawn.
type Shape int

const (
	Bar    Shape = iota // a filled box: a span
	Line                // a line: a series
	Dashed              // a dashed line: a limit
	Dot                 // a filled circle: an event that succeeded
	Cross               // a cross: an event that was refused
)

// legendRows breaks keys into rows that fit the figure's width.
func legendRows(keys []Key, width float64) [][]Key {
	var rows [][]Key
	x := 16.0
	for _, k := range keys {
		w := 16 + textWidth(k.Text) + 18
		if len(rows) == 0 || x+w > width-8 {
			rows = append(rows, nil)
			x = 16
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], k)
		x += w
	}
	return rows
}

// legend draws keys from (16, y), in as many rows as they need, and
// returns how much taller than one row it is.
func (c *canvas) legend(y float64, keys []Key) float64 {
	rows := legendRows(keys, c.w)
	for i, row := range rows {
		x := 16.0
		for _, k := range row {
			if k.Open && k.Shape == Bar {
				fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="12" height="8" class="f-%s" fill-opacity="0.35"/>`+"\n", n(x), n(y+float64(i)*18-8), k.Tone)
			} else {
				c.shape(x+6, y+float64(i)*18-4, k.Tone, k.Shape, "")
			}
			c.text(x+16, y+float64(i)*18, "start", Ink, k.Text, "")
			x += 16 + textWidth(k.Text) + 18
		}
	}
	return float64(max(len(rows)-1, 0)) * 18
}

// legendExtra is how much taller than one row the legend of keys is.
func legendExtra(keys []Key, width float64) float64 {
	return float64(max(len(legendRows(keys, width))-1, 0)) * 18
}

// shape draws a small symbol centred on (x, y), with a tooltip if title is
// set.
func (c *canvas) shape(x, y float64, t Tone, s Shape, title string) {
	tip := ""
	if title != "" {
		tip = "<title>" + esc(title) + "</title>"
	}
	switch s {
	case Bar:
		fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="12" height="8" class="f-%s">%s</rect>`+"\n", n(x-6), n(y-4), t, tip)
	case Line, Dashed:
		d := ""
		if s == Dashed {
			d = ` stroke-dasharray="4 3"`
		}
		c.line(x-6, y, x+6, y, "s-"+string(t), ` stroke-width="2"`+d)
	case Dot:
		fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="4" class="f-%s">%s</circle>`+"\n", n(x), n(y), t, tip)
	case Cross:
		fmt.Fprintf(&c.b, `<path d="M%s %sl8 8m0 -8l-8 8" class="s-%s" stroke-width="2">%s</path>`+"\n", n(x-4), n(y-4), t, tip)
	}
}
