//go:build e2e

// Package e2e compares chapter 3's model of API Priority and Fairness with
// the API server of a lab cluster: for requests that differ in user,
// groups, service account, verb, resource, namespace and non-resource
// path, the model fed the cluster's live FlowSchemas and levels picks the
// FlowSchema whose UID the server returns in X-Kubernetes-PF-FlowSchema-UID;
// and for every priority level the model's nominal seats equal the
// server's apiserver_flowcontrol_nominal_limit_seats, before and after the
// test adds a level of its own. It reads $KUBECONFIG and $OPSLAB_CONTEXT
// (default kwok-opslab), needs the impersonate permission, and deletes
// what it creates: a namespace apf-e2e-*, and a level and a schema of the
// same name.
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
