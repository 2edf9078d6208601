//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/opslab/opslab/lab/labenv"
)

// TestHandEditedNodeStatusWrittenBack is the other half of why the lab uses
// its own taint keys: a node's status edited by hand to Ready=False does not
// last on a kwok node, because kwok, standing in for the kubelet, writes
// Ready=True back (its node-initialize stage acts on any node that is not
// Ready), and it keeps renewing the node's Lease in kube-node-lease.
func TestHandEditedNodeStatusWrittenBack(t *testing.T) {
	f := features.New("a node status edited by hand").
		Assess("Ready=False written by hand to a kwok node's status is replaced by Ready=True within 30 s, and the node's Lease is renewed", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, false)
			lease, err := k.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("the Lease of %s in %s: %v", node, corev1.NamespaceNodeLease, err)
			}
			n, err := k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					n.Status.Conditions[i].Status = corev1.ConditionFalse
					n.Status.Conditions[i].Reason = "EditedByHand"
					n.Status.Conditions[i].LastTransitionTime = metav1.Now()
				}
			}
			if _, err := k.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			edited := time.Now()
			match := conditions.New(cfg.Client().Resources()).ResourceMatch
			ready := func(o k8s.Object) bool {
				for _, c := range o.(*corev1.Node).Status.Conditions {
					if c.Type == corev1.NodeReady {
						return c.Status == corev1.ConditionTrue
					}
				}
				return false
			}
			labenv.Poll(ctx, t, 30*time.Second, node+" Ready=True again", match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}, ready))
			t.Logf("kwok wrote Ready=True back on %s %v after the hand edit", node, time.Since(edited).Round(100*time.Millisecond))
			renewed := func(o k8s.Object) bool {
				l := o.(*coordinationv1.Lease)
				return l.Spec.RenewTime != nil && lease.Spec.RenewTime != nil && l.Spec.RenewTime.After(lease.Spec.RenewTime.Time)
			}
			labenv.Poll(ctx, t, 60*time.Second, "the Lease of "+node+" renewed", match(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: corev1.NamespaceNodeLease}}, renewed))
			t.Logf("the Lease kube-node-lease/%s was renewed", node)
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
