package pdb

import (
	"fmt"
	"time"
)

// RetryDelay is how long kubectl drain waits before it asks again for an
// eviction that was refused with 429 (EvictErrorRetryDelay in
// k8s.io/kubectl pkg/cmd/drain).
const RetryDelay = 5 * time.Second

// KubectlLine is what kubectl drain prints for an eviction refused with
// 429: the error's text, which is the answer's message alone. The causes
// that say why (which budget, how many healthy pods) stay in the answer's
// details (evictPods in k8s.io/kubectl pkg/drain).
func (d Decision) KubectlLine(namespace string) string {
	return fmt.Sprintf("error when evicting pods/%q -n %q (will retry after %v): %s", d.Pod, namespace, RetryDelay, d.Message)
}

// A DrainResult says how a drain ended.
type DrainResult struct {
	Node           string
	Started, Ended time.Duration
	Evicted        []string   // in the order they were evicted
	Failed         []Decision // refused with an error that is not 429: not retried
	Left           []string   // still refused with 429 when the drain stopped
	Attempts       int        // eviction requests sent, retries included
	TimedOut       bool       // stopped at its timeout
	// Stalled is set when, at the end, nothing in the cluster was going to
	// change: no pod was about to become Ready, so every retry would get
	// the same answer.
	Stalled bool
}

// Done reports whether the node was emptied.
func (r DrainResult) Done() bool { return len(r.Left) == 0 && len(r.Failed) == 0 }

// Summary says in one line how the drain ended.
func (r DrainResult) Summary() string {
	took := r.Ended - r.Started
	switch {
	case r.Done():
		return fmt.Sprintf("drained in %v, %s evicted", took, plural(len(r.Evicted), "pod", "pods"))
	case len(r.Left) == 0:
		return fmt.Sprintf("failed after %v: %s could not be evicted (%s)", took, names(failedNames(r.Failed)), r.Failed[0].Message)
	case r.TimedOut:
		return fmt.Sprintf("timed out after %v with %s left: %s", took, plural(len(r.Left), "pod", "pods"), names(r.Left))
	}
	return fmt.Sprintf("stalled at %v with %s left: %s; nothing will change, so kubectl drain would retry every %v forever",
		took, plural(len(r.Left), "pod", "pods"), names(r.Left), RetryDelay)
}

func failedNames(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Pod)
	}
	return out
}

// Drain empties a node as kubectl drain --timeout does: it cordons the node
// and asks for the eviction of every pod on it. A pod refused with 429 is
// asked again every RetryDelay; a pod that is gone (404) counts as evicted;
// any other refusal is a failure that is not retried. The drain stops when
// no pod is left to ask for, when timeout has passed (0 means no timeout),
// or, when no timeout is set, as soon as nothing in the cluster can change
// any more, since it would otherwise retry forever.
func (c *Cluster) Drain(node string, timeout time.Duration) (DrainResult, error) {
	rs, err := c.DrainNodes([]string{node}, timeout)
	if err != nil {
		return DrainResult{}, err
	}
	return rs[0], nil
}

// DrainNodes drains several nodes as kubectl drain does when it is given
// several: it cordons them all first, so that no replacement lands on a
// node about to be drained, then drains them one after the other, each with
// its own timeout.
func (c *Cluster) DrainNodes(nodes []string, timeout time.Duration) ([]DrainResult, error) {
	if timeout < 0 {
		return nil, fmt.Errorf("drain timeout %v is negative", timeout)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("drain needs at least one node")
	}
	for _, n := range nodes {
		if _, ok := c.nodes[n]; !ok {
			return nil, fmt.Errorf("unknown node %q", n)
		}
	}
	for _, n := range nodes {
		c.Cordon(n)
	}
	var out []DrainResult
	for _, n := range nodes {
		out = append(out, c.drain(n, timeout))
	}
	return out, nil
}

func (c *Cluster) drain(node string, timeout time.Duration) DrainResult {
	r := DrainResult{Node: node, Started: c.now}
	pending := c.PodsOn(node)
	c.record(Event{Kind: EventDrainStarted, Node: node, Detail: "evicting " + names(pending)})
	for {
		var refused []string
		progress := false
		for _, name := range pending {
			r.Attempts++
			d := c.BeginEviction(name).commit(false, fmt.Sprintf("(will retry after %v)", RetryDelay))
			switch {
			case d.Allowed, d.Code == CodeNotFound:
				r.Evicted = append(r.Evicted, name)
				progress = true
			case d.Code == CodeTooManyRequests:
				refused = append(refused, name)
			default:
				r.Failed = append(r.Failed, d)
			}
		}
		pending = refused
		if len(pending) == 0 {
			break
		}
		next := c.now + RetryDelay
		deadline := r.Started + timeout
		_, changing := c.nextChange()
		// With the disruption controller stopped, nothing that happens to
		// pods reaches the budget's status, so nothing can change either.
		if !progress && (!changing || c.stopped) {
			r.Stalled = true
		}
		if r.Stalled && timeout == 0 {
			break
		}
		if timeout > 0 && next >= deadline {
			r.TimedOut = true
			c.advanceTo(deadline)
			break
		}
		if r.Stalled {
			// Every retry until the deadline gets the same answer: count
			// them and move the clock to the deadline.
			retries := int((deadline - c.now - 1) / RetryDelay)
			r.Attempts += retries * len(pending)
			r.TimedOut = true
			c.advanceTo(deadline)
			break
		}
		c.advanceTo(next)
	}
	r.Left = pending
	r.Ended = c.now
	c.record(Event{Kind: EventDrainEnded, Node: node, Drain: &r})
	return r
}
