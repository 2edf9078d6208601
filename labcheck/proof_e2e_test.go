//go:build e2e || solved

package labcheck_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/cli"
)

// TestGradingProvesTheLiveLog: labcheck trusts the cluster's own log once its
// request with a fresh nonce is found there, and says so in the header with
// the log's custody; a copy of that same log, which misses the request, is
// refused in one line before anything is judged.
func TestGradingProvesTheLiveLog(t *testing.T) {
	ctx := context.Background()
	c, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c.AuditPath == "" {
		t.Fatalf("the lab cluster keeps no audit log: %s", c.NoAudit)
	}
	live := c.AuditPath
	if err := c.ProveAuditLog(ctx); err != nil {
		t.Fatalf("the live log %s: %v", live, err)
	}
	c.Custody = labcheck.SelfAssessed
	if ev := c.EvidenceSource(); !strings.Contains(ev, "proven this cluster's live log") {
		t.Errorf("evidence %q does not say the log was proven live", ev)
	}
	if got := c.CustodySource(); got != labcheck.SelfAssessed {
		t.Errorf("custody %q, want %q", got, labcheck.SelfAssessed)
	}

	// A copy made now holds every request so far, but not the next proof.
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := audit.Read(copied)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c2.UseAuditLog(l)
	var nt *labcheck.NotThisLogError
	if err := c2.ProveAuditLog(ctx); !errors.As(err, &nt) {
		t.Fatalf("a copy of the log: ProveAuditLog = %v, want a NotThisLogError", err)
	}

	var stdout, stderr bytes.Buffer
	args := []string{"--kubeconfig", labenv.Kubeconfig(), "--context", labenv.Context(), "--chapter", "1", "--audit-log", copied}
	code := cli.Run(ctx, chapters.Course, args, &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if code == 0 || len(lines) != 1 || !strings.Contains(lines[0], "is not this cluster's log") || stdout.Len() > 0 {
		t.Errorf("labcheck --audit-log COPY: exit %d, stdout %q, stderr %q; want a non-zero exit and one line saying it is not this cluster's log", code, stdout.String(), stderr.String())
	}
}
