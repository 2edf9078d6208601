package check

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck"
)

// gapTolerance is how far apart from 1/rate two taints of one zone's queue
// may come and still count as that rate. A token is taken by the first
// tainting pass after it is due, and the passes run every 100 ms
// (taints.TaintPassPeriod); the controller's request then waits for its
// client and the API server, tens of milliseconds on the lab's machine (the
// recorded run's gaps at 2 s lie between 2.03 and 2.13 s). Half a second
// covers both, and still tells the lab's rates apart: 2 s and 10 s.
const gapTolerance = 500 * time.Millisecond

// minWindow is how long an outage must last for the checks to judge what
// the controller did not do in it: two health passes of the lab's 5 s.
const minWindow = 10 * time.Second

// An outageCase is what every outage check judges: the record the audit
// log gives and the controller's settings, read from the cluster's
// configuration.
type outageCase struct {
	rec      outageRecord
	settings kube.Controller
}

// firstPass is how long after a window starts the controller may still act
// on the zones as they were: its first health pass in the window comes up
// to one --node-monitor-period later, and the record's times are those of
// requests, half a second allowed for them as for the gaps.
func (c outageCase) firstPass() time.Duration { return c.settings.MonitorPeriod + gapTolerance }

// allowed is how many taints the controller may put on a zone's nodes
// before its first health pass in a window: the zone's bucket holds one
// token (burst 1, so one at once), and until that pass the zone keeps its
// old rate, the normal one, for at most firstPass. A tainting pass that
// falls inside the health pass itself (taints.Outage.Inside) is one of
// these.
func (c outageCase) allowed() int {
	return 1 + int(math.Floor(c.firstPass().Seconds()*c.settings.Rates.Normal))
}

func period(rate float64) time.Duration {
	return time.Duration(float64(time.Second) / rate)
}

// withinGap reports whether d is 1/rate apart, within gapTolerance.
func withinGap(d time.Duration, rate float64) bool {
	want := period(rate)
	return d >= want-gapTolerance && d <= want+gapTolerance
}

// gaps formats the seconds between successive marks.
func gaps(ms []taintMark) string {
	var s []string
	for i := 1; i < len(ms); i++ {
		s = append(s, fmt.Sprintf("%.2f", ms[i].at.Sub(ms[i-1].at).Seconds()))
	}
	return "[" + strings.Join(s, " ") + "] s"
}

func nodesOf(ms []taintMark) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.node)
	}
	return strings.Join(s, ", ")
}

// seeRecord adds the lines every outage check shows first: the settings and
// what the log holds.
func seeRecord(c outageCase, r *labcheck.Result) {
	s := c.settings
	r.Seen("the controller's settings (the cluster's kwok.yaml): --node-eviction-rate=%g --secondary-node-eviction-rate=%g --large-cluster-size-threshold=%d --unhealthy-zone-threshold=%g --node-monitor-period=%v",
		s.Rates.Normal, s.Rates.Secondary, s.Rates.LargeCluster, s.Rates.UnhealthyThreshold, s.MonitorPeriod)
	ctl := c.rec.noExecute(func(m taintMark) bool { return m.ctl })
	r.Seen("the audit log: %d changes of a lab node's Ready condition, %d NoExecute taints put on or taken off by the node lifecycle controller, %d by anyone else",
		len(c.rec.flips), len(ctl), len(c.rec.byOthers()))
	for _, m := range c.rec.byOthers() {
		r.Seen("not the controller's, not counted: %s", m)
	}
	for _, u := range c.rec.unread {
		r.Seen("not read: %s", u)
	}
}

// notOursHint is the hint of a check that found taints written by hand.
const notOursHint = "The checks count only the taints the node lifecycle controller writes under its own name: switch the nodes off (make outage) and let it act; a taint written with kubectl, or with --as, is not its."

// runOf returns the longest stretch of successive marks, each in keep, whose
// gaps are 1/rate.
func runOf(ms []taintMark, rate float64, keep func(taintMark) bool) []taintMark {
	var best, cur []taintMark
	for _, m := range ms {
		switch {
		case !keep(m):
			cur = nil
		case len(cur) > 0 && withinGap(m.at.Sub(cur[len(cur)-1].at), rate):
			cur = append(cur, m)
		default:
			cur = []taintMark{m}
		}
		if len(cur) > len(best) {
			best = slices.Clone(cur)
		}
	}
	return best
}

