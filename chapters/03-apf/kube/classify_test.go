package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrol "k8s.io/api/flowcontrol/v1"

	apf "github.com/opslab/opslab/chapters/03-apf"
)

func TestDefaultSchemasInMatchingOrder(t *testing.T) {
	c := defaultConfig(t)
	want := []string{
		"exempt",                       // 1
		"probes",                       // 2
		"system-leader-election",       // 100
		"system-node-high",             // 400
		"system-nodes",                 // 500
		"kube-controller-manager",      // 800
		"kube-scheduler",               // 800
		"kube-system-service-accounts", // 900
		"service-accounts",             // 9000
		"global-default",               // 9900
		"catch-all",                    // 10000
	}
	if diff := cmp.Diff(want, names(c.Schemas)); diff != "" {
		t.Errorf("matching order (-want +got):\n%s", diff)
	}
}

func TestDefaultClassification(t *testing.T) {
	c := defaultConfig(t)
	runaway := ServiceAccountUser("apf-lab", "runaway-operator")
	for _, tc := range []struct {
		name, reason string
		req          Request
		schema       string
		level        string
		dist         string
	}{
		{"admin", "system:masters is exempt from limits",
			Request{User: "kubernetes-admin", Groups: []string{"system:masters", GroupAuthenticated}, Verb: "list", Resource: "pods", Namespace: "default"},
			"exempt", "exempt", ""},
		{"probe", "health probes by anyone are exempt",
			Request{User: UserAnonymous, Groups: []string{GroupUnauthenticated}, Verb: "get", Path: "/readyz"},
			"probes", "exempt", ""},
		{"kubelet lease", "node leases go to node-high",
			Request{User: "system:node:pdb-1", Groups: []string{"system:nodes", GroupAuthenticated}, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease"},
			"system-node-high", "node-high", "system:node:pdb-1"},
		{"kubelet pods", "other kubelet traffic goes to system",
			Request{User: "system:node:pdb-1", Groups: []string{"system:nodes", GroupAuthenticated}, Verb: "get", Resource: "pods", Namespace: "pdb-lab"},
			"system-nodes", "system", "system:node:pdb-1"},
		{"controller manager", "its user is named in kube-controller-manager, whose flows are namespaces",
			Request{User: "system:kube-controller-manager", Groups: []string{GroupAuthenticated}, Verb: "list", Resource: "pods", Namespace: "pdb-lab"},
			"kube-controller-manager", "workload-high", "pdb-lab"},
		{"controller manager, cluster scope", "a cluster-scoped request has no namespace to distinguish",
			Request{User: "system:kube-controller-manager", Groups: []string{GroupAuthenticated}, Verb: "list", Resource: "nodes"},
			"kube-controller-manager", "workload-high", ""},
		{"kube-system account", "service accounts of kube-system are workload-high",
			Request{User: ServiceAccountUser("kube-system", "replicaset-controller"), Groups: Impersonated(ServiceAccountUser("kube-system", "replicaset-controller"), nil), Verb: "update", APIGroup: "apps", Resource: "replicasets", Subresource: "status", Namespace: "apf-lab"},
			"kube-system-service-accounts", "workload-high", "apf-lab"},
		{"runaway operator", "every other service account is workload-low",
			Request{User: runaway, Groups: Impersonated(runaway, nil), Verb: "list", Resource: "configmaps", Namespace: "apf-lab"},
			"service-accounts", "workload-low", runaway},
		{"learner", "the lab's learner: no default schema names opslab:learners, so global-default takes it",
			Request{User: "opslab:learner", Groups: []string{"opslab:learners", GroupAuthenticated}, Verb: "list", Resource: "namespaces"},
			"global-default", "global-default", "opslab:learner"},
		{"a person", "authenticated users end in global-default",
			Request{User: "alice", Groups: []string{GroupAuthenticated}, Verb: "get", Resource: "pods", Namespace: "apf-lab"},
			"global-default", "global-default", "alice"},
		{"anonymous", "global-default takes unauthenticated requests too",
			Request{User: UserAnonymous, Groups: []string{GroupUnauthenticated}, Verb: "get", Resource: "pods", Namespace: "apf-lab"},
			"global-default", "global-default", UserAnonymous},
		{"no groups", "only a user in neither system group reaches catch-all, which rejects and has no flows",
			Request{User: "carol", Verb: "get", Resource: "pods", Namespace: "apf-lab"},
			"catch-all", "catch-all", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Classify(tc.req)
			if got.Schema.Name != tc.schema || got.Level.Name != tc.level || got.Distinguisher != tc.dist {
				t.Errorf("Classify = %s/%s/%q, want %s/%s/%q (%s)", got.Schema.Name, got.Level.Name, got.Distinguisher, tc.schema, tc.level, tc.dist, tc.reason)
			}
		})
	}
}

