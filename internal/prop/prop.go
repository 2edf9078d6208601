// Package prop is the course's small property checker: it draws cases from a
// seeded generator, asks a property of each, and when one fails it shrinks
// the case to the smallest it can find that still fails, so that a learner
// reads "your Tolerates says true for toleration {...} and taint {...};
// Kubernetes says false" about the simplest pair, not the first random one.
//
// Shrinking is greedy, as in QuickCheck: a case's Shrink function proposes
// smaller cases (one component emptied or simplified at a time); the first
// that still fails replaces the case, and the search starts again from it,
// until no proposal fails. The generator and the shrinker are plain
// functions, so a chapter's oracle test says in a few lines what a case is.
package prop

import (
	"math/rand/v2"
	"testing"
)

// A Property says what is wrong with one case, or "" when nothing is.
type Property[T any] func(T) string

// Smallest returns the smallest failing case it finds from c and its
// complaint, following shrink greedily. It gives up after max steps, so a
// shrinker that does not shrink cannot loop forever.
func Smallest[T any](c T, complaint string, shrink func(T) []T, p Property[T]) (T, string) {
	const max = 1000
	for range max {
		progressed := false
		for _, s := range shrink(c) {
			if msg := p(s); msg != "" {
				c, complaint, progressed = s, msg, true
				break
			}
		}
		if !progressed {
			break
		}
	}
	return c, complaint
}

// Find draws n cases from gen with a fixed seed and returns the smallest
// failing case's complaint, or "" when all n hold.
func Find[T any](n int, seed uint64, gen func(*rand.Rand) T, shrink func(T) []T, p Property[T]) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for range n {
		c := gen(r)
		if msg := p(c); msg != "" {
			_, msg = Smallest(c, msg, shrink, p)
			return msg
		}
	}
	return ""
}

// Check is Find in a test: it fails t with the smallest case's complaint.
func Check[T any](t testing.TB, n int, seed uint64, gen func(*rand.Rand) T, shrink func(T) []T, p Property[T]) {
	t.Helper()
	if msg := Find(n, seed, gen, shrink, p); msg != "" {
		t.Fatal(msg)
	}
}

// Pick returns one of xs, drawn by r.
func Pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// Simpler returns the values of xs that come before x: with xs ordered from
// the simplest value to the least simple, they are x's shrinks.
func Simpler[T comparable](x T, xs ...T) []T {
	for i, v := range xs {
		if v == x {
			return xs[:i]
		}
	}
	return nil
}
