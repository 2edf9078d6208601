package check

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opslab/opslab/labcheck/audit"
)

// labFloor is the fewest Ready ledger pods a drain may leave: the floor of
// lab/budget.yaml, and the least the first check accepts of any budget.
// A drain that keeps to the budget, whatever floor of 3 or more it has,
// never goes below it.
const labFloor = 3

// A ledgerPod is a ledger pod as the API server shows it now.
type ledgerPod struct {
	Name     string
	Node     string
	Created  time.Time // creationTimestamp, set by the server (whole seconds)
	ReadyAt  time.Time // when its Ready condition turned True; zero while not Ready
	Deleting bool      // it has a deletionTimestamp
	Owner    string    // the kind of its controller, "" for none
	// StatusBy names the field managers of its status (managedFields): the
	// node's agent, kwok-controller in the lab, or whoever else wrote it.
	StatusBy []string
}

func (p ledgerPod) ready() bool { return !p.ReadyAt.IsZero() }

// A removal is a ledger pod going away, and the request that made it go: an
// eviction or a delete, or a change that took the pod out of its budget's
// selector, after which no budget protects it, whatever removes it.
type removal struct {
	Pod string
	At  time.Time
	By  *audit.Event // nil when no request in the log removed it
	// Left is set when By changed the pod and left it outside the
	// budget's selector; Unsure, when the log keeps nothing of the change
	// but that a person made it.
	Left, Unsure bool
}

// evicted reports whether the pod went through the eviction API at a
// person's request: the only way a removal is weighed against the budget.
func (r removal) evicted() bool {
	return r.By != nil && r.By.Is("create", "pods/eviction") && !controlPlane(r.By.Actor())
}

// how says in a few words how the pod went: "evicted by kwok-admin
// (kubectl)", "deleted by system:serviceaccount:kube-system:replicaset-
// controller (kube-controller-manager)".
func (r removal) how() string {
	switch {
	case r.By == nil:
		return "removed with no request in the audit log"
	case r.Unsure:
		return "changed by " + r.By.Who() + " (" + r.By.Verb + " " + resource(*r.By) + "), which may have taken it out of the budget's selector: the log keeps nothing of the change"
	case r.Left:
		return "taken out of the budget's selector by " + r.By.Who()
	case r.By.Is("create", "pods/eviction"):
		return "evicted by " + r.By.Who()
	case r.By.Verb == "deletecollection":
		return "deleted with every pod of the namespace by " + r.By.Who()
	}
	return "deleted by " + r.By.Who()
}

func (r removal) String() string {
	return fmt.Sprintf("%s %s %s", clock(r.At), r.Pod, r.how())
}

// A story is what the checks know of the drain of pdb-3: the ledger pods now,
// and, from the audit log, what happened to them and their budget since
// the node was cordoned.
type story struct {
	Start    time.Time   // the lab namespace's creation: the lab run began
	Cordoned time.Time   // when pdb-3 was cordoned: the drain began
	Pods     []ledgerPod // the ledger pods now

	// Audit tells whether the rest was read from the audit log; without
	// one, NoAudit says why, and the checks judge from the API alone.
	Audit   bool
	NoAudit string
	// Advice says what to do about NoAudit (labcheck.Cluster.AuditAdvice).
	Advice string

	Removals []removal            // ledger pods that went away since Cordoned, in order
	Seen     map[string]time.Time // every ledger pod of the run: when the log first names it
	Refused  []audit.Event        // a person's evictions of ledger pods refused (429) since Cordoned
	Created  []audit.Event        // ledger's pods (and unnamed ones) created since Cordoned
	Status   []audit.Event        // ledger pods' status written since Cordoned by someone other than their node
	// Readied is, for each ledger pod, when its node's agent wrote its
	// status, to the microsecond, in order (readyTime).
	Readied map[string][]time.Time
	Tokens  []audit.Event // tokens a person minted for the replicaset controller since Start
	Budgets []audit.Event // budgets of the namespace created, changed or deleted since Start
}

