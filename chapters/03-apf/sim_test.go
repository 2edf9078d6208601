package apf

import (
	"fmt"
	"math"
	"testing"
)

func queuing(queues, hand, length int32) *Queuing {
	return &Queuing{Queues: queues, HandSize: hand, QueueLengthLimit: length}
}

// reject is the queuing of a level whose limitResponse is Reject: none.
var reject *Queuing

// runawayFlows is a level's traffic: five mice that each send a request
// every 200 ticks, and an operator that sends one every `every` ticks. A
// request holds its seat for 100 ticks; 10 seats serve 0.1 requests a
// tick, so the mice alone use a quarter of the level and the operator at
// every ≤ 10 wants more than all of it.
func runawayFlows(every int64, horizon int64) []Flow {
	flows := []Flow{{Name: "system:serviceaccount:apf-lab:runaway-operator", Every: every, Count: int(horizon / every), Work: 100}}
	for i := range 5 {
		flows = append(flows, Flow{Name: fmt.Sprintf("system:serviceaccount:apf-lab:mouse-%d", i), Start: int64(i * 37), Every: 200, Count: int(horizon / 200), Work: 100})
	}
	return flows
}

func simulate(t *testing.T, level SimLevel, flows []Flow) SimResult {
	t.Helper()
	res, err := Simulate(level, flows)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mouseBound is the longest a mouse may wait when its queue holds only
// its own requests: dispatch takes the non-empty queues in turn, so ahead
// of it are at most one turn of the runaway's handSize queues and the
// other four mice, each turn waiting for one of 10 seats that free every
// 100 ticks, plus the mouse's own earlier request.
const mouseBound = (8 + 4 + 1) * 100 / 10

func TestRunawayContained(t *testing.T) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	for _, every := range []int64{10, 1} { // the operator at 1× and at 10× the level's capacity
		t.Run(fmt.Sprintf("every %d ticks", every), func(t *testing.T) {
			res := simulate(t, level, runawayFlows(every, 200_000))
			runaway := res.Flows[0]
			if runaway.Rejected == 0 {
				t.Errorf("runaway rejected 0 of %d, want its excess rejected (429)", runaway.Sent)
			}
			if limit := 8 * 50; runaway.MaxQueued > limit {
				t.Errorf("runaway queued %d at once, want at most handSize×queueLengthLimit = %d", runaway.MaxQueued, limit)
			}
			for _, m := range res.Flows[1:] {
				if m.Rejected != 0 || m.MaxWait > mouseBound {
					t.Errorf("%s: rejected %d, max wait %d ticks; want 0 rejected and at most %d", m.Name, m.Rejected, m.MaxWait, mouseBound)
				}
			}
		})
	}
}

func TestRunawayFillsItsHandExactly(t *testing.T) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	res := simulate(t, level, runawayFlows(1, 50_000))
	if got := res.Flows[0].MaxQueued; got != 8*50 {
		t.Errorf("runaway queued at most %d, want exactly handSize×queueLengthLimit = 400: it fills every queue of its hand and no other", got)
	}
}

// TestFasterRunawayOnlyMore429s compares the runaway at the level's
// capacity and at ten times it: it sends ten times more and is served no
// more, so the extra requests all come back as 429s, and its share of 429s
// grows; the mice are served alike in both runs.
func TestFasterRunawayOnlyMore429s(t *testing.T) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	slow := simulate(t, level, runawayFlows(10, 200_000))
	fast := simulate(t, level, runawayFlows(1, 200_000))
	s, f := slow.Flows[0], fast.Flows[0]
	rate := func(r FlowResult) float64 { return float64(r.Rejected) / float64(r.Sent) }
	t.Logf("every 10 ticks: sent %d, served %d, 429 %d (%.1f%%); every tick: sent %d, served %d, 429 %d (%.1f%%)",
		s.Sent, s.Served, s.Rejected, 100*rate(s), f.Sent, f.Served, f.Rejected, 100*rate(f))
	if f.Served > s.Served*11/10 {
		t.Errorf("runaway served %d at 10× against %d at 1×, want no more than 10%% more: the level's seats do not grow", f.Served, s.Served)
	}
	if rate(f) < 0.85 || rate(f) <= rate(s) {
		t.Errorf("runaway's 429 rate %.2f at 10× against %.2f at 1×, want above 0.85 and above the slower rate", rate(f), rate(s))
	}
	// The figures a reader is shown: at 1× 20,000 sent, about 15,400
	// served and 23% refused; at 10× 200,000 sent, the same 15,400 served
	// and 92% refused. The model is deterministic; the bounds leave room
	// for a change of dispatch order, not of outcome.
	for _, c := range []struct {
		name   string
		r      FlowResult
		sent   int
		served [2]int
		rate   [2]float64
	}{
		{"1×", s, 20_000, [2]int{15_300, 15_500}, [2]float64{0.22, 0.24}},
		{"10×", f, 200_000, [2]int{15_300, 15_500}, [2]float64{0.91, 0.93}},
	} {
		if c.r.Sent != c.sent || c.r.Served < c.served[0] || c.r.Served > c.served[1] || rate(c.r) < c.rate[0] || rate(c.r) > c.rate[1] {
			t.Errorf("runaway at %s: sent %d, served %d, 429 %.3f; want sent %d, served in %v, 429 rate in %v", c.name, c.r.Sent, c.r.Served, rate(c.r), c.sent, c.served, c.rate)
		}
	}
	for i, m := range fast.Flows[1:] {
		if sm := slow.Flows[i+1]; m.Rejected != 0 || sm.Rejected != 0 || m.MaxWait > mouseBound || sm.MaxWait > mouseBound {
			t.Errorf("%s: at 1× rejected %d, max wait %d; at 10× rejected %d, max wait %d; want 0 and at most %d in both", m.Name, sm.Rejected, sm.MaxWait, m.Rejected, m.MaxWait, mouseBound)
		}
	}
}

