package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
)

// A run builds a lab run as the real cluster records it: the audit log's
// lines, in the order of their times, and the ledger pods the API shows at
// the end. Times are seconds after the lab namespace was created.
type run struct {
	t0      time.Time
	events  []audit.Event
	pods    map[string]ledgerPod
	cordon  float64
	budget  float64     // when the budget was created
	writes  []specWrite // the budget's managedFields
	noAudit bool
}

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func newRun() *run {
	r := &run{t0: t0, pods: map[string]ledgerPod{}}
	r.budget = 0
	r.writes = []specWrite{{"kubectl-client-side-apply", t0}}
	return r
}

func (r *run) at(sec float64) time.Time {
	return r.t0.Add(time.Duration(sec * float64(time.Second)))
}

// whole is a time as the API server stores it: whole seconds.
func (r *run) whole(sec float64) time.Time { return r.at(sec).Truncate(time.Second) }

// The actors of the lab, as the audit log names them.
var (
	learner    = audit.Event{User: "kwok-admin", Agent: audit.AgentHint("kubectl/" + version.Kubernetes)}
	kwok       = audit.Event{User: string(audit.NodeAgent), Agent: audit.AgentHint("kwok-controller/" + version.Kwok)}
	scheduler  = audit.Event{User: string(audit.Scheduler), Agent: audit.AgentHint("kube-scheduler/" + version.Kubernetes)}
	replicaset = audit.Event{User: audit.ReplicaSetController, Agent: audit.AgentHint("kube-controller-manager/" + version.Kubernetes)}
)

func as(who audit.Event, user string) audit.Event {
	who.Impersonated = user
	return who
}

// log adds one request: res is "pods", "pods/eviction", "poddisruptionbudgets", ...
func (r *run) log(sec float64, who audit.Event, verb, res, name string, code int) *run {
	e := who
	e.Received, e.Time = r.at(sec), r.at(sec)
	e.Verb, e.Name, e.Code = verb, name, code
	e.Resource, e.Subresource, _ = strings.Cut(res, "/")
	e.Namespace = Namespace
	switch e.Resource {
	case "poddisruptionbudgets":
		e.Group = "policy"
	case "nodes":
		e.Namespace = ""
	case "serviceaccounts":
		e.Namespace = "kube-system"
	}
	r.events = append(r.events, e)
	return r
}

// make has the replicaset controller create pod name at sec, the scheduler
// bind it to node, and kwok run it, Ready readyAfter seconds later (never
// when readyAfter is negative).
func (r *run) make(sec float64, name, node string, readyAfter float64) *run {
	r.log(sec, replicaset, "create", "pods", "", 201)
	r.log(sec+0.02, scheduler, "create", "pods/binding", name, 201)
	r.log(sec+0.04, kwok, "patch", "pods/status", name, 200)
	p := ledgerPod{Name: name, Node: node, Created: r.whole(sec), Owner: "ReplicaSet", StatusBy: []string{"kwok-controller"}}
	if readyAfter >= 0 {
		r.log(sec+readyAfter, kwok, "patch", "pods/status", name, 200)
		p.ReadyAt = r.whole(sec + readyAfter)
	}
	r.pods[name] = p
	return r
}

// gone has kwok finish the deletion of a pod, as it does right after an
// eviction or a delete is granted.
func (r *run) gone(sec float64, name string) {
	r.log(sec+0.015, kwok, "delete", "pods", name, 200)
	r.log(sec+0.02, kwok, "delete", "pods", name, 404)
	delete(r.pods, name)
}

// evict is a learner's eviction of pod; a 201 removes it.
func (r *run) evict(sec float64, name string, code int) *run {
	return r.evictAs(sec, learner, name, code)
}

func (r *run) evictAs(sec float64, who audit.Event, name string, code int) *run {
	r.log(sec, who, "create", "pods/eviction", name, code)
	if code == 201 {
		r.gone(sec, name)
	}
	return r
}

// refuse is kubectl drain's retries: a 429 for each pod every 5 s from
// sec until before end.
func (r *run) refuse(sec, end float64, names ...string) *run {
	for t := sec; t < end; t += 5 {
		for _, n := range names {
			r.evict(t, n, 429)
		}
	}
	return r
}

