package apf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/opslab/opslab/internal/prop"
	"k8s.io/apiserver/pkg/util/shufflesharding"
)

type dealCase struct {
	deck, hand int
	h          uint64
}

// TestDealOracle asks Dealer.Deal and upstream shufflesharding's
// DealIntoHand about generated decks, hands and hashes, and on a
// disagreement prints the smallest deck, hand and hash it shrinks to.
func TestDealOracle(t *testing.T) {
	gen := func(r *rand.Rand) dealCase {
		deck := 1 + r.IntN(128)
		return dealCase{deck, 1 + r.IntN(min(deck, 8)), r.Uint64()}
	}
	shrink := func(c dealCase) []dealCase {
		var out []dealCase
		if c.h > 0 {
			out = append(out, dealCase{c.deck, c.hand, 0}, dealCase{c.deck, c.hand, c.h / 2}, dealCase{c.deck, c.hand, c.h - 1})
		}
		if c.hand > 1 {
			out = append(out, dealCase{c.deck, c.hand - 1, c.h})
		}
		if c.deck > c.hand {
			out = append(out, dealCase{c.hand, c.hand, c.h}, dealCase{c.deck - 1, c.hand, c.h})
		}
		return out
	}
	prop.Check(t, 5000, 3, gen, shrink, func(c dealCase) string {
		up, err := shufflesharding.NewDealer(c.deck, c.hand)
		if err != nil {
			return "" // not a dealer upstream makes: TestDealerRefusesWhatUpstreamRefuses
		}
		d := &Dealer{deckSize: c.deck, handSize: c.hand}
		want := up.DealIntoHand(c.h, make([]int, 0, c.hand))
		if got := d.Deal(c.h); !slices.Equal(got, want) {
			return fmt.Sprintf("your Deal gives %v for hash %#x with a deck of %d and hands of %d; Kubernetes' shufflesharding deals %v",
				got, c.h, c.deck, c.hand, want)
		}
		return ""
	})
}

type hashCase struct{ schema, distinguisher string }

// TestFlowHashOracle asks FlowHash and the API server's own hashFlowID
// about generated schema names and distinguishers, and on a disagreement
// prints the shortest pair it shrinks to.
func TestFlowHashOracle(t *testing.T) {
	const letters = "ab\x00"
	word := func(r *rand.Rand) string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	shorter := func(s string) []string {
		var out []string
		for i := range s {
			out = append(out, s[:i]+s[i+1:])
		}
		return out
	}
	shrink := func(c hashCase) []hashCase {
		var out []hashCase
		for _, s := range shorter(c.schema) {
			out = append(out, hashCase{s, c.distinguisher})
		}
		for _, d := range shorter(c.distinguisher) {
			out = append(out, hashCase{c.schema, d})
		}
		return out
	}
	prop.Check(t, 2000, 4, func(r *rand.Rand) hashCase { return hashCase{word(r), word(r)} }, shrink, func(c hashCase) string {
		if got, want := FlowHash(c.schema, c.distinguisher), upstreamHashFlowID(c.schema, c.distinguisher); got != want {
			return fmt.Sprintf("your FlowHash says %#x for schema %q and distinguisher %q; the API server's hashFlowID says %#x",
				got, c.schema, c.distinguisher, want)
		}
		return ""
	})
}
