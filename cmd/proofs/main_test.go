package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixture copies package proof's fixture course, its first chapter only:
// two plants that its tests kill.
func fixture(t *testing.T) string {
	t.Helper()
	const from = "../../internal/proof/testdata/course"
	dir := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if strings.HasPrefix(rel, filepath.Join("chapters", "02-")) {
			return fs.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func proofs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-j", "0"}, {"-root", "../../internal/proof/testdata/course", "-chapter", "9"}} {
		if code, _, stderr := proofs(t, args...); code != 2 || !strings.HasPrefix(stderr, "proofs: ") && !strings.HasPrefix(stderr, "usage: ") {
			t.Errorf("proofs %q = %d, %q; want 2 and a usage error", args, code, stderr)
		}
	}
}

func TestProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	root := fixture(t)
	code, stdout, stderr := proofs(t, "-root", root, "-all", "-w")
	if code != 0 {
		t.Fatalf("proofs -all -w = %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`(?m)^CLAIM +PLANT +TESTS +VERDICT +TIME$`,
		`(?m)^above-floor +chapters/01-demo/plants/above-floor.plant +TestAllowed/at_floor +killed +[0-9.]+m?s$`,
		`(?m)^ready-only +chapters/01-demo/plants/ready-only.plant +TestHealthy +killed +[0-9.]+m?s$`,
		`(?m)^proofs: 2 plants in 1 chapters, 2 run, 0 not killed, in [0-9.]+m?s$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("proofs -all: output does not match %s:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "chapters", "01-demo", "plants", "verdicts.sum")); err != nil {
		t.Errorf("proofs -w wrote no verdicts.sum: %v", err)
	}
	code, stdout, stderr = proofs(t, "-root", root)
	if code != 0 || !strings.Contains(stdout, "2 plants in 1 chapters, 0 run") || stderr != "" {
		t.Errorf("proofs with nothing changed = %d\n%s%s; want 0, nothing run, nothing said", code, stdout, stderr)
	}
	// A weakened test: its plant runs, survives, and the check fails
	// naming the claim's sentence.
	test := filepath.Join(root, "chapters", "01-demo", "floor_test.go")
	b, _ := os.ReadFile(test)
	os.WriteFile(test, bytes.Replace(b, []byte(`t.Errorf("Healthy = %d, want 2", got)`), []byte(`t.Logf("Healthy = %d", got)`), 1), 0o644)
	code, _, stderr = proofs(t, "-root", root, "-chapter", "1")
	if code != 1 || !strings.Contains(stderr, "01-demo/plants/ready-only.plant survived: if every pod counted, ready or not, TestHealthy passed") || !strings.Contains(stderr, `"Only ready pods count as healthy."`) {
		t.Errorf("proofs with a surviving plant = %d\n%s", code, stderr)
	}
}
