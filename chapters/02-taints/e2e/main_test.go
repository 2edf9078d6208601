//go:build e2e

// Package e2e compares chapter 2's timetable with the real control plane:
// it predicts when each pod leaves a node under a NoExecute taint, taints
// the node, and watches the taint eviction controller do it. It needs a lab
// cluster: $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab) name it.
package e2e

import (
	"os"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
)

var (
	testenv     env.Environment
	kubeconfig  string
	kubeContext string
)

func TestMain(m *testing.M) {
	kubeconfig = os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		kubeconfig = clientcmd.RecommendedHomeFile
	}
	kubeContext = os.Getenv("OPSLAB_CONTEXT")
	if kubeContext == "" {
		kubeContext = "kwok-opslab"
	}
	testenv = env.NewWithConfig(envconf.NewWithKubeConfig(kubeconfig).WithKubeContext(kubeContext))
	os.Exit(testenv.Run(m))
}
