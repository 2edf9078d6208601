package figure

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

// figures returns one figure of each kind, with the features each can
// draw: steps, limits, stacked marks, open spans, lanes, reference lines,
// two-line states, and text that needs escaping.
func figures() map[string]func() []byte {
	return map[string]func() []byte{
		"chart": func() []byte {
			ch := &Chart{
				Title: "Ready <pods> & floor", Desc: "Ready pods fall to 2 at 15s; the floor is 2.",
				X: Axis{Label: "time", Fmt: Seconds, Steps: TimeSteps}, Y: Axis{Label: "pods"},
				Series: []Series{
					{Name: "Ready", Tone: Blue, Step: true, Points: []Point{{0, 3}, {15, 2}, {15, 2}, {30, 3}, {60, 3}}},
					{Name: "floor", Tone: Orange, Dashed: true, Step: true, Points: []Point{{0, 2}, {60, 2}}},
				},
				Marks:      []Mark{{X: 0, Tone: Green, Shape: Dot, Title: "allowed"}, {X: 0, Tone: Red, Shape: Cross, Title: "refused"}, {X: 15, Tone: Green, Shape: Dot}},
				MarksLabel: "evictions",
			}
			return ch.SVG()
		},
		"timeline": func() []byte {
			tl := &Timeline{
				Title: "Departures", Desc: "a leaves now, b after 300s, c never; zone-a predicted and observed.",
				X: Axis{Label: "seconds", Fmt: Seconds, Steps: TimeSteps},
				Rows: []Row{
					{Label: "a", Spans: []Span{{Tone: Red, Shape: Cross, Text: "now"}}},
					{Label: "b", Spans: []Span{{To: 300, Tone: Blue, Text: "after 300s"}}},
					{Label: "c", Spans: []Span{{Tone: Green, Open: true, Text: "never"}}},
					{Label: "zone-a", Lanes: 2, Spans: []Span{{From: 50, To: 350, Tone: Blue, Text: "predicted"}, {From: 52, To: 356, Lane: 1, Tone: Purple, Text: "observed"}}},
				},
				Lines:  []VLine{{X: 300, Label: "default 300s"}, {X: 350, Label: "deadline", Tone: Red}},
				Legend: []Key{{Tone: Blue, Shape: Bar, Text: "predicted"}, {Tone: Purple, Shape: Bar, Text: "observed"}},
			}
			return tl.SVG()
		},
		"states": func() []byte {
			st := &States{
				Title: "Paths", Desc: "Running, then Terminating, then gone.",
				States: []State{{ID: "r", Label: "Running", Tone: Green}, {ID: "t", Label: "Terminating\nforever", Row: 1, Tone: Red}, {ID: "g", Label: "gone", Col: 1, Row: 2}},
				Edges:  []Edge{{From: "r", To: "t", Label: "power lost"}, {From: "t", To: "g", Label: "taint", At: 0.8}},
			}
			return st.SVG()
		},
	}
}

