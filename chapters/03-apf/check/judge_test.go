package check

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/labcheck"
)

// labView classifies, with the model, what the checks send and judge on a
// cluster that holds the server's defaults and the given YAML documents
// (the lab's files, or a cheat), as if the server had answered as the
// model does: the chapter's differential proves that it would.
func labView(t *testing.T, docs ...string) (runawayRoutes []Route, others []Other, ties []TieRoute, added []Added) {
	t.Helper()
	objs := readDocs(t, docs...)
	objs.Schemas = append(objs.Schemas, bootstrap.MandatoryFlowSchemas...)
	objs.Schemas = append(objs.Schemas, bootstrap.SuggestedFlowSchemas...)
	objs.Levels = append(objs.Levels, bootstrap.MandatoryPriorityLevelConfigurations...)
	objs.Levels = append(objs.Levels, bootstrap.SuggestedPriorityLevelConfigurations...)
	cfg, err := objs.Config()
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range objs.Schemas {
		if !isDefaultSchema(fs.Name) {
			added = append(added, Added{Name: fs.Name, Level: fs.Spec.PriorityLevelConfiguration.Name})
		}
	}
	route := func(r kube.Request) Route {
		c := cfg.Classify(r)
		return Route{Request: r, Schema: c.Schema.Name, Precedence: c.Schema.Spec.MatchingPrecedence, Level: c.Level.Name,
			Exempt: c.Level.Spec.Type == flowcontrol.PriorityLevelEnablementExempt, ByModel: true}
	}
	as := func(r kube.Request, s Sender) kube.Request {
		r.User, r.Groups = s.User, s.Groups
		return r
	}
	for _, r := range KnownRunawayRequests {
		runawayRoutes = append(runawayRoutes, route(as(r, serviceAccount(runaway.User))))
	}
	senders := withBystanders(append(slices.Clone(ControlPlane), Outsiders...), Bystanders)
	for _, s := range senders {
		for _, r := range kinds(KnownRunawayRequests, ControlPlaneRequests) {
			r = as(r, s)
			others = append(others, Other{Route: route(r), Was: newCluster().Classify(r).Level.Name})
		}
	}
	for _, r := range asSeen(TieRequests) {
		rt := route(as(r, serviceAccount(kube.ServiceAccountUser(Namespace, TieProbe))))
		tr := TieRoute{Route: rt}
		for _, fs := range cfg.Matching(rt.Request) {
			if fs.Spec.MatchingPrecedence == rt.Precedence {
				tr.Tied = append(tr.Tied, fs.Name)
			}
		}
		ties = append(ties, tr)
	}
	return runawayRoutes, others, ties, added
}

func withBystanders(senders []Sender, users []string) []Sender {
	out := append([]Sender(nil), senders...)
	for _, u := range users {
		out = append(out, serviceAccount(u))
	}
	return out
}

// schemaDoc is a FlowSchema for the lab's level with the given subjects
// and rules, in YAML.
func schemaDoc(name string, precedence int, subjects, rules string) string {
	return "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n  name: " + name +
		"\nspec:\n  matchingPrecedence: " + strconv.Itoa(precedence) + "\n  priorityLevelConfiguration:\n    name: apf-lab-runaway\n  rules:\n  - subjects:\n" +
		subjects + rules
}

const (
	// nodesAndAnonymous take every kubelet and every anonymous request.
	nodesAndAnonymous = "    - kind: Group\n      group: {name: system:nodes}\n" +
		"    - kind: Group\n      group: {name: system:unauthenticated}\n"
	runawaySubject = "    - kind: ServiceAccount\n      serviceAccount: {namespace: apf-lab, name: runaway-operator}\n"
	tieSubject     = "    - kind: ServiceAccount\n      serviceAccount: {namespace: apf-lab, name: tie-probe}\n"
	everyone       = "    - kind: Group\n      group: {name: system:authenticated}\n"
	allOfApfLab    = "    - kind: ServiceAccount\n      serviceAccount: {namespace: apf-lab, name: \"*\"}\n"
	replicaSets    = "    - kind: ServiceAccount\n      serviceAccount: {namespace: kube-system, name: replicaset-controller}\n"
	allRules       = "    resourceRules:\n    - {verbs: [\"*\"], apiGroups: [\"*\"], resources: [\"*\"], clusterScope: true, namespaces: [\"*\"]}\n" +
		"    nonResourceRules:\n    - {verbs: [\"*\"], nonResourceURLs: [\"*\"]}\n"
	namespacedRules = "    resourceRules:\n    - {verbs: [\"*\"], apiGroups: [\"*\"], resources: [\"*\"], namespaces: [\"*\"]}\n"
	// oneProbeRules take the one request the checks used to send.
	oneProbeRules = "    resourceRules:\n    - {verbs: [list], apiGroups: [\"\"], resources: [configmaps], namespaces: [apf-lab]}\n"
	getPodsRules  = "    resourceRules:\n    - {verbs: [get], apiGroups: [\"\"], resources: [pods], namespaces: [apf-lab]}\n"
)

