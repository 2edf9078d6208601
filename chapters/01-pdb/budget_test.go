package pdb

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// counts is the part of a Status the tests compare.
type counts struct{ Expected, Desired, Healthy, Allowed int }

func countsOf(s Status) counts {
	return counts{s.ExpectedPods, s.DesiredHealthy, s.CurrentHealthy, s.DisruptionsAllowed}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		replicas  int
		floor     func(*Budget)
		unmanaged int // extra Ready pods labelled app=ledger that no controller owns
		want      counts
	}{
		{name: "min-2-of-3", reason: "one pod above the floor: one disruption", replicas: 3, floor: minAvailable(Int(2)), want: counts{3, 2, 3, 1}},
		{name: "min-3-of-3", reason: "a floor equal to the replicas allows nothing", replicas: 3, floor: minAvailable(Int(3)), want: counts{3, 3, 3, 0}},
		{name: "min-4-of-3", reason: "a floor above the replicas allows nothing and is not an error", replicas: 3, floor: minAvailable(Int(4)), want: counts{3, 4, 3, 0}},
		{name: "min-0", reason: "a floor of zero allows every pod to go", replicas: 3, floor: minAvailable(Int(0)), want: counts{3, 0, 3, 3}},
		{name: "max-1-of-3", reason: "maxUnavailable 1 is the floor replicas−1", replicas: 3, floor: maxUnavailable(Int(1)), want: counts{3, 2, 3, 1}},
		{name: "max-0", reason: "maxUnavailable 0 allows nothing", replicas: 3, floor: maxUnavailable(Int(0)), want: counts{3, 3, 3, 0}},
		{name: "max-5-of-3", reason: "desiredHealthy never goes below zero", replicas: 3, floor: maxUnavailable(Int(5)), want: counts{3, 0, 3, 3}},
		{name: "neither", reason: "a budget without a floor expects no pods, and expectedPods 0 allows nothing", replicas: 3, floor: func(*Budget) {}, want: counts{0, 0, 3, 0}},
		{name: "min-int-counts-unmanaged", reason: "an integer minAvailable takes expectedPods from the pods that exist", replicas: 3, unmanaged: 1, floor: minAvailable(Int(2)), want: counts{4, 2, 4, 2}},
		{name: "max-ignores-unmanaged", reason: "maxUnavailable takes expectedPods from the controllers' scale", replicas: 3, unmanaged: 1, floor: maxUnavailable(Int(1)), want: counts{3, 2, 4, 2}},
		{name: "max-bare-pods", reason: "bare pods give maxUnavailable no replicas to count: expectedPods 0, so a running controller allows nothing while all three are Ready", replicas: 0, unmanaged: 3, floor: maxUnavailable(Int(1)), want: counts{0, 0, 3, 0}},
		{name: "min-percent-ignores-unmanaged", reason: "a percentage of minAvailable also takes expectedPods from the scale", replicas: 3, unmanaged: 1, floor: minAvailable(Percent(100)), want: counts{3, 3, 4, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, tt.replicas, nil)
			for i := range tt.unmanaged {
				if err := c.AddPod(Pod{Name: fmt.Sprintf("bare-%d", i+1), Node: "pdb-1", Labels: map[string]string{"app": "ledger"}}); err != nil {
					t.Fatal(err)
				}
			}
			b := Budget{Name: "ledger", Selector: &Selector{MatchLabels: map[string]string{"app": "ledger"}}}
			tt.floor(&b)
			if err := c.AddBudget(b); err != nil {
				t.Fatal(err)
			}
			got := countsOf(mustBudget(t, c, "ledger").Status)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status of %s over %d replicas (-want +got):\n%s(%s)", b.Spec(), tt.replicas, diff, tt.reason)
			}
		})
	}
}

