package kube

import (
	flowcontrol "k8s.io/api/flowcontrol/v1"

	apf "github.com/opslab/opslab/chapters/03-apf"
)

// LevelSeats is a priority level's share of the server's seats, with the
// level's type.
type LevelSeats struct {
	apf.LevelSeats
	Type flowcontrol.PriorityLevelEnablement
}

// Seats divides serverSeats among c's levels with [apf.Seats], in name
// order.
func (c *Config) Seats(serverSeats int) []LevelSeats {
	var levels []apf.Level
	for _, pl := range c.Levels {
		levels = append(levels, coreLevel(pl))
	}
	var out []LevelSeats
	for _, s := range apf.Seats(serverSeats, levels) {
		out = append(out, LevelSeats{LevelSeats: s, Type: c.Levels[s.Level].Spec.Type})
	}
	return out
}

// coreLevel returns what seats and queuing read of pl: its shares,
// lendable percent, borrowing limit percent and queues. An unset shares or
// lendable percent reads as 0, as the API server defaults an exempt level;
// a Limited level without shares is broken and never reaches here.
func coreLevel(pl *flowcontrol.PriorityLevelConfiguration) apf.Level {
	l := apf.Level{Name: pl.Name, Exempt: pl.Spec.Type == flowcontrol.PriorityLevelEnablementExempt}
	if e := pl.Spec.Exempt; e != nil {
		l.Shares = deref(e.NominalConcurrencyShares)
		l.LendablePercent = deref(e.LendablePercent)
	}
	if lim := pl.Spec.Limited; lim != nil {
		l.Shares = deref(lim.NominalConcurrencyShares)
		l.LendablePercent = deref(lim.LendablePercent)
		l.BorrowingLimitPercent = lim.BorrowingLimitPercent
		if q := lim.LimitResponse.Queuing; q != nil && lim.LimitResponse.Type == flowcontrol.LimitResponseTypeQueue {
			l.Queuing = &apf.Queuing{Queues: q.Queues, HandSize: q.HandSize, QueueLengthLimit: q.QueueLengthLimit}
		}
	}
	return l
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
