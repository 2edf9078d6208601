package taints

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// TaintPassPeriod is how often the node lifecycle controller runs its
// tainting pass (scheduler.NodeEvictionPeriod upstream).
const TaintPassPeriod = 100 * time.Millisecond

// A ZoneSize is one zone of an outage lab's cluster and its number of nodes.
type ZoneSize struct {
	Name  string // the value of topology.kubernetes.io/zone
	Nodes int
}

// A Layout is the zones of a cluster. The node names are the zone's name
// without "zone-" and a two-digit number: a-01, a-02, … in zone-a.
type Layout []ZoneSize

// OutageLayout is the zone-outage lab's cluster: 150 nodes in three zones,
// one above the default --large-cluster-size-threshold of 50, one just
// under it, and one small.
var OutageLayout = Layout{{"zone-a", 90}, {"zone-b", 45}, {"zone-c", 15}}

// NodeName returns the name of the i-th node (from 1) of a zone.
func NodeName(zone string, i int) string {
	short := zone
	if len(zone) > 5 && zone[:5] == "zone-" {
		short = zone[5:]
	}
	return fmt.Sprintf("%s-%02d", short, i)
}

// Nodes returns every node of the layout, zone by zone, all Ready.
func (l Layout) Nodes() []Node {
	var nodes []Node
	for _, z := range l {
		for i := 1; i <= z.Nodes; i++ {
			nodes = append(nodes, Node{Name: NodeName(z.Name, i), Zone: z.Name, Ready: True})
		}
	}
	return nodes
}

// First returns the names of the first n nodes of a zone.
func (l Layout) First(zone string, n int) []string {
	var names []string
	for i := 1; i <= n; i++ {
		names = append(names, NodeName(zone, i))
	}
	return names
}

// A Flip is a change of one node's Ready condition at a time counted from
// the start of an experiment.
type Flip struct {
	At    time.Duration
	Node  string
	Ready Status
}

// An Experiment is one outage of the zone-outage lab: which nodes go
// not-Ready (Ready=False, as a node whose kubelet reports it) or Ready
// again, and when.
type Experiment struct {
	Name  string // a short name, used on the command line
	Title string
	// Before lists the nodes that are down when the experiment starts, the
	// controller having seen them so for long; every other node is Ready
	// and carries no NoExecute taint.
	Before []string
	Flips  []Flip
	// Watch is how long the lab watches after the experiment starts: long
	// enough for what the experiment shows to happen.
	Watch time.Duration
}

// flips returns flips that take nodes to ready at once, at at.
func flips(at time.Duration, ready Status, nodes []string) []Flip {
	var fs []Flip
	for _, n := range nodes {
		fs = append(fs, Flip{At: at, Node: n, Ready: ready})
	}
	return fs
}

// Experiments returns the lab's outages for layout l, in the order the lab
// runs them. With OutageLayout and the default 55 % threshold:
//
//   - few: five nodes of the large zone (a Normal zone: the normal rate);
//   - large-partial: 54 of its 90 nodes, 60 % (a large zone partly
//     disrupted: the secondary rate);
//   - small-partial: 9 of the small zone's 15, the same 60 % (a small zone
//     partly disrupted: no taint at all);
//   - zone: the whole small zone (a dead zone, while other zones have Ready
//     nodes, empties at the normal rate);
//   - everything: every node at once (every zone dead: nothing is
//     tainted);
//   - recovery: every node back from everything (the zones are Normal again).
func Experiments(l Layout) []Experiment {
	large, small := l[0], l[len(l)-1]
	share := func(z ZoneSize) int { return z.Nodes * 6 / 10 }
	var all []string
	for _, z := range l {
		all = append(all, l.First(z.Name, z.Nodes)...)
	}
	return []Experiment{
		{Name: "few", Title: fmt.Sprintf("5 nodes of %s fail", large.Name),
			Flips: flips(0, False, l.First(large.Name, 5)), Watch: 14 * time.Second},
		{Name: "large-partial", Title: fmt.Sprintf("%d of %s's %d nodes fail", share(large), large.Name, large.Nodes),
			Flips: flips(0, False, l.First(large.Name, share(large))), Watch: 26 * time.Second},
		{Name: "small-partial", Title: fmt.Sprintf("%d of %s's %d nodes fail", share(small), small.Name, small.Nodes),
			Flips: flips(0, False, l.First(small.Name, share(small))), Watch: 12 * time.Second},
		{Name: "zone", Title: fmt.Sprintf("all %d nodes of %s fail", small.Nodes, small.Name),
			Flips: flips(0, False, l.First(small.Name, small.Nodes)), Watch: 12 * time.Second},
		{Name: "everything", Title: fmt.Sprintf("all %d nodes fail", len(all)),
			Flips: flips(0, False, all), Watch: 12 * time.Second},
		{Name: "recovery", Title: fmt.Sprintf("all %d nodes come back", len(all)),
			Before: all, Flips: flips(0, True, all), Watch: 6 * time.Second},
	}
}

