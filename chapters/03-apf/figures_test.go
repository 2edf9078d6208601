package apf

import (
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
