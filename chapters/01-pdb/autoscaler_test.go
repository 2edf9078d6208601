package pdb

import "testing"

// The Cluster Autoscaler does not drain a node whose pods a budget
// protects with no disruption left: it leaves the node out of its
// scale-down, without cordoning it or asking for any eviction, and keeps
// the node while the budget allows nothing.
func TestAutoscalerSkipsNodeUnderStrictBudget(t *testing.T) {
	t.Run("no-margin", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(3)))
		before := len(c.Log())
		if got := c.ScaleDownBlocker("pdb-1"); got != "ledger-1" {
			t.Errorf("ScaleDownBlocker(pdb-1) = %q under minAvailable 3 of 3, want ledger-1: the budget allows no disruption", got)
		}
		if n, _ := c.Node("pdb-1"); n.Cordoned || len(c.Log()) != before {
			t.Errorf("the simulation changed the cluster (cordoned %v, %d new events), want nothing: the autoscaler skips the node", n.Cordoned, len(c.Log())-before)
		}
	})
	t.Run("one-to-spare", func(t *testing.T) {
		c := ledger(t, 3, minAvailable(Int(2)))
		if got := c.ScaleDownBlocker("pdb-1"); got != "" {
			t.Errorf("ScaleDownBlocker(pdb-1) = %q under minAvailable 2 of 3, want none: one disruption is allowed", got)
		}
	})
}
