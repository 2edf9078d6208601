package check

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// A record is everything the unplanned-shutdown checks judge, read once from
// the cluster and passed in whole, so that the judging is pure.
type record struct {
	// Start is namespace shutdown-lab's creationTimestamp: this run of the
	// lab began then, and nothing earlier counts.
	Start time.Time
	// Log is the audit log from Start on; nil when there is none, and then
	// NoAudit says why in one sentence.
	Log     []audit.Event
	NoAudit string
	// advice says what to do about NoAudit (labcheck.Cluster.AuditAdvice).
	advice string
	// Pod is db-0 as it is now, nil when there is none.
	Pod *corev1.Pod
	// Nodes are the shutdown pool's nodes as they are now.
	Nodes []corev1.Node
	// Events are the namespace's events about db-0.
	Events []corev1.Event
}

// A life is one db-0. The StatefulSet recreates its pod under the same name,
// so the audit log tells one from the next by order (a name is free again
// only once the pod is gone) and by the UID the scheduler's binding names.
type life struct {
	UID     string        // from the binding; "" while it was never bound
	Created audit.Event   // the request that created it
	Bound   *audit.Event  // the scheduler's binding, nil if none
	Deletes []audit.Event // its delete requests that the server granted, in order
	Gone    bool          // it no longer exists
}

// deleted is the request that made it Terminating, nil if none.
func (l *life) deleted() *audit.Event {
	if len(l.Deletes) == 0 {
		return nil
	}
	return &l.Deletes[0]
}

// removed is the request that took it away: a pod's name is free only once it
// is gone, so the last granted delete before that is the one. Last by when
// its answer was complete, not by when it arrived: two deletes sent at once
// (the taint eviction controller's, when the out-of-service taint comes, and
// a force delete) are answered in the order the server stored them, and the
// one that removed the pod is answered after the other, though it may have
// arrived first. Nil while it exists, or when nothing on record removed it.
func (l *life) removed() *audit.Event {
	if !l.Gone || len(l.Deletes) == 0 {
		return nil
	}
	last := &l.Deletes[0]
	for i := range l.Deletes {
		if !l.Deletes[i].Time.Before(last.Time) {
			last = &l.Deletes[i]
		}
	}
	return last
}

// terminatingAt reports whether it existed with a deletion pending at t.
func (l *life) terminatingAt(t time.Time) bool {
	d := l.deleted()
	if d == nil || !d.Time.Before(t) {
		return false
	}
	end := l.removed()
	return !l.Gone || end != nil && end.Time.After(t)
}

// offNode is the node the learner powered off, as the cluster shows it.
type offNode struct {
	Name  string
	Ready bool
	// NotReady is when its Ready condition last changed, Why its message.
	NotReady time.Time
	Why      string
	// Mark is the node lifecycle controller's not-ready or unreachable
	// taint of this power-off: the earliest by timeAdded of those added
	// since the node went NotReady; nil when it has none.
	Mark *corev1.Taint
	// Leftover is a not-ready or unreachable taint added before the node
	// went NotReady: left from an earlier power-off, it is no mark of this
	// one, and while it is there the controller may not mark the node again.
	Leftover *corev1.Taint
	// Saw is the node lifecycle controller's write that added Mark: its
	// first write to the node, as its own user, since the node went
	// NotReady and no earlier than Mark's timeAdded (audit log only).
	Saw *audit.Event
	// HandStatus is a write to the node's status by someone other than the
	// lab's node emulation or a controller (audit log only).
	HandStatus *audit.Event
	// OutOfService reports whether it carries the out-of-service taint now.
	OutOfService bool
	// TaintAt is when the out-of-service taint was written, TaintBy the
	// request or record that shows it; zero when nothing shows it.
	TaintAt time.Time
	TaintBy string
}

// controllerSaw reports whether the node lifecycle controller acted on the
// node being NotReady: a taint of its kind is there, dated no earlier than
// the condition's change, and, with an audit log, the write that added it
// was the controller's own. A taint dated earlier is left from another
// power-off and is not counted, whatever the log shows.
func (n *offNode) controllerSaw(withLog bool) bool {
	return n.Mark != nil && (!withLog || n.Saw != nil)
}

// markedAt is when the node lifecycle controller marked the node: its write
// when the log shows it, else its taint's timeAdded.
func (n *offNode) markedAt() time.Time {
	if n.Saw != nil {
		return n.Saw.Time
	}
	if n.Mark != nil && n.Mark.TimeAdded != nil {
		return n.Mark.TimeAdded.Time
	}
	return time.Time{}
}