// label is a change to pod name's labels, logged with the pod it left
// (app is its app label after the change); kept false, the log keeps no
// body, as under a policy at level Metadata.
func (r *run) label(sec float64, who audit.Event, name, app string, kept bool) *run {
	r.log(sec, who, "patch", "pods", name, 200)
	if kept {
		e := &r.events[len(r.events)-1]
		e.Request = json.RawMessage(fmt.Sprintf(`{"metadata":{"labels":{"app":%q}}}`, app))
		e.Response = json.RawMessage(fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"labels":{"app":%q,"pod-template-hash":"6f6d75687"}}}`, name, Namespace, app))
	}
	return r
}

// dryEvict is an eviction with its dry run named only in its body, logged
// with that body as the lab's policy keeps it: audit.Parse reads it as a
// dry run.
func (r *run) dryEvict(sec float64, name string, code int) *run {
	r.log(sec, learner, "create", "pods/eviction", name, code)
	e := &r.events[len(r.events)-1]
	e.Request = json.RawMessage(`{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"` + name + `"},"deleteOptions":{"dryRun":["All"]}}`)
	e.DryRun = true
	return r
}

func (r *run) del(sec float64, who audit.Event, name string) *run {
	r.log(sec, who, "delete", "pods", name, 200)
	r.gone(sec, name)
	return r
}

func (r *run) cordoned(sec float64) *run {
	r.cordon = sec
	return r.log(sec, learner, "patch", "nodes", DrainedNode, 200)
}

// evictAndReplace is one step of a drain: the eviction of old, and its
// replacement by the replicaset controller, Ready readyAfter later.
func (r *run) evictAndReplace(sec float64, old, new string, readyAfter float64) *run {
	r.evict(sec, old, 201)
	return r.make(sec+0.03, new, "pdb-1", readyAfter)
}

// drainInTurn is a drain that a budget with one pod to spare paces: from sec
// on, every 15.5 s, the next of olds is evicted and replaced by the same
// place in news, Ready 15 s later, and the pods still to go are refused
// until then.
func (r *run) drainInTurn(sec float64, olds, news []string) *run {
	for i, old := range olds {
		at := sec + 15.5*float64(i)
		r.evictAndReplace(at, old, news[i], 15)
		if rest := olds[i+1:]; len(rest) > 0 {
			r.refuse(at+0.5, at+15, rest...)
		}
	}
	return r
}

// onPdb3 are the four ledger pods on pdb-3 after step 2, and
// theirReplacements the pods the drain of pdb-3 makes in their place, in
// the same order.
var (
	onPdb3            = []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"}
	theirReplacements = []string{"ledger-e", "ledger-f", "ledger-g", "ledger-h"}
)

// started is the lab after step 2: four ledger pods on pdb-3, Ready at 15 s.
func started() *run {
	r := newRun()
	r.log(0, learner, "create", "poddisruptionbudgets", "ledger", 201)
	for _, n := range onPdb3 {
		r.make(0.1, n, DrainedNode, 15)
	}
	return r
}

// solvedRun is what lab/solve.sh does from step 4 on: the drain of pdb-3
// stalls under minAvailable 4, a fifth replica (ledger-s, the spare), and
// the drain evicts one pod at a time, each after the previous replacement
// is Ready.
func solvedRun() *run {
	r := started().cordoned(100)
	r.log(99.5, learner, "patch", "poddisruptionbudgets", "ledger", 200)
	r.writes = append(r.writes, specWrite{"kubectl-patch", r.whole(99.5)})
	r.refuse(100.03, 130, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
	r.make(130, "ledger-s", "pdb-2", 15)
	return r.drainInTurn(146, onPdb3, theirReplacements)
}

// unheld is a drain with nothing to hold it back: a spare replica, the
// budget deleted, then each pod of pdb-3 evicted at the time of the same
// place in at, its replacement Ready readyAfter seconds after it is made.
func unheld(at [4]float64, readyAfter float64) *run {
	r := started().cordoned(100)
	r.make(110, "ledger-s", "pdb-2", 15)
	r.log(126, learner, "delete", "poddisruptionbudgets", "ledger", 200)
	for i, old := range onPdb3 {
		r.evictAndReplace(at[i], old, theirReplacements[i], readyAfter)
	}
	return r
}

// atOnce is a drain with nothing to hold it back: the budget deleted (or
// relaxed), every pod of pdb-3 evicted in the same instant, the budget
// made again after it.
func atOnce() *run {
	r := unheld([4]float64{130, 130.01, 130.02, 130.03}, 15)
	r.log(150, learner, "create", "poddisruptionbudgets", "ledger", 201)
	r.budget = 150
	r.writes = []specWrite{{"kubectl-client-side-apply", r.whole(150)}}
	return r
}

func (r *run) story() story {
	var pods []ledgerPod
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	if r.noAudit {
		return story{Start: r.t0, Cordoned: r.whole(r.cordon), Pods: pods, NoAudit: "none was given"}
	}
	// The log is read sorted by completion time, as audit.Parse sorts it.
	events := append([]audit.Event(nil), r.events...)
	sortEvents(events)
	return tell(events, Namespace, r.t0, cordonRequest(events, DrainedNode, r.whole(r.cordon)), pods, ledgerSelected)
}

func sortEvents(es []audit.Event) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Time.Before(es[j-1].Time); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// The four judges, by the check each decides.
var judges = map[string]func(r *run) verdict{
	"pdb-budget-protects-ledger": func(r *run) verdict { return judgeBudgetStood(r.story(), "ledger", r.whole(r.budget), r.writes) },
	"pdb-eviction-allowed":       func(r *run) verdict { return judgeRefusals(r.story()) },
	"pdb-node-drained":           func(r *run) verdict { return judgeRoute(r.story()) },
	"pdb-ledger-placed":          func(r *run) verdict { return judgeFloor(r.story()) },
}

// pass marks a check that must pass; any other string is a phrase the
// failing check's message must contain.
const pass = "PASS"

func TestJudges(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		run    func() *run
		want   map[string]string // check ID → pass, or a phrase of its failure
	}{
		{
			name: "solved", reason: "lab/solve.sh from step 4: every behaviour is there",
			run:  solvedRun,
			want: map[string]string{"pdb-budget-protects-ledger": pass, "pdb-eviction-allowed": pass, "pdb-node-drained": pass, "pdb-ledger-placed": pass},
		},
		{
			name: "budget-deleted-for-the-drain", reason: "with no budget every pod goes at once; the budget put back afterwards is younger than the drain",
			run: atOnce,
			want: map[string]string{
				"pdb-budget-protects-ledger": "was created at 12:02:30, after the drain of pdb-3 began at 12:02:10",
				"pdb-eviction-allowed":       "the drain never waited at the floor",
				"pdb-node-drained":           pass,
				"pdb-ledger-placed":          "only 1 ledger pod was Ready after ledger-d left at 12:02:10.030",
			},
		},
		{
			name: "budget-relaxed-and-restored", reason: "minAvailable 0 for the drain, 4 again afterwards: the change after the drain began shows",
			run: func() *run {
				r := atOnce()
				r.events = r.events[:len(r.events)-1] // not recreated: patched back
				r.budget = 0
				r.log(150, learner, "patch", "poddisruptionbudgets", "ledger", 200)
				return r
			},
			want: map[string]string{"pdb-budget-protects-ledger": "kwok-admin (kubectl) patched budget ledger at 12:02:30"},
		},
		{
			name: "budget-loosened-before-the-drain", reason: "README step 5's other repair: minAvailable 3 before the drain, left so",
			run: func() *run {
				r := started().cordoned(100).refuse(100.03, 120, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
				r.log(125, learner, "patch", "poddisruptionbudgets", "ledger", 200)
				return r.drainInTurn(130, onPdb3, theirReplacements)
			},
			want: map[string]string{"pdb-budget-protects-ledger": pass, "pdb-eviction-allowed": pass, "pdb-node-drained": pass, "pdb-ledger-placed": pass},
		},
		{
			name: "scaled-to-zero-and-back", reason: "the replicaset controller deletes every pod, asking nobody",
			run: func() *run {
				r := started().cordoned(100)
				r.log(110, learner, "patch", "deployments/scale", "ledger", 200)
				for _, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					r.del(110.1, replicaset, n)
				}
				for _, n := range []string{"ledger-e", "ledger-f", "ledger-g", "ledger-h", "ledger-i"} {
					r.make(120, n, "pdb-1", 15)
				}
				return r
			},
			want: map[string]string{
				"pdb-eviction-allowed": "no eviction of a ledger pod was refused",
				"pdb-node-drained":     "deleted by system:serviceaccount:kube-system:replicaset-controller (kube-controller-manager), not evicted",
				"pdb-ledger-placed":    "only 0 ledger pods were Ready",
			},
		},
		{
			name: "drain-disable-eviction", reason: "kubectl drain --disable-eviction deletes every pod at once",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				for i, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					r.del(130+float64(i)*0.01, learner, n)
					r.make(130.05, "ledger-"+string(rune('e'+i)), "pdb-1", 15)
				}
				return r
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": pass,
				"pdb-node-drained":           "ledger-a left at 12:02:10, deleted by kwok-admin (kubectl), not evicted",
				"pdb-ledger-placed":          "below the floor of 3",
			},
		},
		{
			name: "cordoned-never-drained", reason: "five replicas placed on pdb-1 and pdb-2 after pdb-3 was cordoned: no pod ever left",
			run: func() *run {
				r := newRun().cordoned(0.5)
				r.log(1, learner, "create", "poddisruptionbudgets", "ledger", 201)
				for _, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d", "ledger-e"} {
					r.make(1, n, "pdb-1", 15)
				}
				return r
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": "has not stood through a drain yet",
				"pdb-eviction-allowed":       "no eviction of a ledger pod was refused",
				"pdb-node-drained":           "the node was cordoned, not drained",
				"pdb-ledger-placed":          "there was no drain to keep to the floor",
			},
		},
		{
			name: "deleted-one-by-one-waiting", reason: "each delete waits for the previous replacement: the floor holds, but nobody asked the budget",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				r.del(130, learner, "ledger-a").make(130.03, "ledger-e", "pdb-1", 15)
				r.del(146, learner, "ledger-b").make(146.03, "ledger-f", "pdb-1", 15)
				r.del(162, learner, "ledger-c").make(162.03, "ledger-g", "pdb-1", 15)
				return r.del(178, learner, "ledger-d").make(178.03, "ledger-h", "pdb-1", 15)
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": pass,
				"pdb-eviction-allowed":       "the drain never waited at the floor",
				"pdb-node-drained":           "deleted by kwok-admin (kubectl), not evicted",
				"pdb-ledger-placed":          pass,
			},
		},
		{
			name: "deleted-as-the-replicaset-controller", reason: "kubectl delete --as a controller's account still shows the person who asked",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				who := as(learner, audit.ReplicaSetController)
				r.del(130, who, "ledger-a").make(130.03, "ledger-e", "pdb-1", 15)
				r.del(146, who, "ledger-b").make(146.03, "ledger-f", "pdb-1", 15)
				r.del(162, who, "ledger-c").make(162.03, "ledger-g", "pdb-1", 15)
				return r.del(178, who, "ledger-d").make(178.03, "ledger-h", "pdb-1", 15)
			},
			want: map[string]string{"pdb-node-drained": "deleted by kwok-admin as system:serviceaccount:kube-system:replicaset-controller (kubectl), not evicted"},
		},
		{
			name: "evicted-as-a-controller", reason: "an eviction made in a controller's name is not the learner's drain",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				who := as(learner, audit.NodeController)
				r.evictAs(130, who, "ledger-a", 201).make(130.03, "ledger-e", "pdb-1", 15)
				r.evictAs(146, who, "ledger-b", 201).make(146.03, "ledger-f", "pdb-1", 15)
				r.evictAs(162, who, "ledger-c", 201).make(162.03, "ledger-g", "pdb-1", 15)
				return r.evictAs(178, who, "ledger-d", 201).make(178.03, "ledger-h", "pdb-1", 15)
			},
			want: map[string]string{"pdb-node-drained": "was evicted at 12:02:10 in a controller's name (kwok-admin as system:serviceaccount:kube-system:node-controller (kubectl))"},
		},
		{
			name: "dry-run-evictions-then-deletes", reason: "kubectl drain --dry-run=server names the dry run only in the body: the 201s change nothing, and the deletes that follow remove the pods",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				for _, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					r.log(129, learner, "create", "pods/eviction", n, 201)
				}
				r.del(130, learner, "ledger-a").make(130.03, "ledger-e", "pdb-1", 15)
				r.del(146, learner, "ledger-b").make(146.03, "ledger-f", "pdb-1", 15)
				r.del(162, learner, "ledger-c").make(162.03, "ledger-g", "pdb-1", 15)
				return r.del(178, learner, "ledger-d").make(178.03, "ledger-h", "pdb-1", 15)
			},
			want: map[string]string{"pdb-node-drained": "ledger-a left at 12:02:10, deleted by kwok-admin (kubectl), not evicted"},
		},
		{
			name: "dry-run-in-the-query-then-evicted", reason: "a dry run the log marks (labcheck's own) is no removal; the real eviction after it is",
			run: func() *run {
				r := solvedRun()
				e := learner
				e.DryRun, e.Agent = true, audit.AgentHint("labcheck/v0.0.0")
				r.log(145, e, "create", "pods/eviction", "ledger-a", 201)
				r.log(145.1, e, "create", "pods/eviction", "ledger-b", 429)
				return r
			},
			want: map[string]string{"pdb-node-drained": pass, "pdb-eviction-allowed": pass},
		},
		{
			name: "relabelled-out-of-the-budget-then-drained-with-force", reason: "refused at the floor, the pods are relabelled out of the budget's selector, and a forced drain evicts them at once, asking no budget",
			run: func() *run {
				r := started().cordoned(100).refuse(100.03, 110, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
				for i, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					r.label(111+float64(i)*0.01, learner, n, "ledger-old", true)
					r.log(111.05, replicaset, "patch", "pods", n, 200) // the controller lets it go
					r.make(111.1, "ledger-"+string(rune('e'+i)), "pdb-1", 15)
				}
				r.make(130, "ledger-s", "pdb-2", 15)
				for i, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					r.evict(150+float64(i)*0.005, n, 201)
				}
				return r
			},
			want: map[string]string{
				"pdb-eviction-allowed": "no refused pod was evicted later",
				"pdb-node-drained":     "ledger-a left the budget's protection at 12:01:51, taken out of the budget's selector by kwok-admin (kubectl), not evicted",
				"pdb-ledger-placed":    "below the floor of 3",
			},
		},
		{
			name: "relabelled-in-a-log-without-bodies", reason: "a person's change to a ledger pod that the log keeps no body of may have relabelled it: it counts as leaving the budget",
			run: func() *run {
				r := solvedRun()
				r.label(120, learner, "ledger-a", "ledger-old", false)
				return r
			},
			want: map[string]string{"pdb-node-drained": "changed by kwok-admin (kubectl) (patch pods), which may have taken it out of the budget's selector"},
		},
		{
			name: "status-relabelled", reason: "a pod's labels can be changed through its status too, which the log keeps no body of",
			run: func() *run {
				r := solvedRun()
				r.log(120, learner, "update", "pods/status", "ledger-b", 200)
				return r
			},
			want: map[string]string{
				"pdb-node-drained":  "ledger-b left the budget's protection at 12:02:00, changed by kwok-admin (kubectl) (update pods/status)",
				"pdb-ledger-placed": "wrote the status of ledger-b",
			},
		},
		{
			name: "labelled-within-the-budget", reason: "a change that leaves the pod's labels under the budget's selector takes nothing out of it",
			run: func() *run {
				r := solvedRun()
				r.label(120, learner, "ledger-a", App, true)
				return r
			},
			want: map[string]string{"pdb-budget-protects-ledger": pass, "pdb-eviction-allowed": pass, "pdb-node-drained": pass, "pdb-ledger-placed": pass},
		},
		{
			name: "deleted-then-dry-run-evicted-in-the-body", reason: "the pod held Terminating after a delete, a dry-run eviction (allowed for a pod already going) then the node finishing it: the delete removed it",
			run: func() *run {
				r := started().cordoned(100).refuse(100.03, 130, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
				r.make(130, "ledger-s", "pdb-2", 15)
				for i, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					at := 146 + float64(i)*16
					r.label(at, learner, n, App, true)
					r.log(at+0.1, learner, "delete", "pods", n, 200)
					r.make(at+0.13, "ledger-"+string(rune('e'+i)), "pdb-1", 15)
					r.dryEvict(at+0.2, n, 201)
					r.label(at+0.3, learner, n, App, true)
					r.gone(at+0.3, n)
				}
				return r
			},
			want: map[string]string{
				"pdb-eviction-allowed": "no refused pod was evicted later",
				"pdb-node-drained":     "ledger-a left at 12:02:26.100, deleted by kwok-admin (kubectl), not evicted",
			},
		},
		{
			name: "dry-runs-in-the-body-then-deleted", reason: "dry runs the log keeps the body of are no removal, before or after the delete",
			run: func() *run {
				r := started().cordoned(100)
				r.make(110, "ledger-s", "pdb-2", 15)
				for i, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d"} {
					at := 130 + float64(i)*16
					r.dryEvict(at, n, 201)
					r.del(at+0.1, learner, n).make(at+0.13, "ledger-"+string(rune('e'+i)), "pdb-1", 15)
				}
				return r
			},
			want: map[string]string{"pdb-node-drained": "ledger-a left at 12:02:10.100, deleted by kwok-admin (kubectl), not evicted"},
		},
		{
			name: "refused-then-deleted", reason: "refusals that the learner answered by deleting the pods: the drain never went on through the budget",
			run: func() *run {
				r := started().cordoned(100).refuse(100.03, 130, "ledger-a", "ledger-b", "ledger-c", "ledger-d")
				r.make(130, "ledger-s", "pdb-2", 15)
				r.del(146, learner, "ledger-a").make(146.03, "ledger-e", "pdb-1", 15)
				r.del(162, learner, "ledger-b").make(162.03, "ledger-f", "pdb-1", 15)
				r.del(178, learner, "ledger-c").make(178.03, "ledger-g", "pdb-1", 15)
				return r.del(194, learner, "ledger-d").make(194.03, "ledger-h", "pdb-1", 15)
			},
			want: map[string]string{"pdb-eviction-allowed": "no refused pod was evicted later"},
		},
		{
			name: "hand-made-pod", reason: "a Ready pod made with kubectl props up the count while the drain goes at once",
			run: func() *run {
				r := solvedRun()
				r.log(140, learner, "create", "pods", "ledger-extra", 201)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": "kwok-admin (kubectl) created ledger-extra in pdb-lab at 12:02:20"},
		},
		{
			name: "a-debugging-pod", reason: "a pod of another name in the lab's namespace is not ledger's",
			run: func() *run {
				r := solvedRun()
				r.log(140, learner, "create", "pods", "debug", 201)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": pass},
		},
		{
			name: "status-written-by-hand", reason: "a pod made Ready with kubectl patch --subresource=status",
			run: func() *run {
				r := solvedRun()
				r.log(150, learner, "patch", "pods/status", "ledger-e", 200)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": "kwok-admin (kubectl) wrote the status of ledger-e"},
		},
		{
			name: "the-scheduler-writes-a-pod-status", reason: "the scheduler records a pod it cannot place in its status: that is no hand-made readiness",
			run: func() *run {
				r := solvedRun()
				r.log(146.05, scheduler, "patch", "pods/status", "ledger-e", 200)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": pass},
		},
		{
			name: "token-for-the-replicaset-controller", reason: "a token minted for the controller's account makes its requests anyone's",
			run: func() *run {
				r := solvedRun()
				r.log(5, learner, "create", "serviceaccounts/token", "replicaset-controller", 201)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": "minted a token for the replicaset controller"},
		},
		{
			name: "the-controller-manager-asks-for-tokens", reason: "kube-controller-manager asks for its controllers' tokens under its own user: that is no cheat",
			run: func() *run {
				r := solvedRun()
				km := audit.Event{User: string(audit.ControllerManager), Agent: audit.AgentHint("kube-controller-manager/" + version.Kubernetes)}
				r.log(5, km, "create", "serviceaccounts/token", "replicaset-controller", 201)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": pass},
		},
		{
			name: "a-token-minted-in-the-controller-managers-agent", reason: "the admin's token request in kube-controller-manager's agent is the learner's: an agent is no identity",
			run: func() *run {
				r := solvedRun()
				km := learner
				km.Agent = audit.AgentHint("kube-controller-manager/" + version.Kubernetes)
				r.log(5, km, "create", "serviceaccounts/token", "replicaset-controller", 201)
				return r
			},
			want: map[string]string{"pdb-ledger-placed": "kwok-admin (claims to be kube-controller-manager) minted a token"},
		},
		{
			name: "an-earlier-run-ends-as-this-one-begins", reason: "pods of the previous lab run, finished in the namespace's first second, are not this run's",
			run: func() *run {
				r := newRun().cordoned(0)
				r.log(0.2, kwok, "delete", "pods", "ledger-old", 200)
				r.log(0.3, learner, "create", "poddisruptionbudgets", "ledger", 201)
				for _, n := range []string{"ledger-a", "ledger-b", "ledger-c", "ledger-d", "ledger-e"} {
					r.make(1, n, "pdb-1", 15)
				}
				return r
			},
			want: map[string]string{"pdb-node-drained": "the node was cordoned, not drained"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for id, want := range tt.want {
				v := judges[id](tt.run())
				switch {
				case want == pass && !v.ok:
					t.Errorf("%s failed: %s; evidence %q (%s)", id, v.msg, v.evidence, tt.reason)
				case want != pass && v.ok:
					t.Errorf("%s passed: %s; want a failure with %q (%s)", id, v.msg, want, tt.reason)
				case want != pass && !strings.Contains(v.msg, want):
					t.Errorf("%s failed with %q, want %q (%s)", id, v.msg, want, tt.reason)
				}
			}
		})
	}
}

func TestJudgesWithoutAuditLog(t *testing.T) {
	noLog := func(build func() *run) func() *run {
		return func() *run { r := build(); r.noAudit = true; return r }
	}
	tests := []struct {
		name   string
		reason string
		run    func() *run
		want   map[string]string
	}{
		{
			name: "solved", reason: "the API shows the replacements started one after another and the budget older than the drain",
			run: noLog(solvedRun),
			want: map[string]string{
				"pdb-budget-protects-ledger": pass,
				"pdb-eviction-allowed":       "a refused eviction leaves no trace in the API",
				"pdb-node-drained":           "an eviction cannot be told from a delete without the API server's audit log",
				"pdb-ledger-placed":          pass,
			},
		},
		{
			name: "budget-deleted-for-the-drain", reason: "the budget's creationTimestamp is after the replacements', which all started at once",
			run: noLog(atOnce),
			want: map[string]string{
				"pdb-budget-protects-ledger": "was created at 12:02:30, after the drain of pdb-3 began at 12:01:50",
				"pdb-ledger-placed":          "at 12:02:10 only 1 of 5 ledger pods could have been Ready",
			},
		},
		{
			name: "replaced-two-at-a-time", reason: "two replacements overlap while three other pods stay Ready: never below the floor by count, but no drain that waits at the floor makes the second before the first is Ready",
			run: noLog(func() *run {
				r := started().cordoned(100)
				r.make(130, "ledger-s", "pdb-2", 15)
				r.evictAndReplace(146, "ledger-a", "ledger-e", 15)
				r.evictAndReplace(147, "ledger-b", "ledger-f", 15)
				r.evictAndReplace(177, "ledger-c", "ledger-g", 15)
				r.evictAndReplace(192.5, "ledger-d", "ledger-h", 15)
				return r
			}),
			want: map[string]string{"pdb-ledger-placed": "ledger-f was made at 12:02:27, before ledger-e, made at 12:02:26, was Ready"},
		},
		{
			name: "budget-patched-after-the-drain-began", reason: "managedFields keep the time of the patch that put the floor back",
			run: func() *run {
				r := noLog(solvedRun)()
				r.writes = append(r.writes, specWrite{"kubectl-patch", r.whole(170)})
				return r
			},
			want: map[string]string{"pdb-budget-protects-ledger": "was changed by kubectl-patch at 12:02:50"},
		},
		{
			name: "status-written-by-hand", reason: "managedFields name kubectl as a writer of a pod's status",
			run: func() *run {
				r := noLog(solvedRun)()
				p := r.pods["ledger-e"]
				p.StatusBy = append(p.StatusBy, "kubectl-patch")
				r.pods["ledger-e"] = p
				return r
			},
			want: map[string]string{"pdb-ledger-placed": "kubectl-patch wrote the status of ledger-e"},
		},
		{
			name: "cordoned-never-drained", reason: "no pod was made since pdb-3 was cordoned",
			run: func() *run {
				r := started()
				r.noAudit = true
				r.cordon = 100
				return r
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": "has not stood through a drain yet",
				"pdb-ledger-placed":          "nothing was replaced",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for id, want := range tt.want {
				v := judges[id](tt.run())
				switch {
				case want == pass && !v.ok:
					t.Errorf("%s failed: %s; evidence %q (%s)", id, v.msg, v.evidence, tt.reason)
				case want != pass && v.ok:
					t.Errorf("%s passed: %s; want a failure with %q (%s)", id, v.msg, want, tt.reason)
				case want != pass && !strings.Contains(v.msg, want):
					t.Errorf("%s failed with %q, want %q (%s)", id, v.msg, want, tt.reason)
				}
				if !v.ok && !strings.Contains(strings.Join(v.evidence, "\n"), "no audit log (none was given)") && !strings.Contains(v.msg, "has not stood") {
					t.Errorf("%s: evidence %q does not say it judged without the audit log", id, v.evidence)
				}
			}
		})
	}
}

func TestCordonRequest(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		writes []audit.Event
		want   time.Time
	}{
		{name: "kubectl-drain", reason: "the patch that cordoned the node gives the millisecond the taint's whole second lacks",
			writes: []audit.Event{{User: "kwok-admin", Verb: "patch", Resource: "nodes", Name: DrainedNode, Code: 200, Time: t0.Add(675 * time.Millisecond)}},
			want:   t0.Add(675 * time.Millisecond)},
		{name: "controller", reason: "the node lifecycle controller's taint is not the cordon",
			writes: []audit.Event{{User: audit.NodeController, Verb: "patch", Resource: "nodes", Name: DrainedNode, Code: 200, Time: t0.Add(700 * time.Millisecond)}},
			want:   t0},
		{name: "other-node", reason: "a write to pdb-1 says nothing of pdb-3",
			writes: []audit.Event{{User: "kwok-admin", Verb: "patch", Resource: "nodes", Name: "pdb-1", Code: 200, Time: t0.Add(100 * time.Millisecond)}},
			want:   t0},
		{name: "long-before", reason: "an uncordon a minute earlier is another write",
			writes: []audit.Event{{User: "kwok-admin", Verb: "patch", Resource: "nodes", Name: DrainedNode, Code: 200, Time: t0.Add(-time.Minute)}},
			want:   t0},
	}
	for _, tt := range tests {
		if got := cordonRequest(tt.writes, DrainedNode, t0); !got.Equal(tt.want) {
			t.Errorf("%s: cordonRequest = %s, want %s (%s)", tt.name, clock(got), clock(tt.want), tt.reason)
		}
	}
}

func TestRemovalHow(t *testing.T) {
	e := func(who audit.Event, verb, res string) *audit.Event {
		who.Verb = verb
		who.Resource, who.Subresource, _ = strings.Cut(res, "/")
		return &who
	}
	tests := []struct {
		name    string
		by      *audit.Event
		evicted bool
		how     string
	}{
		{"eviction", e(learner, "create", "pods/eviction"), true, "evicted by kwok-admin (kubectl)"},
		{"delete", e(learner, "delete", "pods"), false, "deleted by kwok-admin (kubectl)"},
		{"collection", e(learner, "deletecollection", "pods"), false, "deleted with every pod of the namespace by kwok-admin (kubectl)"},
		{"scale-down", e(replicaset, "delete", "pods"), false, "deleted by system:serviceaccount:kube-system:replicaset-controller (kube-controller-manager)"},
		{"impersonated-eviction", e(as(learner, audit.NodeController), "create", "pods/eviction"), false, "evicted by kwok-admin as system:serviceaccount:kube-system:node-controller (kubectl)"},
		{"no-request", nil, false, "removed with no request in the audit log"},
	}
	for _, tt := range tests {
		r := removal{Pod: "ledger-a", By: tt.by}
		if got := fmt.Sprint(r.evicted(), " ", r.how()); got != fmt.Sprint(tt.evicted, " ", tt.how) {
			t.Errorf("%s: evicted, how = %s, want %v %s", tt.name, got, tt.evicted, tt.how)
		}
	}
}

// TestFloorSaysWhatItSaw: judgeFloor's pass line speaks of evictions only
// when there were some: the floor held through pods deleted one by one
// says that none of them was evicted, where it said that each replacement
// was Ready before the next eviction.
func TestFloorSaysWhatItSaw(t *testing.T) {
	deleted := started().cordoned(100)
	deleted.make(130, "ledger-s", "pdb-2", 15)
	deleted.del(146, learner, "ledger-a").make(146.03, "ledger-e", "pdb-1", 15)
	deleted.del(162, learner, "ledger-b").make(162.03, "ledger-f", "pdb-1", 15)
	deleted.del(178, learner, "ledger-c").make(178.03, "ledger-g", "pdb-1", 15)
	deleted.del(194, learner, "ledger-d").make(194.03, "ledger-h", "pdb-1", 15)
	tests := []struct {
		name string
		run  *run
		want string
	}{
		{"evicted one at a time", solvedRun(), "each replacement was Ready before the next eviction"},
		{"deleted one at a time", deleted, "none of the 4 that left was evicted"},
	}
	for _, tt := range tests {
		v := judgeFloor(tt.run.story())
		if !v.ok || !strings.Contains(v.msg, tt.want) {
			t.Errorf("%s: judgeFloor = %v, %q; want a pass that says %q", tt.name, v.ok, v.msg, tt.want)
		}
	}
}

// TestFloorCountsReadyFromTheLog: a drain with nothing to hold it back,
// whose four evictions straddle a whole second while the replacements
// become Ready a second after they are made, left one pod Ready, below the
// floor. Each replacement's Ready condition keeps whole seconds and reads
// as Ready at 131 s, before the last evictions at 131.03 s; judged by it,
// three pods were Ready and the drain passed. judgeFloor reads when the
// node's agent wrote the Ready status, to the microsecond (run Z4 of make
// test, where a cheat passed this way).
func TestFloorCountsReadyFromTheLog(t *testing.T) {
	r := unheld([4]float64{130.90, 130.93, 131.03, 131.04}, 0.95)
	v := judgeFloor(r.story())
	if v.ok || !strings.Contains(v.msg, "only 1 ledger pod was Ready after ledger-d left") {
		t.Errorf("judgeFloor = %v, %q; want a failure: only 1 ledger pod was Ready after ledger-d left", v.ok, v.msg)
	}
}
