//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/lab/labenv"
)

// A state is a situation the model and the API server are both asked about:
// Ready replicas, replicas that never become Ready, and the budgets over
// them.
type state struct {
	name    string
	reason  string
	ready   int
	unready int
	budgets []budgetSpec
}

type budgetSpec struct {
	minAvailable, maxUnavailable string // "" when unset
	policy                       pdb.UnhealthyPodEvictionPolicy
	everything                   bool // an empty selector rather than app=<state>
}

var states = []state{
	{name: "min-2-of-3", reason: "one pod above the floor", ready: 3, budgets: []budgetSpec{{minAvailable: "2"}}},
	{name: "min-3-of-3", reason: "a floor equal to the replicas", ready: 3, budgets: []budgetSpec{{minAvailable: "3"}}},
	{name: "min-50%-of-3", reason: "1.5 rounds up to 2", ready: 3, budgets: []budgetSpec{{minAvailable: "50%"}}},
	{name: "min-100%-of-3", reason: "every replica", ready: 3, budgets: []budgetSpec{{minAvailable: "100%"}}},
	{name: "min-75%-of-4", reason: "exactly 3 of 4", ready: 4, budgets: []budgetSpec{{minAvailable: "75%"}}},
	{name: "max-1-of-3", reason: "maxUnavailable 1", ready: 3, budgets: []budgetSpec{{maxUnavailable: "1"}}},
	{name: "max-0-of-3", reason: "maxUnavailable 0 allows nothing", ready: 3, budgets: []budgetSpec{{maxUnavailable: "0"}}},
	{name: "max-10%-of-3", reason: "0.3 rounds up to 1", ready: 3, budgets: []budgetSpec{{maxUnavailable: "10%"}}},
	{name: "max-33%-2-ready-1-not", reason: "expected 3 from the scale; 0.99 rounds up to 1; 2 healthy of 2", ready: 2, unready: 1, budgets: []budgetSpec{{maxUnavailable: "33%"}}},
	{name: "min-2-2-ready-1-not", reason: "at the floor: a Ready pod is refused, the unready one may go (IfHealthyBudget)", ready: 2, unready: 1, budgets: []budgetSpec{{minAvailable: "2"}}},
	{name: "min-2-1-ready-2-not", reason: "below the floor: even the unready pod is refused", ready: 1, unready: 2, budgets: []budgetSpec{{minAvailable: "2"}}},
	{name: "min-2-1-ready-2-not-always", reason: "AlwaysAllow lets the unready pod go below the floor", ready: 1, unready: 2, budgets: []budgetSpec{{minAvailable: "2", policy: pdb.AlwaysAllow}}},
	{name: "max-1-3-ready-1-not", reason: "expected 4, desired 3, 3 healthy", ready: 3, unready: 1, budgets: []budgetSpec{{maxUnavailable: "1"}}},
	{name: "two-budgets", reason: "two budgets select the pods: 500", ready: 3, budgets: []budgetSpec{{minAvailable: "1"}, {maxUnavailable: "1", everything: true}}},
	{name: "no-budget", reason: "nothing guards the pods", ready: 2},
}

