package pdb

import (
	"testing"
	"time"
)

// ledger builds the chapter's running example: nodes pdb-1, pdb-2 and pdb-3, a
// controller ledger of the given replicas whose replacements are Ready 15 s
// after they are placed, and one budget named ledger selecting app=ledger.
func ledger(t *testing.T, replicas int, floor func(*Budget)) *Cluster {
	t.Helper()
	c := NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		if err := c.AddNode(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AddController(Controller{Name: "ledger", Replicas: replicas, Labels: map[string]string{"app": "ledger"}, ReadyAfter: 15 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if floor != nil {
		b := Budget{Name: "ledger", Selector: &Selector{MatchLabels: map[string]string{"app": "ledger"}}}
		floor(&b)
		if err := c.AddBudget(b); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func minAvailable(v IntOrPercent) func(*Budget) {
	return func(b *Budget) { b.MinAvailable = &v }
}

func maxUnavailable(v IntOrPercent) func(*Budget) {
	return func(b *Budget) { b.MaxUnavailable = &v }
}

func mustBudget(t *testing.T, c *Cluster, name string) Budget {
	t.Helper()
	b, ok := c.Budget(name)
	if !ok {
		t.Fatalf("no budget %s", name)
	}
	return b
}

func verdict(d Decision) string {
	if d.Allowed {
		return "allowed"
	}
	return "refused"
}

// readyPods counts the pods of the cluster that are Ready now.
func readyPods(c *Cluster) int {
	n := 0
	for _, p := range c.Pods() {
		if p.Ready(c.Now()) {
			n++
		}
	}
	return n
}
