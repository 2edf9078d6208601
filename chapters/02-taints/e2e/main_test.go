//go:build e2e

// Package e2e compares chapter 2's model with the real control plane. It
// predicts when each pod leaves a node under a NoExecute taint, taints the
// node, and watches the taint eviction controller do it
// (TestTimetableMatchesEvictions); it does the same on scenarios drawn from
// a seed, with toleration validation by server dry-run and placement after
// the taint (TestDifferential, TestDifferentialReplay); it shows a
// ReplicaSet replacing a Terminating pod and a StatefulSet waiting
// (TestTerminatingPodReplacedByReplicaSetOnly), the node lifecycle
// controller removing a hand-made unreachable taint
// (TestHandMadeUnreachableTaintRemoved), and kwok writing a hand-edited
// node status back (TestHandEditedNodeStatusWrittenBack). It needs a lab
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
