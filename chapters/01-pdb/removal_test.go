package pdb

import (
	"testing"
	"time"
)

// A crash asks nobody: a floor that allows no eviction at all does not stop
// pods from going below it.
func TestCrashGoesBelowFloor(t *testing.T) {
	c := web(t, 3, minAvailable(Int(3)))
	if d := c.Evict("web-1"); d.Allowed {
		t.Fatalf("Evict(web-1) = %s, want refused: minAvailable 3 of 3", d)
	}
	for _, p := range []string{"web-1", "web-2"} {
		if err := c.Crash(p); err != nil {
			t.Fatal(err)
		}
	}
	b := mustBudget(t, c, "web")
	if b.Status.CurrentHealthy != 1 || b.Status.DesiredHealthy != 3 {
		t.Errorf("after two crashes status is %s, want 1 healthy of 3 desired", b.Status)
	}
}

// Deleting a pod (kubectl delete, drain --disable-eviction, a ReplicaSet
// scaling down during a rolling update) is voluntary but does not use the
// Eviction API, so no budget is asked.
func TestDeleteBypassesBudget(t *testing.T) {
	c := web(t, 3, minAvailable(Int(3)))
	for _, p := range []string{"web-1", "web-2", "web-3"} {
		if err := c.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := readyPods(c); n != 0 {
		t.Errorf("%d pods Ready after deleting all three, want 0: the budget was never asked", n)
	}
}

// Each remover keeps its own limit and sees no other: a node drain, an
// autoscaler emptying another node and a node replacement, one pod each.
// Without a budget, together they take every replica at once.
func TestRemoversWithoutBudgetRemoveEveryReplica(t *testing.T) {
	c := web(t, 3, nil)
	for _, node := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		r, err := c.Drain(node, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Done() {
			t.Fatalf("drain %s: %s", node, r.Summary())
		}
	}
	if n := readyPods(c); n != 0 {
		t.Errorf("%d pods Ready right after three removers took one pod each, want 0", n)
	}
}

// With one budget, any number of removers that ask, in any order, never
// take the application below its floor: each asks the same declaration.
func TestOneBudgetServesAnyNumberOfRemovers(t *testing.T) {
	for removers := 1; removers <= 6; removers++ {
		c := web(t, 6, minAvailable(Int(4)))
		for step := range 40 {
			// Remover r, at each step, asks to evict the r-th pod it sees.
			for r := range removers {
				pods := c.Pods()
				c.Evict(pods[(step+r)%len(pods)].Name)
				if n := readyPods(c); n < 4 {
					t.Fatalf("%d removers, step %d: %d pods Ready, want at least the floor of 4", removers, step, n)
				}
			}
			if err := c.Advance(5 * time.Second); err != nil {
				t.Fatal(err)
			}
		}
	}
}
