// Package apfcheck holds the lab checks of chapter 3 (API Priority and
// Fairness). They ask the API server itself how it classifies requests:
// they send requests as the lab's service accounts (impersonation, so the
// grader's credentials need the impersonate permission, as a cluster
// administrator has) and read the X-Kubernetes-PF-FlowSchema-UID and
// X-Kubernetes-PF-PriorityLevel-UID headers, which arrive even when the
// request itself is forbidden; they read seats from
// apiserver_flowcontrol_nominal_limit_seats and dangling schemas from the
// status the server wrote. The requests are reads, and would be dry-run if
// they were not, so the checks change nothing.
//
// Importing the package registers its checks with labcheck.
package apfcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/apfclient"
	"github.com/opslab/opslab/labcheck"
)

// The lab's names.
const (
	Namespace = "apf-lab"
	Runaway   = "runaway-operator"
	TieProbe  = "tie-probe"
)

// RunawayRequest is what the checks send as the runaway operator: a list
// of config maps in its namespace, the kind of call a controller without a
// cache repeats.
var RunawayRequest = apf.Request{
	User:     apf.ServiceAccountUser(Namespace, Runaway),
	Verb:     "list",
	Resource: "configmaps", Namespace: Namespace,
}

// TieRequest is what the checks send as the account of the tie experiment.
var TieRequest = apf.Request{
	User:     apf.ServiceAccountUser(Namespace, TieProbe),
	Verb:     "get",
	Resource: "pods", Namespace: Namespace,
}

func init() {
	labcheck.Register(labcheck.Check{
		Chapter: 3, ID: "apf-runaway-isolated", Points: 2,
		Title: "the API server puts the runaway operator's requests in a level of their own",
		Claim: "one narrow level and one schema isolate a runaway operator",
		Reads: "the X-Kubernetes-PF-* headers of a request sent as system:serviceaccount:apf-lab:runaway-operator; the FlowSchemas and levels they name",
		Hints: []string{
			"Create a Limited PriorityLevelConfiguration for the operator, and a FlowSchema whose subject is the service account apf-lab/runaway-operator.",
			"The schema must come before service-accounts (precedence 9000): give it a lower matchingPrecedence, such as 500.",
			"Apply the lab's manifests: kubectl apply -f chapters/03-apf/lab/runaway-level.yaml -f chapters/03-apf/lab/runaway-schema.yaml",
		},
		Run: checkIsolated,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 3, ID: "apf-runaway-level-narrow", Points: 1,
		Title: "the runaway operator's level has fewer seats than workload-low, where it used to go",
		Claim: "a narrow level contains a runaway: its seats come from its shares",
		Reads: "the level the server chose for the runaway operator; apiserver_flowcontrol_nominal_limit_seats from /metrics",
		Hints: []string{
			"Seats come from nominalConcurrencyShares: a level with 5 shares gets about 12 of 600 seats.",
			"kubectl get --raw /metrics | grep apiserver_flowcontrol_nominal_limit_seats shows each level's seats.",
		},
		Run: checkNarrow,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 3, ID: "apf-tie-by-name", Points: 1,
		Title: "two schemas of equal precedence match apf-lab/tie-probe, and the server picked the first by name",
		Claim: "equal precedence falls back to name order",
		Reads: "the X-Kubernetes-PF-FlowSchema-UID header of a request sent as system:serviceaccount:apf-lab:tie-probe; the FlowSchemas that match it",
		Hints: []string{
			"Create two FlowSchemas with the same matchingPrecedence whose subject is the service account apf-lab/tie-probe.",
			"Apply the lab's manifest: kubectl apply -f chapters/03-apf/lab/tie.yaml",
		},
		Run: checkTie,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 3, ID: "apf-nothing-exempt-or-dangling", Points: 1,
		Title: "no schema you added sends requests to exempt or dangles",
		Claim: "exempt removes the server's protection; a schema naming a missing level is silently ignored",
		Reads: "the FlowSchemas beyond the defaults, the levels they name, and their Dangling status condition",
		Hints: []string{
			"kubectl get flowschemas shows MISSINGPL True for a schema whose level does not exist: fix the level's name.",
			exemptHint,
		},
		Run: checkNoExemptNoDangling,
	})
}

