package check

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
)

var (
	saGroups     = []string{"system:serviceaccounts", "system:serviceaccounts:apf-lab", "system:authenticated"}
	kubeSysGroup = []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}
	adminGroups  = []string{"system:masters", "system:authenticated"}
)

func TestRequestOf(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		event        audit.Event
		want         kube.Request
		ok           bool
	}{
		{"list", "", audit.Event{User: "u", Verb: "list", URI: "/api/v1/namespaces/apf-lab/configmaps?limit=500"},
			kube.Request{User: "u", Verb: "list", Resource: "configmaps", Namespace: "apf-lab"}, true},
		{"watch", "the query makes a GET of a collection a watch",
			audit.Event{User: "u", Verb: "watch", URI: "/api/v1/namespaces/apf-lab/configmaps?timeoutSeconds=1&watch=true"},
			kube.Request{User: "u", Verb: "watch", Resource: "configmaps", Namespace: "apf-lab"}, true},
		{"cluster scope", "a list of pods in every namespace has no namespace",
			audit.Event{User: "u", Verb: "list", URI: "/api/v1/pods"}, kube.Request{User: "u", Verb: "list", Resource: "pods"}, true},
		{"namespace by name", "the server files it under its own name",
			audit.Event{User: "u", Verb: "get", URI: "/api/v1/namespaces/apf-lab"},
			kube.Request{User: "u", Verb: "get", Resource: "namespaces", Namespace: "apf-lab", Name: "apf-lab"}, true},
		{"dry-run update", "", audit.Event{User: "u", Verb: "update", URI: "/api/v1/namespaces/apf-lab/configmaps/s?dryRun=All"},
			kube.Request{User: "u", Verb: "update", Resource: "configmaps", Namespace: "apf-lab", Name: "s"}, true},
		{"grouped subresource", "", audit.Event{User: "u", Verb: "update", URI: "/apis/apps/v1/namespaces/x/replicasets/web/status"},
			kube.Request{User: "u", Verb: "update", APIGroup: "apps", Resource: "replicasets", Subresource: "status", Namespace: "x", Name: "web"}, true},
		{"non-resource", "the verb is the lower-case method", audit.Event{User: "u", Groups: saGroups, Verb: "get", URI: "/apis"},
			kube.Request{User: "u", Groups: saGroups, Verb: "get", Path: "/apis"}, true},
		{"non-resource post", "", audit.Event{User: "u", Verb: "post", URI: "/api/v1/x"}, kube.Request{}, false},
		{"log", "a pod's log is long-running: APF never sees it", audit.Event{User: "u", Verb: "get", URI: "/api/v1/namespaces/x/pods/web/log"}, kube.Request{}, false},
		{"exec", "", audit.Event{User: "u", Verb: "create", URI: "/api/v1/namespaces/x/pods/web/exec?command=sh"}, kube.Request{}, false},
		{"unknown verb", "", audit.Event{User: "u", Verb: "escalate", URI: "/apis/rbac.authorization.k8s.io/v1/clusterroles/x"}, kube.Request{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := requestOf(tc.event)
			if ok != tc.ok {
				t.Fatalf("requestOf(%s %s) ok = %v, want %v (%s)", tc.event.Verb, tc.event.URI, ok, tc.ok, tc.reason)
			}
			if diff := cmp.Diff(tc.want, got); ok && diff != "" {
				t.Errorf("requestOf(%s %s) (-want +got): %s\n%s", tc.event.Verb, tc.event.URI, tc.reason, diff)
			}
		})
	}
}

