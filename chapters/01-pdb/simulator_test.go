package pdb

import (
	"strings"
	"testing"
	"time"
)

// The tests of this file pin the simulator's own bookkeeping: what the
// timeline prints, where pods are placed, when the clock stops, and the
// indexes the cluster keeps beside its pods. Each was written for a mutant
// that the chapter's other tests let live; EVIDENCE.md lists them, with the
// mutants left as equivalent.

// checkIndexes recounts, from the pods themselves, what the cluster keeps
// as running counts: each controller's live pods, the pods on each node,
// each controller's pods on each node, and each budget's pods.
func checkIndexes(t *testing.T, c *Cluster) {
	t.Helper()
	live := map[string]int{}
	onNode := make([]int, len(c.nodeList))
	own := map[string][]int{}
	for _, p := range c.order {
		if p.gone {
			continue
		}
		if p.Owner != "" && !p.Terminating {
			live[p.Owner]++
		}
		if p.Node == "" {
			continue
		}
		i := c.nodes[p.Node].index
		onNode[i]++
		if p.Owner != "" {
			if own[p.Owner] == nil {
				own[p.Owner] = make([]int, len(c.nodeList))
			}
			own[p.Owner][i]++
		}
	}
	for name := range c.controllers {
		if c.live[name] != live[name] {
			t.Errorf("at %s the cluster counts %d live pods of %s, the pods say %d", At(c.now), c.live[name], name, live[name])
		}
	}
	for i, n := range c.nodeList {
		if c.onNode[i] != onNode[i] {
			t.Errorf("at %s the cluster counts %d pods on %s, the pods say %d", At(c.now), c.onNode[i], n.Name, onNode[i])
		}
		for ctl, want := range own {
			got := 0
			if i < len(c.ownOnNode[ctl]) {
				got = c.ownOnNode[ctl][i]
			}
			if got != want[i] {
				t.Errorf("at %s the cluster counts %d pods of %s on %s, the pods say %d", At(c.now), got, ctl, n.Name, want[i])
			}
		}
	}
	for _, b := range c.budgets {
		want := 0
		for _, p := range c.order {
			if !p.gone && b.Selector.Matches(p.Labels) {
				want++
			}
		}
		if got := len(c.budgetPods[b]); got != want {
			t.Errorf("at %s budget %s holds %d pods, its selector matches %d", At(c.now), b.Name, got, want)
		}
	}
	gone := 0
	for _, p := range c.order {
		if p.gone {
			gone++
		}
	}
	if gone != c.removed || gone > len(c.pods) {
		t.Errorf("at %s %d removed pods wait in the creation order (counted %d) beside %d live ones: it was not compacted", At(c.now), gone, c.removed, len(c.pods))
	}
	if n := len(c.Log()); len(c.log) != (n+logChunk-1)/logChunk {
		t.Errorf("at %s %d events kept in %d chunks, want chunks of %d", At(c.now), n, len(c.log), logChunk)
	}
}

// The indexes follow the pods through every way a pod goes: a drain, a
// scale-down, a rolling update, and a node that loses power, whose pods the
// taint eviction controller deletes and leaves Terminating.
func TestIndexesFollowThePods(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	must(t, c.AddController(Controller{Name: "db", Replicas: 2, Labels: map[string]string{"app": "db"}, ReadyAfter: 5 * time.Second}))
	checkIndexes(t, c)
	must(t, c.Advance(20*time.Second))
	if _, err := c.Drain("pdb-1", time.Minute); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, c)
	must(t, c.Uncordon("pdb-1"))
	must(t, c.Scale("db", 5))
	must(t, c.Scale("db", 1))
	checkIndexes(t, c)
	must(t, c.Rollout("ledger", Strategy{MaxSurge: 1}))
	must(t, c.Advance(time.Minute))
	checkIndexes(t, c)
	must(t, c.PowerOff("pdb-2"))
	must(t, c.Advance(NodeMonitorGracePeriod+DefaultTolerationSeconds+time.Minute))
	checkIndexes(t, c)
	for i := range 40 {
		must(t, c.Scale("db", 1+i%2*5))
	}
	checkIndexes(t, c)
}

