package labenv

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Namespace creates a namespace whose name starts with prefix, once its
// service account "default" exists, and deletes it when the test ends: an
// end-to-end test leaves the lab as it found it. The service account
// controller adds "default" a moment after the namespace (longer on a new
// cluster, where it first gets its own credentials), and a pod sent before
// then is refused.
func Namespace(ctx context.Context, t testing.TB, k kubernetes.Interface, prefix string) string {
	t.Helper()
	ns, err := k.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	Poll(ctx, t, 60*time.Second, "service account "+ns.Name+"/default", func(ctx context.Context) (bool, error) {
		_, err := k.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	return ns.Name
}

// Taint adds a taint to a node and takes every taint of its key off again
// when the test ends.
func Taint(ctx context.Context, t testing.TB, k kubernetes.Interface, node string, tn corev1.Taint) {
	t.Helper()
	update := func(ctx context.Context, change func(*corev1.Node)) error {
		n, err := k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(n)
		_, err = k.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	}
	if err := update(ctx, func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, tn) }); err != nil {
		t.Fatalf("taint %s: %v", node, err)
	}
	t.Cleanup(func() {
		// The node lifecycle controller updates nodes too: retry on conflict.
		err := wait.PollUntilContextTimeout(context.Background(), time.Second, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			err := update(ctx, func(n *corev1.Node) {
				var keep []corev1.Taint
				for _, x := range n.Spec.Taints {
					if x.Key != tn.Key {
						keep = append(keep, x)
					}
				}
				n.Spec.Taints = keep
			})
			return err == nil, nil
		})
		if err != nil {
			t.Errorf("could not take taint %s off %s: %v", tn.Key, node, err)
		}
	})
}

// Poll checks cond every 250 ms until it holds, and fails the test after
// timeout naming what it waited for; cond's error ends the wait at once.
func Poll(ctx context.Context, t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, timeout, err)
	}
}
