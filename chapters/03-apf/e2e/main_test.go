//go:build e2e

// Package e2e compares chapter 3's model of API Priority and Fairness with
// the API server of a lab cluster: for requests that differ in user,
// groups, service account, verb, resource, namespace and non-resource
// path, the model fed the cluster's live FlowSchemas and levels picks the
// FlowSchema whose UID the server returns in X-Kubernetes-PF-FlowSchema-UID;
// for every priority level the model's nominal seats and bounds equal the
// server's metrics; the server's ensurer, work estimates, 429s and debug
// dumps behave as the chapter says; and TestDifferential does all of it on
// random scenarios from a seed (OPSLAB_DIFF_SEED, OPSLAB_DIFF_CASES),
// shrinking any mismatch into a replay file under testdata/differential.
// It reads $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab), needs the
// impersonate permission, and deletes what it creates: namespaces
// apf-e2e-*, and levels, schemas and a cluster role binding whose names
// start with apf-e2e-. Its schemas match only its own impersonated users.
// TestEnsurerPutsDefaultsBack edits three default schemas for up to a
// minute, in ways that leave every other client's classification as it
// was, and puts them back.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"

	"github.com/opslab/opslab/lab/labenv"
)

var testenv env.Environment

// TestMain runs the tests against the lab cluster, $OPSLAB_CONTEXT's.
func TestMain(m *testing.M) {
	testenv = env.NewWithConfig(labenv.Config())
	os.Exit(testenv.Run(m))
}

// cluster returns the lab cluster's client configuration and a client,
// with no client-side rate limit: a test sends a few hundred requests.
func cluster(t testing.TB) (*rest.Config, kubernetes.Interface) {
	t.Helper()
	cfg := rest.CopyConfig(testenv.EnvConf().Client().RESTConfig())
	cfg.QPS, cfg.Burst = -1, -1
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, client
}

// namespace makes a namespace for the test, named prefix and random
// letters, and deletes it when the test ends: an end-to-end test leaves the
// lab as it found it.
func namespace(ctx context.Context, t testing.TB, rc *rest.Config, prefix string) string {
	t.Helper()
	ns, remove, err := newNamespace(ctx, rc, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return ns
}

// newNamespace makes a namespace with envfuncs.CreateNamespace, waits for
// its service account "default", and returns its name and a function that
// deletes it. The service account controller adds "default" a moment after
// the namespace (longer on a new cluster, where it first gets its own
// credentials).
func newNamespace(ctx context.Context, rc *rest.Config, prefix string) (string, func(), error) {
	// A client and a config of their own: CreateNamespace makes the
	// namespace the config's default, which the shared one must not get.
	c, err := klient.New(rc)
	if err != nil {
		return "", nil, err
	}
	own := envconf.New().WithClient(c)
	name := envconf.RandomName(prefix, len(prefix)+5)
	if _, err := envfuncs.CreateNamespace(name)(ctx, own); err != nil {
		return "", nil, err
	}
	remove := func() { envfuncs.DeleteNamespace(name)(context.Background(), own) }
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
	exists := conditions.New(c.Resources()).ResourceMatch(sa, func(k8s.Object) bool { return true })
	if err := waitUntil(ctx, 60*time.Second, exists); err != nil {
		remove()
		return "", nil, fmt.Errorf("service account %s/default: not within 60s: %w", name, err)
	}
	return name, remove, nil
}

// waitUntil asks cond every 250 ms until it holds, for at most timeout;
// cond's error ends the wait at once.
func waitUntil(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	return wait.For(cond, wait.WithContext(ctx), wait.WithTimeout(timeout), wait.WithInterval(250*time.Millisecond), wait.WithImmediate())
}

// waitFor is waitUntil that fails the test, naming what it waited for.
func waitFor(ctx context.Context, t testing.TB, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := waitUntil(ctx, timeout, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, timeout, err)
	}
}
