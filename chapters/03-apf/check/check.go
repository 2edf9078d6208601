// Package check holds the lab checks of chapter 3 (API Priority and
// Fairness). They judge where the API server puts traffic, not what the
// objects say it should do:
//
//   - the runaway operator's traffic: every kind of request sent as it,
//     read from the audit log (the policy keeps every request under
//     apf-lab's accounts' tokens, reads included, and of what others send
//     acting as them, some writes), together with the kinds the lab's
//     operator is known to make (package runaway), which are all there is
//     to go on when no log is reachable;
//   - where each kind goes: the checks send it again as the operator, by
//     impersonation, and read the X-Kubernetes-PF-FlowSchema-UID and
//     X-Kubernetes-PF-PriorityLevel-UID headers, which arrive even when the
//     request itself is forbidden;
//   - that nothing else goes there: the same requests sent as two bystander
//     accounts, and the control plane's senders and requests (from the
//     audit log and a known list) and other outsiders (a node, an anonymous
//     request, accounts of other namespaces, people such as the learner)
//     classified by the chapter's model, which the chapter's differential
//     proves against the server, fed the cluster's objects. A model's answer for a request the server was also
//     asked must equal the server's, or the check asks to be run again.
//     Controllers are never impersonated, since that would give the grader
//     their powers;
//   - seats from apiserver_flowcontrol_nominal_limit_seats and the bounds
//     the server puts on each level's current limit (lower_limit_seats,
//     upper_limit_seats: what it lends and what it may borrow), and
//     dangling schemas from the objects and the status the server wrote;
//   - every one of the server's own schemas and levels, compared with the
//     one the server writes (bootstrap's, as its ensurer compares them): a
//     default kept changed by the annotation autoupdate-spec "false" may
//     send requests to exempt, widen a level's seats, or move every other
//     sender, and only the objects show it.
//
// The requests are reads, or writes with dryRun=All, and every one is sent
// as an account without permissions, so the checks change nothing. The
// grader's credentials need the impersonate permission for the accounts
// named here (labcheck/rbac/grader.yaml).
//
// Checks returns them; the course's list of chapters, package chapters,
// gives them to labcheck.
package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/labcheck"
)

// The lab's names.
const (
	Namespace = runaway.Namespace
	Runaway   = runaway.Account
	TieProbe  = "tie-probe"
)

// operatorCommand is how a learner starts the lab's runaway operator.
const operatorCommand = "go run ./chapters/03-apf/cmd/runaway-operator"

// Checks returns the chapter's checks, in the order a learner meets them.
func Checks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID: "apf-runaway-isolated", Points: 2,
			Title: "the API server puts all of the runaway operator's requests, and no one else's, in a level of their own",
			Claim: "one narrow level and one schema isolate a runaway operator",
			Reads: "every kind of request apf-lab/runaway-operator made (audit log; else the operator's known list), sent again as it by impersonation (writes dry-run) for the X-Kubernetes-PF-* headers; " +
				"the same requests as two bystander accounts; the control plane's senders and requests (audit log and a known list), a node, an anonymous request, accounts of other namespaces and people, classified by the chapter's model on the cluster's FlowSchemas and levels; every default FlowSchema against the one the server writes",
			Hints: []string{
				"Create a Limited PriorityLevelConfiguration for the operator, and a FlowSchema whose only subject is the service account apf-lab/runaway-operator, with rules for every verb and resource, at cluster scope and in every namespace, and for non-resource paths.",
				"The schema must come before service-accounts (precedence 9000): give it a lower matchingPrecedence, such as 500. Run the operator (" + operatorCommand + ") to see where each of its requests goes.",
				"Apply the lab's manifests: kubectl apply -f chapters/03-apf/lab/runaway-level.yaml -f chapters/03-apf/lab/runaway-schema.yaml",
			},
			Run: checkIsolated,
		},
		{
			ID: "apf-runaway-level-narrow", Points: 1,
			Title: "the runaway operator's level has fewer seats than workload-low, where it used to go, and holds no one else",
			Claim: "a narrow level contains a runaway: its seats come from its shares",
			Reads: "the levels the server chose for every kind of request of the runaway operator, and the model's levels for other senders, as apf-runaway-isolated reads them; apiserver_flowcontrol_nominal_limit_seats, lower_limit_seats and upper_limit_seats from /metrics; the server's own levels against its defaults",
			Hints: []string{
				"Seats come from nominalConcurrencyShares: a level with 5 shares gets about 12 of 600 seats. Without borrowingLimitPercent a level may borrow up to 600 more: set it to 0.",
				"kubectl get --raw /metrics | grep apiserver_flowcontrol_nominal_limit_seats shows each level's seats.",
			},
			Run: checkNarrow,
		},
		{
			ID: "apf-tie-by-name", Points: 1,
			Title: "two schemas of equal precedence match apf-lab/tie-probe, and the server picked the first by name",
			Claim: "equal precedence falls back to name order",
			Reads: "the X-Kubernetes-PF-FlowSchema-UID header of three kinds of request sent as system:serviceaccount:apf-lab:tie-probe; the FlowSchemas that match each; the model's schemas for other senders",
			Hints: []string{
				"Create two FlowSchemas with the same matchingPrecedence whose only subject is the service account apf-lab/tie-probe, for every verb and resource in every namespace.",
				"Apply the lab's manifest: kubectl apply -f chapters/03-apf/lab/tie.yaml",
			},
			Run: checkTie,
		},
		{
			ID: "apf-nothing-exempt-or-dangling", Points: 1,
			Title: "no schema you added or changed sends requests to exempt or dangles, and yours takes the runaway operator",
			Claim: "exempt removes the server's protection; a schema naming a missing level is silently ignored",
			Reads: "the FlowSchemas beyond the defaults, the levels they name, and their Dangling status condition; every default FlowSchema against the one the server writes; the schemas the server chose for the runaway operator's requests",
			Hints: []string{
				"kubectl get flowschemas shows MISSINGPL True for a schema whose level does not exist: fix the level's name.",
				exemptHint,
				takeHint,
			},
			Run: checkNoExemptNoDangling,
		},
	}
}

