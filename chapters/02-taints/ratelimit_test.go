package taints

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// zoneNodes returns n nodes named zone-i, the first down of them with
// Ready=down and the rest Ready=True.
func zoneNodes(zone string, n, down int, status Status) []Node {
	var nodes []Node
	for i := range n {
		s := True
		if i < down {
			s = status
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("%s-%d", zone, i), Zone: zone, Ready: s})
	}
	return nodes
}

// run steps the tainter once a second for d and returns, for each node
// that got a NoExecute taint, the seconds after t0 when it did.
func run(tr *Tainter, nodes []Node, d time.Duration) map[string]int {
	added := map[string]int{}
	for s := time.Duration(0); s <= d; s += time.Second {
		for _, c := range tr.Step(t0.Add(s), nodes) {
			if c.Added {
				added[c.Node] = int(s / time.Second)
			}
		}
	}
	return added
}

func TestTainterNormalRate(t *testing.T) {
	// 4 of 10 nodes down is 40 %, under the 55 % threshold: a normal zone,
	// tainted at 0.1 nodes per second with a burst of 1.
	tr := NewTainter(DefaultRates())
	got := run(tr, zoneNodes("a", 10, 4, Unknown), 35*time.Second)
	want := map[string]int{"a-0": 0, "a-1": 10, "a-2": 20, "a-3": 30}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("taint times (-want +got):\n%s", diff)
	}
	if s, r := tr.Zone("a"); s != Normal || r != 0.1 {
		t.Errorf("Zone(a) = %s, %v, want Normal, 0.1", s, r)
	}
}

func TestTainterFullDisruptionNormalRate(t *testing.T) {
	// Zone a is entirely down while zone b is healthy: a dead zone must
	// still empty, at the normal rate.
	tr := NewTainter(DefaultRates())
	nodes := append(zoneNodes("a", 3, 3, Unknown), zoneNodes("b", 3, 0, True)...)
	got := run(tr, nodes, 25*time.Second)
	want := map[string]int{"a-0": 0, "a-1": 10, "a-2": 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("taint times (-want +got):\n%s", diff)
	}
	if s, r := tr.Zone("a"); s != FullDisruption || r != 0.1 {
		t.Errorf("Zone(a) = %s, %v, want FullDisruption, 0.1", s, r)
	}
}

func TestTainterPartialDisruptionSmallZoneStops(t *testing.T) {
	// 6 of 10 nodes down (60 % ≥ 55 %, more than 2): partial disruption in
	// a zone of 50 nodes or fewer stops tainting.
	tr := NewTainter(DefaultRates())
	nodes := append(zoneNodes("a", 10, 6, Unknown), zoneNodes("b", 3, 0, True)...)
	if got := run(tr, nodes, 120*time.Second); len(got) != 0 {
		t.Errorf("tainted %v, want none", got)
	}
	if s, r := tr.Zone("a"); s != PartialDisruption || r != 0 {
		t.Errorf("Zone(a) = %s, %v, want PartialDisruption, 0", s, r)
	}
}

func TestTainterPartialDisruptionLargeZoneSecondaryRate(t *testing.T) {
	// 40 of 60 nodes down: partial disruption in a zone of more than 50
	// nodes slows to 0.01 nodes per second, one every 100 s. The first goes
	// at once: the zone's bucket still held its token when the rate changed,
	// and the new bucket starts full.
	tr := NewTainter(DefaultRates())
	nodes := append(zoneNodes("a", 60, 40, Unknown), zoneNodes("b", 3, 0, True)...)
	got := run(tr, nodes, 250*time.Second)
	want := map[string]int{"a-0": 0, "a-1": 100, "a-2": 200}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("taint times (-want +got):\n%s", diff)
	}
	if s, r := tr.Zone("a"); s != PartialDisruption || r != 0.01 {
		t.Errorf("Zone(a) = %s, %v, want PartialDisruption, 0.01", s, r)
	}
}

func TestTainterAllZonesDownStopsAndUntaints(t *testing.T) {
	// One node of zone a is down and tainted; then every node of every zone
	// goes down. The controller blames its own view, not the nodes: it
	// removes the NoExecute taints and stops tainting.
	tr := NewTainter(DefaultRates())
	some := append(zoneNodes("a", 3, 1, Unknown), zoneNodes("b", 3, 0, True)...)
	if got := run(tr, some, 0); got["a-0"] != 0 || len(got) != 1 {
		t.Fatalf("first pass tainted %v, want a-0 at 0 s", got)
	}
	all := append(zoneNodes("a", 3, 3, Unknown), zoneNodes("b", 3, 3, Unknown)...)
	changes := tr.Step(t0.Add(time.Second), all)
	want := []Change{{At: t0.Add(time.Second), Node: "a-0", Taint: Taint{Key: KeyUnreachable, Effect: NoExecute}}}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes when every zone went down (-want +got):\n%s", diff)
	}
	later := run(tr, all, 300*time.Second)
	if len(later) != 0 {
		t.Errorf("tainted %v while every zone was down, want none", later)
	}
	for _, z := range []string{"a", "b"} {
		if s, r := tr.Zone(z); s != FullDisruption || r != 0 {
			t.Errorf("Zone(%s) = %s, %v, want FullDisruption, 0", z, s, r)
		}
	}
}

