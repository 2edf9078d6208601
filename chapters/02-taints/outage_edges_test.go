package taints

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests of this file hold the outage model's edges: the ones a
// mutation run found no test for.

// labOutage is the outage model with the scale profile's settings, as the
// recorded run has them.
func labOutage() Outage {
	return Outage{Rates: Rates{Normal: 0.5, Secondary: 0.1, LargeCluster: 50, UnhealthyThreshold: 0.55}, MonitorPeriod: 5 * time.Second, Layout: OutageLayout}
}

// TestNodeNamesAreNodeNames: a node's name is its zone's name without
// "zone-" and a two-digit number, and always a valid node name, even for
// a zone called just "zone-".
func TestNodeNamesAreNodeNames(t *testing.T) {
	for zone, want := range map[string]string{"zone-a": "a-07", "zone-": "zone--07", "east": "east-07"} {
		got := NodeName(zone, 7)
		if got != want {
			t.Errorf("NodeName(%q, 7) = %q, want %q", zone, got, want)
		}
		if !isSubdomain(got) {
			t.Errorf("NodeName(%q, 7) = %q, not a valid node name", zone, got)
		}
	}
}

// TestExperimentsWatchAWholeHealthPass: every experiment watches for more
// than a --node-monitor-period, so a health pass after the flips falls in
// the watch whatever the controller's phase, and the zones are judged.
func TestExperimentsWatchAWholeHealthPass(t *testing.T) {
	for _, e := range Experiments(OutageLayout) {
		if e.Watch <= labOutage().MonitorPeriod {
			t.Errorf("%s watches %v, not more than the lab's --node-monitor-period %v", e.Name, e.Watch, labOutage().MonitorPeriod)
		}
	}
}

// TestShiftsIncludeBothEnds: Fit tries the shifts from one end to the
// other, both included (0 is "the passes where the lab saw them").
func TestShiftsIncludeBothEnds(t *testing.T) {
	ms := time.Millisecond
	if got, want := Shifts(-50*ms, 0, 25*ms), []time.Duration{-50 * ms, -25 * ms, 0}; !slices.Equal(got, want) {
		t.Errorf("Shifts = %v, want %v", got, want)
	}
}

// TestBeforeNodesTaintedBeforeTheStart: nodes down long before the start
// carry their taints when it comes, as far as their zone's rate let the
// controller taint them in the hour before; the experiment shows only
// what changes in it.
func TestBeforeNodesTaintedBeforeTheStart(t *testing.T) {
	o := labOutage()
	// Five of zone-a's 90: a Normal zone, every one tainted long before.
	e := Experiment{Name: "five-before", Before: OutageLayout.First("zone-a", 5), Watch: 12 * time.Second}
	if got := marksString(o.Predict(e)); got != "" {
		t.Errorf("five nodes down for an hour: the model predicts %q in the experiment, want nothing", got)
	}
	// One more fails at the start: it is tainted at once, the bucket full.
	e.Flips = flips(0, False, []string{NodeName("zone-a", 6)})
	if got := marksString(o.Predict(e)); got != "zone-a:+0.0" {
		t.Errorf("a sixth node fails at 0: the model predicts %q, want %q", got, "zone-a:+0.0")
	}
	// Six of zone-c's 15 before, and nothing after: 40 %, still Normal.
	e = Experiment{Name: "six-of-c", Before: OutageLayout.First("zone-c", 6), Watch: 12 * time.Second}
	if got := marksString(o.Predict(e)); got != "" {
		t.Errorf("six of zone-c down for an hour: the model predicts %q, want nothing", got)
	}
}

// TestSameTimeFlipsInListOrder: flips at the same time are applied in the
// order the experiment lists them, so the last one for a node wins.
func TestSameTimeFlipsInListOrder(t *testing.T) {
	o := labOutage()
	a1 := NodeName("zone-a", 1)
	down := Experiment{Name: "down", Flips: []Flip{{At: time.Second, Node: a1, Ready: True}, {At: time.Second, Node: a1, Ready: False}}, Watch: 12 * time.Second}
	if got := o.Predict(down).Left(); !slices.Equal(got, []string{a1}) {
		t.Errorf("Ready then not-Ready at 1 s: left tainted %v, want [%s]", got, a1)
	}
	up := Experiment{Name: "up", Flips: []Flip{{At: time.Second, Node: a1, Ready: False}, {At: time.Second, Node: a1, Ready: True}}, Watch: 12 * time.Second}
	if got := o.Predict(up).Left(); len(got) != 0 {
		t.Errorf("not-Ready then Ready at 1 s: left tainted %v, want none", got)
	}
}

