//go:build e2e

// Package e2e compares chapter 4's model of an unplanned shutdown with the
// real control plane of a lab cluster: a StatefulSet pod on a node that loses
// power stays Terminating, the out-of-service taint lets the pod GC
// force-delete it within one period, and the replacement runs on a healthy
// node. It reads $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab) and
// uses only the shutdown pool's nodes, which it leaves as it found them.
package e2e

import (
	"os"
	"testing"

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
	testenv.Finish(envfuncs.DeleteNamespace(namespace), labenv.NamespaceGone(namespace))
	os.Exit(testenv.Run(m))
}