// addedByController returns the controller's NoExecute taints put on the
// nodes of zone, in order.
func (c outageCase) addedByController(zone string) []taintMark {
	return c.rec.noExecute(func(m taintMark) bool { return m.ctl && m.added && m.zone == zone })
}

// stateAt is the zone's state, as the controller computes it, just before t.
func (c outageCase) stateAt(zone string, t time.Time) (taints.ZoneState, snapshot) {
	s, ok := c.rec.notReadyAt(t)
	if !ok {
		return taints.Initial, s
	}
	return c.rec.state(s, zone, c.settings.Rates.UnhealthyThreshold), s
}

// noTaintsMessage says why no taint of the controller counts.
func noTaintsMessage(c outageCase, what string) string {
	if len(c.rec.noExecute(func(m taintMark) bool { return m.ctl && m.added })) == 0 {
		if len(c.rec.byOthers()) > 0 {
			return "the node lifecycle controller put no NoExecute taint on any lab node; the only ones were written by " + c.rec.byOthers()[0].by.Who()
		}
		return "the node lifecycle controller put no NoExecute taint on any lab node: no experiment has run on this cluster"
	}
	return what
}

// evictedFrom returns the lab pods of nodes that the taint eviction
// controller deleted in [from, to], and how many were deleted by anyone
// else.
func (c outageCase) evictedFrom(nodes map[string]bool, from, to time.Time) (byCtl []string, others int) {
	for _, e := range c.rec.deletes {
		node, ok := strings.CutPrefix(e.Name, "app-")
		if !ok || (nodes != nil && !nodes[node]) || e.Received.Before(from) || e.Received.After(to) {
			continue
		}
		if byTaintEviction(e) {
			byCtl = append(byCtl, e.Name)
		} else if !e.FromNodeAgent() {
			others++
		}
	}
	return byCtl, others
}

func nodeSet(ms []taintMark) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.node] = true
	}
	return out
}

// seeEvictions adds what became of the pods of the tainted nodes.
func (c outageCase) seeEvictions(r *labcheck.Result, ms []taintMark, to time.Time) {
	byCtl, others := c.evictedFrom(nodeSet(ms), ms[0].at, to)
	r.Seen("deletions of their pods (which tolerate the taints %d s) since the first taint: %d by the taint eviction controller, %d by anyone else", kube.OutageTolerationSeconds, len(byCtl), others)
}

// judgeNormalRate: in a zone below the unhealthy threshold the controller
// tainted three nodes or more, one every 1/--node-eviction-rate.
func judgeNormalRate(c outageCase) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	rate := c.settings.Rates.Normal
	for _, z := range c.rec.layout {
		normal := func(m taintMark) bool { s, _ := c.stateAt(z.Name, m.at); return s == taints.Normal }
		run := runOf(c.addedByController(z.Name), rate, normal)
		if len(run) < 3 {
			continue
		}
		_, snap := c.stateAt(z.Name, run[0].at)
		r.Seen("%s: %d of its %d nodes not Ready when the first went on, under the %.0f %% threshold", z.Name, snap.notReady[z.Name], z.Nodes, 100*c.settings.Rates.UnhealthyThreshold)
		for _, m := range run {
			r.Seen("%s", m)
		}
		r.Seen("gaps %s, against 1/%g = %.1f s ± %.1f s", gaps(run), rate, period(rate).Seconds(), gapTolerance.Seconds())
		c.seeEvictions(&r, run, run[len(run)-1].at.Add(kube.OutageTolerationSeconds*time.Second+late))
		r.Pass = true
		r.Message = fmt.Sprintf("the controller tainted %d nodes of %s (%s) one every %.1f s, its normal rate", len(run), z.Name, nodesOf(run), period(rate).Seconds())
		return r
	}
	r.Message = noTaintsMessage(c, fmt.Sprintf("no zone below the threshold had three nodes tainted one every %.1f s by the controller", period(rate).Seconds()))
	return r
}

