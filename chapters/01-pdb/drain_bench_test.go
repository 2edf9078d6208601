package pdb

import (
	"fmt"
	"testing"
	"time"
)

// poolMigration builds 10,000 pods over 100 nodes: 100 controllers of 100
// replicas, one pod of each on every node, each behind maxUnavailable 10%,
// plus 100 empty nodes to move them to.
func poolMigration(b *testing.B) (*Cluster, []string) {
	b.Helper()
	c := NewCluster()
	var old []string
	for i := range 100 {
		n := fmt.Sprintf("old-%d", i+1)
		old = append(old, n)
		if err := c.AddNode(n); err != nil {
			b.Fatal(err)
		}
	}
	tenPercent := Percent(10)
	for i := range 100 {
		app := fmt.Sprintf("app-%d", i+1)
		if err := c.AddController(Controller{Name: app, Replicas: 100, Labels: map[string]string{"app": app}, ReadyAfter: 20 * time.Second}); err != nil {
			b.Fatal(err)
		}
		if err := c.AddBudget(Budget{Name: app, Selector: &Selector{MatchLabels: map[string]string{"app": app}}, MaxUnavailable: &tenPercent}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		if err := c.AddNode(fmt.Sprintf("new-%d", i+1)); err != nil {
			b.Fatal(err)
		}
	}
	return c, old
}

// BenchmarkDrain10000PodsOver100Nodes drains the 100 old nodes one after
// the other, as a node-pool replacement does: 10,000 evictions, many of
// them refused and retried while replacements start.
func BenchmarkDrain10000PodsOver100Nodes(b *testing.B) {
	var attempts, evicted int
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		c, old := poolMigration(b)
		attempts, evicted = 0, 0
		b.StartTimer()
		for _, n := range old {
			r, err := c.Drain(n, 0)
			if err != nil {
				b.Fatal(err)
			}
			if !r.Done() {
				b.Fatalf("drain %s: %s", n, r.Summary())
			}
			attempts += r.Attempts
			evicted += len(r.Evicted)
		}
		took = c.Now()
	}
	if evicted != 10000 {
		b.Fatalf("evicted %d pods, want 10000", evicted)
	}
	b.ReportMetric(float64(attempts), "evictions-asked/op")
	b.ReportMetric(took.Seconds(), "simulated-s/op")
}
