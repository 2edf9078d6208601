package site

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/opslab/opslab/labcheck/version"
)

// TestUpstreamCheck: the footer's "checked against" comes from the drift
// report's first line of substance, and a repository without a report says
// nothing. The course's own report is of the release it teaches: a move
// that skipped make bump-kubernetes, or a report left from before it, fails.
func TestUpstreamCheck(t *testing.T) {
	dir := t.TempDir()
	b := &builder{cfg: Config{Root: dir}}
	if c := b.readUpstreamCheck(); c != nil {
		t.Errorf("without UPSTREAM.md: %+v, want nil", c)
	}
	report := "# Checked against upstream\n\nChecked against Kubernetes v1.30.1 (etcd v3.5.9, kwok v0.5.1) on 2026-12-01, moving from v1.36.3.\n"
	if err := os.WriteFile(filepath.Join(dir, "UPSTREAM.md"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := b.readUpstreamCheck(); c == nil || c.Release != "v1.30.1" || c.Date != "2026-12-01" {
		t.Errorf("readUpstreamCheck = %+v, want v1.30.1 on 2026-12-01", c)
	}

	course := &builder{cfg: Config{Root: *courseRoot}}
	c := course.readUpstreamCheck()
	if c == nil {
		t.Fatal("the course has no UPSTREAM.md with a \"Checked against Kubernetes\" line: run make bump-kubernetes or make upstream-report")
	}
	if c.Release != version.Kubernetes {
		t.Errorf("UPSTREAM.md checked Kubernetes %s, but the course teaches %s: write the report again (make upstream-report FROM=the release before)", c.Release, version.Kubernetes)
	}
}
