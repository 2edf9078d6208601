package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// late is how much later than its time a deletion may come and still be
// the controller's answer to the taint: the controller's queue, and a lab
// machine shared with other work.
const late = 15 * time.Second

// The lab's values on taints-3 (lab/pods.yaml): dispatcher leaves 30 s
// after the link-down taint; session, which shows something only once it
// has outlasted dispatcher, 600 s after it.
const (
	dispatcherWait = 30 * time.Second
	sessionWait    = 600 * time.Second
)

// hms formats a time the way the evidence shows it.
func hms(t time.Time) string { return t.UTC().Format("15:04:05") }

// hmsm is hms to the millisecond, for times the audit log keeps.
func hmsm(t time.Time) string { return t.UTC().Format("15:04:05.000") }

func secs(d time.Duration) string { return fmt.Sprintf("%.0f s", d.Seconds()) }

// running reports whether a pod runs and is not being deleted.
func running(p *corev1.Pod) bool {
	return p != nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning
}

// nodeTaint finds the taint with key and effect on a node.
func nodeTaint(n *corev1.Node, key string, effect corev1.TaintEffect) (corev1.Taint, bool) {
	if n == nil {
		return corev1.Taint{}, false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// named returns the events that name a pod with a reason.
func named(events []corev1.Event, pod, reason string) []corev1.Event {
	var out []corev1.Event
	for _, e := range events {
		if e.InvolvedObject.Name == pod && e.InvolvedObject.Kind == "Pod" && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// placedAt says when the scheduler placed a pod of the lab, or why it
// cannot be said that it did. p is the pod when it still exists (then it
// must be that very pod), nil when it is gone (then the last placement
// before until counts).
func placedAt(l lab, name string, p *corev1.Pod, events []corev1.Event, until time.Time, r *labcheck.Result) (time.Time, string) {
	if l.hasLog {
		life := lifeOf(l.log, name)
		if ok, why := life.placed(); !ok {
			return time.Time{}, why
		}
		r.Seen("%s", life.bound.String())
		return life.bound.Received, ""
	}
	if p != nil {
		if m, ok := placedByHand(p); ok {
			return time.Time{}, fmt.Sprintf("%s was placed by hand: its spec.nodeName was written by %s, so the scheduler never judged it against the taints", name, m)
		}
	}
	var best *record
	for _, e := range named(events, name, scheduledReason) {
		if p != nil && (e.InvolvedObject.UID != p.UID || e.Message != "Successfully assigned "+Namespace+"/"+name+" to "+p.Spec.NodeName) {
			continue
		}
		rec := weigh(e, schedulerWriter, l)
		if !rec.counted {
			r.Seen("%s", rec.describe())
			continue
		}
		if !until.IsZero() && rec.at.After(until.Add(time.Second)) {
			continue
		}
		if best == nil || rec.at.After(best.at) {
			best = &rec
		}
	}
	if best == nil {
		msg := fmt.Sprintf("no %s event of the scheduler names %s: it was placed by hand (created with spec.nodeName), or the event has expired", scheduledReason, name)
		if p != nil && l.now.Sub(p.CreationTimestamp.Time) > eventTTL {
			msg += fmt.Sprintf(" (events live %v and the pod is %v old: apply the lab's pods again)", eventTTL, l.now.Sub(p.CreationTimestamp.Time).Round(time.Minute))
		}
		return time.Time{}, msg
	}
	r.Seen("event %s at %s: %s", best.ev.Name, hms(best.at), best.ev.Message)
	return best.at, ""
}

// An evictionCase is the deletion of one of the lab's pods under a NoExecute
// taint it tolerates for tolerate.
type evictionCase struct {
	pod      string
	node     *corev1.Node
	tolerate time.Duration
	events   []corev1.Event // the lab's events
}

// judgeEviction decides whether the taint eviction controller deleted the
// pod, and when: no earlier than tolerate after the moment its clock
// started (the last change to the node's taints while the pod was there,
// or the pod's placement when the taint was there first), and no more than
// late after that. It returns when the controller acted, or why the
// deletion does not count.
func judgeEviction(l lab, c evictionCase, r *labcheck.Result) (time.Time, string) {
	if l.hasLog {
		return judgeEvictionLog(l, c, r)
	}
	return judgeEvictionAPI(l, c, r)
}

func judgeEvictionLog(l lab, c evictionCase, r *labcheck.Result) (time.Time, string) {
	for _, rec := range evictionEvents(l, c) {
		r.Seen("%s", rec.describe())
	}
	life := lifeOf(l.log, c.pod)
	if ok, why := life.placed(); !ok {
		return time.Time{}, why
	}
	r.Seen("%s", life.created.String())
	r.Seen("%s", life.bound.String())
	d := life.deleted
	if d == nil {
		return time.Time{}, fmt.Sprintf("%s is gone, but the audit log records no deletion of it, so nobody can say who removed it", c.pod)
	}
	if life.status != nil {
		r.Seen("%s (the DisruptionTarget condition)", life.status.String())
	}
	r.Seen("%s", d.String())
	switch {
	case byTaintEviction(*d):
	case d.Impersonated != "":
		return time.Time{}, fmt.Sprintf("%s was deleted by %s with --as: the taint eviction controller acts under its own name, never through a person's", c.pod, d.Who())
	case d.User == audit.TaintEviction:
		return time.Time{}, fmt.Sprintf("%s was deleted under the controller's account, but by %s, not by kube-controller-manager: someone borrowed the account's token", c.pod, d.Who())
	default:
		return time.Time{}, fmt.Sprintf("%s was deleted by %s, not by the taint eviction controller", c.pod, d.Who())
	}
	for _, e := range life.edits {
		if e.Received.Before(d.Received) {
			return time.Time{}, fmt.Sprintf("%s was changed after it was created (%s), so its tolerations may not be the lab's", c.pod, e.String())
		}
	}
	start, from := life.bound.Received, "it was placed on "+c.node.Name+" under the taint"
	if w, ok := lastBefore(nodeWrites(l.log, c.node.Name), d.Received); ok && w.Received.After(start) {
		start, from = w.Received, fmt.Sprintf("the last change to %s (%s)", c.node.Name, w.String())
	}
	gap := d.Received.Sub(start)
	r.Seen("timeline: the controller's clock started at %s, when %s; the deletion was sent %.1f s later", hmsm(start), from, gap.Seconds())
	if msg := judgeGap(c.pod, gap, from, c.tolerate, c.tolerate, c.tolerate+late); msg != "" {
		return time.Time{}, msg
	}
	return d.Received, ""
}

// evictionEvents weighs the taint eviction controller's events for a pod.
func evictionEvents(l lab, c evictionCase) []record {
	var out []record
	for _, e := range named(c.events, c.pod, evictReason) {
		out = append(out, weigh(e, taintEvictionWriter, l))
	}
	slices.SortFunc(out, func(a, b record) int { return a.at.Compare(b.at) })
	return out
}

// judgeGap compares the time a pod took to leave with the bounds its
// toleration allows.
func judgeGap(pod string, gap time.Duration, from string, tolerate, lo, hi time.Duration) string {
	switch {
	case gap < lo:
		return fmt.Sprintf("%s was deleted %.1f s after %s, earlier than its %s: was its tolerationSeconds changed?", pod, gap.Seconds(), from, secs(tolerate))
	case gap > hi:
		return fmt.Sprintf("%s was deleted %.0f s after %s, long after its %s: the deletion answered something else than that taint", pod, gap.Seconds(), from, secs(tolerate))
	}
	return ""
}

func judgeEvictionAPI(l lab, c evictionCase, r *labcheck.Result) (time.Time, string) {
	r.Seen("%s", l.withoutLog("the events of the taint eviction controller and of the scheduler, dated by the API server's own records of their writes and of the node's taints (managedFields)"))
	want := markMessage + Namespace + "/" + c.pod
	var mark, cancel, forged *record
	for _, rec := range evictionEvents(l, c) {
		r.Seen("%s", rec.describe())
		switch {
		case rec.ev.Message == want && rec.counted:
			mark = &rec
		case rec.ev.Message == want:
			forged = &rec
		case strings.HasPrefix(rec.ev.Message, cancelMessage) && rec.counted:
			cancel = &rec
		}
	}
	if mark == nil {
		switch {
		case forged != nil:
			return time.Time{}, fmt.Sprintf("the only event that marks %s for deletion is not the controller's: %s", c.pod, forged.why)
		case cancel != nil:
			return time.Time{}, fmt.Sprintf("the taint eviction controller only cancelled the deletion of %s (at %s: the taint went before its time was up), so the pod went some other way (deleted by hand?)", c.pod, hms(cancel.at))
		}
		return time.Time{}, goneWithoutEvent(c.pod, l)
	}
	at := mark.at
	placed, why := placedAt(l, c.pod, nil, c.events, at, r)
	if why != "" {
		return time.Time{}, why
	}
	written, manager, ok := taintsWritten(c.node)
	if !ok {
		return time.Time{}, fmt.Sprintf("the API server kept no record of when the taints of %s changed (managedFields), so the timing cannot be read", c.node.Name)
	}
	r.Seen("the taints of %s were last written at %s by %s", c.node.Name, hms(written), manager)
	if written.After(at) {
		return time.Time{}, fmt.Sprintf("the taints of %s changed at %s, after %s was deleted at %s: without the audit log the taint's time cannot be read; run the experiment again", c.node.Name, hms(written), c.pod, hms(at))
	}
	start, from := written, "the taints of "+c.node.Name+" were last written"
	if placed.After(start) {
		start, from = placed, "it was placed under the taint"
	}
	// Both times are in whole seconds: widen the bounds by one.
	gap := at.Sub(start)
	r.Seen("timeline: %s at %s; the controller's event at %s, %s later (whole seconds)", from, hms(start), hms(at), secs(gap))
	if msg := judgeGap(c.pod, gap, from, c.tolerate, c.tolerate-time.Second, c.tolerate+late+time.Second); msg != "" {
		return time.Time{}, msg
	}
	return at, ""
}

// goneWithoutEvent explains a pod that is gone with no event of the
// controller.
func goneWithoutEvent(pod string, l lab) string {
	msg := fmt.Sprintf("%s is gone, but no %s event of the taint eviction controller names it: it was not removed by the controller (deleted by hand?)", pod, evictReason)
	if l.now.Sub(l.start) > eventTTL {
		msg += fmt.Sprintf("; or the event has expired: events live %v and the lab began %v ago, so redo the experiment", eventTTL, l.now.Sub(l.start).Round(time.Minute))
	}
	return msg
}

// A nodeScheduleInput is what the NoSchedule check reads.
type noScheduleInput struct {
	node   *corev1.Node
	pods   []corev1.Pod // the lab's pods
	events []corev1.Event
}

// judgeNoSchedule passes when a pod the scheduler bound to taints-2 before
// the node's NoSchedule taint came does not tolerate that taint and still
// runs. The order is read, not inferred: the scheduler does not bind a pod
// under a NoSchedule taint it does not tolerate, but its cache can lag a
// taint by milliseconds, and a binding can be posted by anyone allowed to.
// With the audit log, the binding must come before the first change to
// taints-2's taints in this run of the lab, whoever bound it (a change that
// is not the taint's arrival only makes the rule stricter); without it, the
// scheduler's event must not be later than the server's record of the
// taints' last change, which is all the API keeps.
func judgeNoSchedule(l lab, in noScheduleInput) labcheck.Result {
	var r labcheck.Result
	if !l.hasLog {
		r.Seen("%s", l.withoutLog("the scheduler's Scheduled events and the pods' managedFields (who wrote spec.nodeName)"))
	}
	var ns []taints.Taint
	for _, t := range in.node.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			ns = append(ns, kube.Taint(t))
		}
	}
	if len(ns) == 0 {
		r.Message = "taints-2 has no NoSchedule taint yet"
		return r
	}
	for _, t := range ns {
		r.Seen("taints-2 has taint %s", t)
	}
	var survivors, refused []string
	for i := range in.pods {
		p := &in.pods[i]
		if !running(p) || p.Spec.NodeName != "taints-2" {
			continue
		}
		tols := kube.Tolerations(p.Spec.Tolerations)
		var untolerated []string
		for _, t := range ns {
			if !slices.ContainsFunc(tols, func(tol taints.Toleration) bool { return tol.Tolerates(t) }) {
				untolerated = append(untolerated, t.String())
			}
		}
		if len(untolerated) == 0 {
			r.Seen("pod %s tolerates every NoSchedule taint of taints-2, so it proves nothing", p.Name)
			continue
		}
		placed, why := placedAt(l, p.Name, p, in.events, time.Time{}, &r)
		if why != "" {
			refused = append(refused, why)
			continue
		}
		if why := boundBeforeTaint(l, p.Name, placed, in.node, &r); why != "" {
			refused = append(refused, why)
			continue
		}
		r.Seen("pod %s was bound by the scheduler at %s, does not tolerate %s, and still runs", p.Name, hms(placed), strings.Join(untolerated, ", "))
		survivors = append(survivors, p.Name)
	}
	if len(survivors) == 0 {
		r.Message = "no pod the scheduler placed on taints-2 runs there without tolerating its NoSchedule taint; apply the lab's pods before you taint the node"
		if len(refused) > 0 {
			r.Message = "no pod the scheduler placed on taints-2 runs there without tolerating its NoSchedule taint; " + refused[0]
		}
		return r
	}
	r.Pass = true
	r.Message = fmt.Sprintf("%s kept running on taints-2 under a NoSchedule taint it does not tolerate, which the scheduler would not have placed it under: NoSchedule only keeps new pods off", strings.Join(survivors, " and "))
	return r
}

// boundBeforeTaint says why a pod bound to taints-2 at placed was not bound
// before the node's NoSchedule taint came, or "" when it was.
func boundBeforeTaint(l lab, pod string, placed time.Time, n *corev1.Node, r *labcheck.Result) string {
	if l.hasLog {
		writes := nodeWrites(l.log, n.Name)
		if len(writes) == 0 {
			return fmt.Sprintf("nobody changed the taints of %s in this run of the lab, so its NoSchedule taint was there before %s was bound at %s: the pod was placed under it, not kept running through it", n.Name, pod, hmsm(placed))
		}
		first := writes[0]
		if !placed.Before(first.Received) {
			return fmt.Sprintf("%s was bound at %s, after the taints of %s first changed in this run of the lab (%s): it was placed under the NoSchedule taint, not kept running through it", pod, hmsm(placed), n.Name, first.String())
		}
		r.Seen("order: %s was bound at %s, before the first change to the taints of %s (%s)", pod, hmsm(placed), n.Name, first.String())
		return ""
	}
	written, manager, ok := taintsWritten(n)
	if !ok {
		return fmt.Sprintf("the API server kept no record of when the taints of %s changed (managedFields), so it cannot be read whether %s was bound before its NoSchedule taint", n.Name, pod)
	}
	// Both are in whole seconds: a binding in the second of the write
	// cannot be ordered, and counts.
	if placed.After(written.Add(time.Second)) {
		return fmt.Sprintf("%s was bound at %s, after the taints of %s last changed at %s (by %s): it was placed under the NoSchedule taint, not kept running through it", pod, hms(placed), n.Name, hms(written), manager)
	}
	r.Seen("order: %s was bound at %s, not after the last change to the taints of %s at %s (by %s); without the audit log an earlier change cannot be dated", pod, hms(placed), n.Name, hms(written), manager)
	return ""
}

// A maintenanceInput is what the NoExecute check of taints-2 reads.
type maintenanceInput struct {
	node         *corev1.Node
	agent, queue *corev1.Pod // nil when gone
	events       []corev1.Event
}

// judgeMaintenance passes when the maintenance taint removed queue, which
// tolerates only a kernel maintenance, at once and by the controller, and
// left agent, which tolerates every taint and was there too.
func judgeMaintenance(l lab, in maintenanceInput) labcheck.Result {
	var r labcheck.Result
	taint, ok := nodeTaint(in.node, MaintKey, corev1.TaintEffectNoExecute)
	if !ok {
		r.Message = "taints-2 has no " + MaintKey + " NoExecute taint: start its maintenance with kubectl taint"
		return r
	}
	r.Seen("taints-2 has taint %s", kube.Taint(taint))
	if !running(in.agent) || in.agent.Spec.NodeName != "taints-2" {
		r.Message = "agent does not run on taints-2: it tolerates every NoExecute taint, with no seconds, and should have stayed"
		return r
	}
	if in.queue != nil && in.queue.DeletionTimestamp == nil {
		r.Message = fmt.Sprintf("queue is still there under %s: it tolerates a kernel maintenance only, so a firmware one removes it at once", kube.Taint(taint))
		return r
	}
	at, why := judgeEviction(l, evictionCase{pod: "queue", node: in.node, tolerate: 0, events: in.events}, &r)
	if why != "" {
		r.Message = why
		return r
	}
	placed, why := placedAt(l, "agent", in.agent, in.events, time.Time{}, &r)
	if why != "" {
		r.Message = why
		return r
	}
	// Whole seconds without the log: a placement in the same second counts.
	if placed.After(at) && (l.hasLog || placed.Sub(at) >= time.Second) {
		r.Message = fmt.Sprintf("agent came to taints-2 at %s, after queue had left at %s, so it did not stay through the maintenance's start", hms(placed), hms(at))
		return r
	}
	r.Pass = true
	r.Message = "the taint eviction controller removed queue, whose toleration matches a kernel maintenance only, at once, and left agent, which tolerates every NoExecute taint and was there too"
	return r
}

// A linkInput is what the checks of taints-3 read.
type linkInput struct {
	node   *corev1.Node
	pod    *corev1.Pod // nil when gone
	events []corev1.Event
}

// linkTaint reads taints-3's link-down taint, or says it is missing.
func linkTaint(n *corev1.Node, r *labcheck.Result) (taints.Taint, bool) {
	t, ok := nodeTaint(n, LinkKey, corev1.TaintEffectNoExecute)
	if !ok {
		r.Message = "taints-3 has no " + LinkKey + " NoExecute taint: take its link down with kubectl taint"
		return taints.Taint{}, false
	}
	taint := kube.Taint(t)
	if t.TimeAdded != nil {
		r.Seen("taints-3 has taint %s, timeAdded %s", taint, hms(t.TimeAdded.Time))
	} else {
		r.Seen("taints-3 has taint %s (kubectl taint writes no timeAdded)", taint)
	}
	return taint, true
}

func judgeDispatcher(l lab, in linkInput) labcheck.Result {
	var r labcheck.Result
	if _, ok := linkTaint(in.node, &r); !ok {
		return r
	}
	if in.pod != nil && in.pod.DeletionTimestamp == nil {
		r.Message = "dispatcher is still there"
		if w, _, ok := taintsWritten(in.node); ok {
			r.Message += fmt.Sprintf(", %s after the taints of taints-3 were last written", secs(l.now.Sub(w)))
		}
		return r
	}
	at, why := judgeEviction(l, evictionCase{pod: "dispatcher", node: in.node, tolerate: dispatcherWait, events: in.events}, &r)
	if why != "" {
		r.Message = why
		return r
	}
	r.Pass = true
	r.Message = fmt.Sprintf("the taint eviction controller removed dispatcher at %s, 30 s after the link-down taint reached it and no earlier", hms(at))
	return r
}

func judgeSession(l lab, in linkInput) labcheck.Result {
	var r labcheck.Result
	taint, ok := linkTaint(in.node, &r)
	if !ok {
		return r
	}
	p := in.pod
	if p == nil || p.DeletionTimestamp != nil {
		// Gone: it stayed if the controller removed it when its 600 s were up.
		at, why := judgeEviction(l, evictionCase{pod: "session", node: in.node, tolerate: sessionWait, events: in.events}, &r)
		if why != "" {
			r.Message = why
			return r
		}
		r.Pass = true
		r.Message = fmt.Sprintf("session rode out its 600 s under the link-down taint: the taint eviction controller removed it at %s, when they were up and no earlier", hms(at))
		return r
	}
	if !running(p) || p.Spec.NodeName != "taints-3" {
		r.Message = fmt.Sprintf("session is %s on %q, not running on taints-3", p.Status.Phase, p.Spec.NodeName)
		return r
	}
	if !l.hasLog {
		r.Seen("%s", l.withoutLog("the scheduler's Scheduled event, the pod's managedFields and the server's record of when the node's taints were written"))
	}
	placed, why := placedAt(l, "session", p, in.events, time.Time{}, &r)
	if why != "" {
		r.Message = why
		return r
	}
	start, from := placed, "it was placed under the taint"
	if l.hasLog {
		if w, ok := lastBefore(nodeWrites(l.log, "taints-3"), l.now.Add(time.Second)); ok && w.Received.After(start) {
			start, from = w.Received, fmt.Sprintf("the last change to taints-3 (%s)", w.String())
		}
	} else if w, manager, ok := taintsWritten(in.node); ok && w.After(start) {
		start, from = w, fmt.Sprintf("the taints of taints-3 were last written (by %s)", manager)
	}
	age := l.now.Sub(start)
	v := taints.Evict([]taints.Taint{taint}, kube.Tolerations(p.Spec.Tolerations))
	r.Seen("session has run under the taint since %s, when %s: %s; by its tolerations it leaves %s", hms(start), from, secs(age), v.Leave)
	if v.Leave.Kind != taints.After || v.Leave.After <= age {
		r.Message = fmt.Sprintf("session should leave %s, yet it has been under the taint for %s: is it the lab's pod?", v.Leave, secs(age))
		return r
	}
	if age < dispatcherWait {
		r.Message = fmt.Sprintf("session has been under the taint for only %s: it shows something once it has outlasted dispatcher's 30 s", secs(age))
		return r
	}
	r.Pass = true
	r.Message = fmt.Sprintf("session still runs %s into its 600 s under the link-down taint", secs(age))
	return r
}

// A cacheInput is what the admission check reads: Deployment cache (nil
// when missing), the pods labelled app=cache, and the ReplicaSets that own
// them, by name.
type cacheInput struct {
	deployment *appsv1.Deployment
	pods       []corev1.Pod
	owners     map[string]*appsv1.ReplicaSet
}

// judgeCache passes when cache's template writes no toleration and each of
// its running pods, made by its ReplicaSet, carries the two tolerations the
// DefaultTolerationSeconds admission plugin adds, and nobody sent them.
// The server records which fields each client sent (managedFields) before
// admission runs, so what admission adds has no owner; a toleration in the
// template is sent by the ReplicaSet controller and has one.
func judgeCache(l lab, in cacheInput) labcheck.Result {
	d := in.deployment
	if d == nil {
		return labcheck.Failf("there is no Deployment cache in namespace %s: apply the lab's workloads first", Namespace)
	}
	var r labcheck.Result
	if !l.hasLog {
		r.Seen("%s", l.withoutLog("the pods' owners and managedFields, the fields each client sent as the server recorded them"))
	}
	if tols := kube.Tolerations(d.Spec.Template.Spec.Tolerations); len(tols) > 0 {
		r.Message = fmt.Sprintf("cache's template writes the toleration %s: the lab's cache writes none, so what its pod carries would be yours, not admission's: apply pods.yaml again", tols[0])
		return r
	}
	r.Seen("Deployment cache's template writes no toleration")
	judged := 0
	for i := range in.pods {
		p := &in.pods[i]
		if !running(p) {
			continue
		}
		var rs *appsv1.ReplicaSet
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "ReplicaSet" {
			rs = in.owners[ref.Name]
		}
		if ref := ownerOf(rs); ref == nil || ref.Kind != "Deployment" || ref.UID != d.UID {
			r.Message = fmt.Sprintf("pod %s is labelled app=cache, but no ReplicaSet of Deployment cache made it: delete it and let cache's own pods speak", p.Name)
			return r
		}
		if msg := judgeCachePod(l, p, &r); msg != "" {
			r.Message = msg
			return r
		}
		judged++
	}
	if judged == 0 {
		r.Message = "cache has no running pod: wait for it with kubectl -n taints-lab rollout status deployment/cache"
		return r
	}
	r.Pass = true
	r.Message = "no client sent cache's pod a toleration, yet it carries not-ready and unreachable NoExecute tolerations of 300 s: the DefaultTolerationSeconds admission plugin added them"
	return r
}

// ownerOf returns a ReplicaSet's controller, nil for none or no ReplicaSet.
func ownerOf(rs *appsv1.ReplicaSet) *metav1.OwnerReference {
	if rs == nil {
		return nil
	}
	return metav1.GetControllerOf(rs)
}

// judgeCachePod says why one of cache's pods does not show admission's
// tolerations, or "" when it does.
func judgeCachePod(l lab, p *corev1.Pod, r *labcheck.Result) string {
	r.Seen("pod %s runs on %s, phase %s", p.Name, p.Spec.NodeName, p.Status.Phase)
	if p.Spec.NodeName != "taints-1" {
		return fmt.Sprintf("%s runs on %q, not on taints-1, where pods.yaml puts cache", p.Name, p.Spec.NodeName)
	}
	if l.hasLog {
		if msg := madeByReplicaSet(l, p, r); msg != "" {
			return msg
		}
		if edits := editsOf(l.log, p.Name); len(edits) > 0 {
			return fmt.Sprintf("%s was changed after it was created (%s), so what it carries may be yours: delete it and let its ReplicaSet make it again", p.Name, edits[0].String())
		}
	}
	if len(p.ManagedFields) == 0 {
		return fmt.Sprintf("%s carries no record of who sent which field (managedFields was cleared), so admission's tolerations cannot be told from written ones: delete it and let its ReplicaSet make it again", p.Name)
	}
	for _, m := range p.ManagedFields {
		if m.Subresource == "" && m.Time != nil {
			r.Seen("%s sent its spec at %s (managedFields)", m.Manager, hms(m.Time.Time))
		}
	}
	if own := owners(p.ManagedFields, "f:spec", "f:tolerations"); len(own) > 0 {
		return fmt.Sprintf("%s's tolerations were sent by %s, not added by admission: cache's pod must write none", p.Name, own[0].Manager)
	}
	have := kube.Tolerations(p.Spec.Tolerations)
	for _, t := range have {
		r.Seen("toleration %s, sent by no client", t)
	}
	for _, w := range taints.AdmitDefaults(nil, taints.DefaultTolerationSeconds) {
		if !slices.ContainsFunc(have, func(t taints.Toleration) bool { return sameToleration(t, w) }) {
			return fmt.Sprintf("%s lacks the default toleration %s; was the DefaultTolerationSeconds admission plugin turned off?", p.Name, w)
		}
	}
	return ""
}

func sameToleration(a, b taints.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		(a.Seconds == nil) == (b.Seconds == nil) && (a.Seconds == nil || *a.Seconds == *b.Seconds)
}

// leaves returns when a pod with tols leaves a not-ready and an unreachable
// node, in that order.
func leaves(tols []taints.Toleration) [2]taints.Leave {
	var out [2]taints.Leave
	for i, key := range []string{taints.KeyNotReady, taints.KeyUnreachable} {
		out[i] = taints.Evict([]taints.Taint{{Key: key, Effect: taints.NoExecute}}, tols).Leave
	}
	return out
}

// judgeDB passes when db's pod template chose a finite value above the
// default for both keys and its reason is written on the StatefulSet
// (present, and naming the value: what a program can judge; the reason
// itself is for a person to read), and its pod runs with that value,
// made by the StatefulSet controller from the template's current revision
// after that revision existed, and changed by nobody since. rev is the
// ControllerRevision that status.updateRevision names, nil when missing.
//
// A pod the controller made earlier and someone changed afterwards is
// not: under a partitioned rollout (spec.updateStrategy.rollingUpdate.
// partition above db-0's ordinal) the controller leaves db-0 at the old
// revision, and a pod's tolerationSeconds and, through pods/status, its
// controller-revision-hash label can be rewritten to look like the new
// one; the controller then counts it as updated and reports the rollout
// done.
func judgeDB(l lab, sts *appsv1.StatefulSet, p *corev1.Pod, rev *appsv1.ControllerRevision) labcheck.Result {
	if sts == nil {
		return labcheck.Failf("there is no StatefulSet db in %s: apply chapters/02-taints/lab/db.yaml", Namespace)
	}
	var r labcheck.Result
	if !l.hasLog {
		r.Seen("%s", l.withoutLog("the StatefulSet's status and revision, and the pod's owner, revision and managedFields"))
	}
	// What the template's pods carry once admission has added its defaults.
	tmpl := taints.AdmitDefaults(kube.Tolerations(sts.Spec.Template.Spec.Tolerations), taints.DefaultTolerationSeconds)
	want := leaves(tmpl)
	var short []string
	var values []time.Duration
	for i, key := range []string{taints.KeyNotReady, taints.KeyUnreachable} {
		r.Seen("db's template on a %s node: leaves %s", strings.TrimPrefix(key, "node.kubernetes.io/"), want[i])
		if want[i].Kind != taints.After || want[i].After <= taints.DefaultTolerationSeconds*time.Second {
			short = append(short, fmt.Sprintf("%s: %s", key, want[i]))
			continue
		}
		values = append(values, want[i].After)
	}
	if len(short) > 0 {
		r.Message = fmt.Sprintf("db's pod template does not wait longer than the default 300 s (%s): a stateful pod gets a longer, finite value", strings.Join(short, "; "))
		return r
	}
	reason := strings.TrimSpace(sts.Annotations[ReasonKey])
	if msg := judgeReason(reason, values); msg != "" {
		r.Message = msg
		return r
	}
	r.Seen("db's reason, for a person to read: %q", reason)
	partitioned := ""
	if ru := sts.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil && *ru.Partition > 0 {
		partitioned = fmt.Sprintf(" (db's rolling update is partitioned at %d, so the controller keeps db-0 at the old revision)", *ru.Partition)
		r.Seen("db's rolling update is partitioned at %d: the StatefulSet controller makes the pods below that ordinal from the old revision", *ru.Partition)
	}
	st := sts.Status
	if st.ObservedGeneration < sts.Generation || st.UpdateRevision != st.CurrentRevision || st.ReadyReplicas < 1 {
		r.Seen("rollout: generation %d observed %d, current %s, update %s, %d ready", sts.Generation, st.ObservedGeneration, st.CurrentRevision, st.UpdateRevision, st.ReadyReplicas)
		r.Message = "db's rollout has not finished: its pods do not run its current template yet" + partitioned
		r.Hint = "Wait for the StatefulSet to make db-0 again from its new template, then check again: kubectl -n taints-lab rollout status statefulset/db --timeout=60s"
		return r
	}
	if !running(p) {
		r.Message = "db-0 does not run"
		return r
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "StatefulSet" || ref.UID != sts.UID || p.Labels["controller-revision-hash"] != st.UpdateRevision {
		r.Message = fmt.Sprintf("db-0 is not the pod StatefulSet db made from its current template (revision %s)", st.UpdateRevision)
		return r
	}
	if msg := madeAfterRevision(sts, p, rev, &r); msg != "" {
		r.Message = msg + partitioned
		return r
	}
	if got := leaves(kube.Tolerations(p.Spec.Tolerations)); got != want {
		r.Message = fmt.Sprintf("db-0 leaves a not-ready node %s and an unreachable one %s, not as its template says (%s, %s): its tolerations were changed on the pod", got[0], got[1], want[0], want[1])
		return r
	}
	if l.hasLog {
		life := lifeOf(l.log, "db-0")
		if life.created == nil || !life.created.ByController(audit.StatefulSetController) {
			who := "nobody in this run of the lab"
			if life.created != nil {
				who = life.created.Who()
			}
			r.Message = "db-0 was created by " + who + ", not by the StatefulSet controller"
			return r
		}
		r.Seen("%s", life.created.String())
		if len(life.edits) > 0 {
			r.Message = fmt.Sprintf("db-0 was changed after the StatefulSet controller made it (%s), so what it runs is not only its template's%s", life.edits[0].String(), partitioned)
			return r
		}
	} else if msg := writtenSinceMade(p); msg != "" {
		r.Message = msg + partitioned
		return r
	}
	r.Seen("db-0 (revision %s) leaves a not-ready node %s and an unreachable one %s", st.UpdateRevision, want[0], want[1])
	r.Pass = true
	r.Message = fmt.Sprintf("db-0 waits longer than 300 s on a not-ready or unreachable node, made by the StatefulSet from its own template; db's reason names %s, which is all a program can check: a person must read the reason to judge it", valuesText(values))
	return r
}

// madeAfterRevision says why db-0 was not made from the ControllerRevision
// that is db's update revision, or "" when it may have been: the
// StatefulSet controller makes (or finds) the revision before it makes a
// pod from it, so a pod older than the revision was made from another
// template. The server stamps both times in whole seconds.
func madeAfterRevision(sts *appsv1.StatefulSet, p *corev1.Pod, rev *appsv1.ControllerRevision, r *labcheck.Result) string {
	name := sts.Status.UpdateRevision
	if rev == nil {
		return fmt.Sprintf("db's current revision %s is missing (no ControllerRevision of that name), so it cannot be read whether db-0 was made from it", name)
	}
	if ref := metav1.GetControllerOf(rev); ref == nil || ref.UID != sts.UID {
		return fmt.Sprintf("ControllerRevision %s is not StatefulSet db's own, so it says nothing of db's template", name)
	}
	r.Seen("db's current template is ControllerRevision %s (revision %d), made at %s; db-0 was made at %s", name, rev.Revision, hms(rev.CreationTimestamp.Time), hms(p.CreationTimestamp.Time))
	if p.CreationTimestamp.Before(&rev.CreationTimestamp) {
		return fmt.Sprintf("db-0 was made at %s, before db's current template (revision %s) existed at %s: the StatefulSet did not make it from that template, and its revision label and tolerations were changed on the pod", hms(p.CreationTimestamp.Time), name, hms(rev.CreationTimestamp.Time))
	}
	return ""
}

// writtenSinceMade says, from db-0's managedFields, why its tolerations or
// its revision label are not as the StatefulSet controller made them, or ""
// when nothing shows that: each must be owned by the controller's manager,
// through the pod itself, not written later than the pod's creation (a
// later write by the same manager moves the entry's time).
func writtenSinceMade(p *corev1.Pod) string {
	if len(p.ManagedFields) == 0 {
		return "db-0 carries no record of who sent which field (managedFields was cleared), so it cannot be told whether the StatefulSet controller wrote its tolerations: delete db-0 and let the StatefulSet make it again"
	}
	made := p.CreationTimestamp.Time
	for _, f := range []struct {
		what string // with its verb
		path []string
	}{
		{"tolerations were", []string{"f:spec", "f:tolerations"}},
		{"revision label was", []string{"f:metadata", "f:labels", "f:controller-revision-hash"}},
	} {
		for _, m := range owners(p.ManagedFields, f.path...) {
			switch {
			case m.Manager != controllerAgent:
				return fmt.Sprintf("db-0's %s written by %s, not by the StatefulSet controller from its template", f.what, m.Manager)
			case m.Subresource != "":
				return fmt.Sprintf("db-0's %s written through its %s subresource by %s, not by the StatefulSet controller as it made the pod", f.what, m.Subresource, m.Manager)
			case m.Time != nil && m.Time.After(made.Add(time.Second)):
				return fmt.Sprintf("db-0's %s last written at %s, after the pod was made at %s: changed on the pod, not made from the template", f.what, hms(m.Time.Time), hms(made))
			}
		}
	}
	return ""
}

// valuesText names the values a reason must name: "900 s", "900 s and 1200 s".
func valuesText(values []time.Duration) string {
	var out []string
	for _, v := range values {
		if s := secs(v); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, " and ")
}
