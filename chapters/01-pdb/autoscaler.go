package pdb

// ScaleDownBlocker returns the first pod on node that keeps the Cluster
// Autoscaler from removing it, or "" when none does. The autoscaler does
// not drain a node to find out: it simulates the removal, and its PDB rule
// rejects a node as soon as one of its pods is selected by a budget that
// allows less than one disruption (NotEnoughPdb in
// cluster-autoscaler/simulator/drainability/rules/pdb). Such a node is
// never cordoned, nothing on it is evicted, and nothing is retried: it is
// simply not a candidate until the budget's status allows a disruption.
// Its PDB tracker's count of disruptions spent by the other nodes of the
// same scale-down is left out.
func (c *Cluster) ScaleDownBlocker(node string) string {
	for _, p := range c.order {
		if p.gone || p.Node != node || p.Terminating {
			continue
		}
		for _, b := range p.budgets {
			if b.Status.DisruptionsAllowed < 1 {
				return p.Name
			}
		}
	}
	return ""
}
