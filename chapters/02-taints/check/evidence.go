package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// A lab is what every check knows of the lab before it looks at objects:
// when it began, the audit log since then, and the API server's clock.
type lab struct {
	start time.Time // namespace taints-lab's creationTimestamp
	now   time.Time // the API server's clock when the check read it
	// log holds the requests on the lab's namespace and nodes since start,
	// in the order they completed; hasLog is false when there is no log to
	// read, and noLog then says why.
	log    []audit.Event
	hasLog bool
	noLog  string
	advice string // what to do about it (labcheck.Cluster.AuditAdvice)
}

// withoutLog is the first line of evidence of a check that judged from the
// API alone: why, and what it read instead.
func (l lab) withoutLog(instead string) string {
	return fmt.Sprintf("no audit log (%s): judged from %s, which anyone allowed to write them could have written too; %s", strings.TrimSuffix(l.noLog, "."), instead, cmpOr(l.advice, "name the audit log with labcheck --audit-log FILE to judge from it"))
}

// labEvents keeps, of an audit log's requests since start, those on the
// lab's namespace and on the taints pool's nodes.
func labEvents(log *audit.Log, start time.Time) []audit.Event {
	return slices.DeleteFunc(log.Window(start), func(e audit.Event) bool {
		onNode := e.Resource == "nodes" && strings.HasPrefix(e.Name, "taints-")
		return e.Namespace != Namespace && !onNode
	})
}

// The programs of the control plane, as they name themselves in a user
// agent and in managedFields. Who sent a request is told by the audit
// package (audit.Event's From* methods), which says why a user agent must
// do where the lab's components act as the admin.
const (
	controllerAgent = "kube-controller-manager"
	schedulerAgent  = "kube-scheduler"
)

// byTaintEviction reports whether a request came from the taint eviction
// controller: its service account, its program, and no impersonation.
func byTaintEviction(e audit.Event) bool {
	return e.ByController(audit.TaintEviction) && e.FromControllerManager()
}

// byScheduler reports whether a request came from kube-scheduler.
func byScheduler(e audit.Event) bool { return e.FromScheduler() }

// byPerson reports whether a request came from someone at a kubectl (or any
// other client) rather than from the control plane or kwok under their own
// names. A request made with --as is a person's, whoever it names.
func byPerson(e audit.Event) bool { return !e.FromControlPlane() }

// isWrite reports whether a request changed an object itself (not a
// subresource such as status).
func isWrite(e audit.Event) bool {
	return (e.Verb == "patch" || e.Verb == "update") && e.Subresource == "" && e.OK()
}

// changesPod reports whether a request changed a pod in a way its maker
// and the control plane's own work do not: a granted patch or update of
// the pod or of any of its subresources by anyone but a controller under
// its own name, or the node agent or the scheduler writing the pod's
// status. pods/status counts: its strategy keeps the labels and
// annotations the client sent (pkg/registry/core/pod/strategy.go,
// podStatusStrategy.PrepareForUpdate resets the spec only), so a status
// write can give a pod another controller-revision-hash. A node agent
// writes a pod's status and finishes its deletion, never its spec or
// labels: its write of the pod itself is a change too.
func changesPod(e audit.Event) bool {
	if e.Verb != "patch" && e.Verb != "update" || !e.OK() {
		return false
	}
	switch {
	case e.FromControllerManager():
		return false
	case e.Subresource == "status" && (e.FromNodeAgent() || e.FromScheduler()):
		return false
	}
	return true
}

// A life is what the audit log says of the pod that now has a name: its
// last creation, and what happened to it after that.
type life struct {
	name    string
	created *audit.Event  // the last granted create of the name
	bound   *audit.Event  // the first granted binding after it
	deleted *audit.Event  // the first granted delete after it
	status  *audit.Event  // the taint eviction controller's first status write after it (DisruptionTarget)
	edits   []audit.Event // changes to the pod after it (changesPod) before its deletion
}

// lifeOf reads the life of the pod named name from the lab's requests. The
// log is in the order the responses were complete, and a busy API server
// can complete a create's response after the scheduler has bound the pod
// the create stored: what came after the create is every request received
// after it.
func lifeOf(log []audit.Event, name string) life {
	l := life{name: name}
	ofName := func(e *audit.Event) bool {
		return e.Namespace == Namespace && e.Resource == "pods" && e.Name == name && e.OK()
	}
	for i := range log {
		if e := &log[i]; ofName(e) && e.Is("create", "pods") {
			l.created = e
		}
	}
	if l.created == nil {
		return l
	}
	for i := range log {
		e := &log[i]
		if !ofName(e) || e == l.created || e.Received.Before(l.created.Received) {
			continue
		}
		switch {
		case e.Is("create", "pods/binding") && l.bound == nil:
			l.bound = e
		case e.Is("delete", "pods") && l.deleted == nil:
			l.deleted = e
		case e.Subresource == "status" && byTaintEviction(*e) && l.status == nil:
			l.status = e
		case changesPod(*e) && l.deleted == nil:
			l.edits = append(l.edits, *e)
		}
	}
	return l
}