// exemptHint is the second staged hint of apf-nothing-exempt-or-dangling,
// and the first one shown when the failure is a schema pointing at exempt.
const exemptHint = "A schema pointing at the exempt level turns off every limit for its requests: point it at a Limited level."

// takeHint is shown when none of the learner's schemas takes the runaway
// operator: there is nothing of the lab for the check to judge.
const takeHint = "This check judges the schemas you added for the lab: first give the runaway operator a schema and a level of its own (apf-runaway-isolated)."

// isDefaultSchema and isDefaultLevel report whether an object is one of
// those the API server creates itself.
func isDefaultSchema(name string) bool {
	return slices.ContainsFunc(append(slices.Clone(bootstrap.MandatoryFlowSchemas), bootstrap.SuggestedFlowSchemas...),
		func(fs *flowcontrol.FlowSchema) bool { return fs.Name == name })
}

func isDefaultLevel(name string) bool {
	return slices.ContainsFunc(append(slices.Clone(bootstrap.MandatoryPriorityLevelConfigurations), bootstrap.SuggestedPriorityLevelConfigurations...),
		func(pl *flowcontrol.PriorityLevelConfiguration) bool { return pl.Name == name })
}

// newCluster is the classification of a new cluster: the server's own
// schemas and levels only. A request's level there is the one it must
// keep when a learner adds schemas for the lab's accounts.
var newCluster = sync.OnceValue(func() *kube.Config {
	var fss []*flowcontrol.FlowSchema
	fss = append(fss, bootstrap.MandatoryFlowSchemas...)
	fss = append(fss, bootstrap.SuggestedFlowSchemas...)
	var pls []*flowcontrol.PriorityLevelConfiguration
	pls = append(pls, bootstrap.MandatoryPriorityLevelConfigurations...)
	pls = append(pls, bootstrap.SuggestedPriorityLevelConfigurations...)
	c, err := kube.NewConfig(fss, pls)
	if err != nil {
		panic(fmt.Sprintf("the server's own APF objects: %v", err))
	}
	return c
})

// errStale says the server named an object that was not in the list the
// check read a moment before: the learner is changing the configuration.
var errStale = errors.New("the server named a schema or level that was not there a moment ago; run the check again")

// A view is what the checks saw of the cluster's classification.
type view struct {
	objs kube.Objects
	cfg  *kube.Config

	runaway []Route // each kind of the operator's requests, as the server placed it
	others  []Other // bystanders by the server, the control plane and outsiders by the model
	// changed are the server's own schemas and levels that are not as it
	// writes them.
	changed []Changed

	// disagree lists requests the server placed elsewhere than the model
	// fed the same objects: the server has not taken the latest objects.
	disagree []string
	// evidence says where the kinds of request came from and where the
	// others' requests went; routes has a line per request of the
	// operator, which checks about other things sum up in one line.
	evidence []string
	routes   []string
}

func (v *view) seen(format string, args ...any) {
	v.evidence = append(v.evidence, fmt.Sprintf(format, args...))
}