func TestTainterReadyNodeUntainted(t *testing.T) {
	// A node that reports Ready again loses its not-ready/unreachable
	// NoExecute taint on the next pass (markNodeAsReachable); this is why a
	// hand-made unreachable taint on a healthy node does not last.
	tr := NewTainter(DefaultRates())
	run(tr, zoneNodes("a", 3, 1, Unknown), 0)
	if _, ok := tr.Taint("a-0"); !ok {
		t.Fatal("a-0 was not tainted")
	}
	changes := tr.Step(t0.Add(5*time.Second), zoneNodes("a", 3, 0, True))
	want := []Change{{At: t0.Add(5 * time.Second), Node: "a-0", Taint: Taint{Key: KeyUnreachable, Effect: NoExecute}}}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestTainterSwapsNotReadyAndUnreachable(t *testing.T) {
	// not-ready and unreachable mirror one condition: when Ready goes from
	// False to Unknown the taint is swapped at once, without a token.
	tr := NewTainter(DefaultRates())
	run(tr, zoneNodes("a", 3, 1, False), 0)
	at := t0.Add(time.Second)
	changes := tr.Step(at, zoneNodes("a", 3, 1, Unknown))
	want := []Change{
		{At: at, Node: "a-0", Taint: Taint{Key: KeyNotReady, Effect: NoExecute}},
		{At: at, Node: "a-0", Taint: Taint{Key: KeyUnreachable, Effect: NoExecute}, Added: true},
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestComputeZoneState(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		ready  []Status
		want   ZoneState
	}{
		{"all_ready", "no node down", []Status{True, True, True}, Normal},
		{"all_down", "no Ready node at all", []Status{Unknown, False}, FullDisruption},
		{"two_of_three", "67 % down but only two nodes: more than two are needed", []Status{Unknown, Unknown, True}, Normal},
		{"three_of_five", "60 % of five, three nodes", []Status{Unknown, False, Unknown, True, True}, PartialDisruption},
		{"three_of_six", "50 % is under 55 %", []Status{Unknown, Unknown, Unknown, True, True, True}, Normal},
		{"exactly_55_percent", "11 of 20 is 55 % exactly: at least the threshold is partial", statuses(20, 11), PartialDisruption},
		{"just_under_55_percent", "10 of 19 is 52.6 %: under the threshold", statuses(19, 10), Normal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ComputeZoneState(tt.ready, 0.55); got != tt.want {
				t.Errorf("ComputeZoneState(%v) = %s, want %s (%s)", tt.ready, got, tt.want, tt.reason)
			}
		})
	}
}

// statuses returns n statuses, the first down of them Unknown.
func statuses(n, down int) []Status {
	out := make([]Status, n)
	for i := range out {
		out[i] = True
		if i < down {
			out[i] = Unknown
		}
	}
	return out
}

// TestTainterZoneSizeBoundary: a partly disrupted zone of exactly
// --large-cluster-size-threshold nodes (50) is small and stops tainting; one
// node more makes it large, and it taints at the secondary rate.
func TestTainterZoneSizeBoundary(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		size   int
		want   map[string]int
		rate   float64
	}{
		{"fifty_nodes_small", "50 nodes is not more than 50: small, nothing is tainted", 50, map[string]int{}, 0},
		{"fifty_one_nodes_large", "51 nodes is more than 50: large, one taint every 100 s", 51, map[string]int{"a-0": 0, "a-1": 100}, 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTainter(DefaultRates())
			nodes := append(zoneNodes("a", tt.size, 40, Unknown), zoneNodes("b", 3, 0, True)...)
			got := run(tr, nodes, 150*time.Second)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("taint times in a zone of %d (%s) (-want +got):\n%s", tt.size, tt.reason, diff)
			}
			if s, r := tr.Zone("a"); s != PartialDisruption || r != tt.rate {
				t.Errorf("Zone(a) = %s, %v, want PartialDisruption, %v", s, r, tt.rate)
			}
		})
	}
}