// A ZoneChange is a zone moving to a new state or rate at a health pass.
type ZoneChange struct {
	At    time.Duration
	Zone  string
	State ZoneState
	Rate  float64 // the zone's tainting rate from then on, nodes per second
}

// A Mark is a NoExecute taint put on (Added) or taken off a node, at a time
// counted from the start of an experiment.
type Mark struct {
	At    time.Duration
	Node  string
	Zone  string
	Added bool
}

// A Prediction is what the model expects of an experiment.
type Prediction struct {
	Marks []Mark       // in time order
	Zones []ZoneChange // in time order
}

// An Outage is everything the model needs to predict an experiment on a
// cluster: the controller's settings, the cluster, and where in its
// health-pass cycle the controller stands when the experiment starts.
type Outage struct {
	Rates         Rates
	MonitorPeriod time.Duration // --node-monitor-period
	Layout        Layout
	// Phase is when the first health pass after the start comes, in
	// [0, MonitorPeriod) when nothing else is known.
	Phase time.Duration
	// Passes, when the lab saw them, are the times of the health passes,
	// in order; the passes after the last come every MonitorPeriod. They
	// take the place of Phase.
	Passes []time.Duration
	// Inside runs a tainting pass in the middle of each health pass, after
	// the failed nodes of these zones are queued and before the zones are
	// judged; none when empty. Upstream the two loops run apart, so a
	// tainting pass can fall in between; it taints at the zones' old rates,
	// and a node it taints as the controller enters full disruption keeps
	// its taint (see Tainter.listed). The health pass queues the nodes
	// eight at a time in the order its lister returns them, which no one
	// fixes, so such a pass may find the failed nodes of some zones queued
	// and of others not yet: any set of zones.
	Inside []string
}

// Shifts returns the durations from from to to, step apart.
func Shifts(from, to, step time.Duration) []time.Duration {
	var ps []time.Duration
	for p := from; p <= to; p += step {
		ps = append(ps, p)
	}
	return ps
}

