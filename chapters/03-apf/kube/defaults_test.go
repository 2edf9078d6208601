package kube

import (
	"testing"

	flowcontrol "k8s.io/api/flowcontrol/v1"
)

func TestValidationRefusesWildcardAmongOthers(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		rule         flowcontrol.PolicyRulesWithSubjects
		want         string
	}{
		{"verbs", "the API answers \"if '*' is present, must not specify other verbs\"",
			flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{{Verbs: []string{"get", "*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true}}},
			`FlowSchema s: rule 0: verbs ["get" "*"]: "*" must be the only entry`},
		{"namespaces", "", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*", "x"}}}},
			`FlowSchema s: rule 0: namespaces ["*" "x"]: "*" must be the only entry`},
		{"non-resource URLs", "", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, NonResourceRules: []flowcontrol.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"/healthz", "*"}}}},
			`FlowSchema s: rule 0: nonResourceURLs ["/healthz" "*"]: "*" must be the only entry`},
		{"alone", "* alone is fine", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateFlowSchema(schema("s", 500, "catch-all", tc.rule))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("ValidateFlowSchema = %q, want %q (%s)", got, tc.want, tc.reason)
			}
		})
	}
}
