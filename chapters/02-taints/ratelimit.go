package taints

import (
	"slices"
	"time"
)

// Rates are the node lifecycle controller's settings for NoExecute tainting,
// named after the kube-controller-manager flags that set them.
type Rates struct {
	Normal             float64 // --node-eviction-rate: nodes tainted per second in a zone
	Secondary          float64 // --secondary-node-eviction-rate: the rate in a large, partly disrupted zone
	LargeCluster       int     // --large-cluster-size-threshold: above this many nodes a zone is large
	UnhealthyThreshold float64 // --unhealthy-zone-threshold: share of not-Ready nodes that makes a disruption partial
}

// DefaultRates returns kube-controller-manager's defaults: 0.1 nodes per
// second, 0.01 in large zones, 50 nodes, 55 %.
func DefaultRates() Rates {
	return Rates{Normal: 0.1, Secondary: 0.01, LargeCluster: 50, UnhealthyThreshold: 0.55}
}

// A ZoneState is how the controller sees a zone's health.
type ZoneState string

// Zone states (upstream's stateInitial and friends).
const (
	Initial           ZoneState = "Initial"
	Normal            ZoneState = "Normal"
	PartialDisruption ZoneState = "PartialDisruption"
	FullDisruption    ZoneState = "FullDisruption"
)

// A Node is what the tainter reads of a node on each pass.
type Node struct {
	Name  string
	Zone  string // topology.kubernetes.io/zone (and region), "" when unlabelled
	Ready Status
}

// A Change is a NoExecute taint added to or removed from a node.
type Change struct {
	At    time.Time
	Node  string
	Taint Taint
	Added bool
}

// A Tainter is the NoExecute half of the node lifecycle controller: one
// rate-limited queue per zone, and the zone states that set each queue's
// rate. The zero value is not usable; call NewTainter.
type Tainter struct {
	rates   Rates
	zones   map[string]*zone
	tainted map[string]Taint // node name → its not-ready or unreachable NoExecute taint
	order   []string         // the zones in the order the last health pass met them
	// listed is which nodes were tainted when the last health pass listed
	// them: entering full disruption, the controller takes the taints off
	// the nodes as it listed them, so a taint put on since stays.
	listed map[string]bool
}

type zone struct {
	state  ZoneState
	bucket bucket
	queue  []string        // nodes waiting for a token, oldest first
	queued map[string]bool // in the queue or tainted since: Add refuses them
}

// NewTainter returns a Tainter with the given rates and no zones yet.
func NewTainter(r Rates) *Tainter {
	return &Tainter{rates: r, zones: map[string]*zone{}, tainted: map[string]Taint{}}
}

// Taint returns the NoExecute taint the tainter has put on node, if any.
func (t *Tainter) Taint(node string) (Taint, bool) {
	taint, ok := t.tainted[node]
	return taint, ok
}

// Zone returns a zone's state and the rate, in nodes per second, at which
// its queue now taints.
func (t *Tainter) Zone(name string) (ZoneState, float64) {
	z, ok := t.zones[name]
	if !ok {
		return Initial, 0
	}
	return z.state, z.bucket.qps
}

// waiting reports whether a node of some zone waits for a token.
func (t *Tainter) waiting() bool {
	for _, z := range t.zones {
		if len(z.queue) > 0 {
			return true
		}
	}
	return false
}

// Step is one pass of both of the controller's loops at time now: the
// health pass (Monitor) and then the tainting pass (TaintPass). It returns
// the taints they changed.
func (t *Tainter) Step(now time.Time, nodes []Node) []Change {
	changes := t.Monitor(now, nodes)
	return append(changes, t.TaintPass(now, nodes)...)
}

// Monitor is the health pass (monitorNodeHealth, every
// --node-monitor-period): it queues not-Ready nodes, untaints Ready ones and
// recomputes the zone states and their rates. It returns the taints it
// changed.
func (t *Tainter) Monitor(now time.Time, nodes []Node) []Change {
	changes, byZone := t.queue(now, nodes)
	return append(changes, t.handleDisruption(now, byZone)...)
}