// Predict runs the experiment on the model: health passes every
// MonitorPeriod from Phase, tainting passes every TaintPassPeriod, the
// nodes' flips as the experiment makes them, for e.Watch. The controller
// has run long before with the nodes as e.Before has them, so every zone's
// bucket is full when the experiment starts.
func (o Outage) Predict(e Experiment) Prediction {
	t0 := time.Unix(0, 0).UTC()
	tr := NewTainter(o.Rates)
	nodes := o.Layout.Nodes()
	index := map[string]int{}
	for i, n := range nodes {
		index[n.Name] = i
	}
	// Settle: the controller has run for an hour with the nodes as
	// e.Before has them, a health pass every MonitorPeriod with its
	// tainting pass, until nothing changes and no node waits for a token;
	// an hour more with nothing to do fills every bucket again.
	for _, n := range e.Before {
		nodes[index[n]].Ready = False
	}
	settled := t0.Add(-time.Hour)
	for at := settled.Add(-time.Hour); !at.After(settled); at = at.Add(o.MonitorPeriod) {
		if len(tr.Step(at, nodes)) == 0 && !tr.waiting() {
			break
		}
	}

	flips := slices.Clone(e.Flips)
	sort.SliceStable(flips, func(i, j int) bool { return flips[i].At < flips[j].At })
	var p Prediction
	type zoneNow struct {
		state ZoneState
		rate  float64
	}
	states := map[string]zoneNow{}
	for _, z := range o.Layout {
		s, rate := tr.Zone(z.Name)
		states[z.Name] = zoneNow{s, rate}
	}
	passes := slices.Clone(o.Passes)
	if len(passes) == 0 {
		passes = []time.Duration{o.Phase}
	}
	nextMonitor, nextTaint := passes[0], time.Duration(0)
	passes = passes[1:]
	for {
		at := min(nextMonitor, nextTaint)
		if at > e.Watch {
			break
		}
		for len(flips) > 0 && flips[0].At <= at {
			nodes[index[flips[0].Node]].Ready = flips[0].Ready
			flips = flips[1:]
		}
		var changes []Change
		if at == nextMonitor {
			queued, byZone := tr.queue(t0.Add(at), nodes)
			changes = append(changes, queued...)
			if len(o.Inside) > 0 {
				changes = append(changes, tr.taintPass(t0.Add(at), nodes, o.Inside)...)
			}
			changes = append(changes, tr.handleDisruption(t0.Add(at), byZone)...)
			for _, z := range o.Layout {
				s, rate := tr.Zone(z.Name)
				if (zoneNow{s, rate}) != states[z.Name] {
					p.Zones = append(p.Zones, ZoneChange{At: at, Zone: z.Name, State: s, Rate: rate})
					states[z.Name] = zoneNow{s, rate}
				}
			}
			if len(passes) > 0 {
				nextMonitor, passes = passes[0], passes[1:]
			} else {
				nextMonitor += o.MonitorPeriod
			}
		}
		if at == nextTaint {
			changes = append(changes, tr.TaintPass(t0.Add(at), nodes)...)
			nextTaint += TaintPassPeriod
		}
		for _, c := range changes {
			if c.Taint.Effect != NoExecute {
				continue
			}
			p.Marks = append(p.Marks, Mark{At: c.At.Sub(t0), Node: c.Node, Zone: nodes[index[c.Node]].Zone, Added: c.Added})
		}
	}
	return p
}

// Tainted returns, zone by zone, the times at which the prediction puts a
// NoExecute taint on a node of the zone.
func (p Prediction) Tainted() map[string][]time.Duration {
	m := map[string][]time.Duration{}
	for _, mk := range p.Marks {
		if mk.Added {
			m[mk.Zone] = append(m[mk.Zone], mk.At)
		}
	}
	return m
}

// Left returns the nodes that still carry the taint at the end.
func (p Prediction) Left() []string {
	on := map[string]bool{}
	for _, mk := range p.Marks {
		on[mk.Node] = mk.Added
	}
	var left []string
	for n, ok := range on {
		if ok {
			left = append(left, n)
		}
	}
	sort.Strings(left)
	return left
}

// A Tolerance is how far a seen taint may be from the model's time.
type Tolerance struct {
	// Base is the distance allowed to every mark.
	Base time.Duration
	// PerTaint is added for each taint a zone's queue put on before: a
	// token is taken by the first tainting pass after it is due, and a
	// bucket of burst one forgets how late that was, so the delays add up
	// along a zone's queue.
	PerTaint time.Duration
	// Late is added when a mark is seen after the model's time, not
	// before: the lab sees a taint when its watch event arrives, after
	// the controller's request, and both take longer on a busy machine.
	// Compare holds to it the lateness a mark keeps (the least of its own
	// and every later mark's), not the mark's own.
	Late time.Duration
	// Shared forgives the lateness that every mark of a zone's list
	// shares, beyond the first mark's allowance: in a live run the
	// controller's first tainting pass after the outage can come late on
	// a busy machine, and a bucket of burst one carries that to every
	// later token. What stays judged is the lateness added along the list,
	// where a rate the model has too fast shows.
	Shared bool
	// End is when the recording ended: a mark the model puts too close
	// to it may be seen after it, and a mark seen that close may be
	// predicted after it.
	End time.Duration
}