func TestLowerPrecedenceWins(t *testing.T) {
	rule := flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}}
	fss := []*flowcontrol.FlowSchema{
		schema("a-late", 5000, "l", rule),
		schema("z-early", 400, "l", rule),
	}
	c, err := NewConfig(fss, []*flowcontrol.PriorityLevelConfiguration{queueLevel("l", 10, 0, nil)})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Classify(Request{User: "bob", Verb: "get", Resource: "pods", Namespace: "x"})
	if got.Schema.Name != "z-early" {
		t.Errorf("Classify = %s, want z-early: precedence 400 is tried before 5000 whatever the names", got.Schema.Name)
	}
}

func TestEqualPrecedenceNameWins(t *testing.T) {
	rule := flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}}
	for _, order := range [][]string{{"apf-lab-b", "apf-lab-a"}, {"apf-lab-a", "apf-lab-b"}} {
		var fss []*flowcontrol.FlowSchema
		for _, n := range order {
			fss = append(fss, schema(n, 700, "l", rule))
		}
		c, err := NewConfig(fss, []*flowcontrol.PriorityLevelConfiguration{queueLevel("l", 10, 0, nil)})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Classify(Request{User: "bob", Verb: "get", Resource: "pods", Namespace: "x"}); got.Schema.Name != "apf-lab-a" {
			t.Errorf("given %v, Classify = %s, want apf-lab-a: equal precedence falls back to name order", order, got.Schema.Name)
		}
	}
}

func TestSubjects(t *testing.T) {
	sa := ServiceAccountUser("apf-lab", "runaway-operator")
	for _, tc := range []struct {
		name, reason string
		subject      flowcontrol.Subject
		user         string
		groups       []string
		want         bool
	}{
		{"user by name", "names are compared exactly", user("alice"), "alice", nil, true},
		{"other user", "", user("alice"), "alicia", nil, false},
		{"any user", "* takes every user", user("*"), "anyone", nil, true},
		{"group member", "", group("ops"), "bob", []string{"dev", "ops"}, true},
		{"not a member", "", group("ops"), "bob", []string{"dev"}, false},
		{"any group", "* takes even a user without groups", group("*"), "bob", nil, true},
		{"service account", "", serviceAccount("apf-lab", "runaway-operator"), sa, nil, true},
		{"other account", "", serviceAccount("apf-lab", "runaway-operator"), ServiceAccountUser("apf-lab", "other"), nil, false},
		{"other namespace", "", serviceAccount("apf-lab", "runaway-operator"), ServiceAccountUser("default", "runaway-operator"), nil, false},
		{"any account of the namespace", "", serviceAccount("apf-lab", "*"), ServiceAccountUser("apf-lab", "x"), nil, true},
		{"namespace prefix", "apf-lab is not apf-lab-2", serviceAccount("apf-lab", "*"), ServiceAccountUser("apf-lab-2", "x"), nil, false},
		{"a person named like an account", "the user name is what counts", serviceAccount("apf-lab", "runaway-operator"), "runaway-operator", nil, false},
		{"user subject naming an account", "an account is a user too", user(sa), sa, nil, true},
		{"kind without its field", "a User subject without user matches nothing", flowcontrol.Subject{Kind: flowcontrol.SubjectKindUser}, "alice", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := schema("s", 500, "catch-all", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{tc.subject}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}})
			r := Request{User: tc.user, Groups: tc.groups, Verb: "get", Resource: "pods", Namespace: "apf-lab"}
			if got := Matches(fs, r); got != tc.want {
				t.Errorf("Matches(%s, user %q groups %v) = %v, want %v %s", tc.subject.Kind, tc.user, tc.groups, got, tc.want, tc.reason)
			}
		})
	}
}

