package labenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	e2ewait "sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"
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
	if err := WaitUntil(ctx, timeout, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, timeout, err)
	}
}

// WaitUntil asks cond every 250 ms until it holds, for at most timeout;
// cond's error ends the wait at once. It is e2e-framework's wait.For with
// the course's interval.
func WaitUntil(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	return e2ewait.For(cond, e2ewait.WithContext(ctx), e2ewait.WithTimeout(timeout), e2ewait.WithInterval(250*time.Millisecond), e2ewait.WithImmediate())
}

// NewNamespace makes a namespace named prefix and random letters with
// envfuncs.CreateNamespace, waits for its service account "default", and
// returns its name and a function that deletes it. It uses a client of its
// own: CreateNamespace makes the namespace its config's default, and tests
// make namespaces side by side.
func NewNamespace(ctx context.Context, rc *rest.Config, prefix string) (string, func(), error) {
	c, err := klient.New(rc)
	if err != nil {
		return "", nil, err
	}
	own := envconf.New().WithClient(c)
	name := envconf.RandomName(prefix, len(prefix)+9)
	if _, err := envfuncs.CreateNamespace(name)(ctx, own); err != nil {
		return "", nil, err
	}
	remove := func() { envfuncs.DeleteNamespace(name)(context.Background(), own) }
	if _, err := ServiceAccountReady(name)(ctx, own); err != nil {
		remove()
		return "", nil, err
	}
	return name, remove, nil
}

// TestNamespace is NewNamespace for a test: the test fails when the
// namespace cannot be made, and the namespace goes when the test ends, so an
// end-to-end test leaves the lab as it found it.
func TestNamespace(ctx context.Context, t testing.TB, rc *rest.Config, prefix string) string {
	t.Helper()
	ns, remove, err := NewNamespace(ctx, rc, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return ns
}

// ServiceAccountReady waits, as a step of an e2e-framework environment, for
// the namespace's service account "default": the service account controller
// adds it a moment after the namespace (longer on a new cluster, where it
// first gets its own credentials), and a pod sent before then is refused.
func ServiceAccountReady(ns string) env.Func {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}
		exists := conditions.New(cfg.Client().Resources()).ResourceMatch(sa, func(k8s.Object) bool { return true })
		if err := WaitUntil(ctx, 60*time.Second, exists); err != nil {
			return ctx, fmt.Errorf("service account %s/default: not within 60s: %w", ns, err)
		}
		return ctx, nil
	}
}

// NamespaceGone waits, as a step of an e2e-framework environment, until the
// namespace's deletion is over: its pods are gone from the pool's nodes.
func NamespaceGone(name string) env.Func {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := WaitUntil(ctx, 60*time.Second, conditions.New(cfg.Client().Resources()).ResourceDeleted(ns)); err != nil {
			return ctx, fmt.Errorf("namespace %s still there 60s after its deletion: %w", name, err)
		}
		return ctx, nil
	}
}
