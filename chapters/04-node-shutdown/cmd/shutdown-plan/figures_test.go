package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/internal/figure/figuretest"
)

// TestFiguresAreCurrent draws the chapter's figures, the lab's shutdown
// plan against the lab's logind files as shutdown-plan -o svg draws it,
// and the non-graceful path from Simulate, and holds figures/ to them.
func TestFiguresAreCurrent(t *testing.T) {
	figuretest.Current(t, "../../figures", map[string][]byte{
		"plan.svg":  drawLabPlan(t),
		"paths.svg": shutdown.PathsFigure(shutdown.Exits()),
	})
}

// drawLabPlan runs shutdown-plan -o svg on the lab's reference
// configuration, its database pod and its copy of the shutdown pool's
// logind files, as TestLabLogindTree does before the drop-in is masked.
func drawLabPlan(t *testing.T) []byte {
	t.Helper()
	_, _, config, pods := labFiles(t)
	logind := "../../lab/logind"
	var stdout, stderr bytes.Buffer
	args := []string{"--config", config, "-f", pods, "--logind-dir", filepath.Join(logind, "etc"), "--logind-vendor-dir", filepath.Join(logind, "lib"), "-o", "svg"}
	// Exit 1: logind's 30 s cut the kubelet's 60 s short, as the figure shows.
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("shutdown-plan -o svg on the lab = exit %d, want 1\nstderr:\n%s", code, &stderr)
	}
	return stdout.Bytes()
}
