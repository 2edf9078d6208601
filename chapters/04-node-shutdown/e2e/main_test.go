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

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
)

var testenv env.Environment

func TestMain(m *testing.M) {
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		kubeconfig = clientcmd.RecommendedHomeFile
	}
	kubeContext := os.Getenv("OPSLAB_CONTEXT")
	if kubeContext == "" {
		kubeContext = "kwok-opslab"
	}
	cfg := envconf.NewWithKubeConfig(kubeconfig).WithKubeContext(kubeContext)
	testenv = env.NewWithConfig(cfg)
	os.Exit(testenv.Run(m))
}
