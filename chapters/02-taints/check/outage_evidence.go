package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck/audit"
)

// The outage lab's record, read from the scale cluster's audit log. Its
// policy (lab/outage/audit-policy.yaml) keeps every write to a node and to
// its status with the request's body: the node lifecycle controller's patch
// of a node carries the node's whole new list of taints, and a status write
// (kwok's, or the lab's switch) the node's Ready condition. From those the
// record rebuilds each lab node's Ready timeline and who put on and took off
// each NoExecute taint, and when.

// A readyFlip is a change of a lab node's Ready condition, as a status
// write made it.
type readyFlip struct {
	at    time.Time
	node  string
	ready bool
	by    audit.Event
}

// A taintMark is a not-ready or unreachable taint put on (added) or taken
// off a lab node by one write, and who wrote it.
type taintMark struct {
	at     time.Time // when the write arrived
	node   string
	zone   string
	key    string
	effect string // NoExecute or NoSchedule
	added  bool
	by     audit.Event
	ctl    bool // written by the node lifecycle controller under its own name
}

func (m taintMark) String() string {
	verb := "took " + m.key + ":" + m.effect + " off"
	if m.added {
		verb = "put " + m.key + ":" + m.effect + " on"
	}
	return fmt.Sprintf("%s %s %s %s", hmsm(m.at), m.by.Who(), verb, m.node)
}

// A snapshot is how many lab nodes of each zone were not Ready from at
// until the next snapshot.
type snapshot struct {
	at       time.Time
	notReady map[string]int
}

// An outageRecord is what the audit log says of the outage lab.
type outageRecord struct {
	layout taints.Layout
	zoneOf map[string]string
	end    time.Time // the log's last request: a window still open ends here
	// snaps begin once every lab node has reported a Ready condition.
	snaps   []snapshot
	flips   []readyFlip
	marks   []taintMark // NoExecute and NoSchedule, by anyone, in order
	deletes []audit.Event
	// unread names writes to a node's taints the log does not spell out
	// (no request body, a JSON patch): changes until the node's next
	// whole list are not counted.
	unread []string
}

// byNodeController reports whether a request came from the node lifecycle
// controller: its service account, its program, and no impersonation.
func byNodeController(e audit.Event) bool {
	return e.ByController(audit.NodeController) && e.FromControllerManager()
}

// nodeBody is the part of a node write's body the record reads. Taints is
// raw so that a patch that leaves them alone (no key) differs from one that
// clears them (null).
type nodeBody struct {
	Spec   map[string]json.RawMessage `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

type taintKey struct{ key, effect string }

// readOutage rebuilds the outage lab's record from the scale cluster's
// requests.
func readOutage(events []audit.Event, l taints.Layout) outageRecord {
	r := outageRecord{layout: l, zoneOf: map[string]string{}}
	for _, n := range l.Nodes() {
		r.zoneOf[n.Name] = n.Zone
	}
	if len(events) > 0 {
		r.end = events[len(events)-1].Time
	}
	ready := map[string]bool{}
	reported := map[string]bool{}
	have := map[string]map[taintKey]bool{} // nil: unknown
	for n := range r.zoneOf {
		have[n] = map[taintKey]bool{}
	}
	snap := func(at time.Time) {
		if len(reported) < len(r.zoneOf) {
			return
		}
		s := snapshot{at: at, notReady: map[string]int{}}
		for n, z := range r.zoneOf {
			if !ready[n] {
				s.notReady[z]++
			}
		}
		r.snaps = append(r.snaps, s)
	}
	for _, e := range events {
		if e.Resource == "pods" && e.Namespace == kube.OutageNamespace && e.Is("delete", "pods") && e.OK() {
			r.deletes = append(r.deletes, e)
			continue
		}
		zone, lab := r.zoneOf[e.Name]
		if e.Resource != "nodes" || !lab || !e.OK() {
			continue
		}
		if e.Verb == "delete" {
			delete(reported, e.Name)
			ready[e.Name], have[e.Name] = false, map[taintKey]bool{}
			continue
		}
		if e.Verb != "create" && e.Verb != "update" && e.Verb != "patch" {
			continue
		}
		if len(e.Request) > 0 && e.Request[0] == '[' {
			// A JSON patch: its operations are not read.
			if e.Subresource == "" && strings.Contains(string(e.Request), `"/spec`) {
				have[e.Name] = nil
				r.unread = append(r.unread, fmt.Sprintf("%s (a JSON patch of its spec)", e.String()))
			}
			continue
		}
		var b nodeBody
		if len(e.Request) == 0 || json.Unmarshal(e.Request, &b) != nil {
			if e.Subresource == "" {
				have[e.Name] = nil
				r.unread = append(r.unread, fmt.Sprintf("%s (no request body in the log)", e.String()))
			}
			continue
		}
		if e.Subresource == "status" || e.Verb != "patch" {
			for _, c := range b.Status.Conditions {
				if c.Type != "Ready" {
					continue
				}
				now := c.Status == "True"
				changed := !reported[e.Name] || ready[e.Name] != now
				reported[e.Name], ready[e.Name] = true, now
				if changed {
					r.flips = append(r.flips, readyFlip{at: e.Received, node: e.Name, ready: now, by: e})
					snap(e.Received)
				}
			}
		}
		if e.Subresource != "" {
			continue
		}
		raw, ok := b.Spec["taints"]
		if !ok && e.Verb == "patch" {
			continue
		}
		var list []struct{ Key, Effect string }
		if ok {
			json.Unmarshal(raw, &list)
		}
		now := map[taintKey]bool{}
		for _, t := range list {
			if (t.Key == taints.KeyNotReady || t.Key == taints.KeyUnreachable) && (t.Effect == "NoExecute" || t.Effect == "NoSchedule") {
				now[taintKey{t.Key, t.Effect}] = true
			}
		}
		before := have[e.Name]
		have[e.Name] = now
		if before == nil {
			continue
		}
		mark := func(k taintKey, added bool) {
			r.marks = append(r.marks, taintMark{at: e.Received, node: e.Name, zone: zone, key: k.key, effect: k.effect, added: added, by: e, ctl: byNodeController(e)})
		}
		for _, k := range sortedKeys(now) {
			if !before[k] {
				mark(k, true)
			}
		}
		for _, k := range sortedKeys(before) {
			if !now[k] {
				mark(k, false)
			}
		}
	}
	return r
}