// A new pod goes to the node with the fewest pods of its own controller,
// then the fewest pods in all, then the first by name.
func TestPlacementSpreadsEachController(t *testing.T) {
	c := NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		must(t, c.AddNode(n))
	}
	must(t, c.AddPod(Pod{Name: "bare-1", Node: "pdb-1"}))
	must(t, c.AddPod(Pod{Name: "bare-2", Node: "pdb-1"}))
	must(t, c.AddPod(Pod{Name: "bare-3", Node: "pdb-2"}))
	must(t, c.AddController(Controller{Name: "api", Replicas: 4, Labels: map[string]string{"app": "api"}}))
	got := map[string]string{}
	for _, p := range c.Pods() {
		if p.Owner == "api" {
			got[p.Name] = p.Node
		}
	}
	// api-1 on pdb-3 (no pod), api-2 on pdb-2 (one pod), api-3 on pdb-1
	// (no api pod left elsewhere), api-4 on pdb-3 (one api pod everywhere,
	// pdb-3 holds the fewest in all).
	want := map[string]string{"api-1": "pdb-3", "api-2": "pdb-2", "api-3": "pdb-1", "api-4": "pdb-3"}
	for name, node := range want {
		if got[name] != node {
			t.Errorf("%s placed on %q, want %s: fewest pods of its controller first, then fewest pods", name, got[name], node)
		}
	}
	checkIndexes(t, c)
}