// A story is what the record shows about db-0 and the node it lost.
type story struct {
	r       record
	withLog bool
	lives   []*life // audit log only

	off *offNode
	// readyTainted names a pool node that is Ready and carries the
	// out-of-service taint, when no node is off.
	readyTainted string

	// old is the db-0 that was stuck on the off node (audit log only).
	old *life
	// oldNode is where old ran, "" when nothing on record shows it, and
	// oldNodeBy what shows it.
	oldNode, oldNodeBy string

	// Without an audit log: the old db-0's UID and when it was marked for
	// deletion, and what showed it.
	apiOldUID   string
	apiOldDel   time.Time
	apiOldDelBy string

	// scheduledOn maps a db-0's UID to the node named by a Scheduled event
	// that the audit log shows the scheduler wrote; forged lists the
	// Scheduled events that someone else wrote.
	scheduledOn map[string]string
	forged      []string

	// tokens are requests for a token of the pod GC's service account that
	// did not come from the controller manager.
	tokens []audit.Event
}

// byPodGC reports whether the pod garbage collector itself made the request:
// its identity, not impersonated, from the controller manager.
func byPodGC(e audit.Event) bool {
	return e.ByController(audit.PodGC) && e.FromControllerManager()
}

// byHand reports whether a person (or a script of theirs) made the request.
func byHand(e audit.Event) bool { return !e.FromControlPlane() }

// labelOnly reports whether a write was kubectl label or annotate, which
// cannot touch a taint: power.sh switches a node with kubectl label.
func labelOnly(e audit.Event) bool {
	u, err := url.Parse(e.URI)
	if err != nil {
		return false
	}
	switch u.Query().Get("fieldManager") {
	case "kubectl-label", "kubectl-annotate":
		return true
	}
	return false
}

func isWrite(e audit.Event) bool {
	return e.Verb == "patch" || e.Verb == "update"
}

// tell reconstructs the story from the record.
func tell(r record) *story {
	s := &story{r: r, withLog: r.Log != nil, scheduledOn: map[string]string{}}
	if s.withLog {
		s.readLives()
		s.readScheduled()
		s.readTokens()
	}
	s.findOff()
	if s.off != nil {
		s.readOff()
	}
	if s.withLog {
		s.pickOld()
	} else {
		s.pickOldFromAPI()
	}
	return s
}

// readLives splits the log's requests on db-0 into the pods that bore the name.
// They are taken in the order they arrived: the log is in the order they
// completed, and the scheduler often binds a new pod before the request that
// created it has had its answer. Arrival keeps cause before effect: a
// request on a pod arrives after the pod was stored, so after the request
// that created it arrived, and the StatefulSet asks for the next pod only
// once it saw the last one's removal stored.
func (s *story) readLives() {
	var reqs []audit.Event
	for _, e := range s.r.Log {
		if e.Namespace == Namespace && e.Resource == "pods" && e.OK() {
			reqs = append(reqs, e)
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Received.Before(reqs[j].Received) })
	for _, e := range reqs {
		var last *life
		if n := len(s.lives); n > 0 {
			last = s.lives[n-1]
		}
		switch {
		case e.Name == Pod && e.Is("create", "pods"):
			if last != nil {
				// The name is free again: the previous pod is gone.
				last.Gone = true
			}
			s.lives = append(s.lives, &life{Created: e})
		case last == nil:
		case e.Name == Pod && e.Is("create", "pods/binding") && last.Bound == nil:
			b := e
			last.Bound, last.UID = &b, e.UID
		case e.Name == Pod && e.Is("delete", "pods"), e.Name == "" && e.Is("deletecollection", "pods"):
			last.Deletes = append(last.Deletes, e)
		}
	}
	if n := len(s.lives); n > 0 {
		last := s.lives[n-1]
		last.Gone = s.r.Pod == nil || last.UID != "" && string(s.r.Pod.UID) != last.UID
	}
}

// readScheduled keeps the Scheduled events that the audit log shows the
// scheduler wrote and nobody else touched: what they say cannot be made by
// hand. The others are listed as forged.
func (s *story) readScheduled() {
	for _, ev := range s.r.Events {
		if ev.Reason != "Scheduled" || ev.InvolvedObject.Name != Pod {
			continue
		}
		_, node, _ := strings.Cut(ev.Message, " to ")
		var scheduler bool
		var other *audit.Event
		for _, e := range s.r.Log {
			if e.Resource != "events" || e.Namespace != ev.Namespace || e.Name != ev.Name || !e.OK() || e.Verb == "delete" {
				continue
			}
			if e.FromScheduler() {
				scheduler = true
			} else if other == nil {
				o := e
				other = &o
			}
		}
		switch {
		case other != nil:
			s.forged = append(s.forged, fmt.Sprintf("Scheduled event %s (db-0 uid %s to %s) was written by %s, not the scheduler: ignored", ev.Name, short(string(ev.InvolvedObject.UID)), node, other.Who()))
		case scheduler && node != "":
			s.scheduledOn[string(ev.InvolvedObject.UID)] = node
		}
	}
}

