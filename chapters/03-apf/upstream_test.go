package apf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	_ "unsafe" // for go:linkname

	"github.com/google/go-cmp/cmp"
	_ "k8s.io/apiserver/pkg/util/flowcontrol" // links hashFlowID
	"k8s.io/apiserver/pkg/util/shufflesharding"
)

// upstreamHashFlowID is the unexported hashFlowID of
// k8s.io/apiserver/pkg/util/flowcontrol (apf_controller.go), the function
// the API server hashes flows with.
//
//go:linkname upstreamHashFlowID k8s.io/apiserver/pkg/util/flowcontrol.hashFlowID
func upstreamHashFlowID(fsName, fDistinguisher string) uint64

func TestDealerMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 2026))
	cases := 0
	for cases < 120_000 {
		deck := 1 + rng.IntN(512)
		if rng.IntN(8) == 0 {
			deck = 1 + rng.IntN(1<<20)
		}
		hand := 1 + rng.IntN(min(deck, 15))
		up, upErr := shufflesharding.NewDealer(deck, hand)
		ours, err := NewDealer(deck, hand)
		if (upErr == nil) != (err == nil) {
			t.Fatalf("NewDealer(%d, %d) error = %v, upstream's = %v", deck, hand, err, upErr)
		}
		if err != nil {
			continue
		}
		h := rng.Uint64()
		want := up.DealIntoHand(h, make([]int, 0, hand))
		if got := ours.Deal(h); !slices.Equal(want, got) {
			t.Fatalf("Deal(%#x) with deck %d, hand %d differs from upstream (-want +got):\n%s", h, deck, hand, cmp.Diff(want, got))
		}
		cases++
	}
	t.Logf("%d hands equal to upstream's", cases)
}

func TestDealerRefusesWhatUpstreamRefuses(t *testing.T) {
	for _, c := range []struct {
		name       string
		deck, hand int
		reason     string
	}{
		{"zero deck", 0, 1, "sizes must be positive"},
		{"negative hand", 8, -1, "sizes must be positive"},
		{"hand above deck", 8, 9, "a hand holds distinct cards"},
		{"huge deck", 1<<26 + 1, 1, "decks above 2^26 are refused"},
		{"too many bits", 1024, 7, "10 bits × 7 cards = 70 bits, more than 60"},
		{"exactly 60 bits", 1024, 6, "10 bits × 6 cards = 60 bits, allowed"},
		{"default level", 64, 8, "the v1 defaults: 48 bits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, upErr := shufflesharding.NewDealer(c.deck, c.hand)
			_, err := NewDealer(c.deck, c.hand)
			if (upErr == nil) != (err == nil) {
				t.Errorf("NewDealer(%d, %d) error = %v, upstream's = %v (%s)", c.deck, c.hand, err, upErr, c.reason)
			}
		})
	}
}

func TestFlowHashMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	names := []string{"", "service-accounts", "global-default", "apf-lab-runaway", "a\x00b"}
	dists := []string{"", "system:serviceaccount:apf-lab:runaway-operator", "kube-system", "\x00"}
	for range 2000 {
		names = append(names, fmt.Sprintf("fs-%x", rng.Uint64()))
		dists = append(dists, fmt.Sprintf("user-%x", rng.Uint64()))
	}
	for i, name := range names {
		for _, dist := range []string{dists[i%len(dists)], dists[(i*7+3)%len(dists)]} {
			if got, want := FlowHash(name, dist), upstreamHashFlowID(name, dist); got != want {
				t.Fatalf("FlowHash(%q, %q) = %#x, upstream hashFlowID = %#x", name, dist, got, want)
			}
		}
	}
}
