package pdb

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Draining pdb-1 and pdb-2 together (both cordoned first, as kubectl drain
// does) under minAvailable 2 of 3: ledger-1 goes at once, ledger-2 is refused
// every 5 s until ledger-1's replacement is Ready at t=15s.
func TestDrainWaitsForReplacements(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	rs, err := c.DrainNodes([]string{"pdb-1", "pdb-2"}, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []DrainResult{
		{Node: "pdb-1", Started: 0, Ended: 0, Evicted: []string{"ledger-1"}, Attempts: 1},
		{Node: "pdb-2", Started: 0, Ended: 15 * time.Second, Evicted: []string{"ledger-2"}, Attempts: 4},
	}
	if diff := cmp.Diff(want, rs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("drain of pdb-1 and pdb-2 (-want +got):\n%s", diff)
	}
}

// minAvailable equal to the replicas allows no eviction, ever: with no
// timeout the drain can never finish, and with one it gives up with the pod
// still there.
func TestDrainStallsWhenFloorEqualsReplicas(t *testing.T) {
	t.Run("no-timeout", func(t *testing.T) {
		c := ledger(t, 4, minAvailable(Int(4)))
		r, err := c.Drain("pdb-2", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Stalled || r.TimedOut || !cmp.Equal(r.Left, []string{"ledger-2"}) {
			t.Errorf("Drain(pdb-2) = %+v, want stalled with ledger-2 left", r)
		}
	})
	t.Run("one-replica", func(t *testing.T) {
		c := ledger(t, 1, minAvailable(Int(1)))
		r, err := c.Drain("pdb-1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Stalled || !cmp.Equal(r.Left, []string{"ledger-1"}) {
			t.Errorf("Drain(pdb-1) of a single replica under minAvailable 1 = %+v, want stalled with ledger-1 left", r)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		c := ledger(t, 4, minAvailable(Int(4)))
		r, err := c.Drain("pdb-2", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		// Asked at t=0s, 5s, ... 55s: twelve times, then the timeout.
		want := DrainResult{Node: "pdb-2", Ended: time.Minute, Left: []string{"ledger-2"}, Attempts: 12, TimedOut: true, Stalled: true}
		if diff := cmp.Diff(want, r, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Drain(pdb-2, 1m) (-want +got):\n%s", diff)
		}
	})
}

// The same drain finishes once the floor leaves room: more replicas under
// the same floor, or a looser floor over the same replicas.
func TestLooserFloorLetsDrainFinish(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		replicas int
		floor    func(*Budget)
	}{
		{name: "more-replicas", reason: "5 replicas under minAvailable 4 leave one disruption", replicas: 5, floor: minAvailable(Int(4))},
		{name: "min-3", reason: "a floor of 3 under 4 replicas leaves one disruption", replicas: 4, floor: minAvailable(Int(3))},
		{name: "max-unavailable-1", reason: "maxUnavailable 1 says the same and follows the replicas when they change", replicas: 4, floor: maxUnavailable(Int(1))},
		{name: "two-replicas-max-unavailable-1", reason: "two replicas that may lose one: every drain goes through, one pod at a time", replicas: 2, floor: maxUnavailable(Int(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, tt.replicas, tt.floor)
			r, err := c.Drain("pdb-1", 0)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Done() || len(c.PodsOn("pdb-1")) != 0 {
				t.Errorf("Drain(pdb-1) = %s, want drained (%s)", r.Summary(), tt.reason)
			}
		})
	}
}

// Two budgets on one pod are an error the eviction subresource cannot get
// past; kubectl drain does not retry it.
func TestDrainFailsOnSeveralBudgets(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(1)))
	one := Int(1)
	if err := c.AddBudget(Budget{Name: "everything", Selector: &Selector{}, MaxUnavailable: &one}); err != nil {
		t.Fatal(err)
	}
	r, err := c.Drain("pdb-1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Done() || len(r.Failed) != 1 || r.Failed[0].Code != 500 || r.Attempts != 1 || r.Ended != 0 {
		t.Errorf("Drain(pdb-1) = %+v, want ledger-1 failed with 500 after one attempt at t=0s", r)
	}
}

// kubectl drain leaves the node cordoned however it ends: done, timed out,
// or failed on an error it does not retry.
func TestDrainCordonsTheNode(t *testing.T) {
	one := Int(1)
	for _, tt := range []struct {
		name  string
		floor func(*Budget)
		extra *Budget
		ended func(DrainResult) bool
	}{
		{name: "done", floor: minAvailable(Int(2)), ended: DrainResult.Done},
		{name: "timed-out", floor: minAvailable(Int(3)), ended: func(r DrainResult) bool { return r.TimedOut }},
		{name: "failed", floor: minAvailable(Int(1)), extra: &Budget{Name: "everything", Selector: &Selector{}, MaxUnavailable: &one},
			ended: func(r DrainResult) bool { return len(r.Failed) > 0 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, 3, tt.floor)
			if tt.extra != nil {
				must(t, c.AddBudget(*tt.extra))
			}
			r, err := c.Drain("pdb-1", 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.ended(r) {
				t.Fatalf("Drain(pdb-1) = %+v, want it %s", r, tt.name)
			}
			if n, _ := c.Node("pdb-1"); !n.Cordoned {
				t.Errorf("pdb-1 is schedulable after a drain that ended %s, want cordoned: kubectl drain does not uncordon", tt.name)
			}
		})
	}
}

func TestDrainErrors(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		nodes   []string
		timeout time.Duration
		wantErr string
	}{
		{name: "unknown-node", reason: "a node name that does not exist", nodes: []string{"pdb-9"}, wantErr: `unknown node "pdb-9"`},
		{name: "negative-timeout", reason: "a timeout cannot be negative", nodes: []string{"pdb-1"}, timeout: -time.Second, wantErr: "drain timeout -1s is negative"},
		{name: "no-node", reason: "a drain needs a node", wantErr: "drain needs at least one node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, 3, nil)
			_, err := c.DrainNodes(tt.nodes, tt.timeout)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("DrainNodes(%q, %v) error = %v, want %q (%s)", tt.nodes, tt.timeout, err, tt.wantErr, tt.reason)
			}
		})
	}
}