// readTokens finds tokens of the pod GC's service account asked for by anyone
// but the controller manager, which asks for its controllers' own.
func (s *story) readTokens() {
	_, sa, _ := strings.Cut(strings.TrimPrefix(audit.PodGC, "system:serviceaccount:"), ":")
	for _, e := range s.r.Log {
		if e.Is("create", "serviceaccounts/token") && e.Namespace == "kube-system" && e.Name == sa && e.OK() && !e.FromControllerManager() {
			s.tokens = append(s.tokens, e)
		}
	}
}

// findOff picks the node that was powered off: the node of a db-0 that is
// still Terminating (its spec.nodeName, which nothing can change once bound),
// else a pool node that is not Ready and is not where db-0 runs now,
// preferring one tainted out-of-service, then the one that went down last.
// The node side decides, so db-0 restarting any number of times later does
// not change the answer.
func (s *story) findOff() {
	pod := s.r.Pod
	nodes := append([]corev1.Node(nil), s.r.Nodes...)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	var best *corev1.Node
	for i := range nodes {
		n := &nodes[i]
		if pod != nil && pod.DeletionTimestamp != nil && pod.Spec.NodeName != "" {
			if n.Name == pod.Spec.NodeName {
				best = n
				break
			}
			continue
		}
		if nodeReady(n) {
			if hasTaint(n) && s.readyTainted == "" {
				s.readyTainted = n.Name
			}
			continue
		}
		if pod != nil && n.Name == pod.Spec.NodeName {
			continue
		}
		if best == nil || better(n, best) {
			best = n
		}
	}
	if best == nil {
		return
	}
	o := &offNode{Name: best.Name, Ready: nodeReady(best), OutOfService: hasTaint(best)}
	if c := readyCondition(best); c != nil {
		o.NotReady, o.Why = c.LastTransitionTime.Time, c.Message
	}
	for i, t := range best.Spec.Taints {
		if (t.Key != corev1.TaintNodeNotReady && t.Key != corev1.TaintNodeUnreachable) || t.TimeAdded == nil {
			continue
		}
		// The controller dates its taint when it adds it; one dated before
		// the node went NotReady was added for an earlier NotReady spell.
		mark := &o.Mark
		if t.TimeAdded.Time.Before(o.NotReady) {
			mark = &o.Leftover
		}
		if *mark == nil || t.TimeAdded.Before((*mark).TimeAdded) {
			*mark = &best.Spec.Taints[i]
		}
	}
	if !s.withLog {
		o.TaintAt, o.TaintBy = taintTime(best, s.r.Events, s.r.Start)
	}
	s.off = o
}

// better orders candidates for the powered-off node.
func better(a, b *corev1.Node) bool {
	if hasTaint(a) != hasTaint(b) {
		return hasTaint(a)
	}
	return transition(a).After(transition(b))
}