func TestResourceRules(t *testing.T) {
	base := Request{User: "bob", Verb: "list", APIGroup: "apps", Resource: "deployments", Namespace: "apf-lab"}
	with := func(f func(*Request)) Request { r := base; f(&r); return r }
	rule := func(f func(*flowcontrol.ResourcePolicyRule)) flowcontrol.ResourcePolicyRule {
		rr := flowcontrol.ResourcePolicyRule{Verbs: []string{"list", "get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Namespaces: []string{"apf-lab"}}
		if f != nil {
			f(&rr)
		}
		return rr
	}
	for _, tc := range []struct {
		name, reason string
		rule         flowcontrol.ResourcePolicyRule
		req          Request
		want         bool
	}{
		{"all fields match", "", rule(nil), base, true},
		{"verb", "watch is not listed", rule(nil), with(func(r *Request) { r.Verb = "watch" }), false},
		{"any verb", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Verbs = []string{"*"} }), with(func(r *Request) { r.Verb = "watch" }), true},
		{"api group", "the core group is the empty string", rule(nil), with(func(r *Request) { r.APIGroup = "" }), false},
		{"core group", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.APIGroups = []string{""}; rr.Resources = []string{"pods"} }), with(func(r *Request) { r.APIGroup = ""; r.Resource = "pods" }), true},
		{"any group", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.APIGroups = []string{"*"} }), with(func(r *Request) { r.APIGroup = "extensions" }), true},
		{"resource", "", rule(nil), with(func(r *Request) { r.Resource = "replicasets" }), false},
		{"subresource not named", "deployments does not cover deployments/scale", rule(nil), with(func(r *Request) { r.Subresource = "scale" }), false},
		{"subresource named", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Resources = []string{"deployments/scale"} }), with(func(r *Request) { r.Subresource = "scale" }), true},
		{"any resource", "* covers subresources too", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Resources = []string{"*"} }), with(func(r *Request) { r.Subresource = "status" }), true},
		{"namespace", "", rule(nil), with(func(r *Request) { r.Namespace = "default" }), false},
		{"any namespace", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Namespaces = []string{"*"} }), with(func(r *Request) { r.Namespace = "default" }), true},
		{"cluster-scoped without clusterScope", "* namespaces does not cover cluster-scoped requests", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Namespaces = []string{"*"} }), with(func(r *Request) { r.Namespace = "" }), false},
		{"cluster-scoped with clusterScope", "", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.ClusterScope = true }), with(func(r *Request) { r.Namespace = "" }), true},
		{"wildcard among others", "* only means any when it is alone", rule(func(rr *flowcontrol.ResourcePolicyRule) { rr.Verbs = []string{"get", "*"} }), base, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := schema("s", 500, "catch-all", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{tc.rule}})
			if got := Matches(fs, tc.req); got != tc.want {
				t.Errorf("Matches(%+v) = %v, want %v %s", tc.req, got, tc.want, tc.reason)
			}
		})
	}
}