// The cheats, judged on the model: each reaches the picture the checks
// used to look at, the runaway operator's list of config maps in a level
// of its own, without isolating the operator.
func TestJudgesOnTheModel(t *testing.T) {
	lab := []string{"runaway-level.yaml", "runaway-schema.yaml", "tie.yaml"}
	for _, tc := range []struct {
		name, reason string
		docs         []string
		// wantFail maps a judge to a phrase of its failure; judges not
		// named must pass.
		wantFail map[string]string
	}{
		{"reference solution", "the lab's files isolate the operator and tie the probe", lab, nil},
		{"nothing done", "an untouched cluster", nil, map[string]string{
			"isolated": "still go to the default schema service-accounts", "narrow": "not to a Limited level",
			"tie": "there is no tie yet", "exempt": "you have added no FlowSchema"}},
		{"one probe only", "a schema for the one request the checks used to send leaves the rest in workload-low",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject, oneProbeRules)},
			map[string]string{"isolated": "7 of the runaway operator's 8 kinds of request still go to default schemas", "narrow": "go to workload-low"}},
		{"every authenticated user", "the lab's level then holds kube-controller-manager's controllers too",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, everyone, allRules)},
			map[string]string{"isolated": "also takes 17 other senders, such as system:serviceaccount:kube-system:node-controller",
				"narrow": "not the runaway operator's alone", "tie": "no tie yet"}},
		{"namespaced rules only", "a list of pods in every namespace and discovery are not in any namespace",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject, namespacedRules)},
			map[string]string{"isolated": "get /apis (service-accounts → workload-low), list pods at cluster scope", "narrow": "go to workload-low"}},
		{"every account of apf-lab", "the account beside the operator is taken too",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, allOfApfLab, allRules)},
			map[string]string{"isolated": "also takes system:serviceaccount:apf-lab:bystander",
				"narrow": "not the runaway operator's alone", "tie": "no tie yet"}},
		{"the replicaset controller too", "only the model's judgement of the control plane sees it",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+replicaSets, allRules)},
			map[string]string{"isolated": "also takes system:serviceaccount:kube-system:replicaset-controller",
				"narrow": "also takes system:serviceaccount:kube-system:replicaset-controller"}},
		{"nodes and anonymous requests too", "two groups beside the operator: every kubelet and every request without credentials",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+nodesAndAnonymous, allRules)},
			map[string]string{"isolated": "also takes 2 other senders, such as system:node:node-1",
				"narrow": "also takes 2 other senders, such as system:node:node-1"}},
		{"every account of another namespace", "the schema takes kube-public's accounts too",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+"    - kind: ServiceAccount\n      serviceAccount: {namespace: kube-public, name: \"*\"}\n", allRules)},
			map[string]string{"isolated": "also takes system:serviceaccount:kube-public:default",
				"narrow": "also takes system:serviceaccount:kube-public:default"}},
		{"every person", "a group of people beside the operator takes the learner's own requests",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+"    - kind: Group\n      group: {name: opslab:learners}\n", allRules)},
			map[string]string{"isolated": "also takes opslab:learner", "narrow": "also takes opslab:learner"}},
		{"a tie for one probe", "the tie holds for get pods only",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", schemaDoc("apf-lab-tie-a", 600, tieSubject, getPodsRules), schemaDoc("apf-lab-tie-b", 600, tieSubject, getPodsRules)},
			map[string]string{"tie": "only service-accounts matches the tie probe's list configmaps -n apf-lab"}},
		{"a tie for everyone", "the tied schemas take every authenticated user",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", schemaDoc("apf-lab-tie-a", 600, everyone, allRules), schemaDoc("apf-lab-tie-b", 600, everyone, allRules)},
			map[string]string{"tie": "must take apf-lab/tie-probe and no one else", "isolated": "also takes", "narrow": "not the runaway operator's alone"}},
		{"a placeholder schema", "a schema that takes no one of the lab",
			[]string{"runaway-level.yaml", schemaDoc("apf-lab-placeholder", 500, "    - kind: User\n      user: {name: nobody}\n", allRules)},
			map[string]string{"isolated": "still go to the default schema", "narrow": "not to a Limited level", "tie": "no tie yet",
				"exempt": "takes any of the runaway operator's requests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, others, ties, added := labView(t, tc.docs...)
			var takers []string
			for _, r := range rs {
				if !isDefaultSchema(r.Schema) {
					takers = appendNew(takers, r.Schema)
				}
			}
			for judge, res := range map[string]labcheck.Result{
				"isolated": judgeIsolated(rs, others, nil),
				"narrow":   judgeNarrow(rs, others, map[string]kube.SeatLimits{"apf-lab-runaway": lim(12, 12, 12), "workload-low": lim(240, 24, 840)}, "workload-low", nil),
				"tie":      judgeTie(ties, others),
				"exempt":   judgeExemptDangling(added, takers, nil),
			} {
				phrase, fail := tc.wantFail[judge]
				switch {
				case !fail && !res.Pass:
					t.Errorf("%s: failed with %q, want a pass (%s)", judge, res.Message, tc.reason)
				case fail && res.Pass:
					t.Errorf("%s: passed with %q, want a failure that says %q (%s)", judge, res.Message, phrase, tc.reason)
				case fail && !strings.Contains(res.Message, phrase):
					t.Errorf("%s: failed with %q, want it to say %q (%s)", judge, res.Message, phrase, tc.reason)
				}
			}
		})
	}
}

