//go:build e2e

// Package e2e is the lab cluster's smoke suite: it proves that the cluster
// the course runs on is real and that the course's kwok stages do what the
// chapters say. It needs a running lab cluster: make test starts a private
// one and runs this suite with $KUBECONFIG and $OPSLAB_CONTEXT pointing at it.
package e2e

import (
	"os"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/env"

	"github.com/opslab/opslab/lab/labenv"
)

var testenv env.Environment

func TestMain(m *testing.M) {
	testenv = env.NewWithConfig(labenv.Config())
	os.Exit(testenv.Run(m))
}
