// Package differential holds what every chapter's randomized differential
// shares: how a run picks its seed and its size. A differential compares a
// chapter's model with the lab cluster or with upstream's own code on
// scenarios drawn from a seed; make test runs each with a fixed seed and a
// few cases, and make differential-chapter-N at length with a random one.
//
// It imports only the standard library, so that a chapter's nested module
// (chapter 4's comparison with the kubelet) can use it too.
package differential

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Params returns the run's seed and number of cases. OPSLAB_DIFF_SEED is a
// number, or "random" for a new one (under a billion, so that it is easy to
// type back); unset, it is defaultSeed. OPSLAB_DIFF_CASES is a positive
// number; unset, it is defaultCases. A bad value fails the test at once,
// naming it.
func Params(t testing.TB, defaultSeed uint64, defaultCases int) (seed uint64, cases int) {
	t.Helper()
	seed, cases = defaultSeed, defaultCases
	switch s := os.Getenv("OPSLAB_DIFF_SEED"); s {
	case "":
	case "random":
		seed = rand.Uint64() % 1_000_000_000
	default:
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("OPSLAB_DIFF_SEED=%q is not a number or random", s)
		}
		seed = v
	}
	if s := os.Getenv("OPSLAB_DIFF_CASES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("OPSLAB_DIFF_CASES=%q is not a positive number", s)
		}
		cases = v
	}
	return seed, cases
}
