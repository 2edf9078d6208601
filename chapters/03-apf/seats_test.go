package apf

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeats holds the core's division of seats to the table of the
// default levels, in this package, where the demo calls it: package kube's
// tests read the same table from the bootstrap objects, but a change to
// Seats must also fail the package that holds it.
func TestSeats(t *testing.T) {
	pct := func(p int32) *int32 { return &p }
	row := func(name string, exempt bool, shares int32, nominal, lendable, borrowing int) LevelSeats {
		return LevelSeats{Level: name, Exempt: exempt, Shares: shares, Nominal: nominal, Lendable: lendable, Borrowing: borrowing, Min: nominal - lendable, Max: nominal + borrowing}
	}
	for _, tc := range []struct {
		name   string
		seats  int
		levels []Level
		want   []LevelSeats
	}{
		{
			// Σshares = 245; each level rounds up, 602 in all; none has a
			// borrowing limit, so each may borrow the server's 600.
			name: "defaults", seats: DefaultServerSeats, levels: DefaultLevels(),
			want: []LevelSeats{
				row("catch-all", false, 5, 13, 0, 600),
				row("exempt", true, 0, 0, 0, 600),
				row("global-default", false, 20, 49, 25, 600),
				row("leader-election", false, 10, 25, 0, 600),
				row("node-high", false, 40, 98, 25, 600),
				row("system", false, 30, 74, 24, 600),
				row("workload-high", false, 40, 98, 49, 600),
				row("workload-low", false, 100, 245, 221, 600),
			},
		},
		{
			// The lab's level, named first to show the output is sorted:
			// 5 of 250 shares, no lending, no borrowing.
			name: "lab level", seats: DefaultServerSeats,
			levels: append([]Level{{Name: "apf-lab-runaway", Shares: 5, BorrowingLimitPercent: pct(0)}}, DefaultLevels()...),
			want: []LevelSeats{
				row("apf-lab-runaway", false, 5, 12, 0, 0),
				row("catch-all", false, 5, 12, 0, 600),
				row("exempt", true, 0, 0, 0, 600),
				row("global-default", false, 20, 48, 24, 600),
				row("leader-election", false, 10, 24, 0, 600),
				row("node-high", false, 40, 96, 24, 600),
				row("system", false, 30, 72, 24, 600),
				row("workload-high", false, 40, 96, 48, 600),
				row("workload-low", false, 100, 240, 216, 600),
			},
		},
		{
			// A borrowing limit rounds to the nearest seat: 50% of 25 is
			// 12.5, which rounds away from zero to 13. An Exempt level's
			// limit is ignored: it may always take the server's seats.
			name: "borrowing limits", seats: 100,
			levels: []Level{
				{Name: "a", Shares: 1, LendablePercent: 10, BorrowingLimitPercent: pct(50)},
				{Name: "b", Shares: 3, BorrowingLimitPercent: pct(200)},
				{Name: "exempt", Exempt: true, BorrowingLimitPercent: pct(10)},
			},
			want: []LevelSeats{
				row("a", false, 1, 25, 3, 13),
				row("b", false, 3, 75, 0, 150),
				row("exempt", true, 0, 0, 0, 100),
			},
		},
		{
			// No shares anywhere: no level has nominal seats (the server
			// never meets this, since catch-all is mandatory and has 5).
			name: "no shares", seats: 600,
			levels: []Level{{Name: "exempt", Exempt: true}, {Name: "idle", LendablePercent: 50}},
			want: []LevelSeats{
				row("exempt", true, 0, 0, 0, 600),
				row("idle", false, 0, 0, 0, 600),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Seats(tc.seats, tc.levels)); diff != "" {
				t.Errorf("Seats(%d) (-want +got):\n%s", tc.seats, diff)
			}
		})
	}
}