// exemptHint is the second staged hint of apf-nothing-exempt-or-dangling,
// and the first one shown when the failure is a schema pointing at exempt.
const exemptHint = "A schema pointing at the exempt level turns off every limit for its requests: point it at a Limited level."

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

// served is what the server said about one request, with the UIDs mapped
// to the objects.
type served struct {
	probe  apfclient.Probe
	schema *flowcontrol.FlowSchema
	level  *flowcontrol.PriorityLevelConfiguration
}

func (s served) String() string {
	name := func(found bool, n, uid string) string {
		if !found {
			return fmt.Sprintf("unknown (UID %q)", uid)
		}
		return n
	}
	fs, pl := "", ""
	if s.schema != nil {
		fs = fmt.Sprintf("%s (precedence %d)", s.schema.Name, s.schema.Spec.MatchingPrecedence)
	}
	if s.level != nil {
		pl = fmt.Sprintf("%s (%s)", s.level.Name, s.level.Spec.Type)
	}
	return fmt.Sprintf("HTTP %d, FlowSchema %s, PriorityLevel %s", s.probe.Status,
		name(s.schema != nil, fs, s.probe.FlowSchemaUID), name(s.level != nil, pl, s.probe.LevelUID))
}

// send sends r as its user and maps the headers to objects of objs.
func send(ctx context.Context, c *labcheck.Cluster, objs apfclient.Objects, r apf.Request) (served, error) {
	p, err := apfclient.Send(ctx, c.Config, r)
	if err != nil {
		return served{}, fmt.Errorf("sending %s as %s: %w", r.Verb, r.User, err)
	}
	if p.FlowSchemaUID == "" {
		return served{}, fmt.Errorf("the server answered HTTP %d without X-Kubernetes-PF-FlowSchema-UID: is API Priority and Fairness on, and may you impersonate %s?", p.Status, r.User)
	}
	s := served{probe: p}
	for _, fs := range objs.Schemas {
		if string(fs.UID) == p.FlowSchemaUID {
			s.schema = fs
		}
	}
	for _, pl := range objs.Levels {
		if string(pl.UID) == p.LevelUID {
			s.level = pl
		}
	}
	return s, nil
}

func load(ctx context.Context, c *labcheck.Cluster) (apfclient.Objects, error) {
	return apfclient.Load(ctx, c.Kube)
}