// judgeSecondaryRate: while at least the threshold of a large zone was not
// Ready, the controller's taints there came 1/--secondary-node-eviction-rate
// apart, and never faster once its first health pass had seen the zone.
func judgeSecondaryRate(c outageCase) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	rates := c.settings.Rates
	if rates.Secondary <= 0 {
		r.Message = fmt.Sprintf("the cluster's --secondary-node-eviction-rate is %g: a large zone partly down is not tainted at all, so the lab cannot show its rate", rates.Secondary)
		return r
	}
	seenLarge := false
	for _, z := range c.rec.layout {
		if z.Nodes <= rates.LargeCluster {
			continue
		}
		partial := func(s snapshot) bool {
			return c.rec.state(s, z.Name, rates.UnhealthyThreshold) == taints.PartialDisruption
		}
		for _, w := range c.rec.windows(partial) {
			seenLarge = true
			var in []taintMark
			for _, m := range c.addedByController(z.Name) {
				if w.contains(m.at) {
					in = append(in, m)
				}
			}
			paired, tooFast := false, ""
			for i := 1; i < len(in); i++ {
				d := in[i].at.Sub(in[i-1].at)
				if withinGap(d, rates.Secondary) {
					paired = true
				}
				if in[i-1].at.Sub(w.from) > c.firstPass() && d < period(rates.Secondary)-gapTolerance {
					tooFast = fmt.Sprintf("%s and %s were tainted %.1f s apart, faster than the secondary rate's %.1f s", in[i-1].node, in[i].node, d.Seconds(), period(rates.Secondary).Seconds())
				}
			}
			if !paired || tooFast != "" {
				if len(in) > 0 {
					r.Seen("%s partly down %s (%d of %d not Ready): taints at gaps %s, not counted: %s", z.Name, w, w.first.notReady[z.Name], z.Nodes, gaps(in), cmpOr(tooFast, "no two 1/secondary apart"))
				}
				continue
			}
			r.Seen("%s partly down %s: %d of its %d nodes not Ready, at least the %.0f %% threshold", z.Name, w, w.first.notReady[z.Name], z.Nodes, 100*rates.UnhealthyThreshold)
			for _, m := range in {
				r.Seen("%s", m)
			}
			r.Seen("gaps %s, against 1/%g = %.1f s ± %.1f s", gaps(in), rates.Secondary, period(rates.Secondary).Seconds(), gapTolerance.Seconds())
			r.Pass = true
			r.Message = fmt.Sprintf("while %s was partly down the controller tainted %d of its nodes %.0f s apart, the secondary rate", z.Name, len(in), period(rates.Secondary).Seconds())
			return r
		}
	}
	if !seenLarge {
		r.Message = fmt.Sprintf("no zone larger than %d nodes was ever %.0f %% not Ready", rates.LargeCluster, 100*rates.UnhealthyThreshold)
		return r
	}
	r.Message = noTaintsMessage(c, fmt.Sprintf("while a large zone was partly down, the controller's taints never came %.0f s apart", period(rates.Secondary).Seconds()))
	return r
}