// madeByReplicaSet says why the audit log does not show that the
// ReplicaSet controller made pod p, or "" when it does. The controller
// names its pods by generateName, so the log, which keeps no bodies of
// creates, records its create with no name: the create is the one in the
// second the server stamped on the pod, and nobody else may have created a
// pod of that name, or one with a generated name, in that second.
func madeByReplicaSet(l lab, p *corev1.Pod, r *labcheck.Result) string {
	made := p.CreationTimestamp.Time
	var found *audit.Event
	for i := range l.log {
		e := &l.log[i]
		if !e.Is("create", "pods") || e.Namespace != Namespace || !e.OK() || (e.Name != "" && e.Name != p.Name) {
			continue
		}
		// The stamp is in whole seconds; allow one more either side.
		if e.Received.Before(made.Add(-time.Second)) || e.Received.After(made.Add(2*time.Second)) {
			continue
		}
		if !e.ByController(audit.ReplicaSetController) {
			return fmt.Sprintf("%s was made at %s, when %s also created a pod (%s): only the ReplicaSet controller's own pods count", p.Name, hms(made), e.Who(), e.String())
		}
		found = e
	}
	if found == nil {
		return fmt.Sprintf("the audit log has no create by the ReplicaSet controller at %s, when %s was made, in this run of the lab", hms(made), p.Name)
	}
	r.Seen("%s (the create of %s, made at %s)", found.String(), p.Name, hms(made))
	return ""
}

// editsOf returns the changes to the pod named name (changesPod) before
// its first deletion, whoever made it.
func editsOf(log []audit.Event, name string) []audit.Event {
	var out []audit.Event
	for _, e := range log {
		if e.Namespace != Namespace || e.Resource != "pods" || e.Name != name || !e.OK() {
			continue
		}
		if e.Is("delete", "pods") {
			break
		}
		if changesPod(e) {
			out = append(out, e)
		}
	}
	return out
}

// boundOf returns the last granted binding of the pod named name.
func boundOf(log []audit.Event, name string) *audit.Event {
	var out *audit.Event
	for i := range log {
		if e := &log[i]; e.Namespace == Namespace && e.Name == name && e.Is("create", "pods/binding") && e.OK() {
			out = e
		}
	}
	return out
}

// placed says how the pod came to its node: ok when the scheduler bound it,
// else a sentence that says what happened instead.
func (l life) placed() (bool, string) {
	switch {
	case l.created == nil:
		return false, fmt.Sprintf("%s was never created in this run of the lab (the audit log has no create of it since %s was made)", l.name, Namespace)
	case l.bound == nil:
		return false, fmt.Sprintf("%s was placed by hand: nobody bound it to a node (created with spec.nodeName), so the scheduler never judged it against the taints", l.name)
	case !byScheduler(*l.bound):
		return false, fmt.Sprintf("%s was bound to its node by %s, not by the scheduler, so nobody judged it against the taints", l.name, l.bound.Who())
	}
	return true, ""
}

// nodeWrites returns a person's granted changes to a node, in order.
func nodeWrites(log []audit.Event, node string) []audit.Event {
	var out []audit.Event
	for _, e := range log {
		if e.Resource == "nodes" && e.Name == node && isWrite(e) && byPerson(e) {
			out = append(out, e)
		}
	}
	return out
}

// lastBefore returns the last of events received before t.
func lastBefore(events []audit.Event, t time.Time) (audit.Event, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Received.Before(t) {
			return events[i], true
		}
	}
	return audit.Event{}, false
}

// writesOf returns the granted writes of an Event object (either API group)
// in the lab's namespace.
func writesOf(log []audit.Event, name string) []audit.Event {
	var out []audit.Event
	for _, e := range log {
		if e.Resource == "events" && e.Namespace == Namespace && e.Name == name && e.OK() &&
			(e.Verb == "create" || e.Verb == "patch" || e.Verb == "update") {
			out = append(out, e)
		}
	}
	return out
}

// The components that write the events the checks read, and the managers
// the API server records for their writes (their programs' names).
const (
	taintEvictionName = "taint-eviction-controller"
	schedulerName     = "default-scheduler"
	markMessage       = "Marking for deletion Pod "
	cancelMessage     = "Cancelling deletion of Pod "
	scheduledReason   = "Scheduled"
)

// A record is an Event object as the checks weigh it: counted when the
// component it names wrote it, and dated by the API server, not by the
// event's own fields.
type record struct {
	ev      corev1.Event
	at      time.Time // when the API server last stored it
	counted bool
	why     string // why it is not counted
}

// eventWriter says who may write an event that names a component: the
// request's test when the log is there, the manager without it.
type eventWriter struct {
	component string
	byLog     func(audit.Event) bool
	manager   string
}

var (
	taintEvictionWriter = eventWriter{taintEvictionName, byTaintEviction, controllerAgent}
	schedulerWriter     = eventWriter{schedulerName, byScheduler, schedulerAgent}
)

