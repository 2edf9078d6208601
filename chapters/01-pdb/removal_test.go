package pdb

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A node that loses power asks nobody, and nothing happens to its pods for
// a while: the API server still shows them Ready. The node lifecycle
// controller marks them not Ready after the grace period; the taint
// eviction controller deletes them after their 300 s toleration; only then
// does the ReplicaSet create replacements, and never on the dead node.
func TestNodeFailureKeepsPodsUntilTaintEviction(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	if err := c.PowerOff("pdb-1"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name        string
		at          time.Duration
		wantPods    int    // pods that exist, Terminating ones included
		wantLedger1 string // ledger-1's state
		wantHealth  int    // the budget's currentHealthy
	}{
		// Absolute times: the 50 s grace period and the 300 s toleration
		// are the defaults the chapter states.
		{"the power is off, the API server has not noticed", 49 * time.Second, 3, "Ready", 3},
		{"the grace period is over: not Ready, still there", 50 * time.Second, 3, "not Ready", 2},
		{"a second before the toleration runs out", 349 * time.Second, 3, "not Ready", 2},
		{"the taint eviction controller deletes it: Terminating, replaced", 350 * time.Second, 4, "Terminating", 2},
		{"the replacement is Ready", 365 * time.Second, 4, "Terminating", 3},
	}
	for _, s := range steps {
		if err := c.Advance(s.at - c.Now()); err != nil {
			t.Fatal(err)
		}
		p, ok := c.Pod("ledger-1")
		if !ok {
			t.Fatalf("%s (%v): ledger-1 is gone, want it kept on the dead node", s.name, s.at)
		}
		state := "Ready"
		switch {
		case p.Terminating:
			state = "Terminating"
		case !p.Ready(c.Now()):
			state = "not Ready"
		}
		if state != s.wantLedger1 || len(c.Pods()) != s.wantPods {
			t.Errorf("%s (%v): ledger-1 is %s with %d pods, want %s with %d", s.name, s.at, state, len(c.Pods()), s.wantLedger1, s.wantPods)
		}
		if got := mustBudget(t, c, "ledger").Status.CurrentHealthy; got != s.wantHealth {
			t.Errorf("%s (%v): currentHealthy = %d, want %d", s.name, s.at, got, s.wantHealth)
		}
	}
	r, ok := c.Pod("ledger-4")
	if !ok || r.Node == "pdb-1" {
		t.Errorf("replacement ledger-4 on %q, want one on a node other than the dead pdb-1", r.Node)
	}
}

// A container that crashes is restarted by the kubelet in the same pod: no
// pod is deleted, none created, and the pod is not Ready until its probe
// passes again.
func TestContainerCrashRestartsInPlace(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	if err := c.CrashContainer("ledger-2"); err != nil {
		t.Fatal(err)
	}
	p, _ := c.Pod("ledger-2")
	if len(c.Pods()) != 3 || p.Node != "pdb-2" || p.Restarts != 1 {
		t.Errorf("after a container crash: %d pods, ledger-2 on %s with %d restarts; want 3 pods, ledger-2 on pdb-2 with 1", len(c.Pods()), p.Node, p.Restarts)
	}
	if p.Ready(c.Now()) {
		t.Errorf("ledger-2 is Ready right after its container crashed, want not Ready for 15 s")
	}
	if err := c.Advance(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Pod("ledger-2"); !p.Ready(c.Now()) {
		t.Errorf("ledger-2 is not Ready 15 s after the restart")
	}
}

// A loss that nobody asked for cannot be refused: a floor that refuses every
// eviction watches a container crash and a power loss take the application
// to one Ready pod.
func TestCrashGoesBelowFloor(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(3)))
	if d := c.Evict("ledger-1"); d.Allowed {
		t.Fatalf("Evict(ledger-1) = %s, want refused: minAvailable 3 of 3", d)
	}
	if err := c.PowerOff("pdb-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Advance(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashContainer("ledger-2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Advance(5 * time.Second); err != nil { // t=50s: pdb-1 is found silent
		t.Fatal(err)
	}
	b := mustBudget(t, c, "ledger")
	if b.Status.CurrentHealthy != 1 || b.Status.DesiredHealthy != 3 || readyPods(c) != 1 {
		t.Errorf("at t=50s: %d Ready, status %s; want 1 Ready, 1 healthy of 3 desired", readyPods(c), b.Status)
	}
}