func TestJudgesByHand(t *testing.T) {
	req := func(verb, res string) kube.Request {
		return kube.Request{User: runaway.User, Verb: verb, Resource: res, Namespace: Namespace}
	}
	to := func(r kube.Request, schema, level string) Route {
		return Route{Request: r, Schema: schema, Precedence: 500, Level: level, Exempt: level == "exempt"}
	}
	list, watch := req("list", "configmaps"), req("watch", "configmaps")
	seats := map[string]kube.SeatLimits{"a": lim(12, 12, 12), "b": lim(12, 12, 12), "wide": lim(300, 300, 300),
		"borrows": lim(12, 12, 612), "borrows-some": lim(12, 12, 24), "workload-low": lim(240, 24, 840)}
	for _, tc := range []struct {
		name, reason string
		got          labcheck.Result
		want         string // "" for a pass
	}{
		{"exempt", "nothing limits the operator at exempt",
			judgeIsolated([]Route{to(list, "s", "exempt"), to(watch, "s", "exempt")}, nil, nil), "go to exempt through s"},
		{"shared level", "an added schema into a default level",
			judgeIsolated([]Route{to(list, "s", "workload-high"), to(watch, "s", "workload-high")}, nil, nil), "sends it to the shared level workload-high"},
		{"split", "one level of its own, not two",
			judgeIsolated([]Route{to(list, "s", "a"), to(watch, "t", "b")}, nil, nil), "split between the levels a and b"},
		{"isolated", "", judgeIsolated([]Route{to(list, "s", "a"), to(watch, "t", "a")}, []Other{{Route: to(list, "service-accounts", "workload-low"), Was: "workload-low"}}, nil), ""},
		{"moved by a default", "a default schema edited to point elsewhere moves others too",
			judgeIsolated([]Route{to(list, "s", "a")}, []Other{{Route: to(list, "global-default", "a"), Was: "workload-low"}}, nil), "schema global-default also takes"},
		{"no requests", "", judgeIsolated(nil, nil, nil), "no request of the runaway operator"},
		{"wide", "more seats than before", judgeNarrow([]Route{to(list, "s", "wide")}, nil, seats, "workload-low", nil), "wide has 300 seats, no fewer than workload-low's 240"},
		{"borrows without limit", "12 nominal seats, but an upper limit of 612",
			judgeNarrow([]Route{to(list, "s", "borrows")}, nil, seats, "workload-low", nil), "may hold up to 612, borrowing from idle levels"},
		{"borrows a little", "an upper limit of 24 is still far below workload-low's 240",
			judgeNarrow([]Route{to(list, "s", "borrows-some")}, nil, seats, "workload-low", nil), ""},
		{"default level widened", "workload-low given more shares moves the mark",
			judgeNarrow([]Route{to(list, "s", "a")}, nil, seats, "workload-low", []Changed{{Kind: "PriorityLevelConfiguration", Name: "workload-low", AutoUpdate: "false",
				Diffs: []string{"nominalConcurrencyShares 1000, where the server writes 100"}, Wider: []string{"nominalConcurrencyShares 1000, where the server writes 100"}}}),
			"the server's PriorityLevelConfiguration workload-low is changed (nominalConcurrencyShares 1000"},
		{"default level narrowed", "step 8 leaves workload-low with 90 shares: fewer seats of its own widen nothing",
			judgeNarrow([]Route{to(list, "s", "a")}, nil, seats, "workload-low", []Changed{{Kind: "PriorityLevelConfiguration", Name: "workload-low", AutoUpdate: "false",
				Diffs: []string{"nominalConcurrencyShares 90, where the server writes 100"}}}), ""},
		{"default schema changed", "a changed default moves other senders",
			judgeIsolated([]Route{to(list, "s", "a")}, nil, []Changed{{Kind: "FlowSchema", Name: "global-default", Diffs: []string{"other rules or subjects"}}}),
			"the server's FlowSchema global-default is changed"},
		{"default schema to exempt", "",
			judgeExemptDangling([]Added{{Name: "s", Level: "a"}}, []string{"s"}, []Changed{{Kind: "FlowSchema", Name: "global-default", AutoUpdate: "false", ToExempt: true,
				Diffs: []string{"priorityLevelConfiguration exempt, where the server writes global-default"}}}),
			"the server's FlowSchema global-default is changed (priorityLevelConfiguration exempt, where the server writes global-default), and its annotation apf.kubernetes.io/autoupdate-spec \"false\" keeps the edit. Its requests go to exempt"},
		{"no seats yet", "", judgeNarrow([]Route{to(list, "s", "new")}, nil, seats, "workload-low", nil), "reports no seats for new yet"},
		{"narrow", "", judgeNarrow([]Route{to(list, "s", "a")}, nil, seats, "workload-low", nil), ""},
		{"narrow, second level wide", "every level the operator uses counts",
			judgeNarrow([]Route{to(list, "s", "a"), to(watch, "t", "wide")}, nil, seats, "workload-low", nil), "wide has 300 seats"},
		{"tie, wrong pick", "the server picks the first name",
			judgeTie([]TieRoute{{Route: to(list, "tie-b", "a"), Tied: []string{"tie-a", "tie-b"}}}, nil), "although tie-a sorts first"},
		{"tie", "", judgeTie([]TieRoute{{Route: to(list, "tie-a", "a"), Tied: []string{"tie-a", "tie-b"}}}, nil), ""},
		{"tie with a default", "a schema tied with service-accounts takes bystanders in workload-low, where they were, through service-accounts",
			judgeTie([]TieRoute{{Route: to(list, "aaa", "workload-low"), Tied: []string{"aaa", "service-accounts"}}},
				[]Other{{Route: to(list, "service-accounts", "workload-low"), Was: "workload-low"}}), ""},
		{"added exempt", "", judgeExemptDangling([]Added{{Name: "s", Level: "exempt", Exempt: true}}, []string{"s"}, nil), "requests matched by s go to exempt"},
		{"added dangling", "", judgeExemptDangling([]Added{{Name: "s", Level: "x"}, {Name: "t", Level: "y", Dangling: "no y"}}, []string{"s"}, nil), "the server ignores t"},
		{"added clean", "", judgeExemptDangling([]Added{{Name: "s", Level: "a"}}, []string{"s"}, nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && !tc.got.Pass:
				t.Errorf("failed with %q, want a pass (%s)", tc.got.Message, tc.reason)
			case tc.want != "" && (tc.got.Pass || !strings.Contains(tc.got.Message, tc.want)):
				t.Errorf("got pass=%v %q, want a failure that says %q (%s)", tc.got.Pass, tc.got.Message, tc.want, tc.reason)
			}
		})
	}
}

// lim is a level's seats as the server reports them, its bounds included.
func lim(nominal, lower, upper int) kube.SeatLimits {
	return kube.SeatLimits{Nominal: nominal, Lower: lower, Upper: upper, Bounded: true}
}