func checkIsolated(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	objs, err := load(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	s, err := send(ctx, c, objs, RunawayRequest)
	if err != nil {
		return labcheck.Result{}, err
	}
	var res labcheck.Result
	switch {
	case s.schema == nil || s.level == nil:
		res = labcheck.Failf("the server named a schema or level that was not there a moment ago; run the check again")
	case isDefaultSchema(s.schema.Name):
		res = labcheck.Failf("the runaway operator's requests still go to the default schema %s and level %s", s.schema.Name, s.level.Name)
	case s.level.Spec.Type == flowcontrol.PriorityLevelEnablementExempt:
		res = labcheck.Failf("the runaway operator's requests go to exempt through %s: nothing limits them now", s.schema.Name)
	case isDefaultLevel(s.level.Name):
		res = labcheck.Failf("schema %s takes the runaway operator, but sends it to the shared level %s, not a level of its own", s.schema.Name, s.level.Name)
	default:
		res = labcheck.Passf("the server classified the runaway operator's request with %s into its own level %s", s.schema.Name, s.level.Name)
	}
	res.Seen("list configmaps -n %s as %s: %s", Namespace, RunawayRequest.User, s)
	return res, nil
}

func checkNarrow(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	objs, err := load(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	s, err := send(ctx, c, objs, RunawayRequest)
	if err != nil {
		return labcheck.Result{}, err
	}
	seats, err := apfclient.NominalSeats(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	const before = "workload-low"
	var res labcheck.Result
	switch {
	case s.level == nil:
		res = labcheck.Failf("the server named a level that was not there a moment ago; run the check again")
	case isDefaultLevel(s.level.Name) || s.level.Spec.Type != flowcontrol.PriorityLevelEnablementLimited:
		res = labcheck.Failf("the runaway operator's requests go to %s, not to a Limited level of their own", s.level.Name)
	default:
		mine, ok := seats[s.level.Name]
		switch {
		case !ok:
			res = labcheck.Failf("the server reports no seats for %s yet; run the check again in a few seconds", s.level.Name)
		case mine >= seats[before]:
			res = labcheck.Failf("%s has %d seats, no fewer than %s's %d: lower its nominalConcurrencyShares", s.level.Name, mine, before, seats[before])
		default:
			res = labcheck.Passf("%s has %d nominal seats, against %d for %s", s.level.Name, mine, seats[before], before)
		}
		res.Seen("apiserver_flowcontrol_nominal_limit_seats{priority_level=%q} %d", s.level.Name, mine)
	}
	res.Seen("apiserver_flowcontrol_nominal_limit_seats{priority_level=%q} %d", before, seats[before])
	res.Seen("list configmaps -n %s as %s: %s", Namespace, RunawayRequest.User, s)
	return res, nil
}

func checkTie(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	objs, err := load(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	s, err := send(ctx, c, objs, TieRequest)
	if err != nil {
		return labcheck.Result{}, err
	}
	cfg, err := objs.Config()
	if err != nil {
		return labcheck.Result{}, err
	}
	r := TieRequest
	r.Groups = apf.Impersonated(r.User, nil)
	var tied []string
	if s.schema != nil {
		for _, fs := range cfg.Matching(r) {
			if fs.Spec.MatchingPrecedence == s.schema.Spec.MatchingPrecedence {
				tied = append(tied, fs.Name)
			}
		}
	}
	var res labcheck.Result
	switch {
	case s.schema == nil:
		res = labcheck.Failf("the server named a schema that was not there a moment ago; run the check again")
	case len(tied) < 2:
		res = labcheck.Failf("only %s matches the tie probe at precedence %d: there is no tie yet", s.schema.Name, s.schema.Spec.MatchingPrecedence)
	case tied[0] != s.schema.Name:
		res = labcheck.Failf("the server picked %s although %s sorts first among the tied %s", s.schema.Name, tied[0], strings.Join(tied, ", "))
	default:
		res = labcheck.Passf("%s all match at precedence %d, and the server picked %s, the first by name", strings.Join(tied, ", "), s.schema.Spec.MatchingPrecedence, s.schema.Name)
	}
	res.Seen("get pods -n %s as %s: %s", Namespace, TieRequest.User, s)
	return res, nil
}

func checkNoExemptNoDangling(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	objs, err := load(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	levels := map[string]*flowcontrol.PriorityLevelConfiguration{}
	for _, pl := range objs.Levels {
		levels[pl.Name] = pl
	}
	var res labcheck.Result
	var added, exempt, dangling []string
	for _, fs := range objs.SortedSchemas() {
		if isDefaultSchema(fs.Name) {
			continue
		}
		added = append(added, fs.Name)
		target := fs.Spec.PriorityLevelConfiguration.Name
		if pl := levels[target]; pl != nil && pl.Spec.Type == flowcontrol.PriorityLevelEnablementExempt {
			exempt = append(exempt, fs.Name)
		}
		for _, cond := range fs.Status.Conditions {
			if cond.Type == flowcontrol.FlowSchemaConditionDangling && cond.Status == flowcontrol.ConditionTrue {
				dangling = append(dangling, fs.Name)
				res.Seen("FlowSchema %s: condition Dangling=True, %s: %s", fs.Name, cond.Reason, cond.Message)
			}
		}
		res.Seen("FlowSchema %s → level %s", fs.Name, target)
	}
	switch {
	case len(added) == 0:
		return fail(res, "you have added no FlowSchema yet"), nil
	case len(exempt) > 0:
		f := fail(res, "requests matched by %s go to exempt, where nothing protects the server from them", strings.Join(exempt, ", "))
		f.Hint = exemptHint
		return f, nil
	case len(dangling) > 0:
		return fail(res, "the server ignores %s (status Dangling): their requests go where they went before", strings.Join(dangling, ", ")), nil
	}
	pass := labcheck.Passf("none of the %d schemas you added points at exempt or dangles", len(added))
	pass.Evidence = res.Evidence
	return pass, nil
}

func fail(res labcheck.Result, format string, args ...any) labcheck.Result {
	f := labcheck.Failf(format, args...)
	f.Evidence = res.Evidence
	return f
}