// Deleting a pod (kubectl delete, drain --disable-eviction, a ReplicaSet
// scaling down during a rolling update) is voluntary but does not use the
// Eviction API, so no budget is asked.
func TestDeleteBypassesBudget(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(3)))
	for _, p := range []string{"ledger-1", "ledger-2", "ledger-3"} {
		if err := c.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := readyPods(c); n != 0 {
		t.Errorf("%d pods Ready after deleting all three, want 0: the budget was never asked", n)
	}
}

// Three removers act in the same instant, each on the one pod it has a
// reason to take: your kernel-patch drain of pdb-1 takes ledger-1, a
// descheduler rebalancing pdb-2 takes ledger-2, a spot-reclaim handler
// emptying pdb-3 takes ledger-3. Without a budget each is allowed, and
// ledger has no Ready pod until the replacements start.
func TestRemoversWithoutBudgetRemoveEveryReplica(t *testing.T) {
	c := ledger(t, 3, nil)
	removers := []struct{ who, pod string }{
		{"the kernel-patch drain of pdb-1", "ledger-1"},
		{"the descheduler rebalancing pdb-2", "ledger-2"},
		{"the spot-reclaim handler emptying pdb-3", "ledger-3"},
	}
	var inFlight []*Eviction
	for _, r := range removers {
		inFlight = append(inFlight, c.BeginEviction(r.pod))
	}
	for i, e := range inFlight {
		if d := e.Commit(); !d.Allowed {
			t.Fatalf("%s: Evict(%s) = %s, want allowed: no budget", removers[i].who, removers[i].pod, d)
		}
	}
	for _, r := range removers {
		if _, ok := c.Pod(r.pod); ok {
			t.Errorf("%s: %s is still there", r.who, r.pod)
		}
	}
	if n, all := readyPods(c), len(c.Pods()); n != 0 || all != 3 {
		t.Errorf("%d of %d pods Ready after three removers took one pod each, want 0 of 3 (only the replacements, starting)", n, all)
	}
}

// Two removers read the budget at the same instant and both see one allowed
// disruption. The first write wins; the second conflicts, reads the budget
// again, and is refused: the floor holds.
func TestConcurrentEvictionsConflict(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	first, second := c.BeginEviction("ledger-1"), c.BeginEviction("ledger-2")
	if a, b := first.read[0].Status.DisruptionsAllowed, second.read[0].Status.DisruptionsAllowed; a != 1 || b != 1 {
		t.Fatalf("both removers read disruptionsAllowed %d and %d, want 1 and 1", a, b)
	}
	d1, d2 := first.Commit(), second.Commit()
	if !d1.Allowed || d1.Conflicts != 0 {
		t.Errorf("first Evict(ledger-1) = %s after %d conflicts, want allowed at once", d1, d1.Conflicts)
	}
	if d2.Allowed || d2.Code != CodeTooManyRequests || d2.Conflicts != 1 {
		t.Errorf("second Evict(ledger-2) = %s after %d conflicts, want refused 429 after 1 conflict", d2, d2.Conflicts)
	}
	if n := readyPods(c); n < 2 {
		t.Errorf("%d pods Ready, want at least the floor of 2", n)
	}
}

// With one budget, any number of removers that ask at the same instant,
// each having read the same status, never take the application below its
// floor: the budget's resourceVersion lets one write through at a time.
func TestOneBudgetServesAnyNumberOfRemovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for removers := 1; removers <= 6; removers++ {
		c := ledger(t, 6, minAvailable(Int(4)))
		conflicts := 0
		for step := range 40 {
			// Every remover reads, then they write in a random order.
			pods := c.Pods()
			var inFlight []*Eviction
			for r := range removers {
				inFlight = append(inFlight, c.BeginEviction(pods[(step+r)%len(pods)].Name))
			}
			rng.Shuffle(len(inFlight), func(i, j int) { inFlight[i], inFlight[j] = inFlight[j], inFlight[i] })
			for _, e := range inFlight {
				conflicts += e.Commit().Conflicts
				if n := readyPods(c); n < 4 {
					t.Fatalf("%d removers, step %d: %d pods Ready, want at least the floor of 4", removers, step, n)
				}
			}
			if err := c.Advance(5 * time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if removers > 1 && conflicts == 0 {
			t.Errorf("%d removers: no status update ever conflicted, so the test did not race them", removers)
		}
	}
}