func sortedKeys(m map[taintKey]bool) []taintKey {
	var ks []taintKey
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b taintKey) int { return strings.Compare(a.key+a.effect, b.key+b.effect) })
	return ks
}

// notReadyAt returns the snapshot in force at t, false before the first.
func (r outageRecord) notReadyAt(t time.Time) (snapshot, bool) {
	i, _ := slices.BinarySearchFunc(r.snaps, t, func(s snapshot, t time.Time) int {
		if s.at.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return snapshot{}, false
	}
	return r.snaps[i-1], true
}

// size returns how many nodes a zone has.
func (r outageRecord) size(zone string) int {
	for _, z := range r.layout {
		if z.Name == zone {
			return z.Nodes
		}
	}
	return 0
}

// state is the zone's state in s, as the controller computes it.
func (r outageRecord) state(s snapshot, zone string, threshold float64) taints.ZoneState {
	n := r.size(zone)
	ready := make([]taints.Status, n)
	for i := range ready {
		ready[i] = taints.True
		if i < s.notReady[zone] {
			ready[i] = taints.False
		}
	}
	return taints.ComputeZoneState(ready, threshold)
}

// A window is a stretch of time in which the lab's nodes were in a
// condition a check looks for.
type window struct {
	from, to time.Time
	open     bool // still so when the log ends
	first    snapshot
}

func (w window) length() time.Duration { return w.to.Sub(w.from) }

func (w window) contains(t time.Time) bool { return !t.Before(w.from) && t.Before(w.to) }

func (w window) String() string {
	to := hmsm(w.to)
	if w.open {
		to = "the end of the log, " + to
	}
	return fmt.Sprintf("%s to %s (%.1f s)", hmsm(w.from), to, w.length().Seconds())
}

// windows returns the maximal stretches in which keep holds.
func (r outageRecord) windows(keep func(snapshot) bool) []window {
	var out []window
	var cur *window
	for _, s := range r.snaps {
		switch k := keep(s); {
		case k && cur == nil:
			cur = &window{from: s.at, first: s}
		case !k && cur != nil:
			cur.to = s.at
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		cur.to, cur.open = r.end, true
		if cur.to.Before(cur.from) {
			cur.to = cur.from
		}
		out = append(out, *cur)
	}
	return out
}

// noExecute returns the NoExecute marks, in order, for which keep is true.
func (r outageRecord) noExecute(keep func(taintMark) bool) []taintMark {
	var out []taintMark
	for _, m := range r.marks {
		if m.effect == "NoExecute" && keep(m) {
			out = append(out, m)
		}
	}
	return out
}

// carriedNoExecute walks the NoExecute marks for which keep is true, in
// order, keeping for each node the taints it carries (each key with the
// mark that put it on). f, when not nil, is called after each mark with
// whether its node carried any before it and the node's taints after it.
// It returns every node's taints after the last mark.
func (r outageRecord) carriedNoExecute(keep func(taintMark) bool, f func(m taintMark, was bool, on map[string]taintMark)) map[string]map[string]taintMark {
	on := map[string]map[string]taintMark{}
	for _, m := range r.marks {
		if m.effect != "NoExecute" || !keep(m) {
			continue
		}
		if on[m.node] == nil {
			on[m.node] = map[string]taintMark{}
		}
		was := len(on[m.node]) > 0
		if m.added {
			on[m.node][m.key] = m
		} else {
			delete(on[m.node], m.key)
		}
		if f != nil {
			f(m, was, on[m.node])
		}
	}
	return on
}

// taintedAt returns the lab nodes that carry a NoExecute not-ready or
// unreachable taint at t, with the mark that put it there.
func (r outageRecord) taintedAt(t time.Time) map[string]taintMark {
	on := r.carriedNoExecute(func(m taintMark) bool { return !m.at.After(t) }, nil)
	out := map[string]taintMark{}
	for n, ks := range on {
		for _, m := range ks {
			out[n] = m
		}
	}
	return out
}

// controllerSaw returns the NoSchedule taints the controller put on lab
// nodes in [from, to]: it writes them as soon as it sees a node not Ready,
// unlimited by any rate, so they show it was running and watching.
func (r outageRecord) controllerSaw(from, to time.Time, zone string) []taintMark {
	var out []taintMark
	for _, m := range r.marks {
		if m.effect == "NoSchedule" && m.added && m.ctl && !m.at.Before(from) && !m.at.After(to) && (zone == "" || m.zone == zone) {
			out = append(out, m)
		}
	}
	return out
}

// byOthers returns the NoExecute marks not written by the controller.
func (r outageRecord) byOthers() []taintMark {
	return r.noExecute(func(m taintMark) bool { return !m.ctl })
}
