package gradertest

import "testing"

// TestAllows reads the role as the server would for the requests the checks
// send: what it lists is allowed, what it leaves out is not.
func TestAllows(t *testing.T) {
	for _, tc := range []struct {
		verb, group, resource, sub string
		want                       bool
	}{
		{"get", "", "pods", "", true},
		{"list", "apps", "replicasets", "", true},
		{"create", "", "pods", "eviction", true},
		{"watch", "", "pods", "", false},
		{"delete", "", "pods", "", false},
		{"create", "", "pods", "binding", false},
		{"get", "", "secrets", "", false},
		{"get", "", "serviceaccounts", "", false}, // impersonate only, and by name
	} {
		if got := Allows(tc.verb, tc.group, tc.resource, tc.sub); got != tc.want {
			t.Errorf("Allows(%s %s/%s %s) = %v, want %v", tc.verb, tc.group, tc.resource, tc.sub, got, tc.want)
		}
	}
}
