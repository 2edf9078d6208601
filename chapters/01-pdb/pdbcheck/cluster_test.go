//go:build e2e

package pdbcheck_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/opslab/opslab/chapters/01-pdb/pdbcheck"
	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
)

// TestChecksOnCluster runs chapter 1's checks against the cluster of
// $KUBECONFIG and $OPSLAB_CONTEXT and reports what each saw. With
// PDBCHECK_EXPECT=fail or pass it asserts that every check had that outcome:
// fail on an untouched cluster, pass after lab/solve.sh.
func TestChecksOnCluster(t *testing.T) {
	ctx := context.Background()
	c, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	expect := os.Getenv("PDBCHECK_EXPECT")
	for _, o := range labcheck.Run(ctx, c, pdbcheck.Checks(), 20*time.Second) {
		if o.Err != nil {
			t.Errorf("%s: could not look: %v", o.Check.ID, o.Err)
			continue
		}
		t.Logf("%s %v: %s (%v)", o.Check.ID, o.Result.Pass, o.Result.Message, o.Duration.Round(time.Millisecond))
		for _, e := range o.Result.Evidence {
			t.Logf("    %s", e)
		}
		if expect != "" && o.Result.Pass != (expect == "pass") {
			t.Errorf("%s passed = %v, want %s", o.Check.ID, o.Result.Pass, expect)
		}
	}
}
