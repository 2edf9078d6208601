//go:build e2e

// Package e2e compares chapter 1's model of PodDisruptionBudgets with the
// real control plane. It builds states on the lab cluster and in the model
// and asks both for a dry-run eviction (TestModelMatchesEvictionAPI); plays
// random deployments, budgets and steps on both, from a seed
// (TestDifferential, TestDifferentialReplay); and shows on the real
// controllers what the chapter claims of them: two budgets over one pod go
// stale (TestOverlappingBudgetsGoStale), a power loss neither deletes nor
// replaces a pod and its budget still counts it
// (TestPowerLossKeepsPodOnCluster), and validation refuses a negative
// disruptionsAllowed (TestNegativeStatusRefused). It needs a lab cluster:
// $KUBECONFIG and $OPSLAB_CONTEXT (default kwok-opslab) name it.
package e2e

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/k8s/resources"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"

	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/lab/labenv"
)

var testenv env.Environment

// TestMain runs the tests against the lab cluster, with a namespace of
// their own for the run (cfg.Namespace()) that goes when they end. A test
// whose budgets select every pod of a namespace makes one more for them.
func TestMain(m *testing.M) {
	testenv = env.NewWithConfig(labenv.Config())
	ns := envconf.RandomName("pdb-e2e", 16)
	testenv.Setup(envfuncs.CreateNamespace(ns), labenv.ServiceAccountReady(ns))
	testenv.Finish(envfuncs.DeleteNamespace(ns))
	os.Exit(testenv.Run(m))
}

// resourcesIn is a client of its own for namespace ns. The environment's
// cfg.Client().Resources(ns) sets the namespace of the one Resources its
// client keeps (WithNamespace changes it in place), so that tests side by
// side, as the differential's cases are, list each other's namespaces: a
// case waited for the late pods of another, which never came.
func resourcesIn(t *testing.T, cfg *envconf.Config, ns string) *resources.Resources {
	t.Helper()
	r, err := resources.New(cfg.Client().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return r.WithNamespace(ns)
}

// podReady reports whether a pod's Ready condition is True.
func podReady(p corev1.Pod) bool { return kubeio.PodReady(&p) }

// isReady is podReady for e2e-framework's conditions, which hand over
// objects.
func isReady(o k8s.Object) bool { return podReady(*o.(*corev1.Pod)) }

// running reports whether a pod runs, Ready or not.
func running(o k8s.Object) bool { return o.(*corev1.Pod).Status.Phase == corev1.PodRunning }
