package pdb

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Only Ready pods count: after one eviction the next is refused until the
// replacement is Ready, then allowed. Nobody wrote that rate; it follows
// from the floor and the replacement's start-up time.
func TestEvictRefusedAtFloorThenAllowedOnceReplacementReady(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))

	if d := c.Evict("ledger-1"); !d.Allowed {
		t.Fatalf("Evict(ledger-1) = %s, want allowed: 3 Ready pods and a floor of 2", d)
	}
	d := c.Evict("ledger-2")
	want := Decision{Pod: "ledger-2", Code: 429, Budget: "ledger",
		Message: "Cannot evict pod as it would violate the pod's disruption budget.",
		Causes:  []string{"The disruption budget ledger needs 2 healthy pods and has 2 currently"}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("Evict(ledger-2) at the floor (-want +got):\n%s", diff)
	}

	// The replacement ledger-4 was created at t=0 and is Ready at t=15s.
	if err := c.Advance(14 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d := c.Evict("ledger-2"); d.Allowed {
		t.Fatalf("Evict(ledger-2) at t=14s = %s, want refused: ledger-4 is not Ready yet", d)
	}
	if err := c.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	if d := c.Evict("ledger-2"); !d.Allowed {
		t.Fatalf("Evict(ledger-2) at t=15s = %s, want allowed: ledger-4 is Ready", d)
	}
}

// The eviction subresource checks, in upstream's order, whether budgets
// apply at all before it looks at one.
func TestEvictIgnoresBudgetsForPodsNotRunning(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		pod    Pod
	}{
		{name: "pending", reason: "a Pending pod serves nothing yet", pod: Pod{Name: "extra", Phase: Pending}},
		{name: "succeeded", reason: "a finished pod has nothing left to disrupt", pod: Pod{Name: "extra", Node: "pdb-1", Phase: Succeeded}},
		{name: "failed", reason: "a failed pod has nothing left to disrupt", pod: Pod{Name: "extra", Node: "pdb-1", Phase: Failed}},
		{name: "terminating", reason: "a pod already being deleted is going anyway", pod: Pod{Name: "extra", Node: "pdb-1", Phase: Running, Terminating: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A floor of 3 over 3 Ready pods allows no disruption at all.
			c := ledger(t, 3, minAvailable(Int(3)))
			tt.pod.Labels = map[string]string{"app": "ledger"}
			if err := c.AddPod(tt.pod); err != nil {
				t.Fatal(err)
			}
			if d := c.Evict("extra"); !d.Allowed || d.Budget != "" {
				t.Errorf("Evict(extra) = %s (budget %q), want allowed without a budget (%s)", d, d.Budget, tt.reason)
			}
		})
	}
}

func TestEvictWithoutBudget(t *testing.T) {
	c := ledger(t, 3, nil)
	for _, p := range []string{"ledger-1", "ledger-2", "ledger-3"} {
		if d := c.Evict(p); !d.Allowed {
			t.Fatalf("Evict(%s) = %s, want allowed: no budget selects it", p, d)
		}
	}
	if n := readyPods(c); n != 0 {
		t.Errorf("%d pods Ready after evicting all three with no budget, want 0", n)
	}
}

func TestEvictSeveralBudgets(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(1)))
	one := Int(1)
	if err := c.AddBudget(Budget{Name: "everything", Selector: &Selector{}, MaxUnavailable: &one}); err != nil {
		t.Fatal(err)
	}
	d := c.Evict("ledger-1")
	want := Decision{Pod: "ledger-1", Code: 500,
		Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Evict(ledger-1) under two budgets that would each allow it (-want +got):\n%s", diff)
	}
	if _, ok := c.Pod("ledger-1"); !ok {
		t.Error("ledger-1 is gone after a 500, want it still there")
	}
}

