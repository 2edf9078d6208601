package apf

import (
	"math"
	"sort"
)

// DefaultServerSeats is the server's concurrency limit when kube-apiserver
// runs with its defaults: --max-requests-inflight 400 plus
// --max-mutating-requests-inflight 200.
const DefaultServerSeats = 600

// A Level is what seats and queuing read of a priority level: the fields of
// a PriorityLevelConfiguration's spec, with the API server's defaults
// applied.
type Level struct {
	Name string
	// Exempt is true for a level of type Exempt, whose requests are never
	// limited, and false for a Limited one.
	Exempt bool
	// Shares is nominalConcurrencyShares, LendablePercent lendablePercent.
	Shares          int32
	LendablePercent int32
	// BorrowingLimitPercent is borrowingLimitPercent; nil means the level
	// has no borrowing limit. An Exempt level never has one.
	BorrowingLimitPercent *int32
	// Queuing is the level's queues when its limitResponse is Queue; nil
	// when it is Reject, or the level is Exempt.
	Queuing *Queuing
}

// Queuing is a level's queuing configuration.
type Queuing struct {
	Queues           int32
	HandSize         int32
	QueueLengthLimit int32
}

// LevelSeats is a priority level's share of the server's seats.
type LevelSeats struct {
	Level  string
	Exempt bool
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

// Seats divides serverSeats among levels as finishQueueSetReconfigsLocked
// does, and returns them in name order:
//
//	nominal   = ceil(serverSeats × shares / Σshares)
//	lendable  = round(nominal × lendablePercent / 100)
//	borrowing = round(nominal × borrowingLimitPercent / 100), or serverSeats when unset
//
// Σshares runs over every level, the exempt one included. Because nominal
// is rounded up, the levels' nominal seats may add up to a little more than
// serverSeats.
func Seats(serverSeats int, levels []Level) []LevelSeats {
	var sum float64
	for _, l := range levels {
		sum += float64(l.Shares)
	}
	var out []LevelSeats
	for _, l := range levels {
		s := LevelSeats{Level: l.Name, Exempt: l.Exempt, Shares: l.Shares}
		if sum > 0 {
			s.Nominal = int(math.Ceil(float64(serverSeats) * float64(l.Shares) / sum))
		}
		s.Lendable = int(math.Round(float64(s.Nominal) * float64(l.LendablePercent) / 100))
		if p := l.BorrowingLimitPercent; p != nil && !l.Exempt {
			s.Borrowing = int(math.Round(float64(s.Nominal) * float64(*p) / 100))
		} else {
			s.Borrowing = serverSeats
		}
		s.Min, s.Max = s.Nominal-s.Lendable, s.Nominal+s.Borrowing
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}