func TestNonResourceRules(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		urls         []string
		verb, path   string
		want         bool
	}{
		{"exact path", "", []string{"/healthz"}, "get", "/healthz", true},
		{"other path", "", []string{"/healthz"}, "get", "/livez", false},
		{"under a path", "/healthz covers /healthz/etcd", []string{"/healthz"}, "get", "/healthz/etcd", true},
		{"star suffix", "", []string{"/metrics/*"}, "get", "/metrics/slis", true},
		{"prefix is not a path", "/healthz does not cover /healthzz", []string{"/healthz"}, "get", "/healthzz", false},
		{"any path", "", []string{"*"}, "get", "/version", true},
		{"verb", "post is not get", []string{"*"}, "post", "/version", false},
		{"resource request", "non-resource rules never take resource requests", []string{"*"}, "get", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := schema("s", 500, "catch-all", flowcontrol.PolicyRulesWithSubjects{
				Subjects:         []flowcontrol.Subject{group("*")},
				NonResourceRules: []flowcontrol.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: tc.urls}},
			})
			r := Request{User: "bob", Verb: tc.verb, Path: tc.path}
			if tc.path == "" {
				r.Resource = "pods"
				r.Namespace = "x"
			}
			if got := Matches(fs, r); got != tc.want {
				t.Errorf("Matches(%s %s) against %v = %v, want %v %s", tc.verb, tc.path, tc.urls, got, tc.want, tc.reason)
			}
		})
	}
}

func TestDistinguisher(t *testing.T) {
	r := Request{User: "bob", Verb: "get", Resource: "pods", Namespace: "team-a"}
	for _, tc := range []struct {
		name, reason string
		method       *flowcontrol.FlowDistinguisherMethod
		level        *flowcontrol.PriorityLevelConfiguration
		want         string
		queued       bool
	}{
		{"by user", "", &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByUserType}, queueLevel("l", 10, 0, nil), "bob", true},
		{"by namespace", "", &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByNamespaceType}, queueLevel("l", 10, 0, nil), "team-a", true},
		{"no method", "the whole schema is one flow", nil, queueLevel("l", 10, 0, nil), "", true},
		{"reject level", "a level without queues has no flows", &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByUserType}, rejectLevel("l", 10), "", false},
		{"one queue", "a level with a single queue has nothing to share out: upstream computes a distinguisher only above one queue", &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByUserType}, oneQueueLevel("l", 10), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := schema("s", 500, "l", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}})
			fs.Spec.DistinguisherMethod = tc.method
			c, err := NewConfig([]*flowcontrol.FlowSchema{fs}, []*flowcontrol.PriorityLevelConfiguration{tc.level})
			if err != nil {
				t.Fatal(err)
			}
			got := c.Classify(r)
			if got.Distinguisher != tc.want || got.Queued != tc.queued {
				t.Errorf("Classify: distinguisher %q queued %v, want %q %v %s", got.Distinguisher, got.Queued, tc.want, tc.queued, tc.reason)
			}
			if tc.queued && got.FlowHash != apf.FlowHash("s", tc.want) {
				t.Errorf("FlowHash = %#x, want apf.FlowHash(s, %q)", got.FlowHash, tc.want)
			}
		})
	}
}

