//go:build e2e

// Package e2e compares chapter 2's timetable with the real control plane:
// it predicts when each pod leaves a node under a NoExecute taint, taints
// the node, and watches the taint eviction controller do it. It needs a lab
// cluster: $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab) name it.
package e2e

import (
	"os"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/env"

	"github.com/opslab/opslab/lab/labenv"
)

var (
	testenv     env.Environment
	kubeconfig  string
	kubeContext string
)

func TestMain(m *testing.M) {
	kubeconfig, kubeContext = labenv.Kubeconfig(), labenv.Context()
	testenv = env.NewWithConfig(labenv.Config())
	os.Exit(testenv.Run(m))
}
