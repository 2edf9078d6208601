package pdb

import (
	"testing"
	"time"
)

// firstScaleDown returns when the rolling update first scaled the old
// ReplicaSet ledger down.
func firstScaleDown(t *testing.T, c *Cluster) time.Duration {
	t.Helper()
	for _, e := range c.Log() {
		if e.Kind == EventScale && e.Controller == "ledger" {
			return e.At
		}
	}
	t.Fatal("the rolling update never scaled ledger down")
	return 0
}

// A drain can hold up a rollout: the Deployment controller scales the old
// ReplicaSet down only while more than replicas−maxUnavailable pods are
// available, and a pod that an eviction took is not available until its
// replacement is Ready. The delay between drains and rollouts runs both
// ways.
func TestDrainHoldsUpRollout(t *testing.T) {
	start := func(t *testing.T) *Cluster {
		c := ledger(t, 3, minAvailable(Int(2)))
		must(t, c.Rollout("ledger", Strategy{MaxSurge: 1}))
		return c
	}
	t.Run("alone", func(t *testing.T) {
		c := start(t)
		must(t, c.Advance(time.Minute))
		if at := firstScaleDown(t, c); at != 15*time.Second {
			t.Errorf("old ReplicaSet first scaled down at %v, want 15s: when the surge pod is Ready", At(at))
		}
	})
	t.Run("during-a-drain", func(t *testing.T) {
		c := start(t)
		must(t, c.Advance(5*time.Second))
		if d := c.Evict("ledger-1"); !d.Allowed {
			t.Fatalf("Evict(ledger-1) at 5s = %s, want allowed: 3 healthy over a floor of 2", d)
		}
		must(t, c.Advance(time.Minute))
		if at := firstScaleDown(t, c); at != 20*time.Second {
			t.Errorf("old ReplicaSet first scaled down at %v, want 20s: when the evicted pod's replacement is Ready, 5 s after the surge pod", At(at))
		}
	})
}

// A rolling update asks no budget: it deletes old pods within its own
// maxUnavailable, even under a budget that allows nothing, and the pods it
// makes unavailable count against the budget, so that a drain's eviction
// is refused while it runs.
func TestRolloutCountsAgainstBudget(t *testing.T) {
	t.Run("not-limited", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(3)))
		fewest, most := 3, 3
		c.Watch(func(c *Cluster) {
			fewest = min(fewest, readyPods(c))
			most = max(most, len(c.Pods()))
		})
		must(t, c.Rollout("ledger", Strategy{MaxUnavailable: 1}))
		if n := readyPods(c); n != 2 {
			t.Errorf("%d pods Ready once the rollout began under minAvailable 3, want 2: it deleted an old pod without asking", n)
		}
		must(t, c.Advance(2*time.Minute))
		if fewest != 2 || most != 3 {
			t.Errorf("during the rollout %d to %d pods, the fewest Ready %d; want never fewer than 2 Ready (replicas − maxUnavailable) nor more than 3 pods (maxSurge 0)", fewest, most, fewest)
		}
		for _, p := range c.Pods() {
			if p.Owner != "ledger-v2" || !p.Ready(c.Now()) {
				t.Errorf("pod %s (%s) after the rollout, want only Ready pods of ledger-v2", p.Name, p.Owner)
			}
		}
	})
	t.Run("counts", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(2)))
		if d := c.EvictDryRun("ledger-1"); !d.Allowed {
			t.Fatalf("EvictDryRun(ledger-1) = %s before the rollout, want allowed", d)
		}
		must(t, c.Rollout("ledger", Strategy{MaxUnavailable: 1}))
		if d := c.EvictDryRun("ledger-1"); d.Allowed || d.Code != CodeTooManyRequests {
			t.Errorf("EvictDryRun(ledger-1) = %s during the rollout, want refused 429: 2 healthy over a floor of 2", d)
		}
		must(t, c.Advance(45*time.Second))
		if d := c.EvictDryRun("ledger-v2-3"); !d.Allowed {
			t.Errorf("EvictDryRun(ledger-v2-3) = %s once the rollout is over, want allowed", d)
		}
	})
}
