package check

import (
	"slices"
	"strings"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck/audit"
)

// The outage command's recording sees a change (a node's Ready condition,
// its NoExecute taint, its pod's deletion) when the watch event that tells
// of it arrives: after the write that made it reached the API server, was
// stored and was sent on. On a busy machine that takes from milliseconds to
// more than a second, and not the same for every change. The model says
// when the controllers act, so the times it is compared with are when the
// API server received each of those writes, read from the scale cluster's
// audit log as the chapter's checks read it (readOutage).

// A change is one write's change of one thing the recording follows, as
// the audit log holds it.
type change struct {
	at time.Time // when the write arrived
	on bool      // Ready, tainted, deleted
}

// AtRequests returns seen with the time of each change replaced by when
// the API server received the write that made it, read from the scale
// cluster's audit log (events) and counted from start, the recording's
// start; and how many of the changes it found there. The write taken is
// the last one of the same node and kind before the watch saw the change,
// after the one taken for the node's previous change of that kind: it is
// never later than the sighting and never earlier than the write that made
// the change. A change the log does not hold keeps the time it was seen.
func AtRequests(events []audit.Event, l taints.Layout, start time.Time, seen kube.Seen) (kube.Seen, int) {
	r := readOutage(events, l)
	ready, tainted, deleted := map[string][]change{}, map[string][]change{}, map[string][]change{}
	for _, f := range r.flips {
		ready[f.node] = append(ready[f.node], change{f.at, f.ready})
	}
	// A node is tainted while it carries either NoExecute taint; one write
	// that swaps them changes nothing the recording follows.
	r.carriedNoExecute(func(taintMark) bool { return true }, func(m taintMark, was bool, on map[string]taintMark) {
		if now := len(on) > 0; now != was {
			tainted[m.node] = append(tainted[m.node], change{m.at, now})
		}
	})
	for _, e := range r.deletes {
		if node, ok := strings.CutPrefix(e.Name, "app-"); ok {
			deleted[node] = append(deleted[node], change{e.Received, true})
		}
	}
	out := kube.Seen{
		Flips:   slices.Clone(seen.Flips),
		Marks:   slices.Clone(seen.Marks),
		Evicted: slices.Clone(seen.Evicted),
	}
	found := 0
	take := match(start, ready)
	for i, f := range out.Flips {
		if at, ok := take(f.Node, f.Ready == taints.True, f.At); ok {
			out.Flips[i].At, found = at, found+1
		}
	}
	take = match(start, tainted)
	for i, mk := range out.Marks {
		if at, ok := take(mk.Node, mk.Added, mk.At); ok {
			out.Marks[i].At, found = at, found+1
		}
	}
	take = match(start, deleted)
	for i, ev := range out.Evicted {
		if at, ok := take(ev.Node, true, ev.At); ok {
			out.Evicted[i].At, found = at, found+1
		}
	}
	return out, found
}

// match returns a function that finds, among a node's changes, the write
// of a change seen at seen (counted from start): the latest change to on
// received before it, after the write found for the node's previous
// sighting. The sightings of a node must be asked in the order they came.
func match(start time.Time, changes map[string][]change) func(node string, on bool, seen time.Duration) (time.Duration, bool) {
	next := map[string]int{}
	return func(node string, on bool, seen time.Duration) (time.Duration, bool) {
		best := -1
		cs := changes[node]
		for j := next[node]; j < len(cs); j++ {
			at := cs[j].at.Sub(start)
			if cs[j].on == on && at >= 0 && at <= seen && (best < 0 || !cs[j].at.Before(cs[best].at)) {
				best = j
			}
		}
		if best < 0 {
			return seen, false
		}
		next[node] = best + 1
		return cs[best].at.Sub(start), true
	}
}