// The Deployed line names the pods of that controller only.
func TestDeployedLineNamesItsOwnPods(t *testing.T) {
	c := ledger(t, 2, nil)
	must(t, c.AddController(Controller{Name: "db", Replicas: 1, Labels: map[string]string{"app": "db"}}))
	var lines []string
	for _, e := range c.Log() {
		if e.Kind == EventDeployed {
			lines = append(lines, e.String())
		}
	}
	want := []string{"t=0s deployment ledger, Ready: ledger-1 on pdb-1, ledger-2 on pdb-2", "t=0s deployment db, Ready: db-1 on pdb-3"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("deployed lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Timeline lines: a pod created without a node says Pending, one with a
// node says where; names, plurals and "on node" read as a sentence.
func TestTimelineWording(t *testing.T) {
	c := ledger(t, 1, minAvailable(Int(1)))
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		must(t, c.Cordon(n))
	}
	must(t, c.Scale("ledger", 2))
	must(t, c.Uncordon("pdb-3"))
	must(t, c.Scale("ledger", 3))
	var created []string
	for _, e := range c.Log() {
		if e.Kind == EventCreated {
			created = append(created, e.String())
		}
	}
	want := []string{"t=0s ledger-2 created, Pending: no schedulable node", "t=0s ledger-3 created on pdb-3, Ready at t=15s"}
	if strings.Join(created, "\n") != strings.Join(want, "\n") {
		t.Errorf("created lines\n%s\nwant\n%s", strings.Join(created, "\n"), strings.Join(want, "\n"))
	}
	for _, tc := range []struct{ got, want string }{
		{on(""), ""},
		{on("pdb-1"), " on pdb-1"},
		{plural(1, "conflict", "conflicts"), "1 conflict"},
		{plural(2, "conflict", "conflicts"), "2 conflicts"},
		{names(nil), "none"},
		{names([]string{"ledger-1", "ledger-2"}), "ledger-1, ledger-2"},
		{(*Selector)(nil).String(), "<none>"},
		{(&Selector{}).String(), "<everything>"},
		{(&Selector{MatchLabels: map[string]string{"tier": "front", "app": "ledger"}}).String(), "app=ledger,tier=front"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// The drain's "(will retry after 5s)" goes with its 429s only.
func TestDrainNotesTheRetryOn429Only(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	if _, err := c.Drain("pdb-1", time.Minute); err != nil {
		t.Fatal(err)
	}
	c2 := ledger(t, 3, minAvailable(Int(3)))
	if _, err := c2.Drain("pdb-1", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, e := range append(c.Log(), c2.Log()...) {
		if e.Kind != EventEvict {
			continue
		}
		noted := strings.Contains(e.String(), "(will retry after 5s)")
		if is429 := e.Decision.Code == CodeTooManyRequests; noted != is429 {
			t.Errorf("%q: a note of the retry on a %d", e.String(), e.Decision.Code)
		}
	}
}

// The disruption controller writes a status only when it changed, and each
// write is a new resourceVersion (updatePdbStatus returns early on an equal
// status, K pkg/controller/disruption/disruption.go). An edit of the spec
// is a write too, and resourceVersions only grow.
func TestStatusWrittenOnlyWhenChanged(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	must(t, c.Advance(time.Minute))
	rv := mustBudget(t, c, "ledger").ResourceVersion
	must(t, c.ResyncBudget("ledger"))
	if got := mustBudget(t, c, "ledger").ResourceVersion; got != rv {
		t.Errorf("a sync that changed nothing moved resourceVersion %d to %d", rv, got)
	}
	must(t, c.UpdateBudget("ledger", func(b *Budget) { b.MinAvailable = new(IntOrPercent(Int(1))) }))
	if got := mustBudget(t, c, "ledger").ResourceVersion; got <= rv {
		t.Errorf("an edit and its sync left resourceVersion %d, want above %d", got, rv)
	}
	rv = mustBudget(t, c, "ledger").ResourceVersion
	must(t, c.UpdateBudget("ledger", func(b *Budget) { b.MinAvailable = new(IntOrPercent(Int(1))) }))
	if got := mustBudget(t, c, "ledger").ResourceVersion; got != rv+2 {
		t.Errorf("an edit to the same floor left resourceVersion %d, want %d: the edit, then a status with the new observedGeneration", got, rv+2)
	}
}

// Small inputs the API takes: scaling to zero, a zero status, moving the
// clock by nothing, and naming the budget to prefer.
func TestEdgeInputs(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(2)))
	must(t, c.Advance(0))
	must(t, c.WriteStatus("ledger", func(s *Status) { s.DisruptionsAllowed = 0 }))
	must(t, c.PreferBudget(""))
	if err := c.PreferBudget("nope"); err == nil {
		t.Error("PreferBudget(nope) = nil, want an error: no such budget")
	}
	must(t, c.PreferBudget("ledger"))
	must(t, c.Scale("ledger", 0))
	if n := len(c.Pods()); n != 0 {
		t.Errorf("%d pods after scaling to 0", n)
	}
}

// A second budget over a controller's pods counts the pods the controller
// makes after it, although the controller keeps a cache of its budgets.
func TestBudgetAddedLaterCountsNewPods(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(1)))
	must(t, c.Scale("ledger", 4))
	must(t, c.AddBudget(Budget{Name: "late", Selector: &Selector{MatchLabels: map[string]string{"app": "ledger"}}, MinAvailable: new(IntOrPercent(Int(1)))}))
	must(t, c.Scale("ledger", 5))
	// A pod's event syncs one budget (the oldest, ledger), so late's own
	// status is stale; the status its next sync writes counts ledger-5.
	if s, _ := c.FreshStatus("late"); s.ExpectedPods != 5 {
		t.Errorf("budget late would write %s, want expected 5: ledger-5 was made after it", s)
	}
	checkIndexes(t, c)
}

// Pods that turn Ready at different instants each count at their own
// instant, whichever crashed first.
func TestPodsTurnReadyInOrder(t *testing.T) {
	c := ledger(t, 3, minAvailable(Int(1)))
	must(t, c.CrashContainer("ledger-2"))
	must(t, c.Advance(5*time.Second))
	must(t, c.CrashContainer("ledger-1"))
	must(t, c.Advance(time.Minute))
	var ready []string
	for _, e := range c.Log() {
		if e.Kind == EventReady {
			ready = append(ready, e.String())
		}
	}
	want := []string{"t=15s ledger-2 is Ready", "t=20s ledger-1 is Ready"}
	if strings.Join(ready, "\n") != strings.Join(want, "\n") {
		t.Errorf("ready lines\n%s\nwant\n%s", strings.Join(ready, "\n"), strings.Join(want, "\n"))
	}
	if s := mustBudget(t, c, "ledger").Status; s.CurrentHealthy != 3 {
		t.Errorf("status after both restarts %s, want healthy 3", s)
	}

	// A pod whose container is Ready as soon as it starts never leaves
	// Ready, so no line says it turned Ready again.
	c = NewCluster()
	must(t, c.AddNode("pdb-1"))
	must(t, c.AddController(Controller{Name: "api", Replicas: 1, Labels: map[string]string{"app": "api"}}))
	must(t, c.CrashContainer("api-1"))
	must(t, c.Advance(time.Minute))
	for _, e := range c.Log() {
		if e.Kind == EventReady {
			t.Errorf("%q: api-1 starts Ready at once", e.String())
		}
	}
}

// kubectl drain's context ends at the timeout: a retry due at that instant
// is not made, and each pod left retries on its own.
func TestDrainRetriesUntilTheDeadline(t *testing.T) {
	t.Run("retry-at-deadline", func(t *testing.T) {
		// ledger-3 crashed: Ready again at 30 s, so the drain of pdb-1 is
		// not stalled, and it is refused at 0 s and 5 s.
		c := ledger(t, 3, minAvailable(Int(3)))
		must(t, c.CrashContainer("ledger-3"))
		r, err := c.Drain("pdb-1", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !r.TimedOut || r.Attempts != 2 {
			t.Errorf("drain with a 10 s timeout: timed out %v after %d requests, want 2 (at 0 s and 5 s; none at 10 s)", r.TimedOut, r.Attempts)
		}
	})
	t.Run("two-pods-stalled", func(t *testing.T) {
		c := ledger(t, 6, minAvailable(Int(6)))
		r, err := c.Drain("pdb-1", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Left) != 2 || r.Attempts != 24 {
			t.Errorf("drain of two pods at a floor of all: %d left after %d requests, want 2 pods and 24 (12 each)", len(r.Left), r.Attempts)
		}
	})
}

// A rolling update grows the new ReplicaSet to the Deployment's replicas
// and no further, and with minReadySeconds it scales the old one down
// when the surge pod turns available, with nothing else happening.
func TestRolloutStopsAtReplicas(t *testing.T) {
	t.Run("surge-2", func(t *testing.T) {
		c := ledger(t, 3, nil)
		must(t, c.Rollout("ledger", Strategy{MaxSurge: 2}))
		must(t, c.Advance(2*time.Minute))
		n := 0
		for _, p := range c.Pods() {
			if p.Owner != "ledger-v2" {
				t.Errorf("pod %s of %s left after the rollout", p.Name, p.Owner)
			}
			n++
		}
		if n != 3 {
			t.Errorf("%d pods after the rollout, want 3", n)
		}
	})
	t.Run("min-ready", func(t *testing.T) {
		c := ledger(t, 3, nil)
		must(t, c.Rollout("ledger", Strategy{MaxSurge: 1, MinReady: 10 * time.Second}))
		must(t, c.Advance(2*time.Minute))
		if at := firstScaleDown(t, c); at != 25*time.Second {
			t.Errorf("old ReplicaSet first scaled down at %v, want 25s: the surge pod Ready at 15 s, available 10 s later", At(at))
		}
	})
}
