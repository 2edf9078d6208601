package kube

import (
	"fmt"

	flowcontrol "k8s.io/api/flowcontrol/v1"
)

// The defaults of flowcontrol/v1 (k8s.io/kubernetes pkg/apis/flowcontrol/v1/defaults.go).
const (
	DefaultMatchingPrecedence = 1000
	DefaultShares             = 30
	DefaultQueues             = 64
	DefaultHandSize           = 8
	DefaultQueueLengthLimit   = 50
	MaxMatchingPrecedence     = 10000
)

// SetDefaults fills in what the API server fills in when an object is
// created without it, so that objects read from files behave like the ones
// read from a cluster.
func SetDefaults(schemas []*flowcontrol.FlowSchema, levels []*flowcontrol.PriorityLevelConfiguration) {
	for _, fs := range schemas {
		if fs.Spec.MatchingPrecedence == 0 {
			fs.Spec.MatchingPrecedence = DefaultMatchingPrecedence
		}
	}
	for _, pl := range levels {
		if e := pl.Spec.Exempt; e != nil {
			e.NominalConcurrencyShares = orDefault(e.NominalConcurrencyShares, 0)
			e.LendablePercent = orDefault(e.LendablePercent, 0)
		}
		if l := pl.Spec.Limited; l != nil {
			l.NominalConcurrencyShares = orDefault(l.NominalConcurrencyShares, DefaultShares)
			l.LendablePercent = orDefault(l.LendablePercent, 0)
			if q := l.LimitResponse.Queuing; q != nil {
				if q.Queues == 0 {
					q.Queues = DefaultQueues
				}
				if q.HandSize == 0 {
					q.HandSize = DefaultHandSize
				}
				if q.QueueLengthLimit == 0 {
					q.QueueLengthLimit = DefaultQueueLengthLimit
				}
			}
		}
	}
}

func orDefault(p *int32, v int32) *int32 {
	if p != nil {
		return p
	}
	return &v
}

// ValidateFlowSchema returns the first problem the API server's validation would
// report for a defaulted schema (a subset of upstream's rules: the ones
// that change what classification means), or nil.
func ValidateFlowSchema(fs *flowcontrol.FlowSchema) error {
	s := fs.Spec
	switch {
	case fs.Name == "":
		return fmt.Errorf("a FlowSchema has no name")
	case s.MatchingPrecedence < 1 || s.MatchingPrecedence > MaxMatchingPrecedence:
		return fmt.Errorf("FlowSchema %s: matchingPrecedence %d is outside 1..%d", fs.Name, s.MatchingPrecedence, MaxMatchingPrecedence)
	case s.MatchingPrecedence == 1 && fs.Name != flowcontrol.FlowSchemaNameExempt:
		return fmt.Errorf("FlowSchema %s: only the schema named exempt may have matchingPrecedence 1", fs.Name)
	case s.PriorityLevelConfiguration.Name == "":
		return fmt.Errorf("FlowSchema %s: priorityLevelConfiguration.name is empty", fs.Name)
	}
	if m := s.DistinguisherMethod; m != nil && m.Type != flowcontrol.FlowDistinguisherMethodByUserType && m.Type != flowcontrol.FlowDistinguisherMethodByNamespaceType {
		return fmt.Errorf("FlowSchema %s: distinguisherMethod type %q is neither ByUser nor ByNamespace", fs.Name, m.Type)
	}
	for i, r := range s.Rules {
		if len(r.Subjects) == 0 {
			return fmt.Errorf("FlowSchema %s: rule %d has no subjects", fs.Name, i)
		}
		if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
			return fmt.Errorf("FlowSchema %s: rule %d has neither resourceRules nor nonResourceRules", fs.Name, i)
		}
		for _, sub := range r.Subjects {
			ok := false
			switch sub.Kind {
			case flowcontrol.SubjectKindUser:
				ok = sub.User != nil && sub.User.Name != ""
			case flowcontrol.SubjectKindGroup:
				ok = sub.Group != nil && sub.Group.Name != ""
			case flowcontrol.SubjectKindServiceAccount:
				ok = sub.ServiceAccount != nil && sub.ServiceAccount.Name != "" && sub.ServiceAccount.Namespace != ""
			}
			if !ok {
				return fmt.Errorf("FlowSchema %s: rule %d has a subject of kind %q without a name under %s", fs.Name, i, sub.Kind, kindField(sub.Kind))
			}
		}
		for _, rr := range r.ResourceRules {
			if len(rr.Verbs) == 0 || len(rr.APIGroups) == 0 || len(rr.Resources) == 0 {
				return fmt.Errorf("FlowSchema %s: rule %d has a resource rule without verbs, apiGroups or resources", fs.Name, i)
			}
			for _, l := range []struct {
				field string
				list  []string
			}{{"verbs", rr.Verbs}, {"apiGroups", rr.APIGroups}, {"resources", rr.Resources}, {"namespaces", rr.Namespaces}} {
				if err := wildcardAlone(l.field, l.list); err != nil {
					return fmt.Errorf("FlowSchema %s: rule %d: %w", fs.Name, i, err)
				}
			}
			if !rr.ClusterScope && len(rr.Namespaces) == 0 {
				return fmt.Errorf("FlowSchema %s: rule %d has a resource rule that is neither clusterScope nor names a namespace", fs.Name, i)
			}
		}
		for _, nr := range r.NonResourceRules {
			if len(nr.Verbs) == 0 || len(nr.NonResourceURLs) == 0 {
				return fmt.Errorf("FlowSchema %s: rule %d has a non-resource rule without verbs or nonResourceURLs", fs.Name, i)
			}
			if err := wildcardAlone("verbs", nr.Verbs); err != nil {
				return fmt.Errorf("FlowSchema %s: rule %d: %w", fs.Name, i, err)
			}
			if err := wildcardAlone("nonResourceURLs", nr.NonResourceURLs); err != nil {
				return fmt.Errorf("FlowSchema %s: rule %d: %w", fs.Name, i, err)
			}
		}
	}
	return nil
}

