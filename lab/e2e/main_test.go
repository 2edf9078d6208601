//go:build e2e

// Package e2e is the lab cluster's smoke suite: it proves that the cluster
// the course runs on is real and that the course's kwok stages do what the
// chapters say. It needs a running lab cluster: make test starts a private
// one and runs this suite with $KUBECONFIG and $OPSLAB_CONTEXT pointing at it.
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