// controlPlane reports whether actor is one of the control plane's own
// identities: a controller's service account, a component, a node.
func controlPlane(actor string) bool {
	for _, p := range []string{"system:serviceaccount:kube-system:", "system:kube-", "system:node:", "system:apiserver"} {
		if strings.HasPrefix(actor, p) {
			return true
		}
	}
	return false
}

// isLedger reports whether a pod name is one of ledger's: the Deployment's pods
// are named ledger-<template hash>-<suffix>.
func isLedger(name string) bool { return strings.HasPrefix(name, App+"-") }

// stored reports whether the server granted a request and kept its effect.
// A dry run is not stored, named in the query or in the body, which the lab's
// policy keeps for evictions (lab/audit-policy.yaml); an eviction logged
// without its body (another policy) may be a dry run that looks stored, see
// bodiless.
func stored(e audit.Event) bool { return e.OK() }

// bodiless reports whether an eviction was logged without its body, so
// that a dry run named there cannot be told from a real eviction.
func bodiless(e audit.Event) bool { return e.Is("create", "pods/eviction") && e.Request == nil }

// resource is "pods" or "pods/status".
func resource(e audit.Event) string {
	if e.Subresource == "" {
		return e.Resource
	}
	return e.Resource + "/" + e.Subresource
}

// ledgerSelected is the lab's budget selector, app=ledger: what protects a ledger
// pod when no budget selects one.
func ledgerSelected(labels map[string]string) bool { return labels["app"] == App }

// leaves reports whether a stored change to a pod left it outside the
// budget's selector (protects): read from the pod the server answered
// with, where the policy keeps it (lab/audit-policy.yaml keeps it for
// changes to a pod, not its status). A person's change whose result the
// log does not keep may have relabelled the pod: it counts as leaving,
// unsure. A change by the control plane under its own name (the
// replicaset controller letting a pod go or taking it, the node's agent
// writing its status) follows the labels and does not write them.
func leaves(e audit.Event, protects func(map[string]string) bool) (left, unsure bool) {
	if e.Resource != "pods" || (e.Subresource != "" && e.Subresource != "status") || (e.Verb != "patch" && e.Verb != "update") {
		return false, false
	}
	if e.Response != nil {
		var pod struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if json.Unmarshal(e.Response, &pod) == nil {
			return !protects(pod.Metadata.Labels), false
		}
	}
	if e.FromControlPlane() {
		return false, false
	}
	return true, true
}

