//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/lab/labenv"
)

// powerNode is the node of the chapter's pool that the test powers off.
const powerNode = "pdb-3"

// TestPowerLossKeepsPodOnCluster powers a node off with the lab cluster's
// power-off stage and watches its pod. The stage holds the node at
// Ready=False with its Lease still renewed, a node that reports trouble
// rather than one that went silent, so this is the first half of a power
// loss only: the node lifecycle controller taints the node not-ready, and
// it does not mark the pod not Ready, which it does when it turns a silent
// node's Ready condition to Unknown (node_lifecycle_controller.go, the
// switch on observedReadyCondition). For the rest of the test the pod is
// not deleted and not replaced, and its budget still counts it: nothing
// involuntary asks the budget, and nothing tells it either.
func TestPowerLossKeepsPodOnCluster(t *testing.T) {
	f := features.New("a power loss").
		Assess("the pod stays, not deleted and not replaced, and its budget still counts it", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			ns := labenv.Namespace(ctx, t, k, "pdb-power-")
			d := deploymentOn(ns, powerNode)
			if _, err := k.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := k.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, diffAPIBudget(diffBudget{Name: "ledger", Selector: "app=ledger", Min: "1"}), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			cond := conditions.New(resourcesIn(t, cfg, ns))
			var pods corev1.PodList
			labenv.Poll(ctx, t, 60*time.Second, "ledger Ready on "+powerNode, cond.ResourceListMatchN(&pods, 1, isReady))
			labenv.Poll(ctx, t, 30*time.Second, "ledger counted by its budget", cond.ResourceMatch(
				&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "ledger", Namespace: ns}},
				func(o k8s.Object) bool {
					b := o.(*policyv1.PodDisruptionBudget)
					return b.Status.ObservedGeneration == 1 && b.Status.CurrentHealthy == 1
				}))
			if len(pods.Items) != 1 {
				t.Fatalf("pods of ledger: %v, want one", podNames(pods.Items))
			}
			pod := pods.Items[0].Name

			// Power off: the node and the pod get the lab's mark, as
			// lab/scripts/power.sh does. Power comes back when the test ends.
			label := func(kind, name, value string) {
				v := "null"
				if value != "" {
					v = fmt.Sprintf("%q", value)
				}
				patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"opslab.dev/power":%s}}}`, v))
				var err error
				if kind == "node" {
					_, err = k.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
				} else {
					_, err = k.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
				}
				if err != nil {
					t.Fatalf("label %s %s: %v", kind, name, err)
				}
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: powerNode}}
			label("node", powerNode, "off")
			label("pod", pod, "off")
			t.Cleanup(func() {
				label("pod", pod, "")
				label("node", powerNode, "")
				labenv.Poll(context.Background(), t, 60*time.Second, powerNode+" Ready and untainted again", cond.ResourceMatch(node, func(o k8s.Object) bool {
					n := o.(*corev1.Node)
					return !hasTaint(n, corev1.TaintNodeNotReady) && !hasTaint(n, corev1.TaintNodeUnreachable) && nodeReady(n)
				}))
			})
			start := time.Now()
			labenv.Poll(ctx, t, 60*time.Second, powerNode+" tainted not-ready", cond.ResourceMatch(node, func(o k8s.Object) bool {
				return hasTaint(o.(*corev1.Node), corev1.TaintNodeNotReady)
			}))
			t.Logf("%s tainted not-ready %v after the power-off", powerNode, time.Since(start).Round(time.Second))

			// The model before the node lifecycle controller gives up on
			// the node: the pod is still there and still counted.
			c := pdb.NewCluster()
			must(t, c.AddNode(powerNode))
			must(t, c.AddController(pdb.Controller{Name: "ledger", Replicas: 1, Labels: map[string]string{"app": "ledger"}}))
			must(t, c.AddBudget(diffModelBudget(diffBudget{Name: "ledger", Selector: "app=ledger", Min: "1"})))
			must(t, c.PowerOff(powerNode))
			must(t, c.Advance(pdb.NodeMonitorGracePeriod-time.Second))
			want, _ := c.Budget("ledger")
			wantEvict := c.EvictDryRun("ledger-1")

			// For the next 15 s: still there, not deleted, not replaced.
			for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
				pods, err := k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(pods.Items) != 1 || pods.Items[0].Name != pod || pods.Items[0].DeletionTimestamp != nil {
					t.Fatalf("%v after the power-off: %d pods (%v), want only %s, not being deleted: nothing deletes it before its 300 s toleration", time.Since(start).Round(time.Second), len(pods.Items), podNames(pods.Items), pod)
				}
				if !podReady(pods.Items[0]) {
					t.Fatalf("%v after the power-off: %s is not Ready; a node that reports NotReady does not make the node lifecycle controller mark its pods", time.Since(start).Round(time.Second), pod)
				}
			}
			b, err := k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "ledger", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if int(b.Status.CurrentHealthy) != want.Status.CurrentHealthy || int(b.Status.DisruptionsAllowed) != want.Status.DisruptionsAllowed {
				t.Errorf("budget after the power-off: healthy %d, allowed %d; model %s", b.Status.CurrentHealthy, b.Status.DisruptionsAllowed, want.Status)
			}
			got := evictAnswer(ctx, t, k, ns, pod, true)
			if got.code != wantEvict.Code || got.message != wantEvict.Message || fmt.Sprint(got.causes) != fmt.Sprint(wantEvict.Causes) {
				t.Errorf("dry-run eviction of %s: server %d %q %q, model %s", pod, got.code, got.message, got.causes, wantEvict)
			}
			n, err := k.CoreV1().Nodes().Get(ctx, powerNode, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s taints: %v; budget: healthy %d, allowed %d; eviction: %d %v", powerNode, n.Spec.Taints, b.Status.CurrentHealthy, b.Status.DisruptionsAllowed, got.code, got.causes)
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

func deploymentOn(ns, node string) *appsv1.Deployment {
	labels := map[string]string{"app": "ledger"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "ledger", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"opslab.dev/pool": "pdb", "kubernetes.io/hostname": node},
					Containers:   []corev1.Container{{Name: "ledger", Image: "registry.example/ledger:1"}},
				},
			},
		},
	}
}

// hasTaint reports whether a node has a taint of the given key.
func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(tn corev1.Taint) bool { return tn.Key == key })
}

// nodeReady reports whether a node's Ready condition is True.
func nodeReady(n *corev1.Node) bool { return kubeio.NodeReady(n) }

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