// TestFigureIsWellFormed: every kind of figure is one well-formed SVG
// element whose first children are its <title> and <desc>, with the text
// escaped, under MaxBytes, and without a script, an id or a URL to fetch.
func TestFigureIsWellFormed(t *testing.T) {
	for name, draw := range figures() {
		t.Run(name, func(t *testing.T) {
			svg := draw()
			if len(svg) > MaxBytes {
				t.Errorf("%d bytes, over MaxBytes %d", len(svg), MaxBytes)
			}
			dec := xml.NewDecoder(bytes.NewReader(svg))
			var path []string
			var children []string // the root's child elements, in order
			texts := 0
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed XML: %v\n%s", err, svg)
				}
				switch tok := tok.(type) {
				case xml.StartElement:
					if len(path) == 0 && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
						t.Fatalf("root element is %v, want svg in the SVG namespace", tok.Name)
					}
					if len(path) == 1 {
						children = append(children, tok.Name.Local)
					}
					for _, a := range tok.Attr {
						if a.Name.Local == "id" || strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "href" {
							t.Errorf("<%s %s=%q>: a figure has no id, handler or link", tok.Name.Local, a.Name.Local, a.Value)
						}
					}
					if tok.Name.Local == "script" || tok.Name.Local == "image" || tok.Name.Local == "foreignObject" {
						t.Errorf("a figure holds a <%s>", tok.Name.Local)
					}
					if tok.Name.Local == "text" {
						texts++
					}
					path = append(path, tok.Name.Local)
				case xml.EndElement:
					path = path[:len(path)-1]
				}
			}
			if len(children) < 2 || children[0] != "title" || children[1] != "desc" {
				t.Errorf("the root's first children are %v, want title then desc", children[:min(2, len(children))])
			}
			if texts == 0 {
				t.Errorf("no <text>: a figure's words are SVG text")
			}
			if !bytes.Contains(svg, []byte(`role="img"`)) {
				t.Errorf("the svg element has no role=\"img\"")
			}
		})
	}
	if svg := figures()["chart"](); !bytes.Contains(svg, []byte("<title>Ready &lt;pods&gt; &amp; floor</title>")) {
		t.Errorf("the chart's title is not escaped:\n%s", svg)
	}
}

// TestFigureIsDeterministic: the same figure drawn twice is the same bytes,
// which is how a stale figure is told from a current one.
func TestFigureIsDeterministic(t *testing.T) {
	for name, draw := range figures() {
		if a, b := draw(), draw(); !bytes.Equal(a, b) {
			t.Errorf("%s: two drawings differ", name)
		}
	}
}

// TestFigurePalettes: the figure's style sheet gives every tone a colour in
// a light and a dark palette, the dark one under prefers-color-scheme and
// under the site's data-theme, and print the light one.
func TestFigurePalettes(t *testing.T) {
	for _, want := range []string{
		"@media (prefers-color-scheme:dark){.fig{--fig-bg:" + darkBg,
		"[data-theme=light] .fig{--fig-bg:" + lightBg,
		"[data-theme=dark] .fig{--fig-bg:" + darkBg,
		"@media print{.fig,[data-theme] .fig{--fig-bg:" + lightBg,
	} {
		if !strings.Contains(StyleSheet, want) {
			t.Errorf("the style sheet lacks %q", want)
		}
	}
	for _, tone := range tones {
		if light[tone] == "" || dark[tone] == "" {
			t.Errorf("tone %s lacks a colour in a palette", tone)
		}
		if !strings.Contains(StyleSheet, ".fig .f-"+string(tone)+"{fill:var(--fig-"+string(tone)+")}") {
			t.Errorf("the style sheet has no fill rule for tone %s", tone)
		}
	}
}

// TestFigureContrast: every tone stands out from its palette's background
// by at least 3:1, WCAG's ratio for graphics, and text by 4.5:1.
func TestFigureContrast(t *testing.T) {
	for _, p := range []struct {
		name string
		bg   string
		c    map[Tone]string
	}{{"light", lightBg, light}, {"dark", darkBg, dark}} {
		for _, tone := range tones {
			want := 3.0
			if tone == Ink || tone == Muted {
				want = 4.5
			}
			if r := contrast(p.c[tone], p.bg); r < want {
				t.Errorf("%s palette: %s %s on %s has contrast %.2f, want at least %.1f", p.name, tone, p.c[tone], p.bg, r, want)
			}
		}
	}
}

// contrast is WCAG 2's contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(hex string) float64 {
	var rgb [3]float64
	for i := range rgb {
		var v int
		for _, c := range hex[1+2*i : 3+2*i] {
			v = v*16 + strings.IndexRune("0123456789abcdef", c)
		}
		s := float64(v) / 255
		if s <= 0.04045 {
			rgb[i] = s / 12.92
		} else {
			rgb[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
}
