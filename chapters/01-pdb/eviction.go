package pdb

import (
	"fmt"
	"maps"
	"time"
)

// HTTP status codes the eviction subresource answers with.
const (
	CodeCreated         = 201 // the eviction was accepted and the pod deleted
	CodeNotFound        = 404 // no such pod (any more)
	CodeTooManyRequests = 429 // a budget refuses now; try again later
	CodeInternalError   = 500 // several budgets select the pod
)

// Upstream's messages, word for word (pkg/registry/core/pod/storage/eviction.go).
const (
	MsgViolatesBudget  = "Cannot evict pod as it would violate the pod's disruption budget."
	MsgSeveralBudgets  = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
	causeBeingCounted  = "The disruption budget %s is still being processed by the server."
	causeNeedsHealthy  = "The disruption budget %s needs %d healthy pods and has %d currently"
	causeDoesNotAllow  = "The disruption budget %s does not allow evicting pods currently"
	msgPodNotFound     = "pods %q not found"
	reasonIgnoredPhase = "pod is %s: budgets are not checked"
)

// A Decision is the eviction subresource's answer.
type Decision struct {
	Pod     string
	Allowed bool
	Code    int
	// Budget names the budget that decided, if one did.
	Budget string
	// Why says in the model's words which rule decided.
	Why string
	// Message and Causes are upstream's Status message and the messages of
	// its causes of type DisruptionBudget, for a refusal.
	Message string
	Causes  []string
	// Spent is set when the eviction used one of the budget's allowed
	// disruptions, rather than a rule that skips the count.
	Spent bool
	// DryRun is set when nothing was changed.
	DryRun bool
}

// String returns the decision as one line: "allowed (budget web: 1
// disruption allowed)" or "refused 429: Cannot evict pod ... (The
// disruption budget web needs 2 healthy pods and has 2 currently)".
func (d Decision) String() string {
	if d.Allowed {
		return "allowed (" + d.Why + ")"
	}
	s := fmt.Sprintf("refused %d: %s", d.Code, d.Message)
	for _, c := range d.Causes {
		s += " (" + c + ")"
	}
	return s
}

// Evict asks the eviction subresource to evict a pod. When it is allowed,
// the pod is deleted and its controller replaces it; when it goes through
// a budget, the budget's DisruptionsAllowed is decremented and the pod
// recorded in DisruptedPods until the controller sees it gone.
func (c *Cluster) Evict(name string) Decision {
	return c.evict(name, false, "")
}

// EvictDryRun answers as Evict would and changes nothing, as an eviction
// with dryRun: All does.
func (c *Cluster) EvictDryRun(name string) Decision {
	return c.evict(name, true, "")
}

// evict decides and, unless dryRun, acts and logs the decision; note is
// added to the log line when the eviction is refused with 429 (a drain says
// when it will ask again).
func (c *Cluster) evict(name string, dryRun bool, note string) Decision {
	d := c.decide(name, dryRun)
	d.DryRun = dryRun
	if dryRun {
		return d
	}
	p := c.pods[name]
	e := Event{Kind: EventEvict, Pod: name, Node: nodeOf(p), Decision: &d}
	if d.Code == CodeTooManyRequests {
		e.Detail = note
	}
	c.record(e)
	if d.Allowed {
		c.remove(p)
		c.sync()
	}
	return d
}

func nodeOf(p *Pod) string {
	if p == nil {
		return ""
	}
	return p.Node
}

// decide follows EvictionREST.Create step by step. With dryRun false an
// allowed eviction through a budget updates the budget's status, as
// checkAndDecrement does; the caller deletes the pod.
func (c *Cluster) decide(name string, dryRun bool) Decision {
	p, ok := c.pods[name]
	if !ok {
		return Decision{Pod: name, Code: CodeNotFound, Message: fmt.Sprintf(msgPodNotFound, name)}
	}
	allow := func(budget, why string) Decision {
		return Decision{Pod: name, Allowed: true, Code: CodeCreated, Budget: budget, Why: why}
	}

	// A pod that is not running, or already going, has nothing left to
	// disrupt: evicting it only deletes it (canIgnorePDB).
	switch {
	case p.Terminating:
		return allow("", "pod is already being deleted: budgets are not checked")
	case p.Phase == Pending, p.Phase == Succeeded, p.Phase == Failed:
		return allow("", fmt.Sprintf(reasonIgnoredPhase, p.Phase))
	}

	switch len(p.budgets) {
	case 0:
		return allow("", "no budget selects the pod")
	case 1:
	default:
		return Decision{Pod: name, Code: CodeInternalError, Message: MsgSeveralBudgets}
	}
	b := p.budgets[0]

	if !p.Ready(c.now) {
		if b.UnhealthyPodEvictionPolicy == AlwaysAllow {
			return allow(b.Name, fmt.Sprintf("budget %s: pod is not Ready and the policy is AlwaysAllow", b.Name))
		}
		// The application is not disrupted now, so removing a pod that
		// serves nothing cannot disrupt it.
		if b.Status.CurrentHealthy >= b.Status.DesiredHealthy && b.Status.DesiredHealthy > 0 {
			return allow(b.Name, fmt.Sprintf("budget %s: pod is not Ready and the budget is healthy: %d healthy, %d desired",
				b.Name, b.Status.CurrentHealthy, b.Status.DesiredHealthy))
		}
	}

	return c.checkAndDecrement(p, b, dryRun)
}

// checkAndDecrement spends one of the budget's allowed disruptions, or
// refuses with 429.
func (c *Cluster) checkAndDecrement(p *Pod, b *Budget, dryRun bool) Decision {
	refuse := func(cause string) Decision {
		return Decision{Pod: p.Name, Code: CodeTooManyRequests, Budget: b.Name, Message: MsgViolatesBudget, Causes: []string{cause}}
	}
	if b.Status.ObservedGeneration < b.Generation {
		return refuse(fmt.Sprintf(causeBeingCounted, b.Name))
	}
	if b.Status.DisruptionsAllowed == 0 {
		if b.Status.CurrentHealthy <= b.Status.DesiredHealthy {
			return refuse(fmt.Sprintf(causeNeedsHealthy, b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy))
		}
		return refuse(fmt.Sprintf(causeDoesNotAllow, b.Name))
	}
	left := b.Status.DisruptionsAllowed - 1
	d := Decision{Pod: p.Name, Allowed: true, Code: CodeCreated, Budget: b.Name, Spent: true,
		Why: fmt.Sprintf("budget %s allowed %s, %d left", b.Name, plural(b.Status.DisruptionsAllowed, "disruption", "disruptions"), left)}
	if dryRun {
		return d
	}
	b.Status.DisruptionsAllowed = left
	b.Status.DisruptedPods = maps.Clone(b.Status.DisruptedPods)
	if b.Status.DisruptedPods == nil {
		b.Status.DisruptedPods = map[string]time.Duration{}
	}
	b.Status.DisruptedPods[p.Name] = c.now
	return d
}