// tell reads the story of the lab run from the audit log's events since
// start (a Log.Since), for the namespace ns whose pods are ledger's, with
// pdb-3 cordoned at cordoned; protects says whether a pod's labels put it
// under ledger's budget.
func tell(events []audit.Event, ns string, start, cordoned time.Time, pods []ledgerPod, protects func(map[string]string) bool) story {
	s := story{Start: start, Cordoned: cordoned, Pods: pods, Audit: true, Seen: map[string]time.Time{}}
	now := map[string]ledgerPod{}
	for _, p := range pods {
		now[p.Name] = p
	}
	var mine []audit.Event // requests about pods of ns
	for _, e := range events {
		switch {
		case e.Is("create", "serviceaccounts/token") && e.Namespace == "kube-system" && e.Name == "replicaset-controller" &&
			!e.FromControlPlane() && e.OK():
			s.Tokens = append(s.Tokens, e)
		case e.Group == "policy" && e.Resource == "poddisruptionbudgets" && e.Subresource == "" && e.Namespace == ns &&
			e.Verb != "get" && e.Verb != "list" && e.Verb != "watch" && stored(e):
			s.Budgets = append(s.Budgets, e)
		case e.Group == "" && e.Resource == "pods" && e.Namespace == ns:
			mine = append(mine, e)
		}
	}
	// A pod belongs to this run when the log shows it being made, bound or
	// run: a pod of an earlier run of the lab is only seen going.
	s.Readied = map[string][]time.Time{}
	for _, e := range mine {
		if !isLedger(e.Name) || !stored(e) {
			continue
		}
		if e.Is("create", "pods") || e.Is("create", "pods/binding") || e.Subresource == "status" {
			if _, ok := s.Seen[e.Name]; !ok {
				s.Seen[e.Name] = e.Time
			}
		}
		if e.Subresource == "status" && e.FromNodeAgent() {
			s.Readied[e.Name] = append(s.Readied[e.Name], e.Time)
		}
	}
	for name, first := range s.Seen {
		if p, ok := now[name]; ok && !p.Deleting {
			continue
		}
		r := removal{Pod: name}
		// The request that removed a pod from its budget's protection is
		// the first stored one that took it out of the budget's selector,
		// evicted it or deleted it: once the pod is going, a later
		// eviction is allowed without asking its budget, and changes
		// nothing. An eviction logged without its body may have been a dry
		// run; a request that removes the pod after it, before its node's
		// agent finishes it, is the removal then.
		var maybe *audit.Event
	requests:
		for i, e := range mine {
			all := e.Verb == "deletecollection" && e.Subresource == ""
			if e.Time.Before(first) || !stored(e) || (e.Name != name && !all) {
				continue
			}
			left, unsure := leaves(e, protects)
			switch {
			case e.Is("delete", "pods") && e.FromNodeAgent():
				r.By = cmp.Or(maybe, &mine[i])
				break requests
			case left:
				r.By, r.Left, r.Unsure = &mine[i], true, unsure
				break requests
			case bodiless(e):
				maybe = &mine[i]
			case e.Is("create", "pods/eviction") || e.Is("delete", "pods") || all:
				r.By = &mine[i]
				break requests
			}
		}
		if r.By == nil {
			r.By = maybe
		}
		if r.By != nil {
			r.At = r.By.Time
		}
		if r.By == nil || !r.At.Before(cordoned) {
			s.Removals = append(s.Removals, r)
		}
	}
	slices.SortFunc(s.Removals, func(a, b removal) int { return a.At.Compare(b.At) })
	for _, e := range mine {
		if e.Time.Before(cordoned) {
			continue
		}
		switch {
		case e.Is("create", "pods/eviction") && e.Code == 429 && !e.DryRun && isLedger(e.Name) && !controlPlane(e.Actor()):
			s.Refused = append(s.Refused, e)
		case e.Is("create", "pods") && stored(e) && (e.Name == "" || isLedger(e.Name)):
			// A pod named at its creation is ledger's only by its name; one
			// made from a generateName is named in the log only later.
			s.Created = append(s.Created, e)
		case e.Subresource == "status" && isLedger(e.Name) && stored(e) && !e.FromNodeAgent() && !e.FromControlPlane():
			s.Status = append(s.Status, e)
		}
	}
	return s
}

// A verdict is a judge's answer: whether the behaviour was there, one
// sentence that says so or names what is missing, the evidence it read,
// and the hint for a failure that needs a particular step.
type verdict struct {
	ok       bool
	msg      string
	evidence []string
	hint     string
}

// The hints of failures that need one of their own.
const (
	hintAudit   = "Run labcheck on the machine that runs the lab cluster (it finds the audit log by the context), or name the log with --audit-log FILE."
	hintRestart = "The audit log keeps what happened. Start again: kubectl delete namespace pdb-lab; kubectl uncordon pdb-1 pdb-2 pdb-3; then follow the steps, draining with the budget in place."
	hintDrain   = "Drain pdb-3 with the budget in place (steps 4 and 5); where the drain stalls, give ledger a fifth replica, and leave the budget as it is."
)

// drainBegan returns when the first ledger pod left after pdb-3 was cordoned:
// from the audit log, its removal; from the API alone, the creation of the
// first ledger pod made since (a replacement follows its removal at once).
func (s story) drainBegan() (time.Time, bool) {
	if s.Audit {
		for _, r := range s.Removals {
			if !r.At.IsZero() {
				return r.At, true
			}
		}
		return time.Time{}, false
	}
	var first time.Time
	for _, p := range s.Pods {
		if !p.Created.Before(s.Cordoned) && (first.IsZero() || p.Created.Before(first)) {
			first = p.Created
		}
	}
	return first, !first.IsZero()
}