func TestPercentRoundsUp(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		replicas int
		floor    func(*Budget)
		want     counts
	}{
		{name: "min-50%-of-3", reason: "1.5 pods must stay: rounded up to 2", replicas: 3, floor: minAvailable(Percent(50)), want: counts{3, 2, 3, 1}},
		{name: "max-50%-of-3", reason: "1.5 pods may go: rounded up to 2, so only 1 must stay", replicas: 3, floor: maxUnavailable(Percent(50)), want: counts{3, 1, 3, 2}},
		{name: "min-25%-of-10", reason: "2.5 must stay: 3", replicas: 10, floor: minAvailable(Percent(25)), want: counts{10, 3, 10, 7}},
		{name: "max-25%-of-10", reason: "2.5 may go: 3", replicas: 10, floor: maxUnavailable(Percent(25)), want: counts{10, 7, 10, 3}},
		{name: "min-1%-of-3", reason: "any positive percentage protects at least one pod", replicas: 3, floor: minAvailable(Percent(1)), want: counts{3, 1, 3, 2}},
		{name: "max-1%-of-3", reason: "any positive percentage of maxUnavailable allows at least one disruption", replicas: 3, floor: maxUnavailable(Percent(1)), want: counts{3, 2, 3, 1}},
		{name: "min-100%", reason: "100% is every replica: nothing may go", replicas: 3, floor: minAvailable(Percent(100)), want: counts{3, 3, 3, 0}},
		{name: "max-0%", reason: "0% rounds to nothing", replicas: 3, floor: maxUnavailable(Percent(0)), want: counts{3, 3, 3, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, tt.replicas, tt.floor)
			b := mustBudget(t, c, "ledger")
			if diff := cmp.Diff(tt.want, countsOf(b.Status)); diff != "" {
				t.Errorf("status of %s over %d replicas (-want +got):\n%s(%s)", b.Spec(), tt.replicas, diff, tt.reason)
			}
		})
	}
}

func TestSelector(t *testing.T) {
	ledger := map[string]string{"app": "ledger", "tier": "front"}
	tests := []struct {
		name     string
		reason   string
		selector *Selector
		want     bool
	}{
		{name: "nil", reason: "a budget without a selector selects no pod", selector: nil, want: false},
		{name: "empty", reason: "an empty selector selects every pod in the namespace", selector: &Selector{}, want: true},
		{name: "subset", reason: "every label of the selector is on the pod", selector: &Selector{MatchLabels: map[string]string{"app": "ledger"}}, want: true},
		{name: "other-value", reason: "a label with another value does not match", selector: &Selector{MatchLabels: map[string]string{"app": "db"}}, want: false},
		{name: "missing-label", reason: "a label the pod lacks does not match", selector: &Selector{MatchLabels: map[string]string{"app": "ledger", "env": "prod"}}, want: false},
		{name: "empty-value", reason: "an empty value must be present and empty", selector: &Selector{MatchLabels: map[string]string{"env": ""}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.selector.Matches(ledger); got != tt.want {
				t.Errorf("selector %s matches %v = %v, want %v (%s)", tt.selector, ledger, got, tt.want, tt.reason)
			}
		})
	}
}

// A budget with a nil selector protects nothing, so an eviction of any pod
// is allowed; one with an empty selector protects every pod.
func TestSelectorDecidesWhatIsProtected(t *testing.T) {
	for _, tt := range []struct {
		name     string
		reason   string
		selector *Selector
		want     bool
	}{
		{name: "nil", reason: "no pod is selected, so no budget is asked", selector: nil, want: true},
		{name: "empty", reason: "every pod is selected, and minAvailable 3 of 3 allows nothing", selector: &Selector{}, want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger(t, 3, nil)
			three := Int(3)
			if err := c.AddBudget(Budget{Name: "all", Selector: tt.selector, MinAvailable: &three}); err != nil {
				t.Fatal(err)
			}
			if d := c.EvictDryRun("ledger-1"); d.Allowed != tt.want {
				t.Errorf("Evict(ledger-1) = %s, want allowed %v (%s)", d, tt.want, tt.reason)
			}
		})
	}
}

