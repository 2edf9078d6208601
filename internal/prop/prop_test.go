package prop

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestShrinksToSmallest: a property that fails for every pair whose sum
// is at least 10 shrinks to a pair summing to exactly 10: no single
// shrink of it still fails.
func TestShrinksToSmallest(t *testing.T) {
	type pair struct{ a, b int }
	gen := func(r *rand.Rand) pair { return pair{r.IntN(100), r.IntN(100)} }
	shrink := func(p pair) []pair {
		var out []pair
		if p.a > 0 {
			out = append(out, pair{0, p.b}, pair{p.a - 1, p.b})
		}
		if p.b > 0 {
			out = append(out, pair{p.a, 0}, pair{p.a, p.b - 1})
		}
		return out
	}
	p := func(c pair) string {
		if c.a+c.b >= 10 {
			return fmt.Sprintf("%d+%d >= 10", c.a, c.b)
		}
		return ""
	}
	got := Find(1000, 1, gen, shrink, p)
	var a, b int
	if _, err := fmt.Sscanf(got, "%d+%d >= 10", &a, &b); err != nil || a+b != 10 {
		t.Errorf("Find = %q, want a pair summing to 10", got)
	}
}

// TestHoldsIsEmpty: a property that always holds has no complaint.
func TestHoldsIsEmpty(t *testing.T) {
	if got := Find(100, 1, func(r *rand.Rand) int { return r.IntN(5) }, func(int) []int { return nil }, func(int) string { return "" }); got != "" {
		t.Errorf("Find = %q, want \"\"", got)
	}
}

// TestSimpler lists the values before x.
func TestSimpler(t *testing.T) {
	if got := Simpler("c", "a", "b", "c", "d"); fmt.Sprint(got) != "[a b]" {
		t.Errorf("Simpler = %v, want [a b]", got)
	}
}