// judgeRoute judges whether the ledger pods left pdb-3 through the eviction
// API, each at a person's request: the claim of pdb-node-drained beyond
// the node's final state.
func judgeRoute(s story) verdict {
	if !s.Audit {
		return verdict{
			msg:      "an eviction cannot be told from a delete without the API server's audit log",
			evidence: []string{"no audit log (" + s.NoAudit + "): the API keeps no trace of how a pod went"},
			hint:     cmp.Or(s.Advice, hintAudit),
		}
	}
	v := verdict{evidence: []string{fmt.Sprintf("ledger pods gone since pdb-3 was cordoned at %s (audit log): %d", clock(s.Cordoned), len(s.Removals))}}
	for _, r := range s.Removals {
		v.evidence = append(v.evidence, r.String())
	}
	if len(s.Removals) == 0 {
		v.msg = fmt.Sprintf("no ledger pod has left since pdb-3 was cordoned at %s: the node was cordoned, not drained", clock(s.Cordoned))
		v.hint = hintDrain
		return v
	}
	var bad []removal
	for _, r := range s.Removals {
		if !r.evicted() {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		r := bad[0]
		v.msg = fmt.Sprintf("%s left at %s, %s, not evicted: only the eviction API weighs a removal against the budget", r.Pod, clock(r.At), r.how())
		switch {
		case r.Left:
			v.msg = fmt.Sprintf("%s left the budget's protection at %s, %s, not evicted: a pod no budget selects is evicted without asking one", r.Pod, clock(r.At), r.how())
		case r.By != nil && r.By.Is("create", "pods/eviction"):
			v.msg = fmt.Sprintf("%s was evicted at %s in a controller's name (%s): the drain must be your own request", r.Pod, clock(r.At), r.By.Who())
		}
		if len(bad) > 1 {
			v.msg += fmt.Sprintf(" (and %d more pods)", len(bad)-1)
		}
		v.hint = hintRestart
		return v
	}
	v.ok = true
	v.msg = fmt.Sprintf("the %d ledger pods that left after pdb-3 was cordoned were all evicted through the eviction API", len(s.Removals))
	return v
}

// judgeRefusals judges whether the budget made the drain wait: some
// eviction was refused with 429 after pdb-3 was cordoned, and the refused
// pod was evicted later, once the floor left room. A refusal changes
// nothing, so a refused dry run sent with kubectl (which names the dry run
// in the body, which the log does not keep) counts as well; the eviction
// that follows it must be a real one.
func judgeRefusals(s story) verdict {
	if !s.Audit {
		return verdict{
			msg:      "a refused eviction leaves no trace in the API, only in the API server's audit log",
			evidence: []string{"no audit log (" + s.NoAudit + "): refusals cannot be seen"},
			hint:     cmp.Or(s.Advice, hintAudit),
		}
	}
	refused := map[string][]time.Time{}
	for _, e := range s.Refused {
		refused[e.Name] = append(refused[e.Name], e.Time)
	}
	v := verdict{evidence: []string{fmt.Sprintf("evictions of ledger pods refused with 429 since pdb-3 was cordoned at %s (audit log): %d", clock(s.Cordoned), len(s.Refused))}}
	waited := 0
	for _, r := range s.Removals {
		times := refused[r.Pod]
		if len(times) == 0 {
			continue
		}
		line := fmt.Sprintf("%s refused %d times from %s to %s, then ", r.Pod, len(times), clock(times[0]), clock(times[len(times)-1]))
		if r.evicted() && times[0].Before(r.At) {
			line += "evicted at " + clock(r.At)
			waited++
		} else {
			line += r.how()
		}
		v.evidence = append(v.evidence, line)
	}
	switch {
	case len(s.Refused) == 0:
		v.msg = fmt.Sprintf("no eviction of a ledger pod was refused since pdb-3 was cordoned at %s: the drain never waited at the floor", clock(s.Cordoned))
	case waited == 0:
		v.msg = "evictions were refused, but no refused pod was evicted later: the drain never went on once the floor left room"
	default:
		v.ok = true
		v.msg = fmt.Sprintf("%d ledger pods were refused at the floor and evicted once there was room", waited)
	}
	return v
}

// judgeFloor judges whether the drain kept ledger at its floor: right after
// each ledger pod left, at least labFloor ledger pods were Ready, because each
// replacement, made by the replicaset controller, was Ready before the next
// eviction. A pod that has gone is taken as Ready from the moment the log
// first names it until it went, which can only count too many.
func judgeFloor(s story) verdict {
	if !s.Audit {
		return judgeFloorAPI(s)
	}
	if len(s.Tokens) > 0 {
		e := s.Tokens[0]
		return verdict{msg: fmt.Sprintf("%s minted a token for the replicaset controller at %s: its pods could be anyone's", e.Who(), clock(e.Time)), hint: hintRestart}
	}
	for _, e := range s.Created {
		if !e.ByController(audit.ReplicaSetController) {
			name := e.Name
			if name == "" {
				name = "a pod"
			}
			return verdict{msg: fmt.Sprintf("%s created %s in %s at %s: ledger's pods come from its replicaset controller", e.Who(), name, Namespace, clock(e.Time)), hint: hintRestart}
		}
	}
	if len(s.Status) > 0 {
		e := s.Status[0]
		return verdict{msg: fmt.Sprintf("%s wrote the status of %s at %s: only its node may say whether it is Ready", e.Who(), e.Name, clock(e.Time)), hint: hintRestart}
	}
	if len(s.Removals) == 0 {
		return verdict{msg: fmt.Sprintf("no ledger pod has left since pdb-3 was cordoned at %s: there was no drain to keep to the floor", clock(s.Cordoned)), hint: hintDrain}
	}
	gone := map[string]time.Time{}
	for _, r := range s.Removals {
		gone[r.Pod] = r.At
	}
	v := verdict{evidence: []string{fmt.Sprintf("pods created since pdb-3 was cordoned: %d, all by the replicaset controller (audit log)", len(s.Created))}}
	least, at := -1, removal{}
	for _, r := range s.Removals {
		if r.At.IsZero() {
			continue
		}
		n := s.readyAt(r.At, gone)
		v.evidence = append(v.evidence, fmt.Sprintf("%s %s left: %s Ready after it", clock(r.At), r.Pod, ledgerPods(n)))
		if least < 0 || n < least {
			least, at = n, r
		}
	}
	if least < labFloor {
		v.msg = fmt.Sprintf("only %s Ready after %s left at %s, below the floor of %d: the drain did not wait for replacements", ledgerPods(least), at.Pod, clock(at.At), labFloor)
		v.hint = hintRestart
		return v
	}
	v.ok = true
	evicted := 0
	for _, r := range s.Removals {
		if r.evicted() {
			evicted++
		}
	}
	switch {
	case evicted == 0:
		v.msg = fmt.Sprintf("at least %s Ready throughout the drain; none of the %d that left was evicted, so this says nothing of evictions waiting for replacements", ledgerPods(least), len(s.Removals))
	case evicted == 1:
		v.msg = fmt.Sprintf("at least %s Ready throughout the drain, which evicted one pod", ledgerPods(least))
	default:
		v.msg = fmt.Sprintf("at least %s Ready throughout the drain: each replacement was Ready before the next eviction", ledgerPods(least))
	}
	return v
}

// readyAt counts the ledger pods Ready just after t: pods there now and Ready
// by t (by their node's last status write, Readied, where the log has it),
// and pods that went after t (taken as Ready since first seen).
func (s story) readyAt(t time.Time, gone map[string]time.Time) int {
	n := 0
	for _, p := range s.Pods {
		if _, left := gone[p.Name]; !left && p.ready() && !p.Created.After(t) && !s.readyTime(p).After(t) {
			n++
		}
	}
	for name, at := range gone {
		if first, ok := s.Seen[name]; ok && !first.After(t) && at.After(t) {
			n++
		}
	}
	return n
}

// readyTime is when a pod Ready now became Ready: the last status write of
// its node's agent in the two seconds from its Ready condition's
// transition time, which keeps whole seconds (a pod Ready at 11.9 s reads
// as Ready at 11.0 s, and would count as Ready before it was); that time
// itself when the log has no such write. The last, for the write that
// says the pod runs, not yet Ready, can fall in the same second.
func (s story) readyTime(p ledgerPod) time.Time {
	at := p.ReadyAt
	for _, w := range s.Readied[p.Name] {
		if !w.Before(p.ReadyAt) && w.Before(p.ReadyAt.Add(2*time.Second)) {
			at = w
		}
	}
	return at
}

// judgeFloorAPI judges the floor from the API alone: the pods made since
// pdb-3 was cordoned replaced the ones that left, so at each creation the
// ledger pods not yet Ready are those missing from the count. A removal that
// nothing replaced (a scale-down) does not show.
func judgeFloorAPI(s story) verdict {
	v := verdict{evidence: []string{"no audit log (" + s.NoAudit + "): judged from the ledger pods' creation and Ready times, which cannot show pods removed and not replaced"}}
	var pods, made []ledgerPod
	for _, p := range s.Pods {
		if !p.Deleting {
			pods = append(pods, p)
		}
	}
	for _, p := range pods {
		if p.Owner != "ReplicaSet" {
			v.msg = fmt.Sprintf("%s has no ReplicaSet for controller: ledger's pods come from its replicaset controller", p.Name)
			return v
		}
		for _, m := range p.StatusBy {
			if strings.HasPrefix(m, "kubectl") {
				v.msg = fmt.Sprintf("%s wrote the status of %s: only its node may say whether it is Ready", m, p.Name)
				return v
			}
		}
		if !p.Created.Before(s.Cordoned) {
			made = append(made, p)
		}
	}
	if len(made) == 0 {
		v.msg = fmt.Sprintf("no ledger pod has been made since pdb-3 was cordoned at %s: nothing was replaced, so nothing was drained", clock(s.Cordoned))
		v.hint = hintDrain
		return v
	}
	slices.SortStableFunc(made, func(a, b ledgerPod) int { return a.Created.Compare(b.Created) })
	least, at := -1, time.Time{}
	for _, m := range made {
		starting := 0
		for _, p := range pods {
			if !p.Created.After(m.Created) && (!p.ready() || p.ReadyAt.After(m.Created)) {
				starting++
			}
		}
		n := len(pods) - starting
		v.evidence = append(v.evidence, fmt.Sprintf("%s %s made: %d of %d ledger pods still starting", clock(m.Created), m.Name, starting, len(pods)))
		if least < 0 || n < least {
			least, at = n, m.Created
		}
	}
	if least < labFloor {
		v.msg = fmt.Sprintf("at %s only %d of %d ledger pods could have been Ready, below the floor of %d: they were replaced all at once, not one after another", clock(at), least, len(pods), labFloor)
		return v
	}
	// A drain that waits at the floor evicts the next pod only once the last
	// one's replacement is Ready, so each replacement is made after the one
	// before it was Ready.
	for i := 1; i < len(made); i++ {
		if prev := made[i-1]; !prev.ready() || made[i].Created.Before(prev.ReadyAt) {
			v.msg = fmt.Sprintf("%s was made at %s, before %s, made at %s, was Ready: they were replaced all at once, not one after another", made[i].Name, clock(made[i].Created), prev.Name, clock(prev.Created))
			return v
		}
	}
	v.ok = true
	v.msg = fmt.Sprintf("the ledger pods made since pdb-3 was cordoned started one after another, leaving at least %d Ready", least)
	return v
}

// A specWrite is a write to the budget's spec or metadata that its
// managedFields record: the manager's name and the time of its last write.
type specWrite struct {
	Manager string
	Time    time.Time
}

// judgeBudgetStood judges whether the budget that protects ledger now is the
// one the drain ran against: made before the first ledger pod left, and
// neither changed nor deleted since.
func judgeBudgetStood(s story, name string, created time.Time, writes []specWrite) verdict {
	began, drained := s.drainBegan()
	if !drained {
		return verdict{msg: fmt.Sprintf("no ledger pod has left since pdb-3 was cordoned at %s: budget %s has not stood through a drain yet", clock(s.Cordoned), name), hint: hintDrain}
	}
	v := verdict{evidence: []string{fmt.Sprintf("budget %s created at %s; the drain of pdb-3 began at %s", name, clock(created), clock(began))}}
	if !s.Audit {
		v.evidence = append(v.evidence, "no audit log ("+s.NoAudit+"): judged from the budget's creationTimestamp and managedFields, which keep each manager's last write only, against the ledger pods' creationTimestamps")
	}
	if created.After(began) {
		v.msg = fmt.Sprintf("budget %s was created at %s, after the drain of pdb-3 began at %s: it was not there to hold the evictions back", name, clock(created), clock(began))
		v.hint = hintRestart
		return v
	}
	if !s.Audit {
		for _, w := range writes {
			if w.Time.After(began) {
				v.msg = fmt.Sprintf("budget %s was changed by %s at %s, after the drain of pdb-3 began at %s", name, w.Manager, clock(w.Time), clock(began))
				v.hint = hintRestart
				return v
			}
		}
		v.ok = true
		v.msg = fmt.Sprintf("budget %s was made before the drain of pdb-3 and its spec has not changed since", name)
		return v
	}
	for _, e := range s.Budgets {
		if e.Time.After(began) {
			what := "budget " + e.Name
			if e.Name == "" {
				what = "the budgets of " + Namespace
			}
			v.msg = fmt.Sprintf("%s %s %s at %s, after the drain of pdb-3 began at %s: the drain must run against the budget as it stands", e.Who(), past(e.Verb), what, clock(e.Time), clock(began))
			v.hint = hintRestart
			return v
		}
	}
	v.evidence = append(v.evidence, fmt.Sprintf("writes to the budgets of %s since the drain began (audit log): none", Namespace))
	v.ok = true
	v.msg = fmt.Sprintf("budget %s stood unchanged from before the drain of pdb-3 until now", name)
	return v
}

// ledgerPods says "1 ledger pod was" or "3 ledger pods were".
func ledgerPods(n int) string {
	if n == 1 {
		return "1 ledger pod was"
	}
	return fmt.Sprintf("%d ledger pods were", n)
}

func past(verb string) string {
	switch verb {
	case "create":
		return "created"
	case "update":
		return "updated"
	case "patch":
		return "patched"
	case "delete", "deletecollection":
		return "deleted"
	}
	return verb + "ed"
}

// clock shows a time as the evidence does: UTC, to the millisecond when it
// has one.
func clock(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	if t.Nanosecond() == 0 {
		return t.UTC().Format("15:04:05")
	}
	return t.UTC().Format("15:04:05.000")
}

// cordonRequest returns when node was cordoned, to the millisecond: the
// time of the last person's write to the node within a second of t, the
// whole second its unschedulable taint names; t when the log has none.
func cordonRequest(events []audit.Event, node string, t time.Time) time.Time {
	at := t
	for _, e := range events {
		if e.Resource == "nodes" && e.Subresource == "" && e.Name == node && (e.Verb == "patch" || e.Verb == "update") &&
			stored(e) && !e.FromControlPlane() &&
			!e.Time.Before(t.Add(-time.Second)) && e.Time.Before(t.Add(time.Second)) {
			at = e.Time
		}
	}
	return at
}