// TestPredictZoneChanges: the prediction lists a zone's changes of state
// and rate, once each, at the health pass that makes them.
func TestPredictZoneChanges(t *testing.T) {
	o := labOutage()
	o.Phase = 2 * time.Second
	var large Experiment
	for _, e := range Experiments(OutageLayout) {
		if e.Name == "large-partial" {
			large = e
		}
	}
	got := o.Predict(large).Zones
	want := []ZoneChange{{At: 2 * time.Second, Zone: "zone-a", State: PartialDisruption, Rate: 0.1}}
	if !slices.Equal(got, want) {
		t.Errorf("Zones = %+v, want %+v", got, want)
	}
}

// compareCase is one Compare of a single predicted taint, at 10 s in
// zone-a, with one seen at seen.
func compareCase(seen time.Duration, tol Tolerance) []string {
	p := Prediction{Marks: []Mark{{At: 10 * time.Second, Node: "a-01", Zone: "zone-a", Added: true}}}
	return p.Compare([]Mark{{At: seen, Node: "a-02", Zone: "zone-a", Added: true}}, tol)
}

// TestCompareBounds: a taint seen within the allowance, at its very edge
// included, matches; a millisecond beyond it does not, and the difference
// names the taint, the times and the allowance.
func TestCompareBounds(t *testing.T) {
	ms := time.Millisecond
	tol := Tolerance{Base: 400 * ms, PerTaint: 150 * ms, Late: 600 * ms, End: time.Minute}
	for _, c := range []struct {
		seen time.Duration
		want string
	}{
		{10*time.Second + 1000*ms, ""},
		{10*time.Second + 1001*ms, "zone-a: taint 1 put on at 11.0s, the model says 10.0s (more than 1s later)"},
		{10*time.Second - 400*ms, ""},
		{10*time.Second - 401*ms, "zone-a: taint 1 put on at 9.6s, the model says 10.0s (more than 400ms earlier)"},
	} {
		if got := strings.Join(compareCase(c.seen, tol), "\n"); got != c.want {
			t.Errorf("seen at %v: Compare = %q, want %q", c.seen, got, c.want)
		}
	}
}

// TestCompareSecondTaintAllowance: the second taint of a zone's queue is
// allowed one more PerTaint, and a difference names it as taint 2.
func TestCompareSecondTaintAllowance(t *testing.T) {
	ms := time.Millisecond
	tol := Tolerance{Base: 400 * ms, PerTaint: 150 * ms, End: time.Minute}
	p := Prediction{Marks: []Mark{
		{At: 0, Node: "a-01", Zone: "zone-a", Added: true},
		{At: 2 * time.Second, Node: "a-02", Zone: "zone-a", Added: true},
	}}
	seen := func(second time.Duration) []Mark {
		return []Mark{{At: 0, Node: "a-01", Zone: "zone-a", Added: true}, {At: second, Node: "a-02", Zone: "zone-a", Added: true}}
	}
	if got := p.Compare(seen(2*time.Second+550*ms), tol); len(got) != 0 {
		t.Errorf("second taint 550 ms late: %q, want a match", got)
	}
	want := "zone-a: taint 2 put on at 1.4s, the model says 2.0s (more than 550ms earlier)"
	if got := strings.Join(p.Compare(seen(2*time.Second-551*ms), tol), "\n"); got != want {
		t.Errorf("second taint 551 ms early: %q, want %q", got, want)
	}
}

