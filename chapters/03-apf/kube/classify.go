package kube

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	apf "github.com/opslab/opslab/chapters/03-apf"
)

// A Config is the set of FlowSchemas and priority levels an API server
// classifies with, digested as the server digests them.
type Config struct {
	// Schemas are the schemas that take part in matching, in matching
	// order: matchingPrecedence ascending, then name ascending.
	Schemas []*flowcontrol.FlowSchema
	// Levels are the usable priority levels by name.
	Levels map[string]*flowcontrol.PriorityLevelConfiguration
	// Dangling lists the schemas left out of matching because the level
	// they name does not exist or is broken, in name order.
	Dangling []Dangling
	// Broken lists the levels whose spec the server cannot use, which it
	// treats as absent, in name order.
	Broken []Broken
	// Supplied names the mandatory objects the server supplies because
	// they were missing, such as "FlowSchema exempt".
	Supplied []string
}

// A Dangling schema names a priority level that is not there.
type Dangling struct {
	Schema string `json:"flowSchema"`
	Level  string `json:"priorityLevel"`
}

// A Broken level has a spec that the API server refuses to use.
type Broken struct {
	Level  string `json:"priorityLevel"`
	Reason string `json:"reason"`
}

// NewConfig digests schemas and levels as apf_controller.go does: broken
// levels are ignored, schemas naming a missing level dangle and are left
// out, the mandatory exempt and catch-all schemas and levels are supplied
// when missing, and the schemas are sorted for matching. The objects are
// expected to carry the API server's defaults (see [SetDefaults]). Two
// objects of one kind with the same name are an error.
func NewConfig(schemas []*flowcontrol.FlowSchema, levels []*flowcontrol.PriorityLevelConfiguration) (*Config, error) {
	c := &Config{Levels: map[string]*flowcontrol.PriorityLevelConfiguration{}}
	seen := map[string]bool{}
	for _, pl := range levels {
		if seen[pl.Name] {
			return nil, fmt.Errorf("two PriorityLevelConfigurations are named %q", pl.Name)
		}
		seen[pl.Name] = true
		if err := levelProblem(pl); err != nil {
			c.Broken = append(c.Broken, Broken{Level: pl.Name, Reason: err.Error()})
			continue
		}
		c.Levels[pl.Name] = pl
	}
	seen = map[string]bool{}
	var haveExempt, haveCatchAll bool
	for _, fs := range schemas {
		if seen[fs.Name] {
			return nil, fmt.Errorf("two FlowSchemas are named %q", fs.Name)
		}
		seen[fs.Name] = true
		// Upstream checks the reference before it supplies missing
		// mandatory levels, so a schema naming a missing exempt or
		// catch-all level dangles too.
		if c.Levels[fs.Spec.PriorityLevelConfiguration.Name] == nil {
			c.Dangling = append(c.Dangling, Dangling{Schema: fs.Name, Level: fs.Spec.PriorityLevelConfiguration.Name})
			continue
		}
		c.Schemas = append(c.Schemas, fs)
		haveExempt = haveExempt || fs.Name == flowcontrol.FlowSchemaNameExempt
		haveCatchAll = haveCatchAll || fs.Name == flowcontrol.FlowSchemaNameCatchAll
	}
	sort.SliceStable(c.Schemas, func(i, j int) bool { return Before(c.Schemas[i], c.Schemas[j]) })
	if !haveExempt {
		c.Schemas = append([]*flowcontrol.FlowSchema{bootstrap.MandatoryFlowSchemaExempt}, c.Schemas...)
		c.Supplied = append(c.Supplied, "FlowSchema "+flowcontrol.FlowSchemaNameExempt)
	}
	if !haveCatchAll {
		c.Schemas = append(c.Schemas, bootstrap.MandatoryFlowSchemaCatchAll)
		c.Supplied = append(c.Supplied, "FlowSchema "+flowcontrol.FlowSchemaNameCatchAll)
	}
	for _, pl := range []*flowcontrol.PriorityLevelConfiguration{
		bootstrap.MandatoryPriorityLevelConfigurationExempt,
		bootstrap.MandatoryPriorityLevelConfigurationCatchAll,
	} {
		if c.Levels[pl.Name] == nil {
			c.Levels[pl.Name] = pl
			c.Supplied = append(c.Supplied, "PriorityLevelConfiguration "+pl.Name)
		}
	}
	sort.Slice(c.Dangling, func(i, j int) bool { return c.Dangling[i].Schema < c.Dangling[j].Schema })
	sort.Slice(c.Broken, func(i, j int) bool { return c.Broken[i].Level < c.Broken[j].Level })
	return c, nil
}