// TestWideRequestsQueuePastTheBound shows where handSize × queueLengthLimit
// stops being a bound: the queue-full test counts seats in use, and while
// a request of 3 seats waits at the head of a queue for seats, 9 of 10
// seats may be in use, and then nothing is refused: the runaway's queues
// grow far past their length limit. (Some of its requests are still
// refused, whenever a mouse takes the tenth seat.)
func TestWideRequestsQueuePastTheBound(t *testing.T) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	flows := runawayFlows(1, 50_000)
	flows[0].Seats = 3
	runaway := simulate(t, level, flows).Flows[0]
	if runaway.MaxQueued <= 8*50 {
		t.Errorf("runaway of 3-seat requests queued at most %d, want more than handSize×queueLengthLimit = 400", runaway.MaxQueued)
	}
}

// TestRefusedRequestsMoveTheOffset: a burst of 30 on 1 seat with queues
// of one request refuses most of it, and the offset of the queue choice
// moved for all 30, refused ones included. The second case shows the
// offset at work: one seat, three queues of two, and every flow's hand is
// all three queues, so where a request goes among equally loaded queues
// is the offset's choice alone. Upstream moves the offset for the
// requests it then refuses, and flow b is served 4 of its 6; a level that
// moved it only for the requests it queued would send b's later requests
// to a full queue and serve it 3.
func TestRefusedRequestsMoveTheOffset(t *testing.T) {
	res := simulate(t, SimLevel{Schema: "global-default", Seats: 1, Queuing: queuing(4, 2, 1)}, []Flow{{Name: "burst", Count: 30, Work: 10}})
	if f := res.Flows[0]; f.Rejected == 0 || res.Placed != uint64(f.Sent) {
		t.Errorf("burst of 30: rejected %d, offset moved %d times; want some rejected and the offset moved for all %d", f.Rejected, res.Placed, f.Sent)
	}
	res = simulate(t, SimLevel{Schema: "s", Seats: 1, Queuing: queuing(3, 3, 2)}, []Flow{
		{Name: "f0", Start: 1, Count: 3, Work: 4},
		{Name: "f1", Every: 1, Count: 6, Work: 8},
	})
	type got struct{ Served, Rejected int }
	want := []got{{3, 0}, {4, 2}}
	for i, f := range res.Flows {
		if g := (got{f.Served, f.Rejected}); g != want[i] {
			t.Errorf("%s: served %d, rejected %d; want %d and %d, as when refused requests move the offset", f.Name, g.Served, g.Rejected, want[i].Served, want[i].Rejected)
		}
	}
}

func TestOneQueueDoesNotContain(t *testing.T) {
	// One queue shared by everyone is the old global limit with a waiting
	// room: the mice wait behind the runaway's backlog.
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(1, 1, 50)}
	res := simulate(t, level, runawayFlows(1, 200_000))
	for _, m := range res.Flows[1:] {
		if m.Rejected == 0 && m.MaxWait <= mouseBound {
			t.Errorf("%s: rejected %d, max wait %d; want it hurt (rejected, or waiting past %d) when all flows share one queue", m.Name, m.Rejected, m.MaxWait, mouseBound)
		}
	}
}

