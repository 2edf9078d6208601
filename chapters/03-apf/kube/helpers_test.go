package kube

import (
	"testing"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
)

// defaultObjects returns the mandatory and suggested objects a new API
// server creates, from k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap.
func defaultObjects() ([]*flowcontrol.FlowSchema, []*flowcontrol.PriorityLevelConfiguration) {
	var fss []*flowcontrol.FlowSchema
	fss = append(fss, bootstrap.MandatoryFlowSchemas...)
	fss = append(fss, bootstrap.SuggestedFlowSchemas...)
	var pls []*flowcontrol.PriorityLevelConfiguration
	pls = append(pls, bootstrap.MandatoryPriorityLevelConfigurations...)
	pls = append(pls, bootstrap.SuggestedPriorityLevelConfigurations...)
	return fss, pls
}

func defaultConfig(t testing.TB) *Config {
	t.Helper()
	fss, pls := defaultObjects()
	c, err := NewConfig(fss, pls)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// schema builds a FlowSchema with one rule.
func schema(name string, precedence int32, level string, rule flowcontrol.PolicyRulesWithSubjects) *flowcontrol.FlowSchema {
	return &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			Rules:                      []flowcontrol.PolicyRulesWithSubjects{rule},
		},
	}
}

func user(name string) flowcontrol.Subject {
	return flowcontrol.Subject{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: name}}
}

func group(name string) flowcontrol.Subject {
	return flowcontrol.Subject{Kind: flowcontrol.SubjectKindGroup, Group: &flowcontrol.GroupSubject{Name: name}}
}

func serviceAccount(ns, name string) flowcontrol.Subject {
	return flowcontrol.Subject{Kind: flowcontrol.SubjectKindServiceAccount, ServiceAccount: &flowcontrol.ServiceAccountSubject{Namespace: ns, Name: name}}
}

// anything is a resource rule that takes every resource request.
var anything = flowcontrol.ResourcePolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}

// queueLevel builds a Limited level that queues.
func queueLevel(name string, shares, lendable int32, borrowing *int32) *flowcontrol.PriorityLevelConfiguration {
	return &flowcontrol.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.PriorityLevelConfigurationSpec{
			Type: flowcontrol.PriorityLevelEnablementLimited,
			Limited: &flowcontrol.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr(shares),
				LendablePercent:          ptr(lendable),
				BorrowingLimitPercent:    borrowing,
				LimitResponse: flowcontrol.LimitResponse{
					Type:    flowcontrol.LimitResponseTypeQueue,
					Queuing: &flowcontrol.QueuingConfiguration{Queues: 16, HandSize: 4, QueueLengthLimit: 10},
				},
			},
		},
	}
}

func rejectLevel(name string, shares int32) *flowcontrol.PriorityLevelConfiguration {
	pl := queueLevel(name, shares, 0, nil)
	pl.Spec.Limited.LimitResponse = flowcontrol.LimitResponse{Type: flowcontrol.LimitResponseTypeReject}
	return pl
}

func names(fss []*flowcontrol.FlowSchema) []string {
	var out []string
	for _, fs := range fss {
		out = append(out, fs.Name)
	}
	return out
}

// oneQueueLevel is a level that queues with a single queue.
func oneQueueLevel(name string, shares int32) *flowcontrol.PriorityLevelConfiguration {
	pl := queueLevel(name, shares, 0, nil)
	pl.Spec.Limited.LimitResponse.Queuing = &flowcontrol.QueuingConfiguration{Queues: 1, HandSize: 1, QueueLengthLimit: 10}
	return pl
}