// result attaches the view's evidence to a judge's result, after the
// check's own lines, with a line per request of the operator or, unless
// perRequest, one line for all. It replaces the result when the server
// and the model disagree: the model's answers for the control plane are
// worth nothing then.
func (v *view) result(res labcheck.Result, perRequest bool, own ...string) labcheck.Result {
	if len(v.disagree) > 0 {
		res = labcheck.Failf("the server classified %s, not as its FlowSchemas say: it has not taken the latest change yet; run the check again in a few seconds", v.disagree[0])
		own = append(own, v.disagree...)
	}
	res.Evidence = append(res.Evidence, own...)
	if perRequest {
		res.Evidence = append(res.Evidence, v.routes...)
	} else {
		var order []string
		where := map[string]int{}
		for _, r := range v.runaway {
			k := r.Schema + " → " + r.Level
			order = appendNew(order, k)
			where[k]++
		}
		var parts []string
		for _, k := range order {
			parts = append(parts, fmt.Sprintf("%d through %s", where[k], k))
		}
		res.Evidence = append(res.Evidence, fmt.Sprintf("as %s, by the server, %d kinds of request: %s", runaway.User, len(v.runaway), strings.Join(parts, ", ")))
	}
	res.Evidence = append(res.Evidence, v.evidence...)
	return res
}

// observe reads the objects, gathers the runaway operator's kinds of
// request and the other senders' requests, and finds where each goes.
func observe(ctx context.Context, c *labcheck.Cluster) (*view, error) {
	objs, err := kube.Load(ctx, c.Kube)
	if err != nil {
		return nil, err
	}
	cfg, err := objs.Config()
	if err != nil {
		return nil, err
	}
	v := &view{objs: objs, cfg: cfg}

	kindsOfRunaway, controlSenders, controlReqs := v.traffic(ctx, c)
	for _, r := range kindsOfRunaway {
		r.User = runaway.User
		rt, err := v.probe(ctx, c, r)
		if err != nil {
			return nil, err
		}
		v.runaway = append(v.runaway, rt)
		v.routes = append(v.routes, rt.String())
	}
	v.changed = changedDefaults(objs)
	if len(v.changed) == 0 {
		v.seen("the server's own schemas and levels: as it writes them")
	}
	for _, ch := range v.changed {
		v.seen("%s", ch)
	}
	// The control plane first: a schema that takes it is the worse news.
	reqs := kinds(kindsOfRunaway, ControlPlaneRequests, controlReqs)
	v.byModel("the control plane", controlSenders, reqs)
	v.byModel("other senders (nodes, anonymous, other namespaces' accounts, people)", Outsiders, reqs)
	for _, user := range Bystanders {
		var moved []string
		for _, r := range kindsOfRunaway {
			r.User = user
			rt, err := v.probe(ctx, c, r)
			if err != nil {
				return nil, err
			}
			o := Other{Route: rt, Was: newCluster().Classify(rt.Request).Level.Name}
			v.others = append(v.others, o)
			if o.taken() {
				moved = append(moved, o.String())
			}
		}
		if len(moved) == 0 {
			v.seen("as %s, by the server: the same %d kinds of request keep the levels of a new cluster", user, len(kindsOfRunaway))
		} else {
			v.seen("as %s, by the server, %d of %d taken: %s", user, len(moved), len(kindsOfRunaway), strings.Join(moved, "; "))
		}
	}
	return v, nil
}

// byModel classifies each of reqs as each of senders with the model, adds
// them to the others, and says in the evidence whether any is taken.
func (v *view) byModel(who string, senders []Sender, reqs []kube.Request) {
	var taken []string
	levels := map[string]int{}
	for _, s := range senders {
		for _, r := range reqs {
			r.User, r.Groups = s.User, s.Groups
			cls := v.cfg.Classify(r)
			o := Other{Route: Route{Request: r, Schema: cls.Schema.Name, Precedence: cls.Schema.Spec.MatchingPrecedence,
				Level: cls.Level.Name, Exempt: cls.Level.Spec.Type == flowcontrol.PriorityLevelEnablementExempt, ByModel: true},
				Was: newCluster().Classify(r).Level.Name}
			v.others = append(v.others, o)
			levels[o.Level]++
			if o.taken() {
				taken = append(taken, o.String())
			}
		}
	}
	if len(taken) == 0 {
		v.seen("%s, by the model: %d senders × %d kinds of request keep the levels of a new cluster (%s)", who, len(senders), len(reqs), counts(levels))
	} else {
		v.seen("%s, by the model: %d of %d requests taken, such as %s", who, len(taken), len(senders)*len(reqs), strings.Join(taken[:min(3, len(taken))], "; "))
	}
}