func TestRejectVersusQueue(t *testing.T) {
	burst := []Flow{{Name: "deploy-pipeline", Count: 30, Work: 10}}
	for _, tc := range []struct {
		name, reason     string
		queuing          *Queuing
		served, rejected int
		maxWait          int64
	}{
		{"reject", "what finds no free seat gets a 429 at once", reject, 10, 20, 0},
		{"queue", "the burst waits two rounds of 10 ticks and nothing is refused", queuing(64, 8, 50), 30, 0, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := simulate(t, SimLevel{Schema: "global-default", Seats: 10, Queuing: tc.queuing}, burst).Flows[0]
			if f.Served != tc.served || f.Rejected != tc.rejected || f.MaxWait != tc.maxWait {
				t.Errorf("burst of 30 on 10 seats: served %d rejected %d max wait %d, want %d %d %d (%s)", f.Served, f.Rejected, f.MaxWait, tc.served, tc.rejected, tc.maxWait, tc.reason)
			}
		})
	}
}

func TestSimulateRefusesBadLevels(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level SimLevel
		want  string
	}{
		{"no seats", SimLevel{Queuing: reject}, "level has 0 seats, needs at least 1"},
		{"hand above deck", SimLevel{Seats: 1, Queuing: queuing(4, 8, 5)}, "handSize 8 is greater than deckSize 4"},
		{"no queue length", SimLevel{Seats: 1, Queuing: queuing(4, 2, 0)}, "queueLengthLimit 0 is not positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Simulate(tc.level, nil); err == nil || err.Error() != tc.want {
				t.Errorf("Simulate error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCollisionProbabilityOneElephant(t *testing.T) {
	// One elephant covers a mouse only when both hold the same hand.
	if got, want := CollisionProbability(64, 8, 1), 1/4426165368.0; math.Abs(got-want) > 1e-9*want {
		t.Errorf("CollisionProbability(64, 8, 1) = %g, want 1/C(64,8) = %g", got, want)
	}
	if got := CollisionProbability(8, 8, 1); got != 1 {
		t.Errorf("CollisionProbability(8, 8, 1) = %g, want 1: a hand of the whole deck is always shared", got)
	}
}

func TestCollisionExperimentMatchesProbability(t *testing.T) {
	for _, tc := range []struct{ deck, hand, elephants int }{
		{8, 2, 3}, {16, 4, 4}, {64, 8, 6}, {128, 6, 20},
	} {
		t.Run(fmt.Sprintf("%d/%d/%d", tc.deck, tc.hand, tc.elephants), func(t *testing.T) {
			const trials = 200_000
			p := CollisionProbability(tc.deck, tc.hand, tc.elephants)
			hits, err := CountCollisions(tc.deck, tc.hand, tc.elephants, trials, 42)
			if err != nil {
				t.Fatal(err)
			}
			sigma := math.Sqrt(trials * p * (1 - p))
			if d := math.Abs(float64(hits) - trials*p); d > 4*sigma+1 {
				t.Errorf("%d of %d trials collided, want %.1f ± %.1f (P = %.3g)", hits, trials, trials*p, 4*sigma, p)
			}
			t.Logf("P = %.4g, seen %d/%d", p, hits, trials)
		})
	}
}

// TestSimulatedMiceCollideAsPredicted runs many small levels with three
// elephants and twenty mice: a mouse is hurt (rejected, or waiting past a
// turn) exactly when every queue of its hand is also an elephant's, and
// that happens as often as CollisionProbability says.
func TestSimulatedMiceCollideAsPredicted(t *testing.T) {
	const (
		deck, hand, elephants, mice = 8, 2, 3, 20
		runs                        = 300
	)
	hurt, covered := 0, 0
	for run := range runs {
		var flows []Flow
		for e := range elephants {
			flows = append(flows, Flow{Name: fmt.Sprintf("elephant-%d", e), Every: 1, Count: 4000, Work: 100})
		}
		for m := range mice {
			// One request each, one at a time, once the elephants have
			// filled their queues.
			flows = append(flows, Flow{Name: fmt.Sprintf("mouse-%d", m), Start: 1000 + int64(m)*150, Count: 1, Work: 100})
		}
		res := simulate(t, SimLevel{Schema: fmt.Sprintf("run-%d", run), Seats: 10, Queuing: queuing(deck, hand, 20)}, flows)
		taken := map[int]bool{}
		for _, e := range res.Flows[:elephants] {
			for _, q := range e.Hand {
				taken[q] = true
			}
		}
		for _, m := range res.Flows[elephants:] {
			isCovered := true
			for _, q := range m.Hand {
				isCovered = isCovered && taken[q]
			}
			isHurt := m.Rejected > 0 || m.MaxWait > int64(deck)*100/10
			if isCovered != isHurt {
				t.Fatalf("run %d, %s: hand %v covered by elephants = %v but hurt = %v (rejected %d, wait %d)", run, m.Name, m.Hand, isCovered, isHurt, m.Rejected, m.MaxWait)
			}
			if isHurt {
				hurt++
			}
			if isCovered {
				covered++
			}
		}
	}
	n := float64(runs * mice)
	p := CollisionProbability(deck, hand, elephants)
	// Mice of one run share its elephants, so count runs, not mice, as
	// independent: allow 4 standard errors of a mean over runs.
	sigma := math.Sqrt(p*(1-p)/runs) * 1.0
	if got := float64(hurt) / n; math.Abs(got-p) > 4*sigma {
		t.Errorf("%.3f of the mice were hurt, want P = %.3f ± %.3f", got, p, 4*sigma)
	}
	t.Logf("hurt %d of %.0f mice (%.3f); P = %.3f", hurt, n, float64(hurt)/n, p)
}

// TestTraceSamplesEveryTick traces a rejecting level of one seat with a
// flow that sends a request of 2 ticks every tick, sampled at every tick:
// the second request is refused, the third takes the freed seat at tick 2,
// and the samples show each tick's end. Sampling every 0 ticks is refused.
func TestTraceSamplesEveryTick(t *testing.T) {
	level := SimLevel{Schema: "trace", Seats: 1, Queuing: reject}
	flows := []Flow{{Name: "a", Every: 1, Count: 3, Work: 2}}
	res, samples, err := Trace(level, flows, 1)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		At             int64
		InUse, Refused int
	}
	var got []row
	for _, s := range samples {
		got = append(got, row{s.At, s.InUse, s.Rejected[0]})
	}
	want := []row{{0, 1, 0}, {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {4, 0, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) || res.End != 4 || res.Flows[0].Served != 2 {
		t.Errorf("Trace every tick: samples %v, end %d, served %d; want %v, end 4, served 2", got, res.End, res.Flows[0].Served, want)
	}
	if _, _, err := Trace(level, flows, 0); err == nil || err.Error() != "sampling every 0 ticks: want at least 1" {
		t.Errorf("Trace every 0 ticks: error %v, want it refused", err)
	}
}

// TestFlowOfNoRequests: a flow with a count of 0 sends nothing, under
// Queue and under Reject, and the other flows run as they would alone.
func TestFlowOfNoRequests(t *testing.T) {
	for _, q := range []*Queuing{reject, queuing(4, 2, 5)} {
		res := simulate(t, SimLevel{Schema: "none", Seats: 1, Queuing: q}, []Flow{
			{Name: "silent", Every: 1, Count: 0, Work: 10},
			{Name: "one", Count: 1, Work: 10},
		})
		if s, o := res.Flows[0], res.Flows[1]; s.Sent != 0 || s.Served != 0 || s.MeanWait() != 0 || o.Sent != 1 || o.Served != 1 || o.MaxWait != 0 || res.End != 10 {
			t.Errorf("queuing %v: silent sent %d, served %d; one sent %d, served %d, waited %d; end %d; want 0, 0, 1, 1, 0, 10", q, s.Sent, s.Served, o.Sent, o.Served, o.MaxWait, res.End)
		}
	}
}

// TestWideHeadKeepsItsTurn: a request of 2 seats at the head of queue 0
// waits for seats while one is taken, and a request of 1 seat that
// arrives in queue 1 meanwhile waits behind it, as Simulate's doc says
// (dispatch waits for more seats), rather than passing it.
func TestWideHeadKeepsItsTurn(t *testing.T) {
	const schema = "wide-head"
	d, err := NewDealer(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Names whose one-queue hands are queue 0 and queue 1.
	nameIn := func(prefix string, q int) string {
		for i := 0; ; i++ {
			if n := fmt.Sprintf("%s-%d", prefix, i); d.Deal(FlowHash(schema, n))[0] == q {
				return n
			}
		}
	}
	res := simulate(t, SimLevel{Schema: schema, Seats: 2, Queuing: queuing(2, 1, 10)}, []Flow{
		{Name: "filler", Count: 1, Work: 100},
		{Name: nameIn("wide", 0), Start: 1, Count: 1, Work: 10, Seats: 2},
		{Name: nameIn("narrow", 1), Start: 2, Count: 1, Work: 10},
	})
	// The filler ends at 100, the wide request runs from 100 to 110, and
	// only then the narrow one, which arrived at 2.
	if w, n := res.Flows[1], res.Flows[2]; w.MaxWait != 99 || n.MaxWait != 108 || n.MeanWait() != 108 || res.End != 120 {
		t.Errorf("wide waited %d, narrow %d, end %d; want 99, 108 and 120: the narrow request must not pass the wide head", w.MaxWait, n.MaxWait, res.End)
	}
}