// TestTainterNewRateStartsDrained: when a zone's rate changes, the new
// bucket starts with a token only if the old one had one (SwapLimiter). Here
// the normal bucket spent its token on a-0 a second before the zone turned
// partly disrupted, so the secondary bucket starts empty: a-1 waits the
// secondary rate's 100 s, not 0.
func TestTainterNewRateStartsDrained(t *testing.T) {
	tr := NewTainter(DefaultRates())
	healthy := zoneNodes("b", 3, 0, True)
	if got := run(tr, append(zoneNodes("a", 60, 1, Unknown), healthy...), 0); got["a-0"] != 0 || len(got) != 1 {
		t.Fatalf("first pass tainted %v, want a-0 at 0 s", got)
	}
	nodes := append(zoneNodes("a", 60, 40, Unknown), healthy...)
	added := map[string]int{}
	for s := time.Second; s <= 150*time.Second; s += time.Second {
		for _, c := range tr.Step(t0.Add(s), nodes) {
			if c.Added {
				added[c.Node] = int(s / time.Second)
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"a-1": 101}, added); diff != "" {
		t.Errorf("taint times after the zone turned partial (-want +got):\n%s", diff)
	}
}

// TestTainterSingleZoneAllDownTaintsNothing: nodes without zone or region
// labels are one zone, "". In such a cluster "every zone fully disrupted" is "every
// node down": the taint the first failed node got is removed, no node is
// tainted while they all stay down, and so the taint eviction controller
// deletes nothing. A dead zone empties only when another zone still has a
// Ready node.
func TestTainterSingleZoneAllDownTaintsNothing(t *testing.T) {
	tr := NewTainter(DefaultRates())
	if got := run(tr, zoneNodes("", 3, 1, Unknown), 0); len(got) != 1 {
		t.Fatalf("one node down of three tainted %v, want -0 at 0 s", got)
	}
	all := zoneNodes("", 3, 3, Unknown)
	changes := tr.Step(t0.Add(time.Second), all)
	want := []Change{{At: t0.Add(time.Second), Node: "-0", Taint: Taint{Key: KeyUnreachable, Effect: NoExecute}}}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes when the last Ready node went down (-want +got):\n%s", diff)
	}
	if later := run(tr, all, 600*time.Second); len(later) != 0 {
		t.Errorf("tainted %v with every node of the only zone down, want none", later)
	}
	if s, r := tr.Zone(""); s != FullDisruption || r != 0 {
		t.Errorf(`Zone("") = %s, %v, want FullDisruption, 0`, s, r)
	}
}

// TestTainterSingleZoneStaggeredFailures: in a single zone, nodes that fail
// one after another are tainted at the normal rate while some node is still
// Ready, and those taints' clocks run. Only the pass that sees the last node
// fail takes them off. Here four of ten nodes fail at 0 s (40 %: a Normal
// zone) and the other six at 25 s: -0, -1 and -2 are tainted at 0, 10 and
// 20 s, and a pod that tolerates the taint for 8 s is deleted from -0 and
// -1 before the taints come off at 25 s; the one on -2 is spared.
func TestTainterSingleZoneStaggeredFailures(t *testing.T) {
	tr := NewTainter(DefaultRates())
	tols := []Toleration{tolerate(KeyUnreachable, NoExecute, Seconds(8))}
	timers := map[string]*Timer{}
	deleted := map[string]int{}
	for s := 0; s <= 60; s++ {
		down := 4
		if s >= 25 {
			down = 10
		}
		now := t0.Add(time.Duration(s) * time.Second)
		for _, c := range tr.Step(now, zoneNodes("", 10, down, Unknown)) {
			if timers[c.Node] == nil {
				timers[c.Node] = &Timer{}
			}
			var on []Taint
			if c.Added {
				on = []Taint{c.Taint}
			}
			timers[c.Node].Observe(now, on, tols)
		}
		for node, tm := range timers {
			if f, ok := tm.FireAt(); ok && !f.After(now) {
				if _, done := deleted[node]; !done {
					deleted[node] = s
				}
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"-0": 8, "-1": 18}, deleted); diff != "" {
		t.Errorf("pods deleted, by node, at seconds (-want +got):\n%s", diff)
	}
	if s, r := tr.Zone(""); s != FullDisruption || r != 0 {
		t.Errorf(`Zone("") = %s, %v, want FullDisruption, 0`, s, r)
	}
}

// TestTainterReadyAgainLeavesTheQueue: a tainted node that reports Ready
// again is untainted, and the queue keeps the nodes waiting in it, in
// their order. At one node every 2 s, a-9 is tainted at 0, a-0 and a-1
// fail at 1 and wait for tokens, a-9 comes back at 2, and a-0 takes the
// token at 2 and a-1 the one at 4.
func TestTainterReadyAgainLeavesTheQueue(t *testing.T) {
	tr := NewTainter(Rates{Normal: 0.5, Secondary: 0.1, LargeCluster: 50, UnhealthyThreshold: 0.55})
	added := map[string]int{}
	step := func(s int, down ...int) {
		nodes := zoneNodes("a", 10, 0, False)
		for _, i := range down {
			nodes[i].Ready = False
		}
		for _, c := range tr.Step(t0.Add(time.Duration(s)*time.Second), nodes) {
			if c.Added {
				added[c.Node] = s
			}
		}
	}
	step(0, 9)
	step(1, 9, 0, 1)
	for s := 2; s <= 5; s++ {
		step(s, 0, 1)
	}
	if want := map[string]int{"a-9": 0, "a-0": 2, "a-1": 4}; !cmp.Equal(want, added) {
		t.Errorf("tainted at (s) %v, want %v", added, want)
	}
}