// TestCompareJudgesTheLatenessKept: a taint seen late matches when a later
// taint of the zone's queue is seen on the model's time again (as in a live
// run beside a busy test suite: its second taint seen 1.4 s late, its third
// on time), for the tokens kept their schedule. The same lateness kept by
// every later taint does not match, nor a last taint seen that late, and
// the difference says the later ones were late too.
func TestCompareJudgesTheLatenessKept(t *testing.T) {
	p := Prediction{Marks: zoneA(0, 2, 4, 6, 8)}
	tol := LabTolerance(time.Minute) // 1 s for the first taint, 150 ms more for each later one
	for _, c := range []struct {
		name string
		seen []Mark
		want []string
	}{
		{"one sighting late", zoneA(0, 3.4, 4, 6, 8), nil},
		{"the lateness kept", zoneA(0, 3.4, 5.4, 7.4, 9.4), []string{
			"zone-a: taint 2 put on at 3.4s, the model says 2.0s (more than 1.15s later, and so was every later one)",
			"zone-a: taint 3 put on at 5.4s, the model says 4.0s (more than 1.3s later, and so was every later one)",
		}},
		{"the last taint late", zoneA(0, 2, 4, 6, 9.7), []string{
			"zone-a: taint 5 put on at 9.7s, the model says 8.0s (more than 1.6s later)",
		}},
	} {
		if got := p.Compare(c.seen, tol); !slices.Equal(got, c.want) {
			t.Errorf("%s: Compare = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCompareForgivesSharedLatenessInALiveRun: in a live run (Shared) the
// lateness every taint of the zone shares is forgiven beyond the first
// taint's allowance (as in a live run beside the busy suite: every taint
// of "few" seen 1.1 s late, their spacing the model's), and what is added
// along the queue after it is still judged. A run recorded on a quiet
// machine (not Shared) forgives nothing of it.
func TestCompareForgivesSharedLatenessInALiveRun(t *testing.T) {
	p := Prediction{Marks: zoneA(0, 2, 4, 6, 8)}
	live, quiet := LabTolerance(time.Minute), LabTolerance(time.Minute)
	live.Shared = true
	late := zoneA(1.1, 3.1, 5.1, 7.1, 9.1)
	if got := p.Compare(late, live); len(got) != 0 {
		t.Errorf("every taint 1.1 s late, live: Compare = %q, want a match", got)
	}
	if got := p.Compare(late, quiet); len(got) == 0 {
		t.Error("every taint 1.1 s late, quiet: Compare matches")
	}
	want := []string{"zone-a: taint 5 put on at 10.1s, the model says 8.0s (more than 1.6s later, beyond the 100ms every taint was late)"}
	if got := p.Compare(zoneA(1.1, 3.1, 5.1, 7.1, 10.1), live); !slices.Equal(got, want) {
		t.Errorf("the last taint 1 s later still, live: Compare = %q, want %q", got, want)
	}
}

// zoneA returns taints put on in zone-a at the given seconds.
func zoneA(seconds ...float64) []Mark {
	var ms []Mark
	for _, s := range seconds {
		ms = append(ms, Mark{At: time.Duration(s * float64(time.Second)), Node: "a", Zone: "zone-a", Added: true})
	}
	return ms
}

// TestCompareCountsOnce: when a zone has fewer or more taints than the
// model says, the difference is said once, with both lists of times.
func TestCompareCountsOnce(t *testing.T) {
	tol := Tolerance{Base: 400 * time.Millisecond, PerTaint: 150 * time.Millisecond, End: time.Minute}
	p := Prediction{Marks: zoneA(0)}
	got := p.Compare(zoneA(0, 2.3, 4.3), tol)
	want := []string{"zone-a: 3 taints put on, the model says 1 (seen at [0.0 2.3 4.3]; predicted at [0.0])"}
	if !slices.Equal(got, want) {
		t.Errorf("Compare = %q, want %q", got, want)
	}
}

// TestFitShiftsPassesBack: Fit moves the health passes back by the shifts
// of its list, in order, and returns the first outage that fits, with no
// differences. The model's tainting passes come every 100 ms from 0, so a
// health pass at 3.85 s or 3.9 s both taint at 3.9 s: the first, -150 ms,
// fits. With no shift that fits, it returns the closest, the first of
// equals.
func TestFitShiftsPassesBack(t *testing.T) {
	o := labOutage()
	var few Experiment
	for _, e := range Experiments(OutageLayout) {
		if e.Name == "few" {
			few = e
		}
	}
	few.Flips = flips(3*time.Second, False, OutageLayout.First("zone-a", 5))
	tight := Tolerance{Base: 10 * time.Millisecond, End: time.Minute}
	ms := time.Millisecond
	truth := o
	truth.Passes = []time.Duration{4*time.Second - 100*ms, 9*time.Second - 100*ms}
	seen := truth.Predict(few).Marks
	o.Passes = []time.Duration{4 * time.Second, 9 * time.Second}
	fit, diffs := o.Fit(few, seen, tight, Shifts(-150*ms, 0, 50*ms))
	if want := []time.Duration{4*time.Second - 150*ms, 9*time.Second - 150*ms}; len(diffs) != 0 || !slices.Equal(fit.Passes, want) {
		t.Errorf("Fit = passes %v, %q; want passes %v and no differences", fit.Passes, diffs, want)
	}
	o.Passes = nil
	o.Phase = 4 * time.Second
	truth = o
	truth.Phase = 4*time.Second - 100*ms
	fit, diffs = o.Fit(few, truth.Predict(few).Marks, tight, Shifts(-150*ms, 0, 50*ms))
	if want := 4*time.Second - 150*ms; len(diffs) != 0 || fit.Phase != want {
		t.Errorf("Fit = phase %v, %q; want phase %v and no differences", fit.Phase, diffs, want)
	}
	// Seen 1 s after every pass the model can place: nothing fits, and
	// every shift is as far; Fit returns the first it tried.
	late := slices.Clone(seen)
	for i := range late {
		late[i].At += 2 * time.Second
	}
	o.Passes = []time.Duration{4 * time.Second, 9 * time.Second}
	fit, diffs = o.Fit(few, late, tight, Shifts(-150*ms, 0, 50*ms))
	if len(diffs) == 0 || fit.Passes[0] != 4*time.Second-150*ms || len(fit.Inside) > 0 {
		t.Errorf("Fit = passes %v, inside %v, %d differences; want the first shift tried, -150ms without a pass inside, and differences", fit.Passes, fit.Inside, len(diffs))
	}
}

// TestFitKeepsTheClosest: among shifts that do not fit, Fit returns the
// first with the fewest differences: -150 ms and -100 ms miss by the one
// taint the lab did not see, -50 ms and 0 by every taint's time as well.
func TestFitKeepsTheClosest(t *testing.T) {
	o := labOutage()
	ms := time.Millisecond
	var few Experiment
	for _, e := range Experiments(OutageLayout) {
		if e.Name == "few" {
			few = e
		}
	}
	few.Flips = flips(3*time.Second, False, OutageLayout.First("zone-a", 5))
	truth := o
	truth.Passes = []time.Duration{4*time.Second - 100*ms, 9*time.Second - 100*ms}
	seen := truth.Predict(few).Marks
	seen = seen[:len(seen)-1] // one taint fewer than any prediction: nothing fits
	o.Passes = []time.Duration{4 * time.Second, 9 * time.Second}
	tight := Tolerance{Base: 10 * time.Millisecond, End: time.Minute}
	fit, diffs := o.Fit(few, seen, tight, Shifts(-150*ms, 0, 50*ms))
	if len(diffs) != 1 || fit.Passes[0] != 4*time.Second-150*ms {
		t.Errorf("Fit = passes %v, %q; want the first pass at %v and the one difference in counts", fit.Passes, diffs, 4*time.Second-150*ms)
	}
}

// TestLabToleranceAllowances pins the allowances the evidence page states:
// 400 ms for every taint, 150 ms more for each before it in its zone's
// queue, 600 ms more when late.
func TestLabToleranceAllowances(t *testing.T) {
	got := LabTolerance(30 * time.Second)
	want := Tolerance{Base: 400 * time.Millisecond, PerTaint: 150 * time.Millisecond, Late: 600 * time.Millisecond, End: 30 * time.Second}
	if got != want {
		t.Errorf("LabTolerance = %+v, want %+v", got, want)
	}
}

// TestCompareEvictionsShortSpans: a pod whose node carried the taint for
// less than its toleration is not due, whenever the span began; one that
// carried it for exactly its toleration is due at the end of the span.
func TestCompareEvictionsShortSpans(t *testing.T) {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	on := func(at float64) Mark { return Mark{At: s(at), Node: "c-01", Zone: "zone-c", Added: true} }
	off := func(at float64) Mark { return Mark{At: s(at), Node: "c-01", Zone: "zone-c"} }
	for _, c := range []struct {
		name    string
		marks   []Mark
		evicted []Eviction
		want    string
	}{
		{"on and off at 0", []Mark{on(0), off(0)}, nil, ""},
		{"2 s of 5, from 10 s", []Mark{on(10), off(12)}, nil, ""},
		{"exactly 5 s, then deleted", []Mark{on(10), off(15)}, []Eviction{{At: s(15), Node: "c-01"}}, ""},
		{"2 s of 5, yet deleted", []Mark{on(10), off(12)}, []Eviction{{At: s(15), Node: "c-01"}},
			"the pod on c-01 was deleted at 15.0s, but its node never carried the taint for 5s"},
	} {
		got := strings.Join(CompareEvictions(c.marks, c.evicted, 5*time.Second, time.Minute), "\n")
		if got != c.want {
			t.Errorf("%s: CompareEvictions = %q, want %q", c.name, got, c.want)
		}
	}
}