func TestUnhealthyPodEvictionPolicy(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		policy  UnhealthyPodEvictionPolicy
		floor   int
		unready []string // pods whose readiness probe fails
		evict   string
		want    string
		spent   bool // whether the eviction used one of the allowed disruptions
	}{
		{name: "if-healthy/budget-healthy", reason: "the application is not disrupted, so a pod that serves nothing may go without spending the budget",
			policy: IfHealthyBudget, floor: 2, unready: []string{"ledger-3"}, evict: "ledger-3", want: "allowed", spent: false},
		{name: "default/budget-healthy", reason: "an empty policy is IfHealthyBudget",
			policy: "", floor: 2, unready: []string{"ledger-3"}, evict: "ledger-3", want: "allowed", spent: false},
		{name: "if-healthy/budget-short", reason: "below the floor the unhealthy pod takes the normal path, and nothing is allowed",
			policy: IfHealthyBudget, floor: 2, unready: []string{"ledger-2", "ledger-3"}, evict: "ledger-3", want: "refused", spent: false},
		{name: "always-allow/budget-short", reason: "AlwaysAllow lets a pod that is not Ready go even below the floor",
			policy: AlwaysAllow, floor: 2, unready: []string{"ledger-2", "ledger-3"}, evict: "ledger-3", want: "allowed", spent: false},
		{name: "if-healthy/floor-zero", reason: "with desiredHealthy 0 the shortcut does not apply; the normal path allows it and spends one",
			policy: IfHealthyBudget, floor: 0, unready: []string{"ledger-3"}, evict: "ledger-3", want: "allowed", spent: true},
		{name: "always-allow/ready-pod", reason: "the policy is about pods that are not Ready; a Ready pod still needs the budget",
			policy: AlwaysAllow, floor: 3, evict: "ledger-1", want: "refused", spent: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, 3, func(b *Budget) {
				f := Int(tt.floor)
				b.MinAvailable = &f
				b.UnhealthyPodEvictionPolicy = tt.policy
			})
			for _, p := range tt.unready {
				if err := c.SetReady(p, false); err != nil {
					t.Fatal(err)
				}
			}
			d := c.Evict(tt.evict)
			if verdict(d) != tt.want {
				t.Fatalf("Evict(%s) = %s, want %s (%s)", tt.evict, d, tt.want, tt.reason)
			}
			if d.Spent != tt.spent {
				t.Errorf("Evict(%s) spent a disruption = %v, want %v (%s)", tt.evict, d.Spent, tt.spent, tt.reason)
			}
		})
	}
}

func TestEvictGenerationNotObserved(t *testing.T) {
	c := ledger(t, 4, minAvailable(Int(3)))
	c.StopController()
	if err := c.UpdateBudget("ledger", func(b *Budget) { two := Int(2); b.MinAvailable = &two }); err != nil {
		t.Fatal(err)
	}
	d := c.Evict("ledger-1")
	want := Decision{Pod: "ledger-1", Code: 429, Budget: "ledger",
		Message: "Cannot evict pod as it would violate the pod's disruption budget.",
		Causes:  []string{"The disruption budget ledger is still being processed by the server."}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("Evict(ledger-1) before the controller saw generation 2 (-want +got):\n%s", diff)
	}
	c.StartController()
	if d := c.Evict("ledger-1"); !d.Allowed {
		t.Errorf("Evict(ledger-1) once generation 2 is observed = %s, want allowed", d)
	}
}

// Only an eviction that would spend the budget waits for the new generation:
// a pod that is not Ready and that the policy lets go is deleted before the
// generation is looked at, as in upstream's Create.
func TestEvictUnreadyPodSkipsGenerationCheck(t *testing.T) {
	// Five replicas, four Ready, a floor of 3: one disruption is allowed,
	// so a refusal of a Ready pod can only come from the generation.
	c := ledger(t, 5, minAvailable(Int(3)))
	if err := c.SetReady("ledger-2", false); err != nil {
		t.Fatal(err)
	}
	c.StopController()
	if err := c.UpdateBudget("ledger", func(b *Budget) { b.UnhealthyPodEvictionPolicy = AlwaysAllow }); err != nil {
		t.Fatal(err)
	}
	want := []string{"The disruption budget ledger is still being processed by the server."}
	if d := c.Evict("ledger-1"); d.Allowed || d.Code != 429 || !cmp.Equal(want, d.Causes) {
		t.Errorf("Evict(ledger-1), Ready, before the controller saw the new generation = %s, want refused with 429 and causes %q", d, want)
	}
	if d := c.Evict("ledger-2"); !d.Allowed {
		t.Errorf("Evict(ledger-2), not Ready under AlwaysAllow, before the controller saw the new generation = %s, want allowed", d)
	}
}

