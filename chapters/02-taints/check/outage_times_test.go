package check

import (
	"testing"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck/audit/audittest"
)

// TestAtRequestsOnTheRecordedRun gives the changes of the recorded run, as
// a watch on a busy machine would have seen them (each a second or more
// after its write, some later than others), the times their writes
// arrived: every taint put on and taken off, every Ready flip and every
// pod's deletion the log holds.
func TestAtRequestsOnTheRecordedRun(t *testing.T) {
	events := recordedRun(t)
	start := events[0].Received
	r := readOutage(events, taints.OutageLayout)
	since := func(at time.Time) time.Duration { return at.Sub(start) }
	// A watch sees each change late, by 1 s and by another 0.7 s every
	// third change.
	late := func(i int) time.Duration { return time.Second + time.Duration(i%3)*350*time.Millisecond }
	var seen, want kube.Seen
	for i, f := range r.flips {
		status := taints.False
		if f.ready {
			status = taints.True
		}
		seen.Flips = append(seen.Flips, taints.Flip{At: since(f.at) + late(i), Node: f.node, Ready: status})
		want.Flips = append(want.Flips, taints.Flip{At: since(f.at), Node: f.node, Ready: status})
	}
	for i, m := range r.marks {
		if m.effect != "NoExecute" {
			continue
		}
		seen.Marks = append(seen.Marks, taints.Mark{At: since(m.at) + late(i), Node: m.node, Zone: m.zone, Added: m.added})
		want.Marks = append(want.Marks, taints.Mark{At: since(m.at), Node: m.node, Zone: m.zone, Added: m.added})
	}
	for i, e := range r.deletes {
		node := e.Name[len("app-"):]
		seen.Evicted = append(seen.Evicted, taints.Eviction{At: since(e.Received) + late(i), Node: node})
		want.Evicted = append(want.Evicted, taints.Eviction{At: since(e.Received), Node: node})
	}
	if len(seen.Marks) < 20 || len(seen.Evicted) < 20 || len(seen.Flips) < 150 {
		t.Fatalf("the recorded run has %d taints, %d deletions and %d flips; want at least 20, 20 and 150", len(seen.Marks), len(seen.Evicted), len(seen.Flips))
	}
	got, found := AtRequests(events, taints.OutageLayout, start, seen)
	if total := len(seen.Flips) + len(seen.Marks) + len(seen.Evicted); found != total {
		t.Errorf("found the writes of %d of %d changes, want all", found, total)
	}
	for i := range want.Marks {
		if got.Marks[i] != want.Marks[i] {
			t.Errorf("taint %d: got %+v, want %+v (seen %v)", i, got.Marks[i], want.Marks[i], seen.Marks[i].At)
		}
	}
	for i := range want.Flips {
		if got.Flips[i] != want.Flips[i] {
			t.Errorf("flip %d: got %+v, want %+v", i, got.Flips[i], want.Flips[i])
		}
	}
	for i := range want.Evicted {
		if got.Evicted[i] != want.Evicted[i] {
			t.Errorf("deletion %d: got %+v, want %+v", i, got.Evicted[i], want.Evicted[i])
		}
	}
	// few's five taints, as the log's header says.
	var few []float64
	for _, m := range got.Marks {
		if m.Added && m.At < 70*time.Second {
			few = append(few, m.At.Seconds())
		}
	}
	for i, s := range []float64{55.7, 57.8, 59.8, 61.9, 64.0} {
		if i >= len(few) || few[i] < s-0.05 || few[i] > s+0.05 {
			t.Errorf("few's taints at %.2f s, want about 55.7, 57.8, 59.8, 61.9 and 64.0", few)
			break
		}
	}
}

// TestAtRequestsTakesOnlyAWriteThatCouldHaveMadeTheChange: a write that
// arrived after the watch saw the change, a write that swapped one
// NoExecute taint for the other, and a change of which the log holds no
// write leave a sighting's time alone or take the write that made it.
func TestAtRequestsTakesOnlyAWriteThatCouldHaveMadeTheChange(t *testing.T) {
	ctl := audittest.Controller("node-controller")
	events := recordedRun(t)[:1]
	start := events[0].Received
	const unreachableBoth = `[{"key":"node.kubernetes.io/unreachable","effect":"NoSchedule"},{"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}]`
	events = append(events,
		taintWrite(events, ctl, "a-01", 10, notReadyBoth),
		taintWrite(events, ctl, "a-01", 12, unreachableBoth), // a swap: a-01 stays tainted
		taintWrite(events, ctl, "a-01", 20, `[]`),
		taintWrite(events, ctl, "a-02", 31, notReadyBoth), // after the sighting below
	)
	seen := kube.Seen{Marks: []taints.Mark{
		{At: 11 * time.Second, Node: "a-01", Zone: "zone-a", Added: true},
		{At: 21 * time.Second, Node: "a-01", Zone: "zone-a", Added: false},
		{At: 30 * time.Second, Node: "a-02", Zone: "zone-a", Added: true},
		{At: 40 * time.Second, Node: "a-03", Zone: "zone-a", Added: true},
	}}
	got, found := AtRequests(events, taints.OutageLayout, start, seen)
	want := []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second, 40 * time.Second}
	for i, w := range want {
		if got.Marks[i].At != w {
			t.Errorf("sighting %d (%s at %v): got %v, want %v", i, got.Marks[i].Node, seen.Marks[i].At, got.Marks[i].At, w)
		}
	}
	if found != 2 {
		t.Errorf("found %d writes, want 2 (a-01's taint put on and taken off)", found)
	}
}
