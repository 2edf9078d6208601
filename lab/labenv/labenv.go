// Package labenv names the lab cluster that the course's end-to-end tests
// run against: the kubeconfig file of $KUBECONFIG (default ~/.kube/config)
// and the context of $OPSLAB_CONTEXT (default kwok-opslab-admin, the admin's
// context of the learner's cluster: the tests set up and inspect the
// cluster as the lab's own scripts do). $OPSLAB_LEARNER_CONTEXT names the
// learner's context of the same cluster. make test sets all three to its
// own private cluster.
package labenv

import (
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
)

// DefaultContext is the kubectl context the tests act in: the admin's
// context of the learner's cluster, opslab (lab/scripts/lab-up.sh makes it).
const DefaultContext = "kwok-opslab-admin"

// LearnerContext returns the learner's context of the tests' cluster: the
// context of $OPSLAB_LEARNER_CONTEXT, or Context() without its "-admin".
func LearnerContext() string {
	if c := os.Getenv("OPSLAB_LEARNER_CONTEXT"); c != "" {
		return c
	}
	return strings.TrimSuffix(Context(), "-admin")
}

// Kubeconfig returns the kubeconfig file the tests read: the first of
// $KUBECONFIG's files, or ~/.kube/config.
func Kubeconfig() string {
	if k := os.Getenv("KUBECONFIG"); k != "" {
		return filepath.SplitList(k)[0]
	}
	return clientcmd.RecommendedHomeFile
}

// Context returns the kubeconfig context the tests use.
func Context() string {
	if c := os.Getenv("OPSLAB_CONTEXT"); c != "" {
		return c
	}
	return DefaultContext
}

// Config returns e2e-framework's configuration for the lab cluster. Its
// client reaches the context of Context(): e2e-framework's own Client()
// builds one from the kubeconfig's current context, whatever
// WithKubeContext says, so the client is made here.
func Config() *envconf.Config {
	cfg := envconf.NewWithKubeConfig(Kubeconfig()).WithKubeContext(Context())
	if rc, err := RESTConfig(); err == nil {
		if k, err := klient.New(rc); err == nil {
			cfg.WithClient(k)
		}
	}
	return cfg
}

// RESTConfig returns the client configuration of the lab cluster's context.
func RESTConfig() (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: Kubeconfig()}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: Context()}).ClientConfig()
}