// wildcardAlone refuses "*" among other entries, as the API server's
// validation does ("if '*' is present, must not specify other verbs"), so
// that a server never holds such a list.
func wildcardAlone(field string, list []string) error {
	if len(list) > 1 && contains(list, "*") {
		return fmt.Errorf("%s %q: \"*\" must be the only entry", field, list)
	}
	return nil
}

func kindField(k flowcontrol.SubjectKind) string {
	switch k {
	case flowcontrol.SubjectKindUser:
		return "user"
	case flowcontrol.SubjectKindGroup:
		return "group"
	case flowcontrol.SubjectKindServiceAccount:
		return "serviceAccount"
	}
	return "User, Group or ServiceAccount"
}

// ValidateLevel returns the first problem the API server's validation
// would report for a defaulted level (the rules that decide seats and
// queuing), or nil.
func ValidateLevel(pl *flowcontrol.PriorityLevelConfiguration) error {
	if pl.Name == "" {
		return fmt.Errorf("a PriorityLevelConfiguration has no name")
	}
	if err := levelProblem(pl); err != nil {
		return fmt.Errorf("PriorityLevelConfiguration %s: %w", pl.Name, err)
	}
	if l := pl.Spec.Limited; l != nil {
		if *l.NominalConcurrencyShares < 0 {
			return fmt.Errorf("PriorityLevelConfiguration %s: nominalConcurrencyShares %d is negative", pl.Name, *l.NominalConcurrencyShares)
		}
		if p := *l.LendablePercent; p < 0 || p > 100 {
			return fmt.Errorf("PriorityLevelConfiguration %s: lendablePercent %d is outside 0..100", pl.Name, p)
		}
		if p := l.BorrowingLimitPercent; p != nil && *p < 0 {
			return fmt.Errorf("PriorityLevelConfiguration %s: borrowingLimitPercent %d is negative", pl.Name, *p)
		}
		if q := l.LimitResponse.Queuing; q != nil && (q.Queues < 1 || q.HandSize < 1 || q.QueueLengthLimit < 1) {
			return fmt.Errorf("PriorityLevelConfiguration %s: queues %d, handSize %d and queueLengthLimit %d must all be positive", pl.Name, q.Queues, q.HandSize, q.QueueLengthLimit)
		}
	}
	return nil
}
