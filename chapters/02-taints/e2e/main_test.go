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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/klient/conf"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"

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
	cfg, err := config()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	testenv = env.NewWithConfig(cfg)
	code := testenv.Run(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// config is labenv.Config with a client for the context $OPSLAB_CONTEXT
// names: e2e-framework's own client reads only the kubeconfig's current
// context, and the timetable is run with --context.
func config() (*envconf.Config, error) {
	rc, err := conf.NewWithContextName(kubeconfig, kubeContext)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s: %w", kubeconfig, kubeContext, err)
	}
	c, err := klient.New(rc)
	if err != nil {
		return nil, err
	}
	return labenv.Config().WithClient(c), nil
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
// credentials), and a pod sent before then is refused.
func newNamespace(ctx context.Context, rc *rest.Config, prefix string) (string, func(), error) {
	// A client and a config of their own: a client's Resources keeps the
	// namespace it was last asked for, CreateNamespace makes the namespace
	// the config's default, and the differential makes namespaces side by
	// side.
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
