//go:build e2e

// Package e2e compares chapter 4's model of an unplanned shutdown with the
// real control plane of a lab cluster: a StatefulSet pod on a node that loses
// power stays Terminating, the out-of-service taint lets the pod GC
// force-delete it within one period, and the replacement runs on a healthy
// node. It reads $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab) and
// uses only the shutdown pool's nodes, which it leaves as it found them.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"

	"github.com/opslab/opslab/lab/labenv"
)

var (
	testenv env.Environment
	// namespace is the run's own namespace, made before the tests and
	// deleted after them.
	namespace string
)

// TestMain runs the tests against the lab cluster, in a namespace of their
// own that goes when they end; the run waits for it to be gone, so that the
// shutdown pool is idle again for the next run.
func TestMain(m *testing.M) {
	testenv = env.NewWithConfig(labenv.Config())
	namespace = envconf.RandomName("shutdown-e2e", 16)
	testenv.Setup(envfuncs.CreateNamespace(namespace))
	testenv.Finish(envfuncs.DeleteNamespace(namespace), namespaceGone(namespace))
	os.Exit(testenv.Run(m))
}

// namespaceGone waits until the namespace's deletion is over: its pods are
// gone from the pool's nodes.
func namespaceGone(name string) env.Func {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		err := wait.For(conditions.New(cfg.Client().Resources()).ResourceDeleted(ns),
			wait.WithContext(ctx), wait.WithTimeout(60*time.Second), wait.WithInterval(time.Second))
		if err != nil {
			return ctx, fmt.Errorf("namespace %s still there 60s after its deletion: %w", name, err)
		}
		return ctx, nil
	}
}

// waitFor waits until cond holds, asking every 250 ms, and fails the test
// after timeout naming what it waited for; cond's error ends the wait at
// once.
func waitFor(ctx context.Context, t testing.TB, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	err := wait.For(cond, wait.WithContext(ctx), wait.WithTimeout(timeout), wait.WithInterval(250*time.Millisecond), wait.WithImmediate())
	if err != nil {
		t.Fatalf("%s: not within %v: %v", what, timeout, err)
	}
}