// Compare lists the differences between what the model predicts and the
// marks seen: zone by zone, the taints put on and the taints taken off must
// come in the same numbers, and the i-th of each within tol of the i-th
// predicted. Which node is tainted i-th is not compared: upstream takes
// the nodes of a zone in the order its node cache lists them, a map's.
// An empty list is a match.
//
// Early and late are judged apart, as the mechanism bounds them. No mark
// may be seen earlier than its allowance: a zone's bucket never hands a
// token before it is due, so the count seen never runs ahead of the
// model's. Late is judged on the lateness a mark keeps: the least of its
// own and every later mark's of the same list. A token taken late makes
// the next one due late too (a bucket of burst one), so a controller that
// fell behind, or a rate the model has too fast, shows in every later
// mark; a mark whose request or watch event alone was slow is followed by
// marks on time again, which shows the tokens kept their schedule. In a
// live run (tol.Shared) the lateness every mark of the list shares is
// forgiven too, beyond the first mark's allowance: the lateness added
// along the list is what a rate decides.
func (p Prediction) Compare(seen []Mark, tol Tolerance) []string {
	type key struct {
		zone  string
		added bool
	}
	times := func(ms []Mark) map[key][]time.Duration {
		m := map[key][]time.Duration{}
		for _, mk := range ms {
			k := key{mk.Zone, mk.Added}
			m[k] = append(m[k], mk.At)
		}
		for _, ts := range m {
			slices.Sort(ts)
		}
		return m
	}
	want, got := times(p.Marks), times(seen)
	keys := map[key]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var sorted []key
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].zone != sorted[j].zone {
			return sorted[i].zone < sorted[j].zone
		}
		return sorted[i].added && !sorted[j].added
	})
	var diffs []string
	for _, k := range sorted {
		verb := "taken off"
		if k.added {
			verb = "put on"
		}
		w, g := want[k], got[k]
		allowed := func(i int) time.Duration { return tol.Base + time.Duration(i)*tol.PerTaint }
		horizon := tol.End - allowed(max(len(w), len(g)))
		late := make([]time.Duration, min(len(w), len(g)))
		for i := range late {
			late[i] = g[i] - w[i]
		}
		kept := keptLateness(late)
		shared := time.Duration(0)
		if tol.Shared && len(kept) > 0 {
			// kept[0] is the least lateness of the list.
			shared = max(0, kept[0]-allowed(0)-tol.Late)
		}
		for i := range max(len(w), len(g)) {
			switch {
			case i < len(w) && i < len(g):
				if d := late[i]; kept[i]-shared > allowed(i)+tol.Late {
					also := ""
					if shared > 0 {
						also = fmt.Sprintf(", beyond the %s every taint was late", shared)
					}
					if i < len(late)-1 {
						also += ", and so was every later one"
					}
					diffs = append(diffs, fmt.Sprintf("%s: taint %d %s at %.1fs, the model says %.1fs (more than %s later%s)",
						k.zone, i+1, verb, g[i].Seconds(), w[i].Seconds(), allowed(i)+tol.Late, also))
				} else if d < -allowed(i) {
					diffs = append(diffs, fmt.Sprintf("%s: taint %d %s at %.1fs, the model says %.1fs (more than %s earlier)",
						k.zone, i+1, verb, g[i].Seconds(), w[i].Seconds(), allowed(i)))
				}
			case i < len(w) && w[i] <= horizon:
				diffs = append(diffs, fmt.Sprintf("%s: %d taints %s, the model says %d (seen at %s; predicted at %s)",
					k.zone, len(g), verb, len(w), seconds(g), seconds(w)))
			case i < len(g) && g[i] <= horizon:
				diffs = append(diffs, fmt.Sprintf("%s: %d taints %s, the model says %d (seen at %s; predicted at %s)",
					k.zone, len(g), verb, len(w), seconds(g), seconds(w)))
			default:
				continue
			}
			if i >= min(len(w), len(g)) {
				break
			}
		}
	}
	return diffs
}

// keptLateness returns, for each mark, the lateness it keeps: the least
// of late[i:].
func keptLateness(late []time.Duration) []time.Duration {
	kept := slices.Clone(late)
	for i := len(kept) - 2; i >= 0; i-- {
		kept[i] = min(kept[i], kept[i+1])
	}
	return kept
}

// seconds formats times as "[0.3 2.3 4.3]" seconds.
func seconds(ts []time.Duration) string {
	s := "["
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.1f", t.Seconds())
	}
	return s + "]"
}

