package apf

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
)

// CollisionProbability returns the probability that a mouse flow's hand of
// handSize queues out of deckSize lies entirely inside the union of the
// hands of elephants independent elephant flows, so that every queue the
// mouse may use is shared with an elephant. By inclusion and exclusion
// over the j mouse queues that no elephant holds:
//
//	P = Σ_{j=0..h} (−1)^j C(h, j) (C(n−j, h) / C(n, h))^e
//
// It is computed in exact rational arithmetic.
func CollisionProbability(deckSize, handSize, elephants int) float64 {
	n, h := int64(deckSize), int64(handSize)
	all := new(big.Int).Binomial(n, h)
	sum := new(big.Rat)
	for j := int64(0); j <= h; j++ {
		free := new(big.Rat).SetFrac(new(big.Int).Binomial(n-j, h), all)
		term := new(big.Rat).SetInt64(1)
		for range elephants {
			term.Mul(term, free)
		}
		term.Mul(term, new(big.Rat).SetInt(new(big.Int).Binomial(h, j)))
		if j%2 == 1 {
			term.Neg(term)
		}
		sum.Add(sum, term)
	}
	p, _ := sum.Float64()
	return p
}

// CountCollisions runs trials of the experiment whose probability
// CollisionProbability computes: each trial deals hands to elephants
// flows and one mouse flow of one schema, with names drawn from a seeded
// random source and hands from FlowHash and Dealer, and counts the trials
// in which every queue of the mouse is also in some elephant's hand.
func CountCollisions(deckSize, handSize, elephants, trials int, seed uint64) (int, error) {
	d, err := NewDealer(deckSize, handSize)
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// A name is "flow-" and the generator's next number in 16 hex digits
	// (what fmt's %016x prints, without fmt's cost: the tests deal millions).
	var num [8]byte
	name := func() string {
		binary.BigEndian.PutUint64(num[:], rng.Uint64())
		return "flow-" + hex.EncodeToString(num[:])
	}
	taken := make([]bool, deckSize)
	hits := 0
	for range trials {
		clear(taken)
		for range elephants {
			for _, c := range d.Deal(FlowHash("experiment", name())) {
				taken[c] = true
			}
		}
		covered := true
		for _, c := range d.Deal(FlowHash("experiment", name())) {
			covered = covered && taken[c]
		}
		if covered {
			hits++
		}
	}
	return hits, nil
}
