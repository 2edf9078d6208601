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
	"os"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/pkg/env"

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