func TestDanglingSchemaLeftOut(t *testing.T) {
	fss, pls := defaultObjects()
	typo := schema("apf-lab-runaway", 500, "apf-lab-runawy", flowcontrol.PolicyRulesWithSubjects{
		Subjects:      []flowcontrol.Subject{serviceAccount("apf-lab", "runaway-operator")},
		ResourceRules: []flowcontrol.ResourcePolicyRule{anything},
	})
	c, err := NewConfig(append(fss, typo), append(pls, queueLevel("apf-lab-runaway", 5, 0, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Dangling{{Schema: "apf-lab-runaway", Level: "apf-lab-runawy"}}, c.Dangling); diff != "" {
		t.Errorf("Dangling (-want +got):\n%s", diff)
	}
	u := ServiceAccountUser("apf-lab", "runaway-operator")
	if got := c.Classify(Request{User: u, Groups: Impersonated(u, nil), Verb: "list", Resource: "pods", Namespace: "apf-lab"}); got.Schema.Name != "service-accounts" {
		t.Errorf("Classify = %s, want service-accounts: a dangling schema takes no part in matching", got.Schema.Name)
	}
}

func TestBrokenLevelIsAbsent(t *testing.T) {
	bad := queueLevel("apf-lab-bad", 5, 0, nil)
	bad.Spec.Limited.LimitResponse.Queuing.HandSize = 20 // more than its 16 queues
	fs := schema("apf-lab-bad", 500, "apf-lab-bad", flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}})
	c, err := NewConfig([]*flowcontrol.FlowSchema{fs}, []*flowcontrol.PriorityLevelConfiguration{bad})
	if err != nil {
		t.Fatal(err)
	}
	want := []Broken{{Level: "apf-lab-bad", Reason: "queuing: handSize 20 is greater than deckSize 16"}}
	if diff := cmp.Diff(want, c.Broken); diff != "" {
		t.Errorf("Broken (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Dangling{{Schema: "apf-lab-bad", Level: "apf-lab-bad"}}, c.Dangling); diff != "" {
		t.Errorf("Dangling (-want +got):\n%s", diff)
	}
}

func TestMandatorySupplied(t *testing.T) {
	c, err := NewConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"exempt", "catch-all"}, names(c.Schemas)); diff != "" {
		t.Errorf("schemas (-want +got):\n%s", diff)
	}
	want := []string{"FlowSchema exempt", "FlowSchema catch-all", "PriorityLevelConfiguration exempt", "PriorityLevelConfiguration catch-all"}
	if diff := cmp.Diff(want, c.Supplied); diff != "" {
		t.Errorf("Supplied (-want +got):\n%s", diff)
	}
	if got := c.Classify(Request{User: "x", Groups: []string{"system:masters"}, Verb: "get", Path: "/"}); got.Schema.Name != "exempt" {
		t.Errorf("system:masters classified as %s, want the supplied exempt", got.Schema.Name)
	}
	if got := c.Classify(Request{User: "x", Verb: "get", Path: "/"}); got.Schema.Name != "catch-all" {
		t.Errorf("a request without groups classified as %s, want the supplied catch-all", got.Schema.Name)
	}
}

func TestDuplicateNamesRefused(t *testing.T) {
	fs := schema("twice", 500, "catch-all", flowcontrol.PolicyRulesWithSubjects{})
	if _, err := NewConfig([]*flowcontrol.FlowSchema{fs, fs}, nil); err == nil || err.Error() != `two FlowSchemas are named "twice"` {
		t.Errorf("NewConfig error = %v, want two FlowSchemas are named \"twice\"", err)
	}
}

func TestImpersonatedGroups(t *testing.T) {
	sa := ServiceAccountUser("apf-lab", "runaway-operator")
	for _, tc := range []struct {
		name, reason string
		user         string
		groups, want []string
	}{
		{"service account", "its groups are implied", sa, nil, []string{"system:serviceaccounts", "system:serviceaccounts:apf-lab", "system:authenticated"}},
		{"service account with groups", "explicit groups replace the implied ones", sa, []string{"ops"}, []string{"ops", "system:authenticated"}},
		{"user", "", "alice", nil, []string{"system:authenticated"}},
		{"unauthenticated group", "no system:authenticated when system:unauthenticated is asked for", "alice", []string{"system:unauthenticated"}, []string{"system:unauthenticated"}},
		{"anonymous", "", "system:anonymous", nil, []string{"system:unauthenticated"}},
		{"invalid service account name", "serviceaccount.SplitUsername refuses Bad_SA: an ordinary user, no account groups", "system:serviceaccount:apf-lab:Bad_SA", nil, []string{"system:authenticated"}},
		{"invalid namespace", "the namespace must be a DNS label", "system:serviceaccount:Apf:x", nil, []string{"system:authenticated"}},
		{"too many colons", "", "system:serviceaccount:a:b:c", nil, []string{"system:authenticated"}},
		{"only system:authenticated asked", "an explicit group, even system:authenticated, replaces an account's implied groups", sa, []string{"system:authenticated"}, []string{"system:authenticated"}},
		{"node", "constrained impersonation gives a node without groups system:nodes", "system:node:pdb-1", nil, []string{"system:nodes", "system:authenticated"}},
		{"node with groups", "explicit groups are the node's groups", "system:node:pdb-1", []string{"system:nodes"}, []string{"system:nodes", "system:authenticated"}},
		{"not a node name", "PDB-1 is not a valid node name", "system:node:PDB-1", nil, []string{"system:authenticated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Impersonated(tc.user, tc.groups)); diff != "" {
				t.Errorf("Impersonated(%s, %v) (-want +got): %s\n%s", tc.user, tc.groups, tc.reason, diff)
			}
		})
	}
}

