// Package gradertest holds the check tests' guard on the grader's role:
// every request a chapter's checks send to a fake cluster must be one the
// opslab-grader ClusterRole (labcheck/rbac/grader.yaml) allows, so a check
// that reads something new fails its chapter's unit tests, not an
// instructor's grading of a solved cluster.
package gradertest

import (
	"slices"
	"testing"

	"github.com/opslab/opslab/labcheck"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// Reactors is what a fake clientset offers to have a reactor put first:
// *fake.Clientset of k8s.io/client-go/kubernetes/fake.
type Reactors interface {
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
}

// Guard makes every request sent to c that the grader's role does not allow
// an error of t, naming the verb and the resource to add to the role. The
// request itself goes on as before.
func Guard(t testing.TB, c Reactors) {
	c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		gvr := a.GetResource()
		if !Allows(a.GetVerb(), gvr.Group, gvr.Resource, a.GetSubresource()) {
			res := gvr.Resource
			if s := a.GetSubresource(); s != "" {
				res += "/" + s
			}
			t.Errorf("a check sent %s %s (API group %q), which the opslab-grader ClusterRole does not allow: add it to labcheck/rbac/grader.yaml", a.GetVerb(), res, gvr.Group)
		}
		return false, nil, nil
	})
}

// Allows reports whether a rule of the grader's role allows verb on the
// resource (and subresource) of the API group.
func Allows(verb, group, resource, subresource string) bool {
	res := resource
	if subresource != "" {
		res += "/" + subresource
	}
	for _, r := range labcheck.GraderRules() {
		if len(r.ResourceNames) > 0 {
			continue // only for named objects: not a check's reads
		}
		if (slices.Contains(r.Verbs, verb) || slices.Contains(r.Verbs, "*")) &&
			slices.Contains(r.APIGroups, group) &&
			(slices.Contains(r.Resources, res) || slices.Contains(r.Resources, "*")) {
			return true
		}
	}
	return false
}