// judgeSmallZoneSpared: for 10 s or more, at least the threshold but not
// all of a small zone was not Ready; the controller saw it (its NoSchedule
// taints) and put no NoExecute taint there after its first health pass.
func judgeSmallZoneSpared(c outageCase) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	rates := c.settings.Rates
	found := false
	for _, z := range c.rec.layout {
		if z.Nodes > rates.LargeCluster {
			continue
		}
		partial := func(s snapshot) bool {
			return c.rec.state(s, z.Name, rates.UnhealthyThreshold) == taints.PartialDisruption
		}
		for _, w := range c.rec.windows(partial) {
			if w.length() < minWindow {
				continue
			}
			found = true
			r.Seen("%s partly down %s: %d of its %d nodes not Ready", z.Name, w, w.first.notReady[z.Name], z.Nodes)
			saw := c.rec.controllerSaw(w.from.Add(-c.settings.MonitorPeriod), w.to, z.Name)
			var early, late []taintMark
			for _, m := range c.addedByController(z.Name) {
				switch {
				case !w.contains(m.at):
				case m.at.Sub(w.from) <= c.firstPass():
					early = append(early, m)
				default:
					late = append(late, m)
				}
			}
			for _, m := range append(slices.Clone(early), late...) {
				r.Seen("%s", m)
			}
			switch {
			case len(saw) == 0:
				r.Seen("not counted: the controller put no NoSchedule taint on these nodes, so nothing shows it saw them")
			case len(late) > 0:
				r.Seen("not counted: the controller tainted %s %.1f s into it, after its first health pass (%.1f s)", late[0].node, late[0].at.Sub(w.from).Seconds(), c.firstPass().Seconds())
			case len(early) > c.allowed():
				r.Seen("not counted: %d taints before the first health pass, more than the %d the old rate allows", len(early), c.allowed())
			default:
				r.Seen("the controller saw them: it put its NoSchedule taint on %d of them (%s, the first at %s)", len(saw), saw[0].key, hmsm(saw[0].at))
				r.Pass = true
				r.Message = fmt.Sprintf("for %.0f s %d of %s's %d nodes were not Ready and the controller, which saw them, tainted none of them after its first health pass", w.length().Seconds(), w.first.notReady[z.Name], z.Name, z.Nodes)
				return r
			}
		}
	}
	if !found {
		r.Message = fmt.Sprintf("no zone of %d nodes or fewer was ever, for %v, at least %.0f %% but not all not Ready", rates.LargeCluster, minWindow, 100*rates.UnhealthyThreshold)
		return r
	}
	r.Message = "the controller went on tainting a small zone that was partly down, or nothing shows it was watching"
	return r
}

// judgeDeadZoneEmpties: while one zone had no Ready node and another had
// some, the controller tainted the dead zone's nodes at the normal rate.
func judgeDeadZoneEmpties(c outageCase) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	rate := c.settings.Rates.Normal
	found := false
	for _, z := range c.rec.layout {
		dead := func(s snapshot) bool {
			if s.notReady[z.Name] < z.Nodes {
				return false
			}
			for _, o := range c.rec.layout {
				if o.Name != z.Name && s.notReady[o.Name] < o.Nodes {
					return true
				}
			}
			return false
		}
		for _, w := range c.rec.windows(dead) {
			// Three taints 1/rate apart need two gaps: a zone dead for
			// less (a moment while every zone goes down) cannot show it.
			if w.length() < 2*period(rate) {
				continue
			}
			found = true
			run := runOf(c.addedByController(z.Name), rate, func(m taintMark) bool { return w.contains(m.at) })
			if len(run) < 3 {
				r.Seen("%s dead %s while other zones had Ready nodes: the controller tainted %d of its nodes at the normal rate in a row", z.Name, w, len(run))
				continue
			}
			r.Seen("%s dead %s: all %d nodes not Ready, while other zones had Ready nodes", z.Name, w, z.Nodes)
			for _, m := range run {
				r.Seen("%s", m)
			}
			r.Seen("gaps %s, against 1/%g = %.1f s ± %.1f s", gaps(run), rate, period(rate).Seconds(), gapTolerance.Seconds())
			c.seeEvictions(&r, run, run[len(run)-1].at.Add(kube.OutageTolerationSeconds*time.Second+late))
			r.Pass = true
			r.Message = fmt.Sprintf("while all of %s was down and other zones were not, the controller tainted %d of its nodes one every %.1f s, the normal rate", z.Name, len(run), period(rate).Seconds())
			return r
		}
	}
	if !found {
		r.Message = fmt.Sprintf("no zone was ever wholly not Ready, for the %.0f s three taints need, while another zone had Ready nodes", 2*period(rate).Seconds())
		return r
	}
	r.Message = noTaintsMessage(c, fmt.Sprintf("while a zone was dead, the controller did not taint three of its nodes one every %.1f s", period(rate).Seconds()))
	return r
}

// allDown returns the windows in which every lab node was not Ready.
func (c outageCase) allDown() []window {
	return c.rec.windows(func(s snapshot) bool {
		for _, z := range c.rec.layout {
			if s.notReady[z.Name] < z.Nodes {
				return false
			}
		}
		return true
	})
}