// weigh decides whether an event counts: it names the component, the
// component wrote it (the audit log's writes of it, or without the log the
// managers the server recorded), and none of its dates is later than the
// server's clock or than the server's own record of the write.
func weigh(ev corev1.Event, w eventWriter, l lab) record {
	r := record{ev: ev, at: ev.CreationTimestamp.Time}
	for _, m := range ev.ManagedFields {
		if m.Time != nil && m.Time.After(r.at) {
			r.at = m.Time.Time
		}
	}
	if ev.Source.Component != w.component && ev.ReportingController != w.component {
		r.why = fmt.Sprintf("it names %q, not %s", cmpOr(ev.ReportingController, ev.Source.Component), w.component)
		return r
	}
	if l.hasLog {
		writes := writesOf(l.log, ev.Name)
		if len(writes) == 0 {
			r.why = "the audit log has no write of it in this run of the lab"
			return r
		}
		for _, e := range writes {
			if !w.byLog(e) {
				r.why = fmt.Sprintf("it was written by %s, not by %s", e.Who(), w.component)
				return r
			}
		}
		r.at = writes[len(writes)-1].Time
	} else {
		if len(ev.ManagedFields) == 0 {
			r.why = "the server kept no record of who wrote it (managedFields)"
			return r
		}
		for _, m := range ev.ManagedFields {
			if m.Manager != w.manager {
				r.why = fmt.Sprintf("it was written by %s, not by %s", m.Manager, w.manager)
				return r
			}
		}
	}
	// The server stamps its records in whole seconds: allow the second
	// that truncation takes off, and one more for the clock's own reading.
	limit := r.at.Add(2 * time.Second)
	if l.now.Add(2 * time.Second).Before(limit) {
		limit = l.now.Add(2 * time.Second)
	}
	for _, d := range eventDates(ev) {
		if d.After(limit) {
			r.why = fmt.Sprintf("it is dated %s, later than the server's clock or its own record of the write (%s)", hms(d), hms(r.at))
			return r
		}
	}
	if r.at.Before(l.start) {
		r.why = fmt.Sprintf("it was stored at %s, before this run of the lab began (%s)", hms(r.at), hms(l.start))
		return r
	}
	r.counted = true
	return r
}

// eventDates returns the dates an event's writer set itself.
func eventDates(ev corev1.Event) []time.Time {
	var out []time.Time
	for _, t := range []time.Time{ev.FirstTimestamp.Time, ev.LastTimestamp.Time, ev.EventTime.Time} {
		if !t.IsZero() {
			out = append(out, t)
		}
	}
	if ev.Series != nil && !ev.Series.LastObservedTime.IsZero() {
		out = append(out, ev.Series.LastObservedTime.Time)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// describe says what an event of the taint eviction controller means, for
// evidence: a deletion, or a deletion called off because the taint went.
func (r record) describe() string {
	var what string
	switch {
	case strings.HasPrefix(r.ev.Message, markMessage):
		what = "the taint eviction controller marked " + r.ev.InvolvedObject.Name + " for deletion"
	case strings.HasPrefix(r.ev.Message, cancelMessage):
		what = "the taint eviction controller cancelled the deletion of " + r.ev.InvolvedObject.Name + " (the taint went before its time was up)"
	default:
		what = fmt.Sprintf("%s %q", r.ev.Reason, r.ev.Message)
	}
	if r.counted {
		return fmt.Sprintf("event %s at %s: %s", r.ev.Name, hms(r.at), what)
	}
	return fmt.Sprintf("event %s (%q) not counted: %s", r.ev.Name, r.ev.Message, r.why)
}

// owners returns the managers that own a field of an object, by a path of
// managedFields keys such as "f:spec", "f:tolerations".
func owners(fields []metav1.ManagedFieldsEntry, path ...string) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, m := range fields {
		if m.FieldsV1 == nil {
			continue
		}
		var f map[string]json.RawMessage
		if json.Unmarshal(m.FieldsV1.Raw, &f) != nil {
			continue
		}
		found := true
		for i, key := range path {
			raw, ok := f[key]
			if !ok {
				found = false
				break
			}
			if i < len(path)-1 {
				f = nil
				if json.Unmarshal(raw, &f) != nil {
					found = false
					break
				}
			}
		}
		if found {
			out = append(out, m)
		}
	}
	return out
}

// taintsWritten returns when the API server last recorded a change to the
// node's list of taints, and who made it. The list is atomic, so one
// managedFields entry owns it: the last writer. kubectl taint sets no
// timeAdded, which is why the checks do not rely on it.
func taintsWritten(n *corev1.Node) (time.Time, string, bool) {
	for _, m := range owners(n.ManagedFields, "f:spec", "f:taints") {
		if m.Time != nil {
			return m.Time.Time, m.Manager, true
		}
	}
	return time.Time{}, "", false
}

// placedByHand says, from a pod's managedFields, whether a client wrote its
// spec.nodeName: a pod the scheduler bound has no owner of that field, since
// the binding subresource records none.
func placedByHand(p *corev1.Pod) (string, bool) {
	for _, m := range owners(p.ManagedFields, "f:spec", "f:nodeName") {
		return m.Manager, true
	}
	return "", false
}