// traffic returns the kinds of request of the runaway operator, and the
// control plane's senders and requests, from the audit log since the
// lab's namespace was created and from the known lists, and says in the
// evidence which it used.
func (v *view) traffic(ctx context.Context, c *labcheck.Cluster) (runawayKinds []kube.Request, senders []Sender, reqs []kube.Request) {
	known := len(KnownRunawayRequests)
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	log := c.Audit()
	switch {
	case log == nil:
		v.seen("no audit log (%s): judged from the operator's %d known kinds of request and the control plane's known senders and requests", strings.TrimSuffix(c.NoAudit, "."), known)
		return KnownRunawayRequests, ControlPlane, nil
	case err != nil:
		why := err.Error()
		if apierrors.IsNotFound(err) {
			why = "it does not exist"
		}
		v.seen("audit log: no lab traffic to read, since namespace %s cannot be read (%s): judged from the operator's %d known kinds of request", Namespace, why, known)
		return KnownRunawayRequests, ControlPlane, nil
	}
	start := ns.CreationTimestamp.Time
	events := since(log, start)
	traffic := operatorTraffic(events)
	senders, reqs = controlPlaneTraffic(events)
	covered := ""
	if !log.Covers(start) {
		covered = " (the log begins after that)"
	}
	at := start.UTC().Format(time.TimeOnly)
	if len(traffic) == 0 {
		v.seen("audit log: no request as %s since %s was created at %s%s (%s sends some): judged from its %d known kinds of request",
			runaway.User, Namespace, at, covered, operatorCommand, known)
	} else {
		found := kinds(traffic)
		v.seen("audit log: %d requests as %s (under its token, or acting as it) since %s was created at %s%s, of %d kinds; with its %d known kinds, %d kinds judged",
			len(traffic), runaway.User, Namespace, at, covered, len(found), known, len(kinds(found, KnownRunawayRequests)))
	}
	v.seen("audit log: %d requests of the control plane since %s", len(reqs), at)
	return kinds(traffic, KnownRunawayRequests), senders, reqs
}

// probe sends r as its user, by impersonation, and returns where the
// server put it. The model's classification of the same request must
// agree; where it does not, the view notes it.
func (v *view) probe(ctx context.Context, c *labcheck.Cluster, r kube.Request) (Route, error) {
	p, err := kube.Send(ctx, c.Config, r)
	if err != nil {
		return Route{}, fmt.Errorf("sending %s as %s: %w", kube.Describe(r), r.User, err)
	}
	if p.FlowSchemaUID == "" {
		return Route{}, fmt.Errorf("the server answered %s as %s with HTTP %d and no X-Kubernetes-PF-FlowSchema-UID: is API Priority and Fairness on, and may you impersonate %s?", kube.Describe(r), r.User, p.Status, r.User)
	}
	seen, err := kube.Seen(r)
	if err != nil {
		return Route{}, err
	}
	seen.Groups = kube.Impersonated(r.User, r.Groups)
	rt := Route{Request: seen}
	for _, fs := range v.objs.Schemas {
		if string(fs.UID) == p.FlowSchemaUID {
			rt.Schema, rt.Precedence = fs.Name, fs.Spec.MatchingPrecedence
		}
	}
	for _, pl := range v.objs.Levels {
		if string(pl.UID) == p.LevelUID {
			rt.Level, rt.Exempt = pl.Name, pl.Spec.Type == flowcontrol.PriorityLevelEnablementExempt
		}
	}
	if rt.Schema == "" || rt.Level == "" {
		return Route{}, errStale
	}
	if m := v.cfg.Classify(seen); m.Schema.Name != rt.Schema || m.Level.Name != rt.Level {
		v.disagree = append(v.disagree, fmt.Sprintf("%s as %s into %s and %s, where the model says %s and %s",
			kube.Describe(seen), r.User, rt.Schema, rt.Level, m.Schema.Name, m.Level.Name))
	}
	return rt, nil
}

// counts prints how many requests went to each level: "exempt 45, workload-high 120".
func counts(m map[string]int) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	return strings.Join(parts, ", ")
}

// stale turns errStale into a failed result, which asks the learner to run
// the check again, and passes any other error on.
func stale(err error) (labcheck.Result, error) {
	if errors.Is(err, errStale) {
		return labcheck.Failf("%v", err), nil
	}
	return labcheck.Result{}, err
}

func checkIsolated(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	v, err := observe(ctx, c)
	if err != nil {
		return stale(err)
	}
	return v.result(judgeIsolated(v.runaway, v.others, v.changed), true), nil
}

