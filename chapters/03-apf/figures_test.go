package apf

import (
	"strings"
	"testing"

	"github.com/opslab/opslab/internal/figure/figuretest"
)

// TestFiguresAreCurrent draws the chapter's figures, the bootstrap
// configuration's seats as apfctl seats -o svg draws them and the runaway
// of TestRunawayContained at ten times the level's capacity, and holds
// figures/ to them.
func TestFiguresAreCurrent(t *testing.T) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	flows := runawayFlows(1, 3000)
	const every = 20
	res, samples, err := Trace(level, flows, every)
	if err != nil {
		t.Fatal(err)
	}
	figuretest.Current(t, "figures", map[string][]byte{
		"seats.svg":   SeatsFigure(DefaultServerSeats, Seats(DefaultServerSeats, DefaultLevels())),
		"runaway.svg": RunFigure("A runaway at ten times its level's capacity: its own queues fill, the mice's stay empty", flows, res, samples, every),
	})
}

// TestRunFigureOfNothing draws a run with no flows and samples with no
// queues: the figure is drawn, with zeros, instead of failing; and a name
// with a colon loses everything up to its last colon, even one at the
// start.
func TestRunFigureOfNothing(t *testing.T) {
	svg := RunFigure("nothing", nil, SimResult{}, []Sample{{At: 0}, {At: 10}}, 10)
	if !strings.Contains(string(svg), "the first flow sent 0 requests") {
		t.Errorf("RunFigure of no flows says:\n%s\nwant it to name \"the first flow\" with 0 requests", svg)
	}
	for name, want := range map[string]string{
		"system:serviceaccount:apf-lab:runaway-operator": "runaway-operator",
		":x":      "x",
		"mouse-1": "mouse-1",
	} {
		if got := short(name); got != want {
			t.Errorf("short(%q) = %q, want %q", name, got, want)
		}
	}
}
