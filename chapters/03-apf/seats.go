package apf

import (
	"math"
	"sort"

	flowcontrol "k8s.io/api/flowcontrol/v1"
)

// DefaultServerSeats is the server's concurrency limit when kube-apiserver
// runs with its defaults: --max-requests-inflight 400 plus
// --max-mutating-requests-inflight 200.
const DefaultServerSeats = 600

// LevelSeats is a priority level's share of the server's seats.
type LevelSeats struct {
	Level  string
	Type   flowcontrol.PriorityLevelEnablement
	Shares int32
	// Nominal is the level's own concurrency limit, the value of
	// apiserver_flowcontrol_nominal_limit_seats.
	Nominal int
	// Lendable is how many of its nominal seats the level lends when idle,
	// Borrowing how many it may borrow from others.
	Lendable  int
	Borrowing int
	// Min and Max bound the level's current limit: Nominal−Lendable and
	// Nominal+Borrowing.
	Min int
	Max int
}

// Seats divides serverSeats among c's levels as finishQueueSetReconfigsLocked
// does, in name order:
//
//	nominal   = ceil(serverSeats × shares / Σshares)
//	lendable  = round(nominal × lendablePercent / 100)
//	borrowing = round(nominal × borrowingLimitPercent / 100), or serverSeats when unset
//
// Σshares runs over every level, the exempt one included. Because nominal
// is rounded up, the levels' nominal seats may add up to a little more than
// serverSeats.
func (c *Config) Seats(serverSeats int) []LevelSeats {
	var sum float64
	for _, pl := range c.Levels {
		shares, _, _ := levelCommons(pl)
		sum += float64(shares)
	}
	var out []LevelSeats
	for _, pl := range c.Levels {
		shares, lendablePct, borrowingPct := levelCommons(pl)
		s := LevelSeats{Level: pl.Name, Type: pl.Spec.Type, Shares: shares}
		if sum > 0 {
			s.Nominal = int(math.Ceil(float64(serverSeats) * float64(shares) / sum))
		}
		if lendablePct != nil {
			s.Lendable = int(math.Round(float64(s.Nominal) * float64(*lendablePct) / 100))
		}
		if borrowingPct != nil {
			s.Borrowing = int(math.Round(float64(s.Nominal) * float64(*borrowingPct) / 100))
		} else {
			s.Borrowing = serverSeats
		}
		s.Min, s.Max = s.Nominal-s.Lendable, s.Nominal+s.Borrowing
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// levelCommons returns a level's shares, lendable percent and borrowing
// limit percent; an exempt level never has a borrowing limit.
func levelCommons(pl *flowcontrol.PriorityLevelConfiguration) (shares int32, lendable, borrowing *int32) {
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares != nil {
			shares = *l.NominalConcurrencyShares
		}
		return shares, l.LendablePercent, l.BorrowingLimitPercent
	}
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares != nil {
			shares = *e.NominalConcurrencyShares
		}
		return shares, e.LendablePercent, nil
	}
	return 0, nil, nil
}