// Fit looks for a shift of the health passes (of Phase, or of every one
// of Passes) among shifts and an Inside setting (no tainting pass inside a
// health pass first, then every set of the zones where e fails nodes, the
// smaller first) under
// which the model's prediction of e matches the marks seen (Compare with
// tol). It returns the first outage that fits and no differences, or, when
// none fits, the outage whose prediction came closest (fewest differences)
// and its differences.
func (o Outage) Fit(e Experiment, seen []Mark, tol Tolerance, shifts []time.Duration) (Outage, []string) {
	var best Outage
	var bestDiffs []string
	for _, inside := range zoneSets(o.failing(e)) {
		for _, shift := range shifts {
			try := o
			try.Phase, try.Inside = max(o.Phase+shift, 0), inside
			try.Passes = nil
			for _, p := range o.Passes {
				try.Passes = append(try.Passes, max(p+shift, 0))
			}
			diffs := try.Predict(e).Compare(seen, tol)
			if len(diffs) == 0 {
				return try, nil
			}
			if bestDiffs == nil || len(diffs) < len(bestDiffs) {
				best, bestDiffs = try, diffs
			}
		}
	}
	return best, bestDiffs
}

// failing returns the zones of the layout in which e has a node down at
// its start or switches one off. A tainting pass inside a health pass finds
// nothing queued in the other zones, so a set of zones with one of them in
// it predicts what the same set without it does, which Fit has tried
// before: Fit tries the sets of these zones alone.
func (o Outage) failing(e Experiment) Layout {
	zoneOf := map[string]string{}
	for _, n := range o.Layout.Nodes() {
		zoneOf[n.Name] = n.Zone
	}
	down := map[string]bool{}
	for _, n := range e.Before {
		down[zoneOf[n]] = true
	}
	for _, f := range e.Flips {
		if f.Ready != True {
			down[zoneOf[f.Node]] = true
		}
	}
	var l Layout
	for _, z := range o.Layout {
		if down[z.Name] {
			l = append(l, z)
		}
	}
	return l
}

// zoneSets returns every set of the layout's zones, the empty one first
// and the smaller before the larger, each in the layout's order.
func zoneSets(l Layout) [][]string {
	var sets [][]string
	for mask := range 1 << len(l) {
		var set []string
		for i, z := range l {
			if mask&(1<<i) != 0 {
				set = append(set, z.Name)
			}
		}
		sets = append(sets, set)
	}
	slices.SortStableFunc(sets, func(a, b []string) int { return len(a) - len(b) })
	return sets
}

// A Run is one experiment as the lab saw it on a real control plane: the
// controller's settings, the nodes' Ready flips, the health passes and the
// NoExecute taints as they reached the lab, and the lab pods' deletions,
// all counted from the start of the recording.
type Run struct {
	Experiment    string        `json:"experiment"`
	Rates         Rates         `json:"rates"`
	MonitorPeriod time.Duration `json:"monitorPeriod"`
	// TolerationSeconds is how long the lab's pods tolerate the not-ready
	// and unreachable taints.
	TolerationSeconds int    `json:"tolerationSeconds"`
	Flips             []Flip `json:"flips"`
	// Passes are when the lab saw the controller's health passes end:
	// the pass it switched the nodes after, and every one since.
	Passes  []time.Duration `json:"passes"`
	Marks   []Mark          `json:"marks"`
	Evicted []Eviction      `json:"evicted"`
	End     time.Duration   `json:"end"` // when the recording stopped
}

// An Eviction is a lab pod's deletion as the lab saw it.
type Eviction struct {
	At   time.Duration `json:"at"`
	Node string        `json:"node"`
}

// The differential's allowances, for a lab on a busy two-core machine.
const (
	// PassSlack is how long before the lab saw a health pass end in the
	// controller's metrics it may have ended: the lab polls every 50 ms,
	// and a scrape takes some milliseconds more.
	PassSlack = 150 * time.Millisecond
	// EvictionSlack is how late a pod's deletion may come after its
	// node's taint plus its toleration: the taint eviction controller's
	// clock starts when its informer sees the taint, and the deletion's
	// watch event reaches the lab later still.
	EvictionSlack = 800 * time.Millisecond
	// LabLateness is how much later than the model's time, beyond
	// LabTolerance's base, the lab may see a taint: the controller's
	// request and the watch event that tells the lab take up to a few
	// hundred milliseconds more when the machine runs a whole test suite
	// beside the lab. A taint is never seen early for that reason, and
	// Compare holds a taint to it only when every later taint of the zone
	// is that late too (the tokens came late): a single slow sighting is
	// followed by taints on time again. And a live run's replay forgives
	// the lateness all the taints of a zone share (Tolerance.Shared), for a
	// starved controller's first token makes every later one late. A
	// wrong rate is still refuted (TestOutageReplayCatchesWrongSettings).
	LabLateness = 600 * time.Millisecond
)

