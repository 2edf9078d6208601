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
	CodeForbidden       = 403 // the budget's status cannot be trusted: refused for good
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
	msgForbidden       = "poddisruptionbudget.policy %q is forbidden: %s"
	reasonNegative     = "pdb disruptions allowed is negative"
	reasonTooManyPods  = "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
	causeNegative      = "The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative"
	causeTooManyPods   = "The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller"
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
	// Conflicts counts the status updates of the budget that failed because
	// another writer had changed it since it was read; each one made the
	// handler read the budget again and decide again.
	Conflicts int
}

// MaxDisruptedPodSize is the most entries status.disruptedPods may hold
// before evictions through the budget are refused with 403: that many
// approvals the disruption controller has not yet seen carried out
// (MaxDisruptedPodSize in pkg/registry/core/pod/storage/eviction.go).
const MaxDisruptedPodSize = 2000

// String returns the decision as one line: "allowed (budget ledger: 1
// disruption allowed)" or "refused 429: Cannot evict pod ... (The
// disruption budget ledger needs 2 healthy pods and has 2 currently)".
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
	return c.BeginEviction(name).commit(false, "")
}

// EvictDryRun answers as Evict would and changes nothing, as an eviction
// with dryRun: All does.
func (c *Cluster) EvictDryRun(name string) Decision {
	return c.BeginEviction(name).commit(true, "")
}

// An Eviction is a request to the eviction subresource caught halfway: the
// handler has read the pod and the budgets that select it, and has not yet
// written anything. Two removers whose requests read the same budget before
// either writes hold the same status, with the same allowed disruptions;
// [Eviction.Commit] shows what keeps them from both spending it.
type Eviction struct {
	c     *Cluster
	name  string
	found bool
	pod   Pod      // as read
	ready bool     // the pod's Ready condition as read
	read  []Budget // the budgets that select the pod, as read
}

// BeginEviction reads what EvictionREST.Create reads first: the pod
// (getPod) and the budgets of its namespace whose selector matches it
// (getPodDisruptionBudgets).
func (c *Cluster) BeginEviction(name string) *Eviction {
	e := &Eviction{c: c, name: name}
	p, ok := c.pods[name]
	if !ok {
		return e
	}
	e.found, e.pod, e.ready = true, *p, p.Ready(c.now)
	for _, b := range p.budgets {
		e.read = append(e.read, b.copy())
	}
	return e
}

// Commit finishes the request: it decides on what was read and, when the
// eviction is allowed, writes the budget's status and deletes the pod. The
// status update carries the resourceVersion that was read; if another
// writer changed the budget since, the update conflicts, and the handler,
// inside retry.RetryOnConflict, reads the budget again and runs
// checkAndDecrement on the fresh status.
func (e *Eviction) Commit() Decision { return e.commit(false, "") }

