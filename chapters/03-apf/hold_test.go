package apf

import (
	"context"
	"testing"
	"time"

	fq "k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing"
	"k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/eventclock"
	"k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset"
	"k8s.io/apiserver/pkg/util/flowcontrol/metrics"
	fcrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
)

// TestWriteHoldsItsWidestSeatsThroughout runs writes through upstream's
// own queue set (fairqueuing/queueset, the code every priority level
// dispatches with) and reads the seats it holds while the write runs and
// right after it finishes. The queue set takes max(initial, final) seats
// at dispatch and gives them back only AdditionalLatency after the write
// ends; Write.Hold must say the same. A model in which a write ran on one
// seat and only then held ceil(watchers / 10) would see 1 where the queue
// set holds 3.
func TestWriteHoldsItsWidestSeatsThroughout(t *testing.T) {
	for _, tc := range []struct {
		name, reason      string
		watchers, maxSeat int
		wantSeats         int
	}{
		{"26 watchers", "ceil(26 / 10) = 3 seats from the start of the create", 26, 0, 3},
		{"45 watchers, level cap 2", "the level's cap of 2, held the whole time", 45, 2, 2},
		{"5 watchers", "fewer than 10: one seat, released at once", 5, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := MutatingSeats(tc.watchers, tc.maxSeat)
			seats, secs := w.Hold(0.001)
			if seats != tc.wantSeats {
				t.Fatalf("MutatingSeats(%d, %d).Hold: %d seats, want %d (%s)", tc.watchers, tc.maxSeat, seats, tc.wantSeats, tc.reason)
			}
			// The queue set gives the seats back AdditionalLatency (Extra)
			// after the write ends, so they are held for the run and then
			// the extra time.
			if want := 0.001 + w.Extra; secs != want {
				t.Errorf("MutatingSeats(%d, %d).Hold(0.001): held %g s, want the run and the extra time, %g s", tc.watchers, tc.maxSeat, secs, want)
			}
			// The extra time is stretched so that the test can see the
			// seats still held after the write; the model's answer does
			// not depend on its length.
			const linger = 300 * time.Millisecond
			qs := upstreamQueueSet(t, 10)
			req, _ := qs.StartRequest(context.Background(), &fcrequest.WorkEstimate{
				InitialSeats: uint64(w.Initial), FinalSeats: uint64(w.Final), AdditionalLatency: map[bool]time.Duration{true: linger}[w.Final > 0],
			}, 1, "", "fs", nil, nil, nil)
			if req == nil {
				t.Fatal("the queue set refused the write")
			}
			var during int
			req.Finish(func() { during = qs.Dump(false).SeatsInUse })
			after := qs.Dump(false).SeatsInUse
			if during != seats {
				t.Errorf("while the write runs the queue set holds %d seats, Write.Hold says %d (%s)", during, seats, tc.reason)
			}
			if w.Final > 0 && after != seats {
				t.Errorf("right after the write the queue set holds %d seats, Write.Hold says %d until its extra time ends", after, seats)
			}
			deadline := time.Now().Add(10 * linger)
			for qs.Dump(false).SeatsInUse != 0 && time.Now().Before(deadline) {
				time.Sleep(linger / 10)
			}
			if n := qs.Dump(false).SeatsInUse; n != 0 {
				t.Errorf("the queue set still holds %d seats %v after the write", n, 10*linger)
			}
		})
	}
}

// upstreamQueueSet is a queue set of upstream with limit seats and 8
// queues, dispatching on the real clock.
func upstreamQueueSet(t *testing.T, limit int) fq.QueueSet {
	t.Helper()
	name := t.Name()
	qsc, err := queueset.NewQueueSetFactory(eventclock.Real{}).BeginConstruction(
		fq.QueuingConfig{Name: name, DesiredNumQueues: 8, QueueLengthLimit: 10, HandSize: 2},
		metrics.RatioedGaugeVecPhasedElementPair(metrics.PriorityLevelConcurrencyGaugeVec, 1, 1, []string{name}),
		metrics.PriorityLevelExecutionSeatsGaugeVec.NewForLabelValuesSafe(0, 1, []string{name}),
		fq.NewNamedIntegrator(eventclock.Real{}, name))
	if err != nil {
		t.Fatal(err)
	}
	return qsc.Complete(fq.DispatchingConfig{ConcurrencyLimit: limit, ConcurrencyDenominator: limit})
}
