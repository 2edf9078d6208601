package kube

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		method, path string
		query        url.Values
		want         Request
	}{
		{"namespace by name", "a Namespace fetched by name is in namespace NAME, not cluster-scoped", "GET", "/api/v1/namespaces/apf-lab", nil,
			Request{Verb: "get", Resource: "namespaces", Namespace: "apf-lab", Name: "apf-lab"}},
		{"namespace status", "status and finalize are subresources of the Namespace", "PUT", "/api/v1/namespaces/apf-lab/status", nil,
			Request{Verb: "update", Resource: "namespaces", Subresource: "status", Namespace: "apf-lab", Name: "apf-lab"}},
		{"list namespaces", "the collection is cluster-scoped", "GET", "/api/v1/namespaces", nil,
			Request{Verb: "list", Resource: "namespaces"}},
		{"empty resource", "a double slash is a resource request for resource \"\"", "GET", "/api/v1//pods", nil,
			Request{Verb: "get", Name: "pods"}},
		{"watch by query", "", "GET", "/apis/apps/v1/namespaces/x/deployments", url.Values{"watch": {"true"}},
			Request{Verb: "watch", APIGroup: "apps", Resource: "deployments", Namespace: "x"}},
		{"deletecollection", "DELETE without a name", "DELETE", "/api/v1/namespaces/x/pods", nil,
			Request{Verb: "deletecollection", Resource: "pods", Namespace: "x"}},
		{"subresource", "", "POST", "/api/v1/namespaces/x/pods/web-1/eviction", nil,
			Request{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "x", Name: "web-1"}},
		{"list by field selector", "fieldSelector=metadata.name=X names the object, as kubectl get pod X -w sends it", "GET", "/api/v1/namespaces/x/pods", url.Values{"fieldSelector": {"metadata.name=web-1"}, "watch": {"true"}},
			Request{Verb: "watch", Resource: "pods", Namespace: "x", Name: "web-1"}},
		{"field selector that excludes", "metadata.name!=X names nothing", "GET", "/api/v1/namespaces/x/pods", url.Values{"fieldSelector": {"metadata.name!=web-1"}},
			Request{Verb: "list", Resource: "pods", Namespace: "x"}},
		{"field selector beside a broken query", "the server drops the selector when any parameter fails to decode", "GET", "/api/v1/namespaces/x/pods", url.Values{"fieldSelector": {"metadata.name=web-1"}, "limit": {"x"}},
			Request{Verb: "list", Resource: "pods", Namespace: "x"}},
		{"non-resource", "", "GET", "/healthz/etcd", nil, Request{Verb: "get", Path: "/healthz/etcd"}},
		{"group without version", "/apis/apps/v1 is discovery, not a resource", "GET", "/apis/apps/v1", nil, Request{Verb: "get", Path: "/apis/apps/v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParseRequest(tc.method, tc.path, tc.query)); diff != "" {
				t.Errorf("ParseRequest(%s %s) (-want +got): %s\n%s", tc.method, tc.path, tc.reason, diff)
			}
		})
	}
}

// TestParseRequestMatchesUpstream sends random request lines through
// ParseRequest and through upstream's RequestInfoFactory with
// kube-apiserver's prefixes, and compares what classification reads.
func TestParseRequestMatchesUpstream(t *testing.T) {
	factory := &apirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
	rng := rand.New(rand.NewPCG(22, 2026))
	segs := []string{"", "api", "apis", "v1", "apps", "namespaces", "x", "apf-lab", "pods", "status", "finalize", "proxy", "watch", "scale", "log", "healthz"}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	for i := range 50_000 {
		n := rng.IntN(8)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = segs[rng.IntN(len(segs))]
		}
		if n > 0 && rng.IntN(2) == 0 {
			parts[0] = []string{"api", "apis"}[rng.IntN(2)]
		}
		path := "/" + strings.Join(parts, "/")
		method := methods[rng.IntN(len(methods))]
		q := url.Values{}
		if rng.IntN(4) == 0 {
			q.Set("watch", []string{"true", "1", "false", "0"}[rng.IntN(4)])
		}
		// Field selectors name the object of a list or watch when they
		// require metadata.name to equal a name; the rest of the query
		// decides whether the server reads them at all.
		if rng.IntN(3) == 0 {
			q.Set("fieldSelector", fieldSelectors[rng.IntN(len(fieldSelectors))])
		}
		if rng.IntN(6) == 0 {
			q.Set("labelSelector", []string{"app=web", "app in (a,b)", "app in (", "!app"}[rng.IntN(4)])
		}
		if rng.IntN(8) == 0 {
			q.Set("limit", []string{"3", "x"}[rng.IntN(2)])
		}
		req, err := http.NewRequest(method, "https://server"+path+"?"+q.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ri, err := factory.NewRequestInfo(req)
		if err != nil {
			continue // the server refuses the request before classification
		}
		var want Request
		if ri.IsResourceRequest {
			want = Request{Verb: ri.Verb, APIGroup: ri.APIGroup, Resource: ri.Resource, Subresource: ri.Subresource, Namespace: ri.Namespace, Name: ri.Name}
		} else {
			want = Request{Verb: ri.Verb, Path: ri.Path}
		}
		if diff := cmp.Diff(want, ParseRequest(method, path, q)); diff != "" {
			t.Fatalf("case %d: %s %s?%s (-upstream +model):\n%s", i, method, path, q.Encode(), diff)
		}
	}
}

// fieldSelectors are the field selectors TestParseRequestMatchesUpstream
// draws from: a name required exactly (=, ==), beside another field, or
// excluded (!=); names that cannot be a path segment; a selector that
// does not parse; other fields.
var fieldSelectors = []string{
	"metadata.name=web-1", "metadata.name==web-1", "metadata.name!=web-1",
	"metadata.name=web-1,spec.nodeName=n", "spec.nodeName=n,metadata.name=web-1",
	"metadata.name=a/b", "metadata.name=..", "metadata.name=%", "metadata.name=",
	"metadata.name=a,metadata.name=b", "metadata.namespace=x", "spec.nodeName=n", "metadata.name", "=",
}

func TestNamespaceByNameMatchesNamespaces(t *testing.T) {
	rule := schema("s", 500, "catch-all", flowcontrol.PolicyRulesWithSubjects{
		Subjects:      []flowcontrol.Subject{user("bob")},
		ResourceRules: []flowcontrol.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"namespaces"}, Namespaces: []string{"apf-lab"}}},
	})
	for _, tc := range []struct {
		name, reason string
		path         string
		want         bool
	}{
		{"get by name", "GET /api/v1/namespaces/apf-lab is in namespace apf-lab", "/api/v1/namespaces/apf-lab", true},
		{"list", "the list of Namespaces is cluster-scoped", "/api/v1/namespaces", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ParseRequest("GET", tc.path, nil)
			r.User = "bob"
			if got := Matches(rule, r); got != tc.want {
				t.Errorf("Matches(namespaces: [apf-lab], GET %s) = %v, want %v (%s)", tc.path, got, tc.want, tc.reason)
			}
		})
	}
}
