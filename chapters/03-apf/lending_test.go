package apf

import (
	"math"
	"math/rand/v2"
	"testing"
	_ "unsafe" // for go:linkname

	_ "k8s.io/apiserver/pkg/util/flowcontrol" // links computeConcurrencyAllocation
)

// allocItem has the layout of upstream's allocProblemItem (conc_alloc.go):
// a level's target, lower bound and upper bound, in that order.
type allocItem struct {
	target, lowerBound, upperBound float64
}

// upstreamAllocate is the unexported computeConcurrencyAllocation of
// k8s.io/apiserver/pkg/util/flowcontrol (conc_alloc.go), with which the
// API server's configuration controller sets each level's current limit
// every ten seconds (updateBorrowingLocked in apf_controller.go).
//
//go:linkname upstreamAllocate k8s.io/apiserver/pkg/util/flowcontrol.computeConcurrencyAllocation
func upstreamAllocate(requiredSum int, classes []allocItem) ([]float64, float64, error)

// currentLimits does what updateBorrowingLocked does with the bounds the
// model computes (Seats) and a seat demand per level, taken as both its
// high watermark and its smoothed value: the exempt level keeps
// max(min, demand) off the pool; each other level's lower bound is
// max(min, min(nominal, demand)), its upper bound its Max and its target
// max(lower bound, demand). When the lower bounds fit in the pool,
// upstream's allocator shares out the sum of the nominal seats, and each
// result is rounded; when they do not, the bounds are scaled as
// updateBorrowingLocked scales them. It returns the current limits of the
// levels that are not exempt, by name.
func currentLimits(t *testing.T, seats []LevelSeats, demand map[string]int) map[string]int {
	t.Helper()
	var items []allocItem
	var names []string
	nominalSum, remaining, minSum, minCurrentSum := 0, 0, 0, 0
	byName := map[string]LevelSeats{}
	for _, s := range seats {
		nominalSum += s.Nominal
		byName[s.Level] = s
	}
	remaining = nominalSum
	for _, s := range seats {
		d := demand[s.Level]
		if s.Exempt {
			remaining -= max(s.Min, d)
			continue
		}
		low := max(s.Min, min(s.Nominal, d))
		items = append(items, allocItem{target: math.Max(float64(low), float64(d)), lowerBound: float64(low), upperBound: float64(s.Max)})
		names = append(names, s.Level)
		minSum += s.Min
		minCurrentSum += low
	}
	out := map[string]int{}
	switch {
	case remaining <= minSum:
		// Not even the lower bounds fit: each level gets its Min.
		for _, name := range names {
			out[name] = byName[name].Min
		}
	case remaining <= minCurrentSum:
		// The raised lower bounds do not fit: each level gets its Min and
		// the same fraction of the rest of its lower bound.
		frac := float64(remaining-minSum) / float64(minCurrentSum-minSum)
		for i, name := range names {
			m := byName[name].Min
			out[name] = m + int(math.Round((items[i].lowerBound-float64(m))*frac))
		}
	default:
		allocs, _, err := upstreamAllocate(nominalSum, items)
		if err != nil {
			t.Fatalf("upstream's allocator refused levels %v with demand %v: %v", seats, demand, err)
		}
		for i, a := range allocs {
			out[names[i]] = int(math.Round(a))
		}
	}
	return out
}

// TestFloodSpendsOnlyWhatOthersLend runs upstream's allocator on the
// model's seats of the default levels. When global-default floods and
// every other level is idle, global-default's current limit rises far
// above its 49 nominal seats, to the 602 the levels hold in all less what
// each idle level keeps: its nominal seats less those it lends. No idle
// level drops below that.
func TestFloodSpendsOnlyWhatOthersLend(t *testing.T) {
	seats := Seats(DefaultServerSeats, DefaultLevels())
	got := currentLimits(t, seats, map[string]int{"global-default": 600})
	kept := 0
	for _, s := range seats {
		if s.Exempt || s.Level == "global-default" {
			continue
		}
		kept += s.Nominal - s.Lendable
		if got[s.Level] != s.Nominal-s.Lendable {
			t.Errorf("idle %s: current limit %d, want nominal %d − lendable %d = %d", s.Level, got[s.Level], s.Nominal, s.Lendable, s.Nominal-s.Lendable)
		}
	}
	// 602 − (13 + 25 + 73 + 50 + 49 + 24) = 368.
	if want := 602 - kept; kept != 234 || got["global-default"] != want {
		t.Errorf("flooding global-default: current limit %d, want 602 − %d kept by the idle levels = %d (and 234 kept)", got["global-default"], kept, want)
	}
}

// TestCurrentLimitStaysInBounds draws 2,000 demands for the default
// levels and the lab's level: every current limit upstream's allocator
// sets lies between the model's Min and Max, and they add up to the
// nominal seats.
func TestCurrentLimitStaysInBounds(t *testing.T) {
	zero := int32(0)
	levels := append(DefaultLevels(), Level{Name: "apf-lab-runaway", Shares: 5, BorrowingLimitPercent: &zero})
	seats := Seats(DefaultServerSeats, levels)
	rng := rand.New(rand.NewPCG(5, 2026))
	for n := range 2000 {
		demand := map[string]int{}
		for _, s := range seats {
			if !s.Exempt && rng.IntN(3) > 0 {
				demand[s.Level] = rng.IntN(700)
			}
		}
		sum := 0
		for level, cl := range currentLimits(t, seats, demand) {
			sum += cl
			for _, s := range seats {
				if s.Level == level && (cl < s.Min || cl > s.Max) {
					t.Fatalf("case %d, demand %v: %s's current limit %d is outside [%d, %d]", n, demand, level, cl, s.Min, s.Max)
				}
			}
		}
		if sum < 600-len(seats)/2 || sum > 600+len(seats)/2 {
			t.Fatalf("case %d, demand %v: current limits add up to %d, want the 600 nominal seats, give or take rounding", n, demand, sum)
		}
	}
}
