//go:build e2e

package check

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrol "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
)

// extraTraffic is what the operator does beyond its known requests in
// the cheat that fits a schema to that list: only the audit log shows it.
var extraTraffic = []kube.Request{
	{Verb: "list", Resource: "secrets", Namespace: Namespace},
	{Verb: "get", Path: "/version"},
}

// knownOnlyRules take exactly the operator's known kinds of request.
const knownOnlyRules = "    resourceRules:\n" +
	"    - {verbs: [get, list, watch, update, create], apiGroups: [\"\", coordination.k8s.io], resources: [namespaces, configmaps, pods, leases, events], clusterScope: true, namespaces: [apf-lab]}\n" +
	"    nonResourceRules:\n    - {verbs: [get], nonResourceURLs: [/apis]}\n"

// TestCheatsFailChapter3 builds, on the lab cluster, states in which the
// runaway operator's list of config maps (the one request the checks used
// to send) lands in a narrow level of the learner's, or the tie probe's
// get of a pod meets a tie, without the lab's behaviour: the operator's
// other requests stay in workload-low, or the schema takes every
// authenticated user, kube-controller-manager's controllers among them,
// or nodes and anonymous requests; or the lab's objects stand, but a
// default is changed and kept so by its annotation (global-default sent
// to exempt, workload-low widened), or the narrow level may borrow up to
// 612 seats. Each check must fail and say what is missing. The lab's reference
// objects pass first, so a failure is the cheat's, not the setup's.
//
// It needs chapter 3's part of the cluster untouched (no namespace
// apf-lab, no apf-lab-* schema or level), makes namespace apf-lab, runs the
// operator for one pass under its own token, and takes everything away
// again at the end, the defaults it changed included, waiting for the
// namespace to go. It runs as the admin, the strongest learner.
func TestCheatsFailChapter3(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	cluster, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	client := cluster.Kube
	untouched(ctx, t, client)
	t.Cleanup(func() {
		restore(t, client)
		t.Logf("cheats of chapter 3: %v, the namespace's removal included", time.Since(start).Round(100*time.Millisecond))
	})
	labNamespace(ctx, t, cluster.Config, client)
	create(ctx, t, client, "runaway-level.yaml")

	lab := []string{"runaway-schema.yaml", "tie.yaml"}
	every := []string{isolated, narrow, tie, exempt}
	byID := map[string]labcheck.Check{}
	for _, c := range Checks() {
		byID[c.ID] = c
	}
	for _, tc := range []struct {
		name string
		docs []string
		// fail maps a check to a phrase its failure must contain; pass
		// lists the checks the cheat leaves passing.
		fail     map[string]string
		pass     []string
		needsLog bool
		// edit changes the cluster's own objects beyond the documents,
		// and returns how to undo it.
		edit func(ctx context.Context, t *testing.T, client kubernetes.Interface) func()
	}{
		{name: "reference solution", docs: lab, pass: every},
		{name: "schema for the checks' one request",
			docs: []string{"tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject, oneProbeRules)},
			fail: map[string]string{isolated: "of the runaway operator's", narrow: "go to workload-low"},
			pass: []string{tie, exempt}},
		{name: "schema for every authenticated user",
			docs: []string{schemaDoc("apf-lab-runaway", 500, everyone, allRules)},
			fail: map[string]string{isolated: "system:serviceaccount:kube-system:", narrow: "is not the runaway operator's alone"},
			pass: []string{exempt}},
		{name: "rules in every namespace but not at cluster scope",
			docs: []string{"tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject, namespacedRules)},
			fail: map[string]string{isolated: "list pods at cluster scope", narrow: "go to workload-low"},
			pass: []string{tie, exempt}},
		{name: "schema for every account of apf-lab",
			docs: []string{schemaDoc("apf-lab-runaway", 500, allOfApfLab, allRules)},
			fail: map[string]string{isolated: "also takes system:serviceaccount:apf-lab:bystander", narrow: "system:serviceaccount:apf-lab:bystander"},
			pass: []string{exempt}},
		{name: "replicaset controller as a second subject",
			docs: []string{"tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+replicaSets, allRules)},
			fail: map[string]string{isolated: "also takes system:serviceaccount:kube-system:replicaset-controller", narrow: "kube-system:replicaset-controller"},
			pass: []string{tie, exempt}},
		{name: "schema fitted to the operator's known requests", needsLog: true,
			docs: []string{"tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject, knownOnlyRules)},
			fail: map[string]string{isolated: "list secrets -n apf-lab", narrow: "go to workload-low"},
			pass: []string{tie, exempt}},
		{name: "tie for the checks' one request",
			docs: []string{"runaway-schema.yaml", schemaDoc("apf-lab-tie-a", 600, tieSubject, getPodsRules), schemaDoc("apf-lab-tie-b", 600, tieSubject, getPodsRules)},
			fail: map[string]string{tie: "list configmaps -n apf-lab at precedence 9000: there is no tie yet"},
			pass: []string{isolated, narrow, exempt}},
		{name: "tie between schemas for every authenticated user",
			docs: []string{"runaway-schema.yaml", schemaDoc("apf-lab-tie-a", 600, everyone, allRules), schemaDoc("apf-lab-tie-b", 600, everyone, allRules)},
			fail: map[string]string{tie: "must take apf-lab/tie-probe and no one else", isolated: "schema apf-lab-tie-a also takes"},
			pass: []string{exempt}},
		{name: "default schema global-default kept pointed at exempt",
			docs: lab, edit: globalDefaultToExempt,
			fail: map[string]string{exempt: "global-default is changed (priorityLevelConfiguration exempt", isolated: "the server's FlowSchema global-default is changed"},
			pass: []string{narrow, tie}},
		{name: "default level workload-low widened and kept so",
			docs: lab, edit: widenWorkloadLow,
			fail: map[string]string{narrow: "the server's PriorityLevelConfiguration workload-low is changed (nominalConcurrencyShares 1000"},
			pass: []string{isolated, tie, exempt}},
		{name: "runaway schema that also takes nodes and anonymous requests",
			docs: []string{"tie.yaml", schemaDoc("apf-lab-runaway", 500, runawaySubject+nodesAndAnonymous, allRules)},
			fail: map[string]string{isolated: "schema apf-lab-runaway also takes 2 other senders, such as system:node:node-1", narrow: "is not the runaway operator's alone: schema apf-lab-runaway also takes 2 other senders"},
			pass: []string{tie, exempt}},
		{name: "narrow level that borrows without limit",
			docs: []string{"tie.yaml", wideLevel, strings.Replace(schemaDoc("apf-lab-runaway", 500, runawaySubject, allRules), "name: apf-lab-runaway\n  rules", "name: apf-lab-wide\n  rules", 1)},
			fail: map[string]string{narrow: "may hold up to 612, borrowing from idle levels"},
			pass: []string{isolated, tie, exempt}},
		{name: "placeholder schema that takes no one of the lab",
			docs: []string{schemaDoc("apf-lab-placeholder", 500, "    - kind: User\n      user: {name: nobody}\n", allRules)},
			fail: map[string]string{exempt: "takes any of the runaway operator's requests", isolated: "still go to the default schema"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needsLog && cluster.Audit() == nil {
				t.Skipf("only the audit log shows what the operator did beyond its known requests, and there is none: %s", cluster.NoAudit)
			}
			names, levels := create(ctx, t, client, tc.docs...)
			t.Cleanup(func() {
				for _, n := range names {
					client.FlowcontrolV1().FlowSchemas().Delete(context.Background(), n, metav1.DeleteOptions{})
				}
				for _, n := range levels {
					client.FlowcontrolV1().PriorityLevelConfigurations().Delete(context.Background(), n, metav1.DeleteOptions{})
				}
			})
			if tc.edit != nil {
				t.Cleanup(tc.edit(ctx, t, client))
			}
			settled(ctx, t, cluster)
			for _, id := range every {
				phrase, mustFail := tc.fail[id]
				mustPass := contains(tc.pass, id)
				if !mustFail && !mustPass {
					continue
				}
				res, err := byID[id].Run(ctx, cluster)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				switch {
				case mustPass && !res.Pass:
					t.Errorf("%s failed: %s\n%s", id, res.Message, strings.Join(res.Evidence, "\n"))
				case mustFail && res.Pass:
					t.Errorf("%s passed the cheat: %s", id, res.Message)
				case mustFail && !strings.Contains(res.Message, phrase):
					t.Errorf("%s failed with %q, want it to say %q", id, res.Message, phrase)
				case mustFail:
					t.Logf("%s fails: %s", id, res.Message)
				}
			}
		})
	}
}

// untouched stops the test unless chapter 3's part of the cluster is as
// a learner finds it before the lab.
func untouched(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	var found []string
	if _, err := client.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{}); err == nil {
		found = append(found, "namespace "+Namespace)
	} else if !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	for _, n := range labObjects(ctx, t, client) {
		found = append(found, n)
	}
	if len(found) > 0 {
		t.Fatalf("chapter 3's lab is not untouched (%s): run chapters/03-apf/lab/reset.sh and wait for the namespace to go", strings.Join(found, ", "))
	}
}

// labObjects lists the cluster's FlowSchemas and levels named apf-lab-*.
func labObjects(ctx context.Context, t *testing.T, client kubernetes.Interface) []string {
	t.Helper()
	objs, err := kube.Load(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fs := range objs.Schemas {
		if strings.HasPrefix(fs.Name, "apf-lab-") {
			out = append(out, "FlowSchema "+fs.Name)
		}
	}
	for _, pl := range objs.Levels {
		if strings.HasPrefix(pl.Name, "apf-lab-") {
			out = append(out, "PriorityLevelConfiguration "+pl.Name)
		}
	}
	return out
}

// restore deletes every apf-lab-* schema and level and namespace
// apf-lab, and waits until the namespace is gone, so the lab can start
// again at once.
func restore(t *testing.T, client kubernetes.Interface) {
	ctx := context.Background()
	objs, err := kube.Load(ctx, client)
	if err != nil {
		t.Errorf("restoring: %v", err)
		return
	}
	for _, fs := range objs.Schemas {
		if strings.HasPrefix(fs.Name, "apf-lab-") {
			client.FlowcontrolV1().FlowSchemas().Delete(ctx, fs.Name, metav1.DeleteOptions{})
		}
	}
	for _, pl := range objs.Levels {
		if strings.HasPrefix(pl.Name, "apf-lab-") {
			client.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, pl.Name, metav1.DeleteOptions{})
		}
	}
	client.CoreV1().Namespaces().Delete(ctx, Namespace, metav1.DeleteOptions{})
	labenv.Poll(ctx, t, 90*time.Second, "namespace "+Namespace+" gone", func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if left := labObjects(ctx, t, client); len(left) > 0 {
		t.Errorf("left on the cluster: %s", strings.Join(left, ", "))
	}
}

// labNamespace makes what setup.yaml makes, runs the operator for one
// pass under its own token, and sends extraTraffic under the same token.
func labNamespace(ctx context.Context, t *testing.T, cfg *rest.Config, client kubernetes.Interface) {
	t.Helper()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ServiceAccounts(Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: Runaway}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := runaway.Run(ctx, cfg, runaway.Options{Passes: 1}, io.Discard); err != nil {
		t.Fatal(err)
	}
	ttl := int64(600)
	tr, err := client.CoreV1().ServiceAccounts(Namespace).CreateToken(ctx, Runaway,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	asOperator := rest.AnonymousClientConfig(cfg)
	asOperator.BearerToken = tr.Status.Token
	for _, r := range extraTraffic {
		if _, err := kube.Send(ctx, asOperator, r); err != nil {
			t.Fatal(err)
		}
	}
}

// create creates the FlowSchemas and levels of the lab's files and YAML
// documents, and returns the names of the schemas and of the levels.
func create(ctx context.Context, t *testing.T, client kubernetes.Interface, docs ...string) (schemas, levels []string) {
	t.Helper()
	objs := readDocs(t, docs...)
	for _, pl := range objs.Levels {
		if _, err := client.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		levels = append(levels, pl.Name)
	}
	for _, fs := range objs.Schemas {
		if _, err := client.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, fs.Name)
	}
	return schemas, levels
}

// wideLevel is the lab's narrow level without its borrowing limit: 12
// nominal seats, but up to 612 borrowed from idle levels.
const wideLevel = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: apf-lab-wide
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 5
    lendablePercent: 0
    limitResponse:
      type: Queue
      queuing: {queues: 16, handSize: 4, queueLengthLimit: 20}
`

// widenWorkloadLow gives the server's level workload-low ten times its
// shares and has it lend nothing, with the annotation that keeps the edit,
// and returns how to put it back.
func widenWorkloadLow(ctx context.Context, t *testing.T, client kubernetes.Interface) func() {
	t.Helper()
	pls := client.FlowcontrolV1().PriorityLevelConfigurations()
	patch := `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"limited":{"nominalConcurrencyShares":1000,"lendablePercent":0}}}`
	if _, err := pls.Patch(ctx, "workload-low", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return func() {
		ctx := context.Background()
		pl, err := pls.Get(ctx, "workload-low", metav1.GetOptions{})
		if err != nil {
			t.Errorf("putting workload-low back: %v", err)
			return
		}
		pl.Spec = *bootstrap.SuggestedPriorityLevelConfigurationWorkloadLow.Spec.DeepCopy()
		pl.Annotations[flowcontrol.AutoUpdateAnnotationKey] = "true"
		if _, err := pls.Update(ctx, pl, metav1.UpdateOptions{}); err != nil {
			t.Errorf("putting workload-low back: %v", err)
		}
	}
}

// globalDefaultToExempt points the server's own schema global-default at
// exempt, with the annotation that keeps the ensurer from putting its
// spec back, and returns how to put it back: the default's spec, and the
// annotation "true" again.
func globalDefaultToExempt(ctx context.Context, t *testing.T, client kubernetes.Interface) func() {
	t.Helper()
	fss := client.FlowcontrolV1().FlowSchemas()
	patch := `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"priorityLevelConfiguration":{"name":"exempt"}}}`
	if _, err := fss.Patch(ctx, "global-default", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return func() {
		ctx := context.Background()
		fs, err := fss.Get(ctx, "global-default", metav1.GetOptions{})
		if err != nil {
			t.Errorf("putting global-default back: %v", err)
			return
		}
		fs.Spec = *bootstrap.SuggestedFlowSchemaGlobalDefault.Spec.DeepCopy()
		fs.Annotations[flowcontrol.AutoUpdateAnnotationKey] = "true"
		if _, err := fss.Update(ctx, fs, metav1.UpdateOptions{}); err != nil {
			t.Errorf("putting global-default back: %v", err)
		}
	}
}

// settled waits until the server classifies every request the checks send
// as the cluster's objects say, that is, until it has taken the objects
// just made and dropped those just deleted.
func settled(ctx context.Context, t *testing.T, c *labcheck.Cluster) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		v, err := observe(ctx, c)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		for _, r := range TieRequests {
			r.User = kube.ServiceAccountUser(Namespace, TieProbe)
			if _, err := v.probe(ctx, c, r); err != nil {
				last = err.Error()
				return false, nil
			}
		}
		if len(v.disagree) > 0 {
			last = v.disagree[0]
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the server does not classify as its objects say within 20 s: %s", last)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
