package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestLabLogindTree follows step 4 of the chapter's lab: the lab's copy of the
// shutdown pool's logind configuration (lab/logind, etc/ for /etc/systemd and
// lib/ for /usr/lib/systemd) cuts the reference configuration short, and
// masking the drop-in the answer lists under masked, with a link to /dev/null
// in the copy of etc/, gives the kubelet its 60 s, as the lab's check judges.
func TestLabLogindTree(t *testing.T) {
	cm, dir, config, pods := labFiles(t)
	if err := os.CopyFS(filepath.Join(dir, "logind"), os.DirFS("../../lab/logind")); err != nil {
		t.Fatal(err)
	}
	etc, lib := filepath.Join(dir, "logind", "etc"), filepath.Join(dir, "logind", "lib")
	args := []string{"--config", config, "-f", pods, "--logind-dir", etc, "--logind-vendor-dir", lib}

	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("shutdown-plan on the lab's logind tree = exit %d, want 1 (logind allows 30 s)\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	const blame = "mask or raise /usr/lib/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf\n"
	if !strings.HasSuffix(stderr.String(), blame) {
		t.Errorf("stderr = %q, want it to end with %q", &stderr, blame)
	}

	masked := strings.Fields(cm.Data["masked"])
	if len(masked) == 0 {
		t.Fatal("lab/kubelet-shutdown.yaml masks nothing")
	}
	if err := os.MkdirAll(filepath.Join(etc, "logind.conf.d"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, name := range masked {
		if err := os.Symlink("/dev/null", filepath.Join(etc, "logind.conf.d", name)); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("shutdown-plan with %v masked = exit %d, want 0\nstdout:\n%s\nstderr:\n%s", masked, code, &stdout, &stderr)
	}
	for _, want := range []string{
		"shutdown-lab/db-0  100000    100000  30s    0s     30s    30s\n",
		"logind: the kubelet gets the 1m0s it asks for\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, &stdout)
		}
	}
}

// labFiles reads the lab's reference answer, lab/kubelet-shutdown.yaml, and
// writes into a new temporary directory its kubelet configuration and the
// lab's database pod as the API server admits it (the priority of
// PriorityClass opslab-database). It returns the ConfigMap, the directory
// and the two files' paths.
func labFiles(t *testing.T) (cm corev1.ConfigMap, dir, config, pods string) {
	t.Helper()
	raw, err := os.ReadFile("../../lab/kubelet-shutdown.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatalf("lab/kubelet-shutdown.yaml: %v", err)
	}
	dir = t.TempDir()
	config, pods = filepath.Join(dir, "kubelet.yaml"), filepath.Join(dir, "pods.yaml")
	if err := os.WriteFile(config, []byte(cm.Data["kubelet.yaml"]), 0o666); err != nil {
		t.Fatal(err)
	}
	db := "apiVersion: v1\nkind: Pod\nmetadata: {name: db-0, namespace: shutdown-lab}\nspec:\n  priority: 100000\n  containers: [{name: db, image: postgres:17}]\n"
	if err := os.WriteFile(pods, []byte(db), 0o666); err != nil {
		t.Fatal(err)
	}
	return cm, dir, config, pods
}