func TestDisruptedPodsExpireAfterTwoMinutes(t *testing.T) {
	pod := &Pod{Name: "ledger-1", Phase: Running}
	approvedAt := 10 * time.Second
	prev := map[string]time.Duration{"ledger-1": approvedAt}
	tests := []struct {
		name        string
		reason      string
		now         time.Duration
		wantHealthy int
		wantKept    bool
	}{
		{name: "just-approved", reason: "a pod promised to an eviction is not counted healthy", now: approvedAt, wantHealthy: 0, wantKept: true},
		{name: "before-timeout", reason: "still promised one second before the timeout", now: approvedAt + DeletionTimeout - time.Second, wantHealthy: 0, wantKept: true},
		{name: "at-timeout", reason: "at exactly two minutes the entry is kept but no longer hides the pod", now: approvedAt + DeletionTimeout, wantHealthy: 1, wantKept: true},
		{name: "after-timeout", reason: "a pod never deleted counts again and the entry is dropped", now: approvedAt + DeletionTimeout + time.Second, wantHealthy: 1, wantKept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept := disrupted(prev, []*Pod{pod}, tt.now)
			if _, ok := kept["ledger-1"]; ok != tt.wantKept {
				t.Errorf("at %s DisruptedPods keeps ledger-1 = %v, want %v (%s)", At(tt.now), ok, tt.wantKept, tt.reason)
			}
			if got := countHealthy([]*Pod{pod}, kept, tt.now); got != tt.wantHealthy {
				t.Errorf("at %s currentHealthy = %d, want %d (%s)", At(tt.now), got, tt.wantHealthy, tt.reason)
			}
		})
	}
}

func TestBudgetValidation(t *testing.T) {
	two, over := Int(2), Percent(150)
	tests := []struct {
		name    string
		reason  string
		budget  Budget
		wantErr string
	}{
		{name: "both", reason: "minAvailable and maxUnavailable exclude each other", budget: Budget{Name: "ledger", MinAvailable: &two, MaxUnavailable: &two}, wantErr: "budget ledger: minAvailable and maxUnavailable cannot be both set"},
		{name: "over-100", reason: "a percentage above 100 is refused", budget: Budget{Name: "ledger", MinAvailable: &over}, wantErr: "budget ledger: 150% must not be greater than 100%"},
		{name: "policy", reason: "only the two policies exist", budget: Budget{Name: "ledger", UnhealthyPodEvictionPolicy: "Never"}, wantErr: `budget ledger: unhealthyPodEvictionPolicy "Never" is not IfHealthyBudget or AlwaysAllow`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewCluster().AddBudget(tt.budget)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("AddBudget error = %v, want %q (%s)", err, tt.wantErr, tt.reason)
			}
		})
	}
}

// maxUnavailable: 1 keeps meaning "one pod may go" when the replica count
// changes, where minAvailable: 3, which says the same of four replicas,
// allows three disruptions of six replicas and none of three.
func TestMaxUnavailableFollowsReplicaCount(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		replicas int
		wantMax  int // disruptionsAllowed under maxUnavailable: 1
		wantMin  int // disruptionsAllowed under minAvailable: 3
	}{
		{name: "four", reason: "the two forms agree on four replicas", replicas: 4, wantMax: 1, wantMin: 1},
		{name: "scaled-up-to-six", reason: "a floor of 3 now lets three go at once", replicas: 6, wantMax: 1, wantMin: 3},
		{name: "scaled-down-to-three", reason: "a floor of 3 now blocks every drain", replicas: 3, wantMax: 1, wantMin: 0},
	}
	max1 := ledger(t, 4, maxUnavailable(Int(1)))
	min3 := ledger(t, 4, minAvailable(Int(3)))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []*Cluster{max1, min3} {
				if err := c.Scale("ledger", tt.replicas); err != nil {
					t.Fatal(err)
				}
				if err := c.Advance(15 * time.Second); err != nil { // new pods become Ready
					t.Fatal(err)
				}
			}
			if got := mustBudget(t, max1, "ledger").Status.DisruptionsAllowed; got != tt.wantMax {
				t.Errorf("maxUnavailable 1 of %d replicas: disruptionsAllowed %d, want %d (%s)", tt.replicas, got, tt.wantMax, tt.reason)
			}
			if got := mustBudget(t, min3, "ledger").Status.DisruptionsAllowed; got != tt.wantMin {
				t.Errorf("minAvailable 3 of %d replicas: disruptionsAllowed %d, want %d (%s)", tt.replicas, got, tt.wantMin, tt.reason)
			}
		})
	}
}