// Before reports whether schema a is tried before schema b: the lower
// matchingPrecedence first and, between equals, the name that sorts first.
func Before(a, b *flowcontrol.FlowSchema) bool {
	if pa, pb := a.Spec.MatchingPrecedence, b.Spec.MatchingPrecedence; pa != pb {
		return pa < pb
	}
	return a.Name < b.Name
}

// levelProblem says why the API server would refuse a level's spec
// (queueSetCompleterForPL and the queue set's checkConfig), or returns nil.
func levelProblem(pl *flowcontrol.PriorityLevelConfiguration) error {
	s := pl.Spec
	limited := s.Type == flowcontrol.PriorityLevelEnablementLimited
	exempt := s.Type == flowcontrol.PriorityLevelEnablementExempt
	switch {
	case limited != (s.Limited != nil):
		return errors.New("type and the limited section disagree")
	case exempt != (s.Exempt != nil):
		return errors.New("type and the exempt section disagree")
	case exempt != (pl.Name == flowcontrol.PriorityLevelConfigurationNameExempt):
		return fmt.Errorf("only the level named exempt may be of type Exempt, and it must be; this one is %q", s.Type)
	case !limited:
		return nil
	case s.Limited.NominalConcurrencyShares == nil:
		return errors.New("nominalConcurrencyShares is not set")
	}
	r := s.Limited.LimitResponse
	if (r.Type == flowcontrol.LimitResponseTypeReject) != (r.Queuing == nil) {
		return fmt.Errorf("limitResponse type %q and its queuing section disagree", r.Type)
	}
	if q := r.Queuing; q != nil && q.Queues > 0 {
		if _, err := apf.NewDealer(int(q.Queues), int(q.HandSize)); err != nil {
			return fmt.Errorf("queuing: %w", err)
		}
	}
	return nil
}

// A Classification is where a request goes.
type Classification struct {
	Schema *flowcontrol.FlowSchema
	Level  *flowcontrol.PriorityLevelConfiguration
	// Distinguisher separates the flows of one schema: the user name
	// (ByUser), the namespace (ByNamespace) or "". Upstream computes it only
	// for a level that queues with more than one queue, the only case in
	// which flows matter; elsewhere it is "".
	Distinguisher string
	// FlowHash is apf.FlowHash(schema, distinguisher), computed in the same
	// cases as Distinguisher, and Queued says whether it was.
	FlowHash uint64
	Queued   bool
}

// Classify returns the first schema in matching order that matches r, its
// level and r's flow. Every request matches the catch-all schema, which
// is always present; a request that somehow matches nothing goes to the
// catch-all schema too, as upstream's startRequest falls back to it.
func (c *Config) Classify(r Request) Classification {
	var fs, catchAll *flowcontrol.FlowSchema
	for _, s := range c.Schemas {
		if Matches(s, r) {
			fs = s
			break
		}
		if s.Name == flowcontrol.FlowSchemaNameCatchAll {
			catchAll = s
		}
	}
	if fs == nil {
		fs = catchAll
	}
	pl := c.Levels[fs.Spec.PriorityLevelConfiguration.Name]
	out := Classification{Schema: fs, Level: pl}
	if l := pl.Spec.Limited; l != nil && l.LimitResponse.Type == flowcontrol.LimitResponseTypeQueue && l.LimitResponse.Queuing.Queues > 1 {
		out.Distinguisher = Distinguisher(r, fs.Spec.DistinguisherMethod)
		out.FlowHash = apf.FlowHash(fs.Name, out.Distinguisher)
		out.Queued = true
	}
	return out
}

// Distinguisher returns the part of r that names its flow under method:
// the user name, the namespace, or "" when the schema has no method.
func Distinguisher(r Request, method *flowcontrol.FlowDistinguisherMethod) string {
	if method == nil {
		return ""
	}
	switch method.Type {
	case flowcontrol.FlowDistinguisherMethodByUserType:
		return r.User
	case flowcontrol.FlowDistinguisherMethodByNamespaceType:
		return r.Namespace
	}
	return ""
}