// queue is the first half of the health pass: it queues not-Ready nodes and
// untaints Ready ones, and returns the nodes by zone for handleDisruption,
// the second half. Upstream a tainting pass can run between the two, at the
// zones' old rates (see Outage.Inside).
func (t *Tainter) queue(now time.Time, nodes []Node) ([]Change, map[string][]Node) {
	var changes []Change
	byZone := map[string][]Node{}
	t.listed = map[string]bool{}
	for n := range t.tainted {
		t.listed[n] = true
	}
	t.order = t.order[:0] // zones in the order their first node came
	for _, n := range nodes {
		if _, ok := byZone[n.Zone]; !ok {
			t.order = append(t.order, n.Zone)
		}
		z, ok := t.zones[n.Zone]
		if !ok {
			// A new zone starts at the normal rate with a full bucket.
			z = &zone{state: Initial, bucket: newBucket(t.rates.Normal, now), queued: map[string]bool{}}
			t.zones[n.Zone] = z
		}
		byZone[n.Zone] = append(byZone[n.Zone], n)
		want, bad := ReadyTaint(n.Ready)
		have, tainted := t.tainted[n.Name]
		switch {
		case !bad:
			changes = append(changes, t.untaint(now, n)...)
		case tainted && have != want:
			// not-ready and unreachable mirror one condition, so the
			// controller swaps one for the other at once, outside the queue.
			t.tainted[n.Name] = want
			changes = append(changes,
				Change{At: now, Node: n.Name, Taint: have},
				Change{At: now, Node: n.Name, Taint: want, Added: true})
		case !tainted:
			// Queued again at the back on every pass until tainted
			// (markNodeForTainting removes and re-adds it).
			z.remove(n.Name)
			z.add(n.Name)
		}
	}
	return changes, byZone
}

// TaintPass is the tainting pass (doNoExecuteTaintingPass, every 100 ms):
// in each zone it taints queued nodes while the zone's bucket has a token.
// nodes are the nodes as they are now; a queued node that is Ready again is
// dropped, its token spent, as upstream's Try does.
func (t *Tainter) TaintPass(now time.Time, nodes []Node) []Change {
	return t.taintPass(now, nodes, nil)
}

// taintPass is TaintPass in the zones of only, or in every zone when only
// is empty.
func (t *Tainter) taintPass(now time.Time, nodes []Node, only []string) []Change {
	var changes []Change
	ready := map[string]Status{}
	for _, n := range nodes {
		ready[n.Name] = n.Ready
	}
	for _, zoneName := range t.order {
		z, ok := t.zones[zoneName]
		if !ok || (len(only) > 0 && !slices.Contains(only, zoneName)) {
			continue
		}
		for len(z.queue) > 0 && z.bucket.tryAccept(now) {
			node := z.queue[0]
			z.queue = z.queue[1:] // stays in queued: tainted nodes are not queued again
			if want, bad := ReadyTaint(ready[node]); bad {
				t.tainted[node] = want
				changes = append(changes, Change{At: now, Node: node, Taint: want, Added: true})
			}
		}
	}
	return changes
}

// untaint removes the node's NoExecute taint and takes it out of its
// zone's queue (markNodeAsReachable).
func (t *Tainter) untaint(now time.Time, n Node) []Change {
	t.zones[n.Zone].remove(n.Name)
	have, ok := t.tainted[n.Name]
	if !ok {
		return nil
	}
	delete(t.tainted, n.Name)
	return []Change{{At: now, Node: n.Name, Taint: have}}
}

// ComputeZoneState classifies a zone from its nodes' Ready statuses, as
// upstream's ComputeZoneState: no Ready node is a full disruption; more
// than two not-Ready nodes making up at least threshold of the zone is a
// partial one.
func ComputeZoneState(ready []Status, threshold float64) ZoneState {
	notReady := 0
	for _, s := range ready {
		if s != True {
			notReady++
		}
	}
	switch {
	case notReady > 0 && notReady == len(ready):
		return FullDisruption
	case notReady > 2 && float64(notReady)/float64(len(ready)) >= threshold:
		return PartialDisruption
	default:
		return Normal
	}
}