// The eviction subresource does not count pods: it spends what the status
// says. With the controller stopped, evictions spend the last
// disruptionsAllowed and then stay refused even after replacements are
// Ready, because nobody recomputes it.
func TestEvictTrustsStatus(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(1)))
	c.StopController()
	for _, p := range []string{"ledger-1", "ledger-2"} {
		if d := c.Evict(p); !d.Allowed {
			t.Fatalf("Evict(%s) = %s, want allowed: the status said 2 disruptions allowed", p, d)
		}
	}
	if err := c.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	d := c.Evict("ledger-3")
	want := []string{"The disruption budget ledger does not allow evicting pods currently"}
	if d.Allowed || !cmp.Equal(want, d.Causes) {
		t.Fatalf("Evict(ledger-3) with the controller stopped = %s, want refused with causes %q", d, want)
	}
	c.StartController()
	if d := c.Evict("ledger-3"); !d.Allowed {
		t.Errorf("Evict(ledger-3) once the controller counted the Ready replacements = %s, want allowed", d)
	}
}

func TestEvictDryRunChangesNothing(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	before, events := mustBudget(t, c, "ledger").Status, len(c.Log())
	for range 3 {
		if d := c.EvictDryRun("ledger-1"); !d.Allowed || !d.DryRun {
			t.Fatalf("EvictDryRun(ledger-1) = %s, want an allowed dry run", d)
		}
	}
	if _, ok := c.Pod("ledger-1"); !ok {
		t.Error("ledger-1 is gone after a dry run")
	}
	if diff := cmp.Diff(before, mustBudget(t, c, "ledger").Status); diff != "" {
		t.Errorf("budget status changed by dry runs (-before +after):\n%s", diff)
	}
	if n := len(c.Log()) - events; n != 0 {
		t.Errorf("dry runs wrote %d events, want none", n)
	}
}

func TestEvictUnknownPod(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	d := c.Evict("ledger-9")
	if d.Allowed || d.Code != 404 || d.Message != `pods "ledger-9" not found` {
		t.Errorf("Evict(ledger-9) = %s (code %d), want refused 404 pods \"ledger-9\" not found", d, d.Code)
	}
}

// A budget whose floor equals the replicas still lets some evictions
// through: a Pending pod is deleted without looking at budgets
// (canIgnorePDB); under AlwaysAllow a pod that is not Ready may go; and an
// integer minAvailable is compared with the pods that exist, so the surge
// pod of a rolling update opens a disruption once it is Ready.
func TestStrictBudgetStillLetsSomeGo(t *testing.T) {
	t.Run("pending", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(3)))
		for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
			must(t, c.Cordon(n))
		}
		must(t, c.Scale("ledger", 4)) // ledger-4 has no node: Pending
		// Below the floor, so that only canIgnorePDB can let ledger-4 go: the
		// default policy would refuse a pod that is not Ready here.
		must(t, c.SetReady("ledger-1", false))
		if d := c.EvictDryRun("ledger-4"); !d.Allowed {
			t.Errorf("EvictDryRun(ledger-4) = %s, want allowed: a Pending pod ignores budgets", d)
		}
		if d := c.EvictDryRun("ledger-2"); d.Allowed {
			t.Errorf("EvictDryRun(ledger-2) = %s, want refused: 2 healthy of 3", d)
		}
	})
	t.Run("always-allow", func(t *testing.T) {
		c := ledger(t, 3, func(b *Budget) { minAvailable(Int(3))(b); b.UnhealthyPodEvictionPolicy = AlwaysAllow })
		must(t, c.SetReady("ledger-2", false))
		if d := c.EvictDryRun("ledger-2"); !d.Allowed {
			t.Errorf("EvictDryRun(ledger-2) = %s, want allowed: not Ready under AlwaysAllow", d)
		}
	})
	// During a rolling update the surge pod is Ready before the
	// Deployment counts it available (minReadySeconds), and the old pods
	// are still there: four healthy pods. The two ReplicaSets are one
	// controller, the Deployment, whose scale is 3, so every strict form
	// of the budget allows one eviction; an integer minAvailable compares
	// with the four pods that exist.
	t.Run("surge", func(t *testing.T) {
		for _, tt := range []struct {
			floor func(*Budget)
			want  counts
		}{
			{minAvailable(Int(3)), counts{4, 3, 4, 1}},
			{maxUnavailable(Int(0)), counts{3, 3, 4, 1}},
			{minAvailable(Percent(100)), counts{3, 3, 4, 1}},
		} {
			c := ledger(t, 3, tt.floor)
			b := mustBudget(t, c, "ledger")
			spec := b.Spec()
			must(t, c.Rollout("ledger", Strategy{MaxSurge: 1, MinReady: 30 * time.Second}))
			if d := c.EvictDryRun("ledger-1"); d.Allowed {
				t.Errorf("%s: EvictDryRun(ledger-1) = %s while the surge pod starts, want refused", spec, d)
			}
			must(t, c.Advance(15*time.Second))
			if got := countsOf(mustBudget(t, c, "ledger").Status); got != tt.want {
				t.Errorf("%s with the surge pod Ready: status %+v, want %+v", spec, got, tt.want)
			}
			if d := c.EvictDryRun("ledger-1"); !d.Allowed {
				t.Errorf("%s: EvictDryRun(ledger-1) = %s with the surge pod Ready, want allowed: 4 healthy over a floor of 3", spec, d)
			}
		}
	})
}