// TestModelMatchesEvictionAPI builds each state on the cluster and in the
// model, and asks both for a dry-run eviction of a Ready pod and of a pod
// that is not Ready: the answers must be the same.
func TestModelMatchesEvictionAPI(t *testing.T) {
	f := features.New("the model's eviction decisions").
		Assess("for every state, the model allows or refuses a dry-run eviction with the code the eviction subresource answers", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			// Budgets with an empty selector select every pod of the
			// namespace, so each such state gets a namespace of its own;
			// the others share the run's.
			for i, s := range states {
				t.Run(s.name, func(t *testing.T) {
					space := cfg.Namespace()
					if slices.ContainsFunc(s.budgets, func(b budgetSpec) bool { return b.everything }) {
						space = labenv.Namespace(ctx, t, k, cfg.Namespace()+"-")
					}
					compare(ctx, t, k, resourcesIn(t, cfg, space), space, fmt.Sprintf("s%d", i), s)
				})
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// compare builds state s on the cluster, in namespace ns with pods labelled
// app=APP, and in the model, and compares their answers to a dry-run
// eviction.
func compare(ctx context.Context, t *testing.T, k kubernetes.Interface, r *resources.Resources, ns, app string, s state) {
	// The cluster.
	create(ctx, t, k, ns, app+"-ready", app, s.ready, "")
	create(ctx, t, k, ns, app+"-slow", app, s.unready, "1h")
	// The slow pods are Ready an hour after they start: only the ready
	// ones can be Ready within the test.
	cond, byApp := conditions.New(r), resources.WithLabelSelector("app="+app)
	var pods corev1.PodList
	labenv.Poll(ctx, t, 90*time.Second, "pods started", cond.ResourceListMatchN(&pods, s.ready+s.unready, running, byApp))
	labenv.Poll(ctx, t, 60*time.Second, "pods Ready", cond.ResourceListMatchN(&pods, s.ready, isReady, byApp))
	// The budgets come once the pods are Ready: the disruption controller
	// counts each when it is created, and of two budgets over the same
	// pods, a pod's later change reaches only one, picked at random
	// (TestOverlappingBudgetsGoStale), so a budget made before the pods
	// were Ready could wait for them forever.
	for i, b := range s.budgets {
		if _, err := k.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, apiBudget(fmt.Sprintf("%s-%d", app, i), app, b), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range s.budgets {
		b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", app, i), Namespace: ns}}
		// As long as the pods may take, on a busy machine.
		labenv.Poll(ctx, t, 90*time.Second, "budget "+b.Name+" counted", cond.ResourceMatch(b, func(o k8s.Object) bool {
			b := o.(*policyv1.PodDisruptionBudget)
			return b.Status.ObservedGeneration >= b.Generation && int(b.Status.CurrentHealthy) == s.ready
		}))
	}
	if err := r.List(ctx, &pods, byApp); err != nil {
		t.Fatal(err)
	}
	var readyPod, slowPod string
	for _, p := range pods.Items {
		if podReady(p) {
			readyPod = p.Name
		} else {
			slowPod = p.Name
		}
	}

	// The model.
	c := pdb.NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		must(t, c.AddNode(n))
	}
	labels := map[string]string{"app": app}
	must(t, c.AddController(pdb.Controller{Name: "ready", Replicas: s.ready, Labels: labels}))
	must(t, c.AddController(pdb.Controller{Name: "slow", Replicas: s.unready, Labels: labels}))
	for i := range s.unready {
		must(t, c.SetReady(fmt.Sprintf("slow-%d", i+1), false))
	}
	for i, b := range s.budgets {
		must(t, c.AddBudget(modelBudget(fmt.Sprintf("%s-%d", app, i), app, b)))
	}

	ask := []struct{ model, api string }{{"ready-1", readyPod}}
	if s.unready > 0 {
		ask = append(ask, struct{ model, api string }{"slow-1", slowPod})
	}
	for _, a := range ask {
		want := c.EvictDryRun(a.model)
		code, msg := dryRunEvict(ctx, t, k, ns, a.api)
		t.Logf("%s (%s): model %s; API server %d %s", a.model, s.reason, want, code, msg)
		if code != want.Code {
			t.Errorf("dry-run eviction of a pod like %s: API server answered %d %s, model says %s (%s)", a.model, code, msg, want, s.reason)
		} else if wantMsg := message(want); !want.Allowed && msg != wantMsg {
			t.Errorf("dry-run eviction of a pod like %s: API server said %q, model says %q", a.model, msg, wantMsg)
		}
	}
}

// message is a refusal as dryRunEvict reads it: the message, then each
// cause in parentheses.
func message(d pdb.Decision) string {
	var b strings.Builder
	b.WriteString(d.Message)
	for _, c := range d.Causes {
		b.WriteString(" (" + c + ")")
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func create(ctx context.Context, t *testing.T, k kubernetes.Interface, ns, name, app string, replicas int, readyAfter string) {
	t.Helper()
	var annotations map[string]string
	if readyAfter != "" {
		annotations = map[string]string{"opslab.dev/ready-after": readyAfter}
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app, "group": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app, "group": name}, Annotations: annotations},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"opslab.dev/pool": "pdb"},
					Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
				},
			},
		},
	}
	if _, err := k.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func apiBudget(name, app string, b budgetSpec) *policyv1.PodDisruptionBudget {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	if b.everything {
		sel = &metav1.LabelSelector{}
	}
	out := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
	setAPIBounds(&out.Spec, b.minAvailable, b.maxUnavailable, string(b.policy))
	return out
}

// setAPIBounds writes a budget's minAvailable, maxUnavailable and unhealthy
// pod policy into spec, each written as in a manifest ("2", "50%") and left
// unset when empty.
func setAPIBounds(spec *policyv1.PodDisruptionBudgetSpec, minAvailable, maxUnavailable, policy string) {
	spec.MinAvailable, spec.MaxUnavailable, spec.UnhealthyPodEvictionPolicy = nil, nil, nil
	if minAvailable != "" {
		v := intstr.Parse(minAvailable)
		spec.MinAvailable = &v
	}
	if maxUnavailable != "" {
		v := intstr.Parse(maxUnavailable)
		spec.MaxUnavailable = &v
	}
	if policy != "" {
		p := policyv1.UnhealthyPodEvictionPolicyType(policy)
		spec.UnhealthyPodEvictionPolicy = &p
	}
}

func modelBudget(name, app string, b budgetSpec) pdb.Budget {
	out := pdb.Budget{Name: name, Selector: &pdb.Selector{MatchLabels: map[string]string{"app": app}}, UnhealthyPodEvictionPolicy: b.policy}
	if b.everything {
		out.Selector = &pdb.Selector{}
	}
	setModelBounds(&out, b.minAvailable, b.maxUnavailable)
	return out
}

// setModelBounds is setAPIBounds for the model's Budget.
func setModelBounds(out *pdb.Budget, minAvailable, maxUnavailable string) {
	for _, f := range []struct {
		s   string
		dst **pdb.IntOrPercent
	}{{minAvailable, &out.MinAvailable}, {maxUnavailable, &out.MaxUnavailable}} {
		if f.s == "" {
			continue
		}
		v, err := pdb.ParseIntOrPercent(f.s)
		if err != nil {
			panic(err)
		}
		*f.dst = &v
	}
}

func dryRunEvict(ctx context.Context, t *testing.T, k kubernetes.Interface, ns, pod string) (int, string) {
	t.Helper()
	err := k.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod, Namespace: ns},
		DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}},
	})
	if err == nil {
		return pdb.CodeCreated, ""
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("dry-run eviction of %s: %v", pod, err)
	}
	st := status.Status()
	msg := st.Message
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			msg += " (" + c.Message + ")"
		}
	}
	return int(st.Code), msg
}
