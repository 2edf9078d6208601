package labcheck_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/labcheck"
)

// The course's checks also run as e2e-framework features, one per check,
// labelled with their chapter and ID:
//
//	go test ./labcheck/ -run TestLabChecks -args --kubeconfig ~/.kube/config --context kwok-opslab --labels chapter=2
//
// Without --kubeconfig they are skipped: go test ./... never reads a cluster.
var (
	testenv env.Environment
	envcfg  *envconf.Config
)

func TestMain(m *testing.M) {
	cfg, err := envconf.NewFromFlags()
	if err != nil {
		fmt.Fprintf(os.Stderr, "labcheck tests: %v\n", err)
		os.Exit(2)
	}
	envcfg = cfg
	testenv = env.NewWithConfig(cfg)
	os.Exit(testenv.Run(m))
}

func TestLabChecks(t *testing.T) {
	if envcfg.KubeconfigFile() == "" {
		t.Skip("no --kubeconfig given: the lab checks read a cluster (go test ./labcheck/ -args --kubeconfig FILE [--context NAME])")
	}
	cluster, err := labcheck.Connect(context.Background(), envcfg.KubeconfigFile(), envcfg.KubeContext(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var fs []features.Feature
	for _, c := range chapters.Course.Checks(0) {
		fs = append(fs, features.New(c.ID).
			WithLabel("chapter", strconv.Itoa(c.Chapter)).
			WithLabel("check", c.ID).
			Assess(c.Title, func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
				cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				res, err := c.Run(cctx, cluster)
				if err != nil {
					t.Fatalf("could not check: %v", err)
				}
				for _, e := range res.Evidence {
					t.Log(e)
				}
				if !res.Pass {
					t.Fatalf("%s (hint: %s)", res.Message, firstHint(c))
				}
				return ctx
			}).Feature())
	}
	testenv.Test(t, fs...)
}

func firstHint(c labcheck.Check) string {
	if len(c.Hints) == 0 {
		return "none"
	}
	return c.Hints[0]
}