// handleDisruption moves zones to their new states and sets their rates.
// When every zone is fully disrupted the fault is more likely the
// controller's own view of the network than every node at once, so it
// stops tainting and takes the NoExecute taints off every node.
func (t *Tainter) handleDisruption(now time.Time, byZone map[string][]Node) []Change {
	newStates := map[string]ZoneState{}
	allAre, allWere := true, true
	for name, nodes := range byZone {
		ready := make([]Status, len(nodes))
		for i, n := range nodes {
			ready[i] = n.Ready
		}
		newStates[name] = ComputeZoneState(ready, t.rates.UnhealthyThreshold)
		if newStates[name] != FullDisruption {
			allAre = false
		}
	}
	for name, z := range t.zones {
		if _, seen := byZone[name]; !seen {
			delete(t.zones, name)
			continue
		}
		if z.state != FullDisruption {
			allWere = false
		}
	}
	var changes []Change
	switch {
	case allAre && allWere:
		// Still stopped.
	case allAre:
		for _, nodes := range byZone {
			for _, n := range nodes {
				if t.listed[n.Name] {
					changes = append(changes, t.untaint(now, n)...)
				} else {
					t.zones[n.Zone].remove(n.Name)
				}
			}
		}
		for _, z := range t.zones {
			z.bucket = z.bucket.swap(0, now)
			z.state = FullDisruption
		}
	default:
		for name, z := range t.zones {
			if z.state == newStates[name] && !allWere {
				continue
			}
			z.bucket = z.bucket.swap(t.rate(newStates[name], len(byZone[name])), now)
			z.state = newStates[name]
		}
	}
	return changes
}

// rate is setLimiterInZone: the normal rate for a healthy zone and for a
// fully disrupted one, so that a dead zone empties while some other zone
// still has a Ready node (when none has, handleDisruption stops every
// queue instead); for a partly disrupted zone the secondary rate if it is
// large and nothing otherwise.
func (t *Tainter) rate(s ZoneState, size int) float64 {
	if s == PartialDisruption {
		if size > t.rates.LargeCluster {
			return t.rates.Secondary
		}
		return 0
	}
	return t.rates.Normal
}

func (z *zone) add(name string) {
	if z.queued[name] {
		return
	}
	z.queued[name] = true
	z.queue = append(z.queue, name)
}

func (z *zone) remove(name string) {
	if !z.queued[name] {
		return
	}
	delete(z.queued, name)
	for i, q := range z.queue {
		if q == name {
			z.queue = append(z.queue[:i:i], z.queue[i+1:]...)
			break
		}
	}
}

// A bucket is a token bucket of burst 1 (EvictionRateLimiterBurst) on the
// logical clock. A rate of zero never gives a token.
type bucket struct {
	qps    float64
	tokens float64
	last   time.Time
}

func newBucket(qps float64, now time.Time) bucket {
	return bucket{qps: qps, tokens: 1, last: now}
}

func (b *bucket) tryAccept(now time.Time) bool {
	if b.qps <= 0 {
		return false
	}
	// As golang.org/x/time/rate, the bucket moves only when it gives a
	// token: a refused try leaves it as it was.
	tokens := min(1, b.tokens+b.qps*now.Sub(b.last).Seconds())
	if tokens < 1 {
		return false
	}
	b.tokens, b.last = tokens-1, now
	return true
}

// swap is SwapLimiter: same rate, same bucket; otherwise a new full bucket,
// drained at once if the old one was waiting for a token, so a change of
// rate does not hand out a free eviction.
func (b bucket) swap(qps float64, now time.Time) bucket {
	if b.qps == qps {
		return b
	}
	nb := newBucket(qps, now)
	if qps > 0 && !b.tryAccept(now) {
		nb.tryAccept(now)
	}
	return nb
}
