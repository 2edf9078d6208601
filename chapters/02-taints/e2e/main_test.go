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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/pkg/env"

	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/lab/labenv"
)

var (
	testenv     env.Environment
	kubeconfig  string
	kubeContext string
)

// TestMain runs the tests against the lab cluster. Each test makes the
// namespaces it needs (namespace): a test's taint must meet only its own
// pods, and the timetable lists every pod of the namespace it is given.
func TestMain(m *testing.M) {
	kubeconfig, kubeContext = labenv.Kubeconfig(), labenv.Context()
	testenv = env.NewWithConfig(labenv.Config())
	code := testenv.Run(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// podReady is kubeio.PodReady for e2e-framework's conditions, which hand
// over objects.
func podReady(o k8s.Object) bool { return kubeio.PodReady(o.(*corev1.Pod)) }

// binDir holds the timetable command, built by the first test that runs it.
var binDir string

// buildTimetable builds the chapter's command once, from its own package
// main, so that the tests run what a learner runs.
var buildTimetable = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "taints-e2e-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "timetable")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/opslab/opslab/chapters/02-taints/cmd/timetable").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build timetable: %v\n%s", err, out)
	}
	return bin, nil
})

// timetable runs the timetable command with args and returns what it
// printed; an exit status other than 0 is an error that carries its
// standard error.
func timetable(ctx context.Context, args ...string) (string, error) {
	bin, err := buildTimetable()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("timetable %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
