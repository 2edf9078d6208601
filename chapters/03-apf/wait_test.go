package apf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	_ "unsafe" // for go:linkname

	_ "k8s.io/apiserver/pkg/server/filters" // links getRequestWaitContext
	utilsclock "k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// upstreamRequestWaitContext is the unexported getRequestWaitContext of
// k8s.io/apiserver/pkg/server/filters (priority-and-fairness.go), which
// gives a request's wait in a queue its deadline.
//
//go:linkname upstreamRequestWaitContext k8s.io/apiserver/pkg/server/filters.getRequestWaitContext
func upstreamRequestWaitContext(ctx context.Context, defaultRequestWaitLimit time.Duration, clock utilsclock.PassiveClock) (context.Context, context.CancelFunc)

// TestQueueWaitLimit pins the rule of getRequestWaitContext (v1.37.2):
// wait-limit = min(remaining deadline / 4, 1m), or min(default, 1m)
// without a deadline; and asks upstream's function itself, on a fake
// clock, for the same cases and for random deadlines.
func TestQueueWaitLimit(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		deadline     float64
		hasDeadline  bool
		def, want    float64
	}{
		{"default request timeout", "--request-timeout 60s: a quarter is 15 s", 60, true, 15, 15},
		{"short deadline", "a client's 8 s timeout leaves 2 s of queueing", 8, true, 15, 2},
		{"long deadline", "never more than a minute", 600, true, 15, 60},
		{"no deadline", "the default", 0, false, 15, 15},
		{"no deadline, long default", "capped too", 0, false, 90, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QueueWaitLimit(tc.deadline, tc.hasDeadline, tc.def); got != tc.want {
				t.Errorf("QueueWaitLimit(%v, %v, %v) = %v, want %v (%s)", tc.deadline, tc.hasDeadline, tc.def, got, tc.want, tc.reason)
			}
			if got := upstreamWaitLimit(tc.deadline, tc.hasDeadline, tc.def); got != tc.want {
				t.Errorf("getRequestWaitContext(%v, %v, %v) gives %v, want %v (%s)", tc.deadline, tc.hasDeadline, tc.def, got, tc.want, tc.reason)
			}
		})
	}
	rng := rand.New(rand.NewPCG(4, 2026))
	for range 2_000 {
		deadline := float64(rng.IntN(400_000)) / 1000 // to the millisecond, up to 400 s
		has := rng.IntN(4) > 0
		def := float64(rng.IntN(120_000)) / 1000
		// Upstream counts in nanoseconds; a difference below a microsecond is
		// the conversion's, not the rule's.
		if got, want := QueueWaitLimit(deadline, has, def), upstreamWaitLimit(deadline, has, def); math.Abs(got-want) > 1e-6 {
			t.Fatalf("QueueWaitLimit(%v, %v, %v) = %v, getRequestWaitContext gives %v", deadline, has, def, got, want)
		}
	}
}

// upstreamWaitLimit asks getRequestWaitContext how long a request that
// arrives now, with a deadline in deadline seconds (or none), may wait.
func upstreamWaitLimit(deadline float64, hasDeadline bool, def float64) float64 {
	// The fake clock stands an hour ahead of the real one: the request's
	// own context expires on the real clock, and upstream returns an
	// expired context unchanged.
	now := time.Now().Add(time.Hour).Truncate(time.Second)
	ctx := context.Background()
	if hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, now.Add(time.Duration(deadline*float64(time.Second))))
		defer cancel()
	}
	wctx, cancel := upstreamRequestWaitContext(ctx, time.Duration(def*float64(time.Second)), testingclock.NewFakePassiveClock(now))
	defer cancel()
	d, _ := wctx.Deadline()
	return d.Sub(now).Seconds()
}