// commit decides and, unless dryRun, acts and logs the decision; note is
// added to the log line when the eviction is refused with 429 (a drain says
// when it will ask again).
func (e *Eviction) commit(dryRun bool, note string) Decision {
	c := e.c
	d := e.decide(dryRun)
	d.DryRun = dryRun
	if dryRun {
		return d
	}
	p := c.pods[e.name]
	if d.Allowed && p == nil {
		// Another remover deleted the pod after it was read: the delete
		// finds nothing.
		d = Decision{Pod: e.name, Code: CodeNotFound, Message: fmt.Sprintf(msgPodNotFound, e.name), Conflicts: d.Conflicts}
	}
	ev := Event{Kind: EventEvict, Pod: e.name, Node: nodeOf(p), Decision: &d}
	if d.Code == CodeTooManyRequests {
		ev.Detail = note
	}
	c.record(ev)
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

// decide follows EvictionREST.Create step by step, on what BeginEviction
// read. With dryRun false an allowed eviction through a budget writes the
// budget's status, as checkAndDecrement does; the caller deletes the pod.
func (e *Eviction) decide(dryRun bool) Decision {
	name := e.name
	if !e.found {
		return Decision{Pod: name, Code: CodeNotFound, Message: fmt.Sprintf(msgPodNotFound, name)}
	}
	p := &e.pod
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

	switch len(e.read) {
	case 0:
		return allow("", "no budget selects the pod")
	case 1:
	default:
		return Decision{Pod: name, Code: CodeInternalError, Message: MsgSeveralBudgets}
	}
	b := e.read[0]

	if !e.ready {
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

	// retry.RetryOnConflict: a conflicting status update reads the budget
	// again and decides again. (Upstream gives up after 20 tries with a
	// timeout error; in the model one fresh read always succeeds.)
	conflicts := 0
	for {
		d, next := checkAndDecrement(name, &b, e.c.now)
		d.Conflicts = conflicts
		if !d.Allowed || dryRun {
			return d
		}
		live := e.c.budget(b.Name)
		if live.ResourceVersion != b.ResourceVersion {
			conflicts++
			b = live.copy()
			continue
		}
		live.Status = next
		live.ResourceVersion++
		// The status update is an update of the budget: the disruption
		// controller syncs it again (updateDB).
		e.c.dirty[live] = true
		return d
	}
}

// checkAndDecrement spends one of the budget's allowed disruptions, or
// refuses, as upstream's checkAndDecrement does with the status that was
// read. It returns the decision and the status to write.
func checkAndDecrement(pod string, b *Budget, now time.Duration) (Decision, Status) {
	refuse := func(cause string) Decision {
		return Decision{Pod: pod, Code: CodeTooManyRequests, Budget: b.Name, Message: MsgViolatesBudget, Causes: []string{cause}}
	}
	forbid := func(reason, cause string) Decision {
		return Decision{Pod: pod, Code: CodeForbidden, Budget: b.Name, Message: fmt.Sprintf(msgForbidden, b.Name, reason), Causes: []string{fmt.Sprintf(cause, b.Name)}}
	}
	switch {
	case b.Status.ObservedGeneration < b.Generation:
		return refuse(fmt.Sprintf(causeBeingCounted, b.Name)), b.Status
	case b.Status.DisruptionsAllowed < 0:
		// Not reachable through policy/v1, whose status validation refuses
		// a negative value (see WriteStatus); kept as upstream has it.
		return forbid(reasonNegative, causeNegative), b.Status
	case len(b.Status.DisruptedPods) > MaxDisruptedPodSize:
		return forbid(reasonTooManyPods, causeTooManyPods), b.Status
	case b.Status.DisruptionsAllowed == 0:
		if b.Status.CurrentHealthy <= b.Status.DesiredHealthy {
			return refuse(fmt.Sprintf(causeNeedsHealthy, b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy)), b.Status
		}
		return refuse(fmt.Sprintf(causeDoesNotAllow, b.Name)), b.Status
	}
	left := b.Status.DisruptionsAllowed - 1
	d := Decision{Pod: pod, Allowed: true, Code: CodeCreated, Budget: b.Name, Spent: true,
		Why: fmt.Sprintf("budget %s allowed %s, %d left", b.Name, plural(b.Status.DisruptionsAllowed, "disruption", "disruptions"), left)}
	next := b.Status
	next.DisruptionsAllowed = left
	next.DisruptedPods = maps.Clone(b.Status.DisruptedPods)
	if next.DisruptedPods == nil {
		next.DisruptedPods = map[string]time.Duration{}
	}
	next.DisruptedPods[pod] = now
	return d, next
}

// WriteStatus writes a budget's status by hand, through the status
// subresource, as a program other than the disruption controller could.
// policy/v1 validates it first: a negative disruptionsAllowed,
// currentHealthy, desiredHealthy or expectedPods is refused
// (ValidatePodDisruptionBudgetStatusUpdate in pkg/apis/policy/validation).
// The controller overwrites the status at its next sync of the budget.
func (c *Cluster) WriteStatus(name string, change func(*Status)) error {
	b := c.budget(name)
	if b == nil {
		return fmt.Errorf("unknown budget %q", name)
	}
	next := b.Status
	next.DisruptedPods = maps.Clone(b.Status.DisruptedPods)
	change(&next)
	for _, f := range []struct {
		name string
		v    int
	}{{"disruptionsAllowed", next.DisruptionsAllowed}, {"currentHealthy", next.CurrentHealthy}, {"desiredHealthy", next.DesiredHealthy}, {"expectedPods", next.ExpectedPods}} {
		if f.v < 0 {
			return fmt.Errorf("budget %s: status.%s: Invalid value: %d: must be greater than or equal to 0", name, f.name, f.v)
		}
	}
	b.Status = next
	b.ResourceVersion++
	// An update of the budget: the controller syncs it (updateDB).
	c.dirty[b] = true
	c.sync()
	return nil
}
