//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/lab/labenv"
)

type ctxKey struct{}

// fixture is what the feature creates: a namespace, and a level and a
// schema that share its name.
type fixture struct {
	name            string
	client          kubernetes.Interface
	res             *resources.Resources
	removeNamespace func()
}

func ptr[T any](v T) *T { return &v }

// apfctl builds the chapter's command from its package main, runs it with
// args and returns what it printed, so that the test runs what a learner
// runs; an exit status other than 0 fails the test with its standard error.
func apfctl(ctx context.Context, t *testing.T, args ...string) []byte {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "apfctl")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/opslab/opslab/chapters/03-apf/cmd/apfctl").CombinedOutput(); err != nil {
		t.Fatalf("go build apfctl: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("apfctl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes()
}

// loadModel reads the cluster's FlowSchemas and priority levels and builds
// the model's configuration from them.
func loadModel(ctx context.Context, t testing.TB, client kubernetes.Interface) (kube.Objects, *kube.Config) {
	t.Helper()
	objs, err := kube.Load(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	model, err := objs.Config()
	if err != nil {
		t.Fatal(err)
	}
	return objs, model
}

func TestClassificationAndSeats(t *testing.T) {
	f := features.New("API Priority and Fairness: the model against the API server").
		Setup(func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			client, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			name, remove, err := labenv.NewNamespace(ctx, cfg.Client().RESTConfig(), "apf-e2e-")
			if err != nil {
				t.Fatal(err)
			}
			fx := &fixture{name: name, client: client, res: cfg.Client().Resources(), removeNamespace: remove}
			return context.WithValue(ctx, ctxKey{}, fx)
		}).
		Assess("every level's nominal seats equal apiserver_flowcontrol_nominal_limit_seats", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			compareSeats(ctx, t, fx.client, "")
			return ctx
		}).
		Assess("apfctl seats, reading the cluster, prints the server's nominal seats", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			out := apfctl(ctx, t, "seats", "--kubeconfig", cfg.KubeconfigFile(), "--context", cfg.KubeContext(), "-o", "json")
			var rows []struct {
				Level   string `json:"priorityLevel"`
				Nominal int    `json:"nominal"`
			}
			if err := json.Unmarshal(out, &rows); err != nil {
				t.Fatal(err)
			}
			server, err := kube.NominalSeats(ctx, fx.client)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) < 8 {
				t.Errorf("apfctl seats printed %d levels, want at least the 8 defaults", len(rows))
			}
			for _, r := range rows {
				if server[r.Level] != r.Nominal {
					t.Errorf("apfctl seats: %s has %d, the server %d", r.Level, r.Nominal, server[r.Level])
				}
			}
			return ctx
		}).
		Assess("after a new level joins, every level's seats still equal the server's", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			createLevelAndSchema(ctx, t, fx)
			compareSeats(ctx, t, fx.client, fx.name)
			return ctx
		}).
		Assess("the model picks the FlowSchema whose UID the server returns, for 27 requests", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			compareClassification(ctx, t, cfg, fx)
			return ctx
		}).
		Assess("a schema naming a missing level gets Dangling=True and takes no requests", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			checkDangling(ctx, t, cfg, fx)
			return ctx
		}).
		Assess("after the level is deleted, every level's seats return to the server's new values", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			fc := fx.client.FlowcontrolV1()
			before, err := kube.NominalSeats(ctx, fx.client)
			if err != nil {
				t.Fatal(err)
			}
			if err := fc.FlowSchemas().Delete(ctx, fx.name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := fc.PriorityLevelConfigurations().Delete(ctx, fx.name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			// The server reconfigures within moments: wait until the seats
			// of the remaining levels change, then compare all of them.
			// (The gauge of the deleted level keeps its last value, so it
			// is not what to wait for.)
			err = labenv.WaitUntil(ctx, 20*time.Second, func(ctx context.Context) (bool, error) {
				now, err := kube.NominalSeats(ctx, fx.client)
				return err == nil && now["workload-low"] != before["workload-low"], err
			})
			if err != nil {
				t.Fatalf("workload-low's seats stayed %d after the level went: %v", before["workload-low"], err)
			}
			compareSeats(ctx, t, fx.client, "")
			after, err := kube.NominalSeats(ctx, fx.client)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := after[fx.name]; !ok || got != before[fx.name] {
				t.Errorf("the deleted level's gauge is %d (present %v), want its last value %d kept", got, ok, before[fx.name])
			}
			return ctx
		}).
		Teardown(func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			fx := ctx.Value(ctxKey{}).(*fixture)
			bg := context.Background()
			fx.client.FlowcontrolV1().FlowSchemas().Delete(bg, fx.name, metav1.DeleteOptions{})
			for _, suffix := range []string{"-typo", "-tie-a", "-tie-b"} {
				fx.client.FlowcontrolV1().FlowSchemas().Delete(bg, fx.name+suffix, metav1.DeleteOptions{})
			}
			fx.client.FlowcontrolV1().PriorityLevelConfigurations().Delete(bg, fx.name, metav1.DeleteOptions{})
			fx.removeNamespace()
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// createLevelAndSchema adds a narrow level and a schema for the user
// fx.name, and waits until the server reports the level's seats.
func createLevelAndSchema(ctx context.Context, t *testing.T, fx *fixture) {
	t.Helper()
	fc := fx.client.FlowcontrolV1()
	_, err := fc.PriorityLevelConfigurations().Create(ctx, &flowcontrol.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: fx.name},
		Spec: flowcontrol.PriorityLevelConfigurationSpec{
			Type: flowcontrol.PriorityLevelEnablementLimited,
			Limited: &flowcontrol.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr(int32(7)),
				LendablePercent:          ptr(int32(10)),
				BorrowingLimitPercent:    ptr(int32(50)),
				LimitResponse: flowcontrol.LimitResponse{
					Type:    flowcontrol.LimitResponseTypeQueue,
					Queuing: &flowcontrol.QueuingConfiguration{Queues: 8, HandSize: 2, QueueLengthLimit: 10},
				},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fc.FlowSchemas().Create(ctx, &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: fx.name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: fx.name},
			MatchingPrecedence:         700,
			DistinguisherMethod:        &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrol.PolicyRulesWithSubjects{{
				Subjects: []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: fx.name}}},
				ResourceRules: []flowcontrol.ResourcePolicyRule{{
					Verbs: []string{"list", "get"}, APIGroups: []string{""}, Resources: []string{"secrets", "configmaps", "namespaces"}, Namespaces: []string{fx.name},
				}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two schemas of equal precedence for the user NAME-tie, created "b"
	// first: the server must pick "a" by name.
	for _, suffix := range []string{"-tie-b", "-tie-a"} {
		_, err = fc.FlowSchemas().Create(ctx, &flowcontrol.FlowSchema{
			ObjectMeta: metav1.ObjectMeta{Name: fx.name + suffix},
			Spec: flowcontrol.FlowSchemaSpec{
				PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: fx.name},
				MatchingPrecedence:         650,
				Rules: []flowcontrol.PolicyRulesWithSubjects{{
					Subjects:         []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: fx.name + "-tie"}}},
					NonResourceRules: []flowcontrol.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
				}},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{fx.name, fx.name + "-tie-b", fx.name + "-tie-a"} {
		if c := digested(ctx, t, fx.res, name); c.Status != flowcontrol.ConditionFalse {
			t.Fatalf("FlowSchema %s: Dangling = %s (%s), want False", name, c.Status, c.Message)
		}
	}
	// The server takes new objects within moments; its metric appears when it has.
	labenv.Poll(ctx, t, 20*time.Second, "the server's seats for level "+fx.name, func(ctx context.Context) (bool, error) {
		seats, err := kube.NominalSeats(ctx, fx.client)
		if err != nil {
			return false, err
		}
		_, ok := seats[fx.name]
		return ok, nil
	})
}

func compareSeats(ctx context.Context, t *testing.T, client kubernetes.Interface, mustHave string) {
	t.Helper()
	_, cfg := loadModel(ctx, t, client)
	server, err := kube.NominalSeats(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, s := range cfg.Seats(apf.DefaultServerSeats) {
		got, ok := server[s.Level]
		if !ok {
			t.Errorf("level %s: the server reports no nominal seats, the model %d", s.Level, s.Nominal)
			continue
		}
		if got != s.Nominal {
			t.Errorf("level %s: model nominal %d, server apiserver_flowcontrol_nominal_limit_seats %d", s.Level, s.Nominal, got)
		}
		seen = seen || s.Level == mustHave
		t.Logf("%-30s model %3d  server %3d", s.Level, s.Nominal, got)
	}
	if mustHave != "" && !seen {
		t.Errorf("the model has no level %s", mustHave)
	}
}

func compareClassification(ctx context.Context, t *testing.T, envcfg *envconf.Config, fx *fixture) {
	t.Helper()
	ns := fx.name
	sa := kube.ServiceAccountUser
	node := "system:node:pdb-1"
	reqs := []kube.Request{
		{User: sa("apf-lab", "runaway-operator"), Verb: "list", Resource: "configmaps", Namespace: "apf-lab"},
		{User: sa("apf-lab", "runaway-operator"), Verb: "deletecollection", Resource: "pods", Namespace: ns},
		{User: sa("apf-lab", "tie-probe"), Verb: "get", Resource: "pods", Namespace: "apf-lab"},
		{User: sa(ns, "default"), Verb: "get", Resource: "pods", Namespace: ns},
		{User: sa(ns, "default"), Groups: []string{"ops"}, Verb: "get", Resource: "pods", Namespace: ns},
		{User: sa("kube-system", "replicaset-controller"), Verb: "update", APIGroup: "apps", Resource: "replicasets", Subresource: "status", Namespace: ns},
		{User: sa("kube-system", "generic-garbage-collector"), Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"},
		{User: "system:kube-controller-manager", Verb: "list", Resource: "nodes"},
		{User: "system:kube-controller-manager", Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"},
		{User: "system:kube-scheduler", Verb: "create", Resource: "pods", Subresource: "binding", Namespace: ns},
		{User: "system:kube-scheduler", Verb: "list", Resource: "pods"},
		{User: node, Groups: []string{"system:nodes"}, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease"},
		{User: node, Groups: []string{"system:nodes"}, Verb: "patch", Resource: "nodes", Subresource: "status"},
		{User: node, Groups: []string{"system:nodes"}, Verb: "get", Resource: "pods", Namespace: ns},
		{User: "alice", Verb: "get", Resource: "pods", Namespace: ns},
		{User: "alice", Verb: "list", APIGroup: "apps", Resource: "deployments", Namespace: "apf-lab"},
		{User: "alice", Groups: []string{"ops"}, Verb: "watch", Resource: "pods", Namespace: ns},
		{User: "kubernetes-admin", Groups: []string{"system:masters"}, Verb: "delete", Resource: "pods", Namespace: ns},
		{User: "kubernetes-admin", Groups: []string{"system:masters"}, Verb: "get", Path: "/livez"},
		{User: kube.UserAnonymous, Verb: "get", Path: "/healthz"},
		{User: "alice", Verb: "get", Path: "/readyz/etcd"},
		{User: "alice", Verb: "get", Path: "/version"},
		{User: fx.name, Verb: "list", Resource: "secrets", Namespace: ns},
		{User: fx.name, Verb: "list", Resource: "secrets", Namespace: "apf-lab"},
		{User: fx.name + "-tie", Verb: "get", Path: "/version"},
		// A Namespace fetched by name is in its own namespace, and GET
		// /api/v1//pods asks for resource "".
		{User: fx.name, Verb: "get", Resource: "namespaces", Name: ns},
		{User: "alice", Verb: "get", Name: "pods"},
	}
	objs, model := loadModel(ctx, t, fx.client)
	byUID, levelByUID := objs.ByUID()
	schemas := map[string]bool{}
	forbidden := 0
	for _, r := range reqs {
		t.Run(describe(r), func(t *testing.T) {
			p, err := kube.Send(ctx, envcfg.Client().RESTConfig(), r)
			if err != nil {
				t.Fatal(err)
			}
			server, ok := byUID[p.FlowSchemaUID]
			if !ok {
				t.Fatalf("the server answered HTTP %d with FlowSchema UID %q, which is no FlowSchema", p.Status, p.FlowSchemaUID)
			}
			r, err = kube.Seen(r)
			if err != nil {
				t.Fatal(err)
			}
			r.Groups = kube.Impersonated(r.User, r.Groups)
			got := model.Classify(r)
			if got.Schema.Name != server {
				t.Errorf("model classifies as %s, the server (HTTP %d) as %s", got.Schema.Name, p.Status, server)
			}
			if level := levelByUID[p.LevelUID]; got.Level.Name != level {
				t.Errorf("model's level %s, the server's (X-Kubernetes-PF-PriorityLevel-UID %q) %s", got.Level.Name, p.LevelUID, level)
			}
			schemas[server] = true
			if p.Status == http.StatusForbidden {
				forbidden++
			}
		})
	}
	// Classification comes before authorization: a refused request is
	// classified all the same.
	if forbidden < 10 {
		t.Errorf("%d answers were 403 Forbidden with classification headers, want at least 10", forbidden)
	}
	if !schemas[fx.name+"-tie-a"] || schemas[fx.name+"-tie-b"] {
		t.Errorf("of the two schemas at precedence 650 the server used %v; want %s-tie-a, the first by name, only", schemas, fx.name)
	}
	if !schemas[fx.name] || len(schemas) < 10 {
		t.Errorf("the requests reached only %d schemas (%v); want at least 10, the test's own among them", len(schemas), schemas)
	}
}

func describe(r kube.Request) string {
	what := r.Path
	if r.IsResourceRequest() {
		what = r.Resource
		if r.Subresource != "" {
			what += "/" + r.Subresource
		}
		if r.Namespace != "" {
			what += " -n " + r.Namespace
		}
	}
	return fmt.Sprintf("%s %v %s %s", r.User, r.Groups, r.Verb, what)
}

// checkDangling creates a schema at precedence 100 for the user fx.name
// that names a level that does not exist: the server marks it dangling and
// goes on classifying that user's requests with the schema that took them
// before, as the model does.
func checkDangling(ctx context.Context, t *testing.T, envcfg *envconf.Config, fx *fixture) {
	t.Helper()
	name := fx.name + "-typo"
	fc := fx.client.FlowcontrolV1()
	_, err := fc.FlowSchemas().Create(ctx, &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: fx.name + "-no-such-level"},
			MatchingPrecedence:         100,
			Rules: []flowcontrol.PolicyRulesWithSubjects{{
				Subjects:      []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: fx.name}}},
				ResourceRules: []flowcontrol.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cond := digested(ctx, t, fx.res, name)
	if cond.Status != flowcontrol.ConditionTrue || cond.Reason != "NotFound" {
		t.Errorf("Dangling = %s, reason %s (%s); want True, NotFound", cond.Status, cond.Reason, cond.Message)
	}
	objs, model := loadModel(ctx, t, fx.client)
	r := kube.Request{User: fx.name, Verb: "list", Resource: "secrets", Namespace: fx.name}
	p, err := kube.Send(ctx, envcfg.Client().RESTConfig(), r)
	if err != nil {
		t.Fatal(err)
	}
	byUID, _ := objs.ByUID()
	r.Groups = kube.Impersonated(r.User, nil)
	got := model.Classify(r).Schema.Name
	if server := byUID[p.FlowSchemaUID]; server == name || server != got {
		t.Errorf("the server classified into %s, the model into %s; want the same, and not the dangling %s", server, got, name)
	}
}

// digested waits until the server's configuration controller has taken the
// schema in, which it shows by writing the schema's Dangling condition, and
// returns that condition.
func digested(ctx context.Context, t *testing.T, res *resources.Resources, name string) flowcontrol.FlowSchemaCondition {
	t.Helper()
	var cond flowcontrol.FlowSchemaCondition
	fs := &flowcontrol.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}}
	err := labenv.WaitUntil(ctx, 20*time.Second, conditions.New(res).ResourceMatch(fs, func(k8s.Object) bool {
		for _, c := range fs.Status.Conditions {
			if c.Type == flowcontrol.FlowSchemaConditionDangling {
				cond = c
				return true
			}
		}
		return false
	}))
	if err != nil {
		t.Fatalf("FlowSchema %s got no Dangling condition from the server: %v", name, err)
	}
	return cond
}