// One replica that never becomes Ready spends the whole margin of a budget
// with minAvailable replicas−1: a drain of a node with a healthy replica
// stalls, while the node of the broken one drains at once (the default
// policy lets a pod that is not Ready go while the budget is met), and its
// replacement, once Ready, unblocks the other drain.
func TestBrokenReplicaBlocksDrains(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	if err := c.SetReady("ledger-2", false); err != nil {
		t.Fatal(err)
	}
	r, err := c.Drain("pdb-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Stalled || !cmp.Equal(r.Left, []string{"ledger-1"}) {
		t.Fatalf("Drain(pdb-1) with ledger-2 broken = %s, want stalled with ledger-1 left", r.Summary())
	}
	r, err = c.Drain("pdb-2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done() || r.Ended != 0 {
		t.Fatalf("Drain(pdb-2), the broken pod's node = %s, want drained at once", r.Summary())
	}
	r, err = c.Drain("pdb-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done() || r.Ended != 15*time.Second {
		t.Errorf("Drain(pdb-1) again = %s, ended at %s, want drained at t=15s once ledger-2's replacement is Ready", r.Summary(), At(r.Ended))
	}
}

// kubectl drain given several nodes cordons them all, then drains them one
// after another, each with the whole --timeout of its own
// (DrainCmdOptions.RunDrain loops over the nodes and calls
// deleteOrEvictPodsSimple for each).
func TestDrainNodesOneAfterAnother(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(3)))
	rs, err := c.DrainNodes([]string{"pdb-1", "pdb-2"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []DrainResult{
		{Node: "pdb-1", Started: 0, Ended: time.Minute, Left: []string{"ledger-1"}, Attempts: 12, TimedOut: true, Stalled: true},
		{Node: "pdb-2", Started: time.Minute, Ended: 2 * time.Minute, Left: []string{"ledger-2"}, Attempts: 12, TimedOut: true, Stalled: true},
	}
	if diff := cmp.Diff(want, rs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("drain of pdb-1 and pdb-2 with --timeout 1m (-want +got):\n%s", diff)
	}
}

// The pace of a drain under a budget with no margin left is the start-up
// time of a replacement, rounded up to the drain's 5-second retries:
// nothing in the budget or the drain names it.
func TestDrainPaceFollowsStartupTime(t *testing.T) {
	tests := []struct {
		name, reason string
		readyAfter   time.Duration
		want         time.Duration // when pdb-2's pod is evicted
	}{
		{name: "15s", reason: "the lab's start-up time", readyAfter: 15 * time.Second, want: 15 * time.Second},
		{name: "12s", reason: "Ready at 12 s, asked again at 15 s", readyAfter: 12 * time.Second, want: 15 * time.Second},
		{name: "40s", reason: "a slower start-up, a slower drain", readyAfter: 40 * time.Second, want: 40 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCluster()
			for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
				must(t, c.AddNode(n))
			}
			must(t, c.AddController(Controller{Name: "ledger", Replicas: 3, Labels: map[string]string{"app": "ledger"}, ReadyAfter: tt.readyAfter}))
			two := Int(2)
			must(t, c.AddBudget(Budget{Name: "ledger", Selector: &Selector{MatchLabels: map[string]string{"app": "ledger"}}, MinAvailable: &two}))
			rs, err := c.DrainNodes([]string{"pdb-1", "pdb-2"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := rs[1].Ended; !rs[1].Done() || got != tt.want {
				t.Errorf("ready-after %v: pdb-2 drained at %s (%s), want at %s (%s)", tt.readyAfter, At(got), rs[1].Summary(), At(tt.want), tt.reason)
			}
		})
	}
}

// AlwaysAllow lets only the pod that is not Ready go: that pod still uses
// up the budget's margin, so the drain of a node with a healthy replica
// waits as under the default policy, while the broken pod's own node
// drains at once.
func TestAlwaysAllowFreesOnlyTheUnreadyPod(t *testing.T) {
	c := ledger(t, 3, func(b *Budget) { minAvailable(Int(2))(b); b.UnhealthyPodEvictionPolicy = AlwaysAllow })
	must(t, c.SetReady("ledger-2", false))
	r, err := c.Drain("pdb-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Done() || !r.Stalled || len(r.Left) != 1 || r.Left[0] != "ledger-1" {
		t.Errorf("Drain(pdb-1) under AlwaysAllow with ledger-2 not Ready = %s, want stalled with ledger-1 left: 2 healthy over a floor of 2", r.Summary())
	}
	r, err = c.Drain("pdb-2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done() {
		t.Errorf("Drain(pdb-2) = %s, want done: the unready ledger-2 may go", r.Summary())
	}
}

// kubectl drain prints a refusal's message and not its causes: the line a
// learner sees in the lab's step 2 does not say which budget refused, nor
// how many healthy pods it counted.
func TestKubectlPrintsTheMessageOnly(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(3)))
	d := c.EvictDryRun("ledger-2")
	want := `error when evicting pods/"ledger-2" -n "pdb-lab" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`
	if got := d.KubectlLine("pdb-lab"); got != want {
		t.Errorf("kubectl drain's line for %s:\n got %s\nwant %s", d, got, want)
	}
	cause := "The disruption budget ledger needs 3 healthy pods and has 3 currently"
	if len(d.Causes) != 1 || d.Causes[0] != cause {
		t.Errorf("causes %q, want [%q]: the reason is in the answer, not in kubectl's line", d.Causes, cause)
	}
}