func transition(n *corev1.Node) time.Time {
	if c := readyCondition(n); c != nil {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// readOff reads the audit log's writes to the off node since db-0 was first
// created: the node lifecycle controller's first write after the node went
// NotReady, status written by hand, and the learner's first write that may
// have added the out-of-service taint.
func (s *story) readOff() {
	o := s.off
	from := s.r.Start
	if len(s.lives) > 0 {
		from = s.lives[0].Created.Time
	}
	for _, e := range s.r.Log {
		if e.Resource != "nodes" || e.Name != o.Name || !e.OK() || e.Time.Before(from) {
			continue
		}
		switch {
		case !isWrite(e):
		case e.Subresource == "status":
			if byHand(e) && o.HandStatus == nil {
				h := e
				o.HandStatus = &h
			}
		case e.Subresource != "":
		case e.ByController(audit.NodeController):
			// The write that added the mark arrived after the controller
			// dated it (timeAdded has whole seconds).
			if o.Saw == nil && o.Mark != nil && !e.Time.Before(o.NotReady) && !e.Received.Before(o.Mark.TimeAdded.Time) {
				w := e
				o.Saw = &w
			}
		case byHand(e) && !labelOnly(e) && o.TaintAt.IsZero():
			o.TaintAt, o.TaintBy = e.Time, "the audit log: "+e.String()
		}
	}
}

// pickOld finds the db-0 that was stuck on the off node: the one the pod GC
// removed; else the one Terminating when the out-of-service taint came; else
// the one Terminating now; else the last one deleted since the node went
// NotReady. A db-0 that the record places on another node is passed over
// while one that fits is found (the same namespace may have seen other
// nodes go down); if none fits, the first by those rules is kept, and the
// checks name where it ran. Then it finds where that pod ran.
func (s *story) pickOld() {
	rules := []func(*life, int) bool{
		func(l *life, _ int) bool { return l.removed() != nil && byPodGC(*l.removed()) },
		func(l *life, _ int) bool {
			return s.off != nil && !s.off.TaintAt.IsZero() && l.terminatingAt(s.off.TaintAt)
		},
		func(l *life, i int) bool { return i == len(s.lives)-1 && !l.Gone && l.deleted() != nil },
		func(l *life, _ int) bool {
			return s.off != nil && l.deleted() != nil && !l.deleted().Time.Before(s.off.NotReady)
		},
	}
	var first *life
	for _, rule := range rules {
		for i := len(s.lives) - 1; i >= 0 && s.old == nil; i-- {
			l := s.lives[i]
			if !rule(l, i) {
				continue
			}
			if first == nil {
				first = l
			}
			if node, _ := s.placed(l); s.off == nil || node == "" || node == s.off.Name {
				s.old = l
			}
		}
	}
	if s.old == nil {
		s.old = first
	}
	if s.old != nil {
		s.oldNode, s.oldNodeBy = s.placed(s.old)
	}
}

// placed says where a db-0 ran, as far as a record no hand can write shows
// it, and what shows it; "" when nothing does.
func (s *story) placed(l *life) (node, by string) {
	pod := s.r.Pod
	switch {
	case !l.Gone && pod != nil && pod.DeletionTimestamp != nil && string(pod.UID) == l.UID:
		return pod.Spec.NodeName, "its spec.nodeName"
	case s.scheduledOn[l.UID] != "":
		return s.scheduledOn[l.UID], "the scheduler's Scheduled event (its author checked in the audit log)"
	case s.off != nil && l.removed() != nil && byPodGC(*l.removed()):
		return s.off.Name, "the pod GC, which removes only pods of a NotReady node tainted out-of-service"
	}
	return "", ""
}

// pickOldFromAPI finds the old db-0 without an audit log: the pod itself while
// it is Terminating, else the taint eviction controller's event marking it for
// deletion. Events can be written by hand; without the log they are the best
// there is.
func (s *story) pickOldFromAPI() {
	if pod := s.r.Pod; pod != nil && pod.DeletionTimestamp != nil {
		s.apiOldUID = string(pod.UID)
		s.apiOldDel = pod.DeletionTimestamp.Time
		if g := pod.DeletionGracePeriodSeconds; g != nil {
			s.apiOldDel = s.apiOldDel.Add(-time.Duration(*g) * time.Second)
		}
		s.apiOldDelBy = "db-0's deletionTimestamp less its grace period"
		if s.off != nil {
			s.oldNode, s.oldNodeBy = pod.Spec.NodeName, "its spec.nodeName"
		}
		return
	}
	for _, ev := range s.r.Events {
		if !markedForDeletion(ev, s.r.Start) || s.r.Pod != nil && ev.InvolvedObject.UID == s.r.Pod.UID {
			continue
		}
		if at := ev.CreationTimestamp.Time; s.apiOldDel.IsZero() || at.After(s.apiOldDel) {
			s.apiOldUID, s.apiOldDel = string(ev.InvolvedObject.UID), at
			s.apiOldDelBy = "the creation of the taint eviction controller's event " + ev.Name
		}
	}
}

// markedForDeletion reports whether ev is the taint eviction controller's
// event marking db-0 for deletion, made since start. The controller's event
// cache outlives the namespace: an event for a pod of the same name gets its
// old firstTimestamp and count back, so only the server-set
// creationTimestamp dates the first marking in this run of the lab.
func markedForDeletion(ev corev1.Event, start time.Time) bool {
	return ev.Reason == "TaintManagerEviction" && strings.HasPrefix(ev.Message, "Marking for deletion") &&
		(ev.Source.Component == "taint-eviction-controller" || ev.ReportingController == "taint-eviction-controller") &&
		!ev.CreationTimestamp.Time.Before(start)
}

// source is the evidence line that says what the story was read from.
func (s *story) source() string {
	if s.withLog {
		return fmt.Sprintf("audit log: %d requests since the lab began at %s", len(s.r.Log), clock(s.r.Start))
	}
	return fmt.Sprintf("no audit log (%s): judged from the API server alone", strings.TrimSuffix(s.r.NoAudit, "."))
}

// offMissing is the failure when no node of the pool is off.
func (s *story) offMissing() string {
	if s.readyTainted != "" {
		return fmt.Sprintf("%s carries the out-of-service taint but is Ready: no node of the pool was powered off", s.readyTainted)
	}
	if s.r.Pod != nil && s.r.Pod.Spec.NodeName != "" {
		n := s.r.Pod.Spec.NodeName
		return fmt.Sprintf("no node of the shutdown pool is NotReady: power off %s, where db-0 runs (lab/scripts/power.sh off %s)", n, n)
	}
	return "no node of the shutdown pool is NotReady: power off the node db-0 runs on (lab/scripts/power.sh off NODE)"
}

// seeOff adds the evidence about the off node.
func (s *story) seeOff(r *labcheck.Result) {
	o := s.off
	r.Seen("powered-off node %s: Ready=%v, changed at %s (%s)", o.Name, o.Ready, clock(o.NotReady), o.Why)
	if o.Mark != nil && o.Mark.TimeAdded != nil {
		r.Seen("the node lifecycle controller's taint %s:%s on %s, added at %s", o.Mark.Key, o.Mark.Effect, o.Name, clock(o.Mark.TimeAdded.Time))
	}
	if o.Saw != nil {
		r.Seen("its write: %s", o.Saw)
	}
	if t := o.Leftover; t != nil {
		r.Seen("a taint %s:%s on %s left from before, added at %s, before the node went NotReady", t.Key, t.Effect, o.Name, clock(t.TimeAdded.Time))
	}
}

// seeLives adds the evidence of each db-0's life.
func (s *story) seeLives(r *labcheck.Result) {
	for _, l := range s.lives {
		line := fmt.Sprintf("db-0 uid %s created %s", orNone(short(l.UID)), clock(l.Created.Time))
		if l.Bound != nil {
			line += ", bound by " + l.Bound.Who()
		}
		if d := l.deleted(); d != nil {
			line += fmt.Sprintf(", deleted %s by %s", clock(d.Time), d.Who())
		}
		if e := l.removed(); e != nil && len(l.Deletes) > 1 {
			line += fmt.Sprintf(", removed %s by %s", clock(e.Time), e.Who())
		}
		if !l.Gone {
			line += ", exists"
		}
		r.Seen("%s", line)
	}
	for _, f := range s.forged {
		r.Seen("%s", f)
	}
	if s.old != nil && s.oldNode != "" {
		r.Seen("db-0 uid %s ran on %s, as %s shows", orNone(short(s.old.UID)), s.oldNode, s.oldNodeBy)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(never bound)"
	}
	return s
}

// taintTime says when the out-of-service taint arrived. A taint added with
// kubectl has no timeAdded; the API server's managedFields record when a
// manager other than the controllers last wrote the node's taints. When the
// controllers took over the list since, the taint eviction controller's event
// (it marks the pods again when a new NoExecute taint arrives, and then
// updates lastTimestamp) is the fallback.
func taintTime(node *corev1.Node, events []corev1.Event, start time.Time) (time.Time, string) {
	for _, t := range node.Spec.Taints {
		if t.Key == OutOfService && t.TimeAdded != nil {
			return t.TimeAdded.Time, "the taint's timeAdded"
		}
	}
	var at time.Time
	var who string
	for _, m := range node.ManagedFields {
		if m.Manager == "kube-controller-manager" || m.Subresource != "" || m.FieldsV1 == nil || m.Time == nil {
			continue
		}
		if strings.Contains(string(m.FieldsV1.Raw), `"f:taints"`) && m.Time.After(at) {
			at, who = m.Time.Time, m.Manager
		}
	}
	if !at.IsZero() {
		return at, "managedFields of " + who
	}
	for _, e := range events {
		if markedForDeletion(e, start) && e.LastTimestamp.After(e.CreationTimestamp.Time) && e.LastTimestamp.After(at) {
			at = e.LastTimestamp.Time
		}
	}
	if !at.IsZero() {
		return at, "the taint eviction controller's last TaintManagerEviction event"
	}
	return time.Time{}, ""
}

func hasTaint(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == OutOfService {
			return true
		}
	}
	return false
}

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

func nodeReady(node *corev1.Node) bool {
	c := readyCondition(node)
	return c != nil && c.Status == corev1.ConditionTrue
}

func podReady(pod *corev1.Pod) bool { return kubeio.PodReady(pod) }
