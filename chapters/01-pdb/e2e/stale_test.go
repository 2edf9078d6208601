//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/lab/labenv"
)

// staleCopies is how many copies of the example run at once: the
// controller's pick is random, so several copies usually show both.
const staleCopies = 3

// TestOverlappingBudgetsGoStale plays the example of two budgets over one
// pod on the cluster: deployments fast (Ready) and slow (Ready 15 s after it
// starts), both tier=a; pdb-a selects slow with minAvailable 0, pdb-b
// selects tier=a with minAvailable 1. When slow turns Ready, the disruption
// controller syncs only one of the two budgets. The server's statuses and
// its answer for fast must be the model's with the controller picking
// pdb-a, or the model's with it picking pdb-b, and never both budgets up to
// date; an update of each budget that leaves its spec alone brings both up
// to date.
func TestOverlappingBudgetsGoStale(t *testing.T) {
	f := features.New("overlapping budgets").
		Assess("a pod event syncs one of the budgets that select the pod; the other stays stale until its own update", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			picked := map[string]int{}
			t.Run("copies", func(t *testing.T) {
				for i := range staleCopies {
					t.Run(fmt.Sprintf("copy-%d", i+1), func(t *testing.T) {
						t.Parallel()
						p := playFastSlow(ctx, t, cfg, k)
						mu.Lock()
						picked[p]++
						mu.Unlock()
					})
				}
			})
			t.Logf("the controller synced pdb-a in %d copies and pdb-b in %d, of %d", picked["pdb-a"], picked["pdb-b"], staleCopies)
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// fastSlowModel builds the example in the model with the controller
// picking prefer, and lets slow become Ready.
func fastSlowModel(t *testing.T, prefer string) *pdb.Cluster {
	c := pdb.NewCluster()
	for _, n := range []string{"pdb-1", "pdb-2", "pdb-3"} {
		must(t, c.AddNode(n))
	}
	must(t, c.AddController(pdb.Controller{Name: "fast", Replicas: 1, Labels: map[string]string{"app": "fast", "tier": "a"}}))
	must(t, c.AddController(pdb.Controller{Name: "slow", Labels: map[string]string{"app": "slow", "tier": "a"}, ReadyAfter: 15 * time.Second}))
	must(t, c.Scale("slow", 1))
	for _, b := range []diffBudget{{Name: "pdb-a", Selector: "app=slow", Min: "0"}, {Name: "pdb-b", Selector: "tier=a", Min: "1"}} {
		must(t, c.AddBudget(diffModelBudget(b)))
	}
	must(t, c.PreferBudget(prefer))
	must(t, c.Advance(15*time.Second))
	return c
}

// playFastSlow plays one copy and returns the budget the controller synced.
func playFastSlow(ctx context.Context, t *testing.T, cfg *envconf.Config, k kubernetes.Interface) string {
	ns := labenv.Namespace(ctx, t, k, "pdb-stale-")
	cond := conditions.New(resourcesIn(t, cfg, ns))
	deployGroupLabels(ctx, t, k, ns, "fast", map[string]string{"app": "fast", "tier": "a"}, "")
	deployGroupLabels(ctx, t, k, ns, "slow", map[string]string{"app": "slow", "tier": "a"}, "15s")
	// Each deployment has one pod: two match when both do.
	labenv.Poll(ctx, t, 60*time.Second, "fast Ready, slow running", cond.ResourceListMatchN(&corev1.PodList{}, 2, func(o k8s.Object) bool {
		return running(o) && isReady(o) == (o.GetLabels()["app"] == "fast")
	}))
	for _, b := range []diffBudget{{Name: "pdb-a", Selector: "app=slow", Min: "0"}, {Name: "pdb-b", Selector: "tier=a", Min: "1"}} {
		if _, err := k.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, diffAPIBudget(b), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	statuses := func() (a, b policyv1.PodDisruptionBudgetStatus) {
		pa, err := k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "pdb-a", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pb, err := k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "pdb-b", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return pa.Status, pb.Status
	}
	// Before slow is Ready both budgets are synced by their creation.
	expected := map[string]int32{"pdb-a": 1, "pdb-b": 2}
	budgets := &policyv1.PodDisruptionBudgetList{Items: []policyv1.PodDisruptionBudget{
		{ObjectMeta: metav1.ObjectMeta{Name: "pdb-a", Namespace: ns}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pdb-b", Namespace: ns}},
	}}
	labenv.Poll(ctx, t, 30*time.Second, "both budgets counted", cond.ResourcesMatch(budgets, func(o k8s.Object) bool {
		b := o.(*policyv1.PodDisruptionBudget)
		return b.Status.ObservedGeneration == 1 && b.Status.ExpectedPods == expected[b.Name]
	}))
	a, b := statuses()
	if a.CurrentHealthy != 0 || b.CurrentHealthy != 1 {
		t.Fatalf("before slow is Ready: pdb-a healthy %d, pdb-b healthy %d; want 0 and 1 (is slow already Ready?)", a.CurrentHealthy, b.CurrentHealthy)
	}
	// slow turns Ready; the controller syncs one budget.
	labenv.Poll(ctx, t, 40*time.Second, "one budget synced after slow is Ready", func(ctx context.Context) (bool, error) {
		a, b := statuses()
		return a.CurrentHealthy == 1 || b.CurrentHealthy == 2, nil
	})
	time.Sleep(3 * time.Second) // time for a second sync, which must not come
	a, b = statuses()
	fast := podOf(ctx, t, k, ns, "app=fast")
	got := evictAnswer(ctx, t, k, ns, fast, true)

	show := func(s policyv1.PodDisruptionBudgetStatus) string {
		return fmt.Sprintf("expected %d, desired %d, healthy %d, allowed %d", s.ExpectedPods, s.DesiredHealthy, s.CurrentHealthy, s.DisruptionsAllowed)
	}
	picked := ""
	for _, prefer := range []string{"pdb-a", "pdb-b"} {
		c := fastSlowModel(t, prefer)
		ma, _ := c.Budget("pdb-a")
		mb, _ := c.Budget("pdb-b")
		if show(a) == ma.Status.String() && show(b) == mb.Status.String() {
			picked = prefer
			want := c.EvictDryRun("fast-1")
			if got.code != want.Code || got.message != want.Message || fmt.Sprint(got.causes) != fmt.Sprint(want.Causes) {
				t.Errorf("controller picked %s: dry-run eviction of fast: server %d %q %q, model %s", prefer, got.code, got.message, got.causes, want)
			}
			t.Logf("%s: the controller synced %s: pdb-a %s; pdb-b %s; evicting fast: %d %s", ns, prefer, show(a), show(b), got.code, got.causes)
		}
	}
	if picked == "" {
		t.Fatalf("after slow turned Ready: pdb-a %s, pdb-b %s: neither the model with the controller picking pdb-a nor with it picking pdb-b (both up to date would be: healthy 1 and 2)", show(a), show(b))
	}

	// An update of each budget that leaves its spec alone syncs it.
	touchBudget(ctx, t, k, ns, "pdb-a")
	touchBudget(ctx, t, k, ns, "pdb-b")
	c := fastSlowModel(t, picked)
	must(t, c.ResyncBudget("pdb-a"))
	must(t, c.ResyncBudget("pdb-b"))
	ma, _ := c.Budget("pdb-a")
	mb, _ := c.Budget("pdb-b")
	labenv.Poll(ctx, t, 20*time.Second, "both budgets up to date after their own update", func(ctx context.Context) (bool, error) {
		a, b := statuses()
		return show(a) == ma.Status.String() && show(b) == mb.Status.String(), nil
	})
	want := c.EvictDryRun("fast-1")
	if got := evictAnswer(ctx, t, k, ns, fast, true); got.code != want.Code {
		t.Errorf("after the update: dry-run eviction of fast: server %d %q, model %s", got.code, got.causes, want)
	}
	return picked
}

func podOf(ctx context.Context, t *testing.T, k kubernetes.Interface, ns, selector string) string {
	pods, err := k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("no pod %s in %s: %v", selector, ns, err)
	}
	return pods.Items[0].Name
}

func deployGroupLabels(ctx context.Context, t *testing.T, k kubernetes.Interface, ns, name string, labels map[string]string, readyAfter string) {
	g := diffGroup{Name: name, Replicas: 1, Class: classReady}
	if readyAfter != "" {
		g.Class = classLate
	}
	deployWith(ctx, t, k, ns, g, labels, readyAfter)
}

// TestNegativeStatusRefused writes a negative disruptionsAllowed through
// the status subresource of policy/v1: validation refuses it with 422, so
// the eviction subresource's 403 for a negative count cannot be reached
// through this API.
func TestNegativeStatusRefused(t *testing.T) {
	f := features.New("a negative disruptionsAllowed").
		Assess("policy/v1 refuses to store it", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			ns := labenv.Namespace(ctx, t, k, "pdb-negative-")
			b, err := k.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, diffAPIBudget(diffBudget{Name: "ledger", Selector: "app=ledger", Min: "1"}), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// The disruption controller writes the new budget's status at
			// about the same time: on a conflict, read it again and retry,
			// so that the answer judged is validation's, not the race's.
			for range 20 {
				b.Status.DisruptionsAllowed = -1
				_, err = k.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, b, metav1.UpdateOptions{})
				if !apierrors.IsConflict(err) {
					break
				}
				if b, err = k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "ledger", metav1.GetOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0") {
				t.Fatalf("UpdateStatus(disruptionsAllowed -1) error = %v, want 422 status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0", err)
			}
			t.Logf("UpdateStatus(disruptionsAllowed -1): %v", err)
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