// judgeAllZonesDown: for 10 s or more every lab node was not Ready; the
// controller saw it, put no taint on after its first health pass, and took
// off the taints it had put on, but for one a tainting pass may have put on
// inside that health pass.
func judgeAllZonesDown(c outageCase) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	found := false
	for _, w := range c.allDown() {
		if w.length() < minWindow {
			continue
		}
		found = true
		if msg, ok := c.stoppedIn(w, &r); ok {
			r.Pass, r.Message = true, msg
			return r
		}
	}
	if !found {
		r.Message = fmt.Sprintf("the %d lab nodes were never all not Ready for %v", len(c.rec.zoneOf), minWindow)
		return r
	}
	r.Message = "while every node was down, the controller went on tainting, left its taints on, or nothing shows it was watching"
	return r
}

// stoppedIn judges one window in which every lab node was not Ready: the
// controller saw it (its NoSchedule taints), put no NoExecute taint on
// after its first health pass, and took off what it had on. It says why in
// r's evidence, and on success returns the sentence that says what it saw.
func (c outageCase) stoppedIn(w window, r *labcheck.Result) (string, bool) {
	total := len(c.rec.zoneOf)
	r.Seen("all %d lab nodes not Ready %s", total, w)
	saw := c.rec.controllerSaw(w.from.Add(-c.settings.MonitorPeriod), w.to, "")
	var before, early, late, removed []taintMark
	for _, m := range c.rec.taintedAt(w.from) {
		if m.ctl {
			before = append(before, m)
		}
	}
	for _, m := range c.rec.noExecute(func(m taintMark) bool { return m.ctl && w.contains(m.at) }) {
		switch {
		case !m.added:
			removed = append(removed, m)
		case m.at.Sub(w.from) <= c.firstPass():
			early = append(early, m)
		default:
			late = append(late, m)
		}
	}
	var left []taintMark
	for _, m := range c.rec.taintedAt(w.to.Add(-time.Nanosecond)) {
		left = append(left, m)
	}
	slices.SortFunc(left, func(a, b taintMark) int { return strings.Compare(a.node, b.node) })
	r.Seen("on at its start, the controller's: %d; put on in its first %.1f s: %d; after: %d; taken off by the controller: %d; still on at its end: %d",
		len(before), c.firstPass().Seconds(), len(early), len(late), len(removed), len(left))
	for _, m := range slices.Concat(early, late, removed) {
		r.Seen("%s", m)
	}
	earlyLeft := 0
	var wrong []string
	for _, m := range left {
		switch {
		case !m.ctl:
			wrong = append(wrong, fmt.Sprintf("%s's taint, put on by %s", m.node, m.by.Who()))
		case m.at.Before(w.from) || m.at.Sub(w.from) > c.firstPass():
			wrong = append(wrong, fmt.Sprintf("%s's taint of %s", m.node, hmsm(m.at)))
		default:
			earlyLeft++
		}
	}
	switch {
	case len(saw) == 0:
		r.Seen("not counted: the controller put no NoSchedule taint on a lab node then, so nothing shows it saw them")
	case len(late) > 0:
		r.Seen("not counted: the controller tainted %s %.1f s into it, after its first health pass", late[0].node, late[0].at.Sub(w.from).Seconds())
	case len(early) > c.allowed():
		r.Seen("not counted: %d taints before the first health pass, more than the %d the old rate allows", len(early), c.allowed())
	case len(wrong) > 0 || earlyLeft > 1:
		if earlyLeft > 1 {
			wrong = append(wrong, fmt.Sprintf("%d put on in its first %.1f s, where one may stay", earlyLeft, c.firstPass().Seconds()))
		}
		r.Seen("not counted: taints left on at its end: %s", strings.Join(wrong, "; "))
	default:
		r.Seen("the controller saw them: it put its NoSchedule taint on %d of them, the first at %s", len(saw), hmsm(saw[0].at))
		byCtl, others := c.evictedFrom(nil, w.from, w.to)
		r.Seen("deletions of lab pods meanwhile: %d by the taint eviction controller, %d by anyone else", len(byCtl), others)
		took := "it had none on to take off"
		if had := len(before) + len(early); had > 0 {
			took = fmt.Sprintf("it took off %d of the %d it had on", len(removed), had)
		}
		return fmt.Sprintf("for %.0f s every one of the %d nodes was not Ready; the controller, which saw them, put no NoExecute taint on after its first health pass, and %s", w.length().Seconds(), total, took), true
	}
	return "", false
}