// LabTolerance is how far a seen taint may be from the model's time, once
// the health passes are placed where the lab saw them: a tainting pass's
// period (the model's tainting passes and the controller's do not start
// together) plus the time a watch event takes to reach the lab on a busy
// machine; and for each taint before it in the zone's queue, one more
// period and the taint's own request, which the controller's next
// tainting pass waits for.
func LabTolerance(end time.Duration) Tolerance {
	return Tolerance{Base: TaintPassPeriod + 300*time.Millisecond, PerTaint: TaintPassPeriod + 50*time.Millisecond, Late: LabLateness, End: end}
}

// Replay predicts a run with the model: the experiment e with the flips as
// the lab saw them, the health passes where it saw them (shifted back by up
// to PassSlack), with and without a tainting pass inside each health pass.
// It returns the outage that fits, and the differences of the closest one
// when none does: in the taints (Compare) and in the pods' deletions
// (CompareEvictions).
func (o Outage) Replay(e Experiment, r Run) (Outage, []string) {
	return o.ReplayWithin(e, r, LabLateness)
}

// ReplayWithin is Replay with late in place of LabLateness: 0 holds the
// taints to LabTolerance's base and per-taint allowance alone, and forgives
// no lateness the taints share (Tolerance.Shared), as for a run recorded on
// a quiet machine.
func (o Outage) ReplayWithin(e Experiment, r Run, late time.Duration) (Outage, []string) {
	o.Passes = r.Passes
	e.Flips, e.Watch = r.Flips, r.End
	tol := LabTolerance(r.End)
	tol.Late, tol.Shared = late, late > 0
	fit, diffs := o.Fit(e, r.Marks, tol, Shifts(-PassSlack, 0, 25*time.Millisecond))
	return fit, append(diffs, CompareEvictions(r.Marks, r.Evicted, time.Duration(r.TolerationSeconds)*time.Second, r.End)...)
}

// CompareEvictions lists the differences between the pods deleted and
// what the taints seen imply for pods that tolerate them for toleration:
// a node's pod goes when its node has carried the taint that long, within
// EvictionSlack, and no other pod goes.
func CompareEvictions(marks []Mark, evicted []Eviction, toleration, end time.Duration) []string {
	type span struct{ on, off time.Duration }
	spans := map[string][]span{}
	for _, mk := range marks {
		ss := spans[mk.Node]
		switch {
		case mk.Added:
			spans[mk.Node] = append(ss, span{on: mk.At, off: -1})
		case len(ss) > 0 && ss[len(ss)-1].off < 0:
			ss[len(ss)-1].off = mk.At
		}
	}
	gone := map[string]time.Duration{}
	for _, ev := range evicted {
		gone[ev.Node] = ev.At
	}
	var diffs []string
	var nodes []string
	for n := range spans {
		nodes = append(nodes, n)
	}
	for n := range gone {
		if _, ok := spans[n]; !ok {
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		due := time.Duration(-1)
		for _, sp := range spans[n] {
			if sp.off < 0 || sp.off-sp.on >= toleration {
				due = sp.on + toleration
				break
			}
		}
		at, ok := gone[n]
		switch {
		case due >= 0 && !ok && due+EvictionSlack < end:
			diffs = append(diffs, fmt.Sprintf("the pod on %s was not deleted; tainted long enough, it was due at %.1fs", n, due.Seconds()))
		case due < 0 && ok:
			diffs = append(diffs, fmt.Sprintf("the pod on %s was deleted at %.1fs, but its node never carried the taint for %s", n, at.Seconds(), toleration))
		case ok && (at < due-EvictionSlack/4 || at > due+EvictionSlack):
			diffs = append(diffs, fmt.Sprintf("the pod on %s was deleted at %.1fs, due at %.1fs", n, at.Seconds(), due.Seconds()))
		}
	}
	return diffs
}