// fastSlow builds the example of two budgets over one pod: deployment fast
// (one pod, Ready; a replacement is Ready 15 s after it starts) and deployment slow (one pod that becomes Ready 15 s after
// it starts), both labelled tier=a; budget pdb-a selects slow with
// minAvailable 0, budget pdb-b selects tier=a with minAvailable 1. The
// budgets are created while slow is still starting.
func fastSlow(t *testing.T) *Cluster {
	t.Helper()
	c := NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		must(t, c.AddNode(n))
	}
	must(t, c.AddController(Controller{Name: "fast", Replicas: 1, Labels: map[string]string{"app": "fast", "tier": "a"}, ReadyAfter: 15 * time.Second}))
	must(t, c.AddController(Controller{Name: "slow", Replicas: 0, Labels: map[string]string{"app": "slow", "tier": "a"}, ReadyAfter: 15 * time.Second}))
	must(t, c.Scale("slow", 1))
	zero, one := Int(0), Int(1)
	must(t, c.AddBudget(Budget{Name: "pdb-a", Selector: &Selector{MatchLabels: map[string]string{"app": "slow"}}, MinAvailable: &zero}))
	must(t, c.AddBudget(Budget{Name: "pdb-b", Selector: &Selector{MatchLabels: map[string]string{"tier": "a"}}, MinAvailable: &one}))
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// When two budgets select a pod, an event of that pod makes the disruption
// controller sync only one of them; the other keeps its old status until
// its own update or a resync, and the eviction subresource trusts that old
// status. In the example, slow becomes Ready: if the controller picks
// pdb-a, pdb-b still says 1 healthy and refuses to evict fast, which
// could go; a resync of pdb-b sets it right.
func TestOverlappingBudgetsKeepStaleStatus(t *testing.T) {
	tests := []struct {
		name, reason string
		picks        string // the budget the controller syncs for slow's event
		wantA, wantB string // statuses after slow is Ready
		wantFast     int    // dry-run eviction of fast-1
	}{
		{name: "picks-pdb-a", reason: "pdb-b is stale: 1 healthy where there are 2, so fast is refused",
			picks: "pdb-a", wantA: "expected 1, desired 0, healthy 1, allowed 1", wantB: "expected 2, desired 1, healthy 1, allowed 0", wantFast: CodeTooManyRequests},
		{name: "picks-pdb-b", reason: "pdb-a is stale, pdb-b is right and allows fast to go",
			picks: "pdb-b", wantA: "expected 1, desired 0, healthy 0, allowed 0", wantB: "expected 2, desired 1, healthy 2, allowed 1", wantFast: CodeCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fastSlow(t)
			must(t, c.PreferBudget(tt.picks))
			must(t, c.Advance(15*time.Second))
			a, b := mustBudget(t, c, "pdb-a").Status.String(), mustBudget(t, c, "pdb-b").Status.String()
			if a != tt.wantA || b != tt.wantB {
				t.Errorf("controller picks %s: pdb-a %q, pdb-b %q; want %q, %q (%s)", tt.picks, a, b, tt.wantA, tt.wantB, tt.reason)
			}
			if d := c.EvictDryRun("fast-1"); d.Code != tt.wantFast {
				t.Errorf("controller picks %s: EvictDryRun(fast-1) = %s, want code %d (%s)", tt.picks, d, tt.wantFast, tt.reason)
			}
			// The budgets' own updates bring both up to date.
			must(t, c.ResyncBudget("pdb-a"))
			must(t, c.ResyncBudget("pdb-b"))
			fresh := []string{"expected 1, desired 0, healthy 1, allowed 1", "expected 2, desired 1, healthy 2, allowed 1"}
			if got := []string{mustBudget(t, c, "pdb-a").Status.String(), mustBudget(t, c, "pdb-b").Status.String()}; got[0] != fresh[0] || got[1] != fresh[1] {
				t.Errorf("after a resync of both: %q, want %q", got, fresh)
			}
		})
	}
}