// The eviction subresource answers 403 when it cannot trust the status: a
// negative disruptionsAllowed, or more than 2000 approvals in
// disruptedPods that the controller has not yet seen carried out. The
// first cannot be written through policy/v1, whose validation refuses it.
// Since v1.37 each 403 carries a DisruptionBudget cause that names the
// budget, in the words the 429 of a budget at zero uses.
func TestEvictForbidden(t *testing.T) {
	t.Run("negative-refused-by-validation", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(2)))
		err := c.WriteStatus("ledger", func(s *Status) { s.DisruptionsAllowed = -1 })
		want := "budget ledger: status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0"
		if err == nil || err.Error() != want {
			t.Errorf("WriteStatus(disruptionsAllowed -1) error = %v, want %q", err, want)
		}
	})
	t.Run("negative", func(t *testing.T) {
		b := Budget{Name: "ledger", Generation: 1, Status: Status{ObservedGeneration: 1, DisruptionsAllowed: -1}}
		d, _ := checkAndDecrement("ledger-1", &b, 0)
		want := `poddisruptionbudget.policy "ledger" is forbidden: pdb disruptions allowed is negative`
		if d.Code != CodeForbidden || d.Message != want {
			t.Errorf("checkAndDecrement with disruptionsAllowed -1 = %d %q, want 403 %q", d.Code, d.Message, want)
		}
		cause := "The disruption budget ledger does not allow evicting pods currently: pdb disruptions allowed is negative"
		if len(d.Causes) != 1 || d.Causes[0] != cause {
			t.Errorf("checkAndDecrement with disruptionsAllowed -1: causes %q, want [%q]", d.Causes, cause)
		}
	})
	t.Run("too-many-disrupted-pods", func(t *testing.T) {
		c := ledger(t, MaxDisruptedPodSize+10, maxUnavailable(Percent(100)))
		c.StopController()
		for i := 1; i <= MaxDisruptedPodSize+1; i++ {
			if d := c.Evict(fmt.Sprintf("ledger-%d", i)); !d.Allowed {
				t.Fatalf("eviction %d: %s, want allowed", i, d)
			}
		}
		d := c.EvictDryRun(fmt.Sprintf("ledger-%d", MaxDisruptedPodSize+2))
		want := `poddisruptionbudget.policy "ledger" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`
		if d.Code != CodeForbidden || d.Message != want {
			t.Errorf("eviction %d with %d entries in disruptedPods = %s, want 403 %q", MaxDisruptedPodSize+2, MaxDisruptedPodSize+1, d, want)
		}
		cause := "The disruption budget ledger does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller"
		if len(d.Causes) != 1 || d.Causes[0] != cause {
			t.Errorf("eviction %d with %d entries in disruptedPods: causes %q, want [%q]", MaxDisruptedPodSize+2, MaxDisruptedPodSize+1, d.Causes, cause)
		}
		c.StartController()
		if d := c.EvictDryRun(fmt.Sprintf("ledger-%d", MaxDisruptedPodSize+2)); !d.Allowed {
			t.Errorf("after the controller saw the pods deleted: %s, want allowed", d)
		}
	})
}