func TestOperatorTraffic(t *testing.T) {
	events := []audit.Event{
		{User: runaway.User, Groups: saGroups, Verb: "list", URI: "/api/v1/namespaces/apf-lab/configmaps"},
		// kubectl --as, or the operator run by the learner: classified as
		// the account's all the same.
		{User: "opslab:learner", Groups: []string{"opslab:learners", "system:authenticated"}, Impersonated: runaway.User, Verb: "create", URI: "/api/v1/namespaces/apf-lab/events"},
		// Another account's request, acting as no one.
		{User: "opslab:learner", Groups: []string{"opslab:learners", "system:authenticated"}, Verb: "create", URI: "/api/v1/namespaces/apf-lab/configmaps"},
		{User: kube.ServiceAccountUser("apf-lab", "other"), Groups: saGroups, Verb: "list", URI: "/api/v1/pods"},
		{User: runaway.User, Groups: saGroups, Verb: "list", URI: "/api/v1/secrets"},
		{User: runaway.User, Groups: saGroups, Verb: "list", URI: "/api/v1/namespaces/apf-lab/configmaps?limit=1"},
	}
	got := kinds(operatorTraffic(events))
	want := []kube.Request{
		{Verb: "list", Resource: "configmaps", Namespace: "apf-lab"},
		{Verb: "create", Resource: "events", Namespace: "apf-lab"},
		{Verb: "list", Resource: "secrets"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds(operatorTraffic) (-want +got): the requests sent as the operator, under its token or acting as it, each kind once\n%s", diff)
	}
}

func TestControlPlaneTraffic(t *testing.T) {
	events := []audit.Event{
		{User: audit.ReplicaSetController, Groups: kubeSysGroup, Agent: audit.AgentHint("kube-controller-manager/" + version.Kubernetes), Verb: "create", URI: "/api/v1/namespaces/web/pods"},
		{User: string(audit.Scheduler), Groups: []string{"system:authenticated"}, Agent: audit.AgentHint("kube-scheduler/" + version.Kubernetes), Verb: "create", URI: "/api/v1/namespaces/web/pods/p/binding"},
		{User: "kwok-admin", Groups: adminGroups, Agent: audit.AgentHint("kube-scheduler/" + version.Kubernetes), Verb: "create", URI: "/api/v1/namespaces/web/pods/p2/binding"},
		{User: "kwok-admin", Groups: adminGroups, Agent: audit.AgentHint("kubectl/" + version.Kubernetes), Verb: "delete", URI: "/api/v1/namespaces/web/pods/p"},
		{User: "kwok-admin", Groups: adminGroups, Impersonated: audit.PodGC, Agent: audit.AgentHint("kubectl/" + version.Kubernetes), Verb: "delete", URI: "/api/v1/namespaces/web/pods/q"},
		{User: "system:serviceaccount:kube-system:job-controller", Groups: kubeSysGroup, Agent: audit.AgentHint("kube-controller-manager/" + version.Kubernetes), Verb: "update", URI: "/apis/batch/v1/namespaces/web/jobs/j/status"},
	}
	senders, reqs := controlPlaneTraffic(events)
	var users []string
	for _, s := range senders[len(ControlPlane):] {
		users = append(users, s.User)
	}
	if diff := cmp.Diff([]string{"system:serviceaccount:kube-system:job-controller"}, users); diff != "" {
		t.Errorf("senders beyond ControlPlane (-want +got): a controller the list does not know is added, kwok-admin only once\n%s", diff)
	}
	want := []kube.Request{
		{User: audit.ReplicaSetController, Groups: kubeSysGroup, Verb: "create", Resource: "pods", Namespace: "web"},
		{User: string(audit.Scheduler), Groups: []string{"system:authenticated"}, Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "web", Name: "p"},
		{User: "system:serviceaccount:kube-system:job-controller", Groups: kubeSysGroup, Verb: "update", APIGroup: "batch", Resource: "jobs", Subresource: "status", Namespace: "web", Name: "j"},
	}
	if diff := cmp.Diff(want, reqs); diff != "" {
		t.Errorf("requests (-want +got): the learner's kubectl, impersonations and the admin in the scheduler's agent are not the control plane\n%s", diff)
	}
}

func TestKnownRunawayRequestsAsTheServerReadsThem(t *testing.T) {
	if len(KnownRunawayRequests) != len(runaway.Requests) {
		t.Fatalf("%d known kinds for %d requests of the operator", len(KnownRunawayRequests), len(runaway.Requests))
	}
	for _, r := range KnownRunawayRequests {
		if r.Resource == "namespaces" && r.Namespace != r.Name {
			t.Errorf("%+v: a Namespace fetched by name is in its own namespace", r)
		}
	}
	if got := len(kinds(KnownRunawayRequests)); got != len(runaway.Requests) {
		t.Errorf("the operator's %d requests are only %d kinds: each should test something of its own", len(runaway.Requests), got)
	}
}

func TestSince(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l := &audit.Log{Events: []audit.Event{{Time: t0.Add(-time.Second), Verb: "old"}, {Time: t0, Verb: "new"}}}
	if got := since(l, t0); len(got) != 1 || got[0].Verb != "new" {
		t.Errorf("since(log, t0) = %v, want only the event at t0: an earlier lab's traffic does not count", got)
	}
	if got := since(nil, t0); got != nil {
		t.Errorf("since(nil, t0) = %v, want none", got)
	}
}