// The reverse: a shared pod turns unready, the controller syncs the other
// budget, and the stale one lets an eviction take the application below
// the floor it declared.
func TestOverlappingBudgetsStaleStatusBreaksFloor(t *testing.T) {
	c := fastSlow(t)
	must(t, c.PreferBudget("pdb-b"))
	must(t, c.Advance(15*time.Second)) // both Ready, pdb-b up to date: allows 1
	must(t, c.PreferBudget("pdb-a"))
	must(t, c.SetReady("slow-1", false)) // only pdb-a is synced
	if d := c.Evict("fast-1"); !d.Allowed {
		t.Fatalf("Evict(fast-1) = %s, want allowed on pdb-b's stale allowed 1", d)
	}
	if n := readyPods(c); n != 0 {
		t.Errorf("%d pods Ready, want 0: pdb-b's floor of 1 was broken by its stale status", n)
	}
}

// Between an approved eviction and the deletion of the pod, the pod is
// still there and still Ready. The controller may sync in between (the
// eviction's own status update makes it sync); disruptedPods keeps it from
// counting the pod and handing the spent disruption back.
func TestDisruptedPodsHoldTheApproval(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	e := c.BeginEviction("ledger-1")
	if d := e.decide(false); !d.Allowed {
		t.Fatalf("Evict(ledger-1) = %s, want allowed", d)
	}
	// The status is written; the pod is not deleted yet. The controller
	// syncs the budget.
	b := c.budget("ledger")
	c.dirty[b] = true
	c.sync()
	if _, ok := c.Pod("ledger-1"); !ok {
		t.Fatal("ledger-1 is gone; the test needs it still there")
	}
	if got := b.Status; got.CurrentHealthy != 2 || got.DisruptionsAllowed != 0 {
		t.Errorf("sync between approval and deletion: %s, want healthy 2, allowed 0: ledger-1 is promised to an eviction", got)
	}
}

// What the model leaves out of the disruption controller's work queue.
// Budgets made before their pods: pdb-a (10% of app=w) and pdb-b (4 of
// everything) both select the two pods of w, which appear and turn Ready
// in one operation. The model picks the oldest budget for each pod event
// and syncs it when the operation ends, so pdb-b keeps the status of a
// namespace without pods. A real controller, whose queued syncs read the
// pods when they run, has been seen to end with both budgets up to date
// (e2e/testdata/differential/budgets-before-pods.json); the model cannot
// produce that end without a pick of pdb-b.
func TestOverlappingBudgetsCreatedBeforeTheirPods(t *testing.T) {
	c := NewCluster()
	must(t, c.AddNode("pdb-1"))
	ten, four := Percent(10), Int(4)
	must(t, c.AddBudget(Budget{Name: "pdb-a", Selector: &Selector{MatchLabels: map[string]string{"app": "w"}}, MinAvailable: &ten}))
	must(t, c.AddBudget(Budget{Name: "pdb-b", Selector: &Selector{}, MinAvailable: &four}))
	must(t, c.AddController(Controller{Name: "w", Replicas: 2, Labels: map[string]string{"app": "w"}}))
	a, b := mustBudget(t, c, "pdb-a").Status.String(), mustBudget(t, c, "pdb-b").Status.String()
	if a != "expected 2, desired 1, healthy 2, allowed 1" || b != "expected 0, desired 4, healthy 0, allowed 0" {
		t.Errorf("pdb-a %q, pdb-b %q; want pdb-a up to date and pdb-b as it was before the pods", a, b)
	}
	if fresh, _ := c.FreshStatus("pdb-b"); fresh.String() != "expected 2, desired 4, healthy 2, allowed 0" {
		t.Errorf("pdb-b's fresh status %q, want what the server shows: expected 2, desired 4, healthy 2, allowed 0", fresh)
	}
}