func checkNarrow(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	v, err := observe(ctx, c)
	if err != nil {
		return stale(err)
	}
	seats, err := kube.LevelLimits(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	const before = "workload-low"
	levels := []string{before}
	for _, r := range v.runaway {
		levels = appendNew(levels, r.Level)
	}
	byModel := map[string]kube.LevelSeats{}
	for _, s := range v.cfg.Seats(apf.DefaultServerSeats) {
		byModel[s.Level] = s
	}
	var lines []string
	for _, l := range levels {
		n, ok := seats[l]
		if !ok {
			continue
		}
		lines = append(lines, fmt.Sprintf("apiserver_flowcontrol_nominal_limit_seats{priority_level=%q} %d", l, n.Nominal))
		if l == before {
			continue
		}
		if pl := v.cfg.Levels[l]; pl != nil && pl.Spec.Limited != nil {
			lines = append(lines, fmt.Sprintf("%s: lendablePercent %d, borrowingLimitPercent %s", l, deref(pl.Spec.Limited.LendablePercent), percent(pl.Spec.Limited.BorrowingLimitPercent)))
		}
		if n.Bounded {
			lines = append(lines, fmt.Sprintf("apiserver_flowcontrol_lower_limit_seats{priority_level=%q} %d", l, n.Lower),
				fmt.Sprintf("apiserver_flowcontrol_upper_limit_seats{priority_level=%q} %d", l, n.Upper))
			continue
		}
		// A server that hides the ALPHA bounds: the model computes them as
		// the server does, from the cluster's levels, at the default 600
		// server seats.
		if m, ok := byModel[l]; ok {
			n.Lower, n.Upper = m.Min, m.Max
			seats[l] = n
			lines = append(lines, fmt.Sprintf("%s: the server reports no lower or upper limit; the model's, from the levels at %d server seats: %d to %d", l, apf.DefaultServerSeats, n.Lower, n.Upper))
		}
	}
	return v.result(judgeNarrow(v.runaway, v.others, seats, before, v.changed), false, lines...), nil
}

func checkTie(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	v, err := observe(ctx, c)
	if err != nil {
		return stale(err)
	}
	var ties []TieRoute
	var lines []string
	for _, r := range TieRequests {
		r.User = kube.ServiceAccountUser(Namespace, TieProbe)
		rt, err := v.probe(ctx, c, r)
		if err != nil {
			return stale(err)
		}
		t := TieRoute{Route: rt}
		for _, fs := range v.cfg.Matching(rt.Request) {
			if fs.Spec.MatchingPrecedence == rt.Precedence {
				t.Tied = append(t.Tied, fs.Name)
			}
		}
		ties = append(ties, t)
		lines = append(lines, fmt.Sprintf("%s; matching at precedence %d: %s", rt, rt.Precedence, strings.Join(t.Tied, ", ")))
	}
	return v.result(judgeTie(ties, v.others), false, lines...), nil
}

func checkNoExemptNoDangling(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	v, err := observe(ctx, c)
	if err != nil {
		return stale(err)
	}
	levels := map[string]*flowcontrol.PriorityLevelConfiguration{}
	for _, pl := range v.objs.Levels {
		levels[pl.Name] = pl
	}
	modelDangling := map[string]string{}
	for _, d := range v.cfg.Dangling {
		modelDangling[d.Schema] = fmt.Sprintf("its level %s is missing or broken", d.Level)
	}
	var added []Added
	var lines []string
	for _, fs := range v.objs.SortedSchemas() {
		if isDefaultSchema(fs.Name) {
			continue
		}
		a := Added{Name: fs.Name, Level: fs.Spec.PriorityLevelConfiguration.Name, Dangling: modelDangling[fs.Name]}
		if pl := levels[a.Level]; pl != nil && pl.Spec.Type == flowcontrol.PriorityLevelEnablementExempt {
			a.Exempt = true
		}
		for _, cond := range fs.Status.Conditions {
			if cond.Type == flowcontrol.FlowSchemaConditionDangling && cond.Status == flowcontrol.ConditionTrue {
				a.Dangling = cond.Message
				lines = append(lines, fmt.Sprintf("FlowSchema %s: condition Dangling=True, %s: %s", fs.Name, cond.Reason, cond.Message))
			}
		}
		added = append(added, a)
		lines = append(lines, fmt.Sprintf("FlowSchema %s → level %s", fs.Name, a.Level))
	}
	var takers []string
	for _, r := range v.runaway {
		if !isDefaultSchema(r.Schema) {
			takers = appendNew(takers, r.Schema)
		}
	}
	return v.result(judgeExemptDangling(added, takers, v.changed), false, lines...), nil
}