func TestExemptOfDefaults(t *testing.T) {
	if diff := cmp.Diff([]string{"exempt", "probes"}, names(defaultConfig(t).Exempt())); diff != "" {
		t.Errorf("Exempt() (-want +got):\n%s", diff)
	}
}

func TestMatchingListsTies(t *testing.T) {
	rule := flowcontrol.PolicyRulesWithSubjects{Subjects: []flowcontrol.Subject{user("bob")}, ResourceRules: []flowcontrol.ResourcePolicyRule{anything}}
	c, err := NewConfig([]*flowcontrol.FlowSchema{schema("b", 700, "l", rule), schema("a", 700, "l", rule)}, []*flowcontrol.PriorityLevelConfiguration{queueLevel("l", 10, 0, nil)})
	if err != nil {
		t.Fatal(err)
	}
	got := names(c.Matching(Request{User: "bob", Groups: []string{GroupAuthenticated}, Verb: "get", Resource: "pods", Namespace: "x"}))
	if diff := cmp.Diff([]string{"a", "b", "catch-all"}, got); diff != "" {
		t.Errorf("Matching (-want +got):\n%s", diff)
	}
}

// TestDefaultDistinguisherMethods reads the method of every default schema:
// ByNamespace for the controller manager, the scheduler and kube-system's
// accounts, none for the two schemas of the exempt level, ByUser for the rest.
func TestDefaultDistinguisherMethods(t *testing.T) {
	tests := []struct {
		name, reason string
		want         string
	}{
		{"exempt", "the exempt level has no queues, so no flows", ""},
		{"probes", "goes to the exempt level too", ""},
		{"system-leader-election", "each leader-electing user is a flow", "ByUser"},
		{"system-node-high", "each node is a flow", "ByUser"},
		{"system-nodes", "each node is a flow", "ByUser"},
		{"kube-controller-manager", "its flows are the namespaces it works in", "ByNamespace"},
		{"kube-scheduler", "its flows are the namespaces it works in", "ByNamespace"},
		{"kube-system-service-accounts", "its flows are namespaces", "ByNamespace"},
		{"service-accounts", "each account is a flow", "ByUser"},
		{"global-default", "each user is a flow", "ByUser"},
		{"catch-all", "each user is a flow", "ByUser"},
	}
	fss, _ := defaultObjects()
	methods := map[string]string{}
	for _, fs := range fss {
		methods[fs.Name] = ""
		if dm := fs.Spec.DistinguisherMethod; dm != nil {
			methods[fs.Name] = string(dm.Type)
		}
	}
	if len(methods) != len(tests) {
		t.Errorf("%d default schemas, the table lists %d", len(methods), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := methods[tt.name]
			if !ok || got != tt.want {
				t.Errorf("distinguisherMethod of %s = %q (present %v), want %q (%s)", tt.name, got, ok, tt.want, tt.reason)
			}
		})
	}
}
