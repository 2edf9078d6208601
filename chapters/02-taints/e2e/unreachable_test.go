//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/opslab/opslab/lab/labenv"
)

// TestHandMadeUnreachableTaintRemoved is why the lab uses a key of its own:
// the node lifecycle controller owns node.kubernetes.io/unreachable and
// takes it off a node that reports Ready on its next health pass
// (--node-monitor-period: 5 s by default, 25 s as kwokctl runs it).
func TestHandMadeUnreachableTaintRemoved(t *testing.T) {
	f := features.New("a hand-made unreachable taint").
		Assess("on a Ready node, node.kubernetes.io/unreachable:NoExecute is removed by the controller within one health pass (60 s at most)", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			// Pods on the node carry the default 300 s tolerations for this
			// key; the taint is gone long before that.
			node := untaintedPoolNode(ctx, t, k, false)
			start := time.Now()
			// taint's clean-up finds nothing left to remove if the controller
			// did its job, and removes the taint if it did not.
			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute})
			untainted := func(o k8s.Object) bool {
				for _, tn := range o.(*corev1.Node).Spec.Taints {
					if tn.Key == "node.kubernetes.io/unreachable" {
						return false
					}
				}
				return true
			}
			labenv.Poll(ctx, t, 60*time.Second, "unreachable taint gone from "+node, conditions.New(cfg.Client().Resources()).ResourceMatch(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}, untainted))
			t.Logf("the controller removed the unreachable taint from %s %v after it was added", node, time.Since(start).Round(100*time.Millisecond))
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