// A nodeNow is a lab node as the API shows it now.
type nodeNow struct {
	name    string
	ready   bool
	tainted []string // its NoExecute not-ready and unreachable taints
}

// judgeRecovered: after every lab node was down, every one is Ready again
// and carries no NoExecute not-ready or unreachable taint, and no person
// took one off.
func judgeRecovered(c outageCase, nodes []nodeNow) labcheck.Result {
	var r labcheck.Result
	seeRecord(c, &r)
	var last *window
	for _, w := range c.allDown() {
		var scratch labcheck.Result
		if _, ok := c.stoppedIn(w, &scratch); ok && w.length() >= minWindow {
			last = &w
		}
	}
	if last == nil {
		r.Message = fmt.Sprintf("the %d lab nodes were never all down for %v with the controller stopping, so there was nothing to recover from (see outage-all-zones-down)", len(c.rec.zoneOf), minWindow)
		return r
	}
	r.Seen("all lab nodes not Ready %s, the controller stopped (outage-all-zones-down)", *last)
	if last.open {
		r.Message = "every lab node is still not Ready: switch them back on (make outage's recovery experiment)"
		return r
	}
	var back []readyFlip
	for _, f := range c.rec.flips {
		if f.ready && !f.at.Before(last.to) {
			back = append(back, f)
		}
	}
	if len(back) > 0 {
		r.Seen("Ready again from %s (%s) to %s (%s)", hmsm(back[0].at), back[0].by.Who(), hmsm(back[len(back)-1].at), back[len(back)-1].by.Who())
	}
	var cleared []taintMark
	for _, m := range c.rec.marks {
		if m.ctl && !m.added && m.effect == "NoSchedule" && !m.at.Before(last.to) {
			cleared = append(cleared, m)
		}
	}
	if len(cleared) == 0 {
		r.Message = "nothing shows the controller saw the nodes come back: it took no NoSchedule taint off after the outage"
		return r
	}
	r.Seen("the controller saw them back: it took its NoSchedule taint off %d nodes, the first at %s", len(cleared), hmsm(cleared[0].at))
	for _, m := range c.rec.noExecute(func(m taintMark) bool { return !m.ctl && !m.added && !m.at.Before(last.from) }) {
		r.Message = fmt.Sprintf("a NoExecute taint was taken off by hand after the outage: %s", m)
		return r
	}
	byName := map[string]nodeNow{}
	for _, n := range nodes {
		byName[n.name] = n
	}
	var missing, notReady, tainted []string
	for _, n := range c.rec.layout.Nodes() {
		now, ok := byName[n.Name]
		switch {
		case !ok:
			missing = append(missing, n.Name)
		case !now.ready:
			notReady = append(notReady, n.Name)
		case len(now.tainted) > 0:
			tainted = append(tainted, n.Name+" ("+strings.Join(now.tainted, ", ")+")")
		}
	}
	r.Seen("now: %d lab nodes, %d not Ready, %d with a NoExecute not-ready or unreachable taint", len(nodes), len(notReady), len(tainted))
	switch {
	case len(missing) > 0:
		r.Message = fmt.Sprintf("%d of the lab's nodes are missing (%s): make outage-up creates them", len(missing), firstFew(missing))
	case len(notReady) > 0:
		r.Message = fmt.Sprintf("%d lab nodes are not Ready now (%s): the recovery experiment switches them back on", len(notReady), firstFew(notReady))
	case len(tainted) > 0:
		r.Message = fmt.Sprintf("%d lab nodes still carry a NoExecute taint (%s)", len(tainted), firstFew(tainted))
	default:
		r.Pass = true
		r.Message = fmt.Sprintf("after every node was down, all %d are Ready again and carry no NoExecute not-ready or unreachable taint", len(c.rec.zoneOf))
	}
	return r
}

func firstFew(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}