// Matches reports whether one of fs's rules matches r: a rule matches when
// one of its subjects matches the user and, for a resource request, one of
// its resource rules matches, or for a non-resource request one of its
// non-resource rules.
func Matches(fs *flowcontrol.FlowSchema, r Request) bool {
	for i := range fs.Spec.Rules {
		rule := &fs.Spec.Rules[i]
		if !matchesSubject(rule.Subjects, r) {
			continue
		}
		if r.IsResourceRequest() {
			for _, rr := range rule.ResourceRules {
				if matchesResourceRule(rr, r) {
					return true
				}
			}
			continue
		}
		for _, nr := range rule.NonResourceRules {
			if matchesNonResourceRule(nr, r) {
				return true
			}
		}
	}
	return false
}

func matchesSubject(subjects []flowcontrol.Subject, r Request) bool {
	for _, s := range subjects {
		switch s.Kind {
		case flowcontrol.SubjectKindUser:
			if s.User != nil && (s.User.Name == flowcontrol.NameAll || s.User.Name == r.User) {
				return true
			}
		case flowcontrol.SubjectKindGroup:
			if s.Group != nil && (s.Group.Name == flowcontrol.NameAll || contains(r.Groups, s.Group.Name)) {
				return true
			}
		case flowcontrol.SubjectKindServiceAccount:
			if s.ServiceAccount != nil && matchesServiceAccount(s.ServiceAccount, r.User) {
				return true
			}
		}
	}
	return false
}

// matchesServiceAccount compares by user name: a service account is the
// user system:serviceaccount:NAMESPACE:NAME, and name "*" takes every
// service account of the namespace.
func matchesServiceAccount(sa *flowcontrol.ServiceAccountSubject, user string) bool {
	rest, ok := strings.CutPrefix(user, serviceAccountPrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, sa.Namespace+":")
	if !ok {
		return false
	}
	return sa.Name == flowcontrol.NameAll || rest == sa.Name
}

func matchesResourceRule(rr flowcontrol.ResourcePolicyRule, r Request) bool {
	resource := r.Resource
	if r.Subresource != "" {
		resource += "/" + r.Subresource
	}
	if !member(r.Verb, rr.Verbs, flowcontrol.VerbAll) ||
		!member(resource, rr.Resources, flowcontrol.ResourceAll) ||
		!member(r.APIGroup, rr.APIGroups, flowcontrol.APIGroupAll) {
		return false
	}
	if r.Namespace == "" {
		return rr.ClusterScope
	}
	return member(r.Namespace, rr.Namespaces, flowcontrol.NamespaceEvery)
}

func matchesNonResourceRule(nr flowcontrol.NonResourcePolicyRule, r Request) bool {
	if !member(r.Verb, nr.Verbs, flowcontrol.VerbAll) {
		return false
	}
	for _, p := range nr.NonResourceURLs {
		if p == flowcontrol.NonResourceAll || p == r.Path {
			return true
		}
		// "/metrics" and "/metrics/*" both cover everything under
		// /metrics/, but neither covers /metricsx.
		prefix := strings.TrimSuffix(p, "*")
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if strings.HasPrefix(r.Path, prefix) {
			return true
		}
	}
	return false
}

// member reports whether x is in list, where a list holding only the
// wildcard takes everything, as rule.go's containsString does. The API
// server's validation refuses the wildcard among other values (see
// [ValidateFlowSchema]), so a real server never holds such a list; were
// one to reach here, "*" among others would be an ordinary value.
func member(x string, list []string, wildcard string) bool {
	if len(list) == 1 && list[0] == wildcard {
		return true
	}
	return contains(list, x)
}

// Matching returns every schema that matches r, in matching order; the
// first is the one Classify picks.
func (c *Config) Matching(r Request) []*flowcontrol.FlowSchema {
	var out []*flowcontrol.FlowSchema
	for _, s := range c.Schemas {
		if Matches(s, r) {
			out = append(out, s)
		}
	}
	return out
}

// Exempt returns the schemas, in matching order, whose requests go to an
// Exempt level: requests that are never queued nor rejected, so that
// nothing protects the server from them.
func (c *Config) Exempt() []*flowcontrol.FlowSchema {
	var out []*flowcontrol.FlowSchema
	for _, s := range c.Schemas {
		if c.Levels[s.Spec.PriorityLevelConfiguration.Name].Spec.Type == flowcontrol.PriorityLevelEnablementExempt {
			out = append(out, s)
		}
	}
	return out
}
