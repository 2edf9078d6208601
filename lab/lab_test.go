// Package lab holds the lab cluster: its kwokctl configuration and stages
// (kwokctl.yaml), its nodes (nodes.yaml), the scripts behind make lab-up,
// lab-down, lab-binaries and test (scripts/), the smoke suite that proves the
// cluster real (e2e/), and the pinned sources of its binaries (tools/, a
// module of its own). These tests check that the pieces agree with each
// other; the smoke suite checks that they work.
package lab

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/opslab/opslab/labcheck/version"
	"sigs.k8s.io/yaml"
)

func TestVersionsMatchTheToolsModule(t *testing.T) {
	v := version.Pins()
	mod, err := os.ReadFile("tools/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"k8s.io/kubernetes":         v["KUBE_VERSION"],
		"go.etcd.io/etcd/server/v3": v["ETCD_VERSION"],
		"sigs.k8s.io/kwok":          v["KWOK_VERSION"],
	}
	for module, version := range want {
		if version == "" {
			t.Errorf("labcheck/version/pins.env pins no version for %s", module)
			continue
		}
		got := "nothing"
		if m := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(module) + ` (\S+)`).FindSubmatch(mod); m != nil {
			got = string(m[1])
		}
		if got != version {
			t.Errorf("tools/go.mod requires %s %s, labcheck/version/pins.env says %s", module, got, version)
		}
	}
	// Every staging module is replaced by the version of the same release,
	// as k8s.io/kubernetes's own go.mod replaces them by its staging tree.
	staging := strings.Replace(v["KUBE_VERSION"], "v1.", "v0.", 1)
	for _, m := range regexp.MustCompile(`(?m)^\s+(k8s.io/\S+) => (\S+) (\S+)$`).FindAllSubmatch(mod, -1) {
		if string(m[3]) != staging {
			t.Errorf("tools/go.mod replaces %s by %s %s, want %s", m[1], m[2], m[3], staging)
		}
	}
}

type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
}

func readObjects(t *testing.T, file string) []object {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []object
	for _, doc := range bytes.Split(b, []byte("\n---\n")) {
		var o object
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if o.Kind != "" {
			out = append(out, o)
		}
	}
	return out
}

func TestNodesSpanTwoZonesWithAPoolPerPodChapter(t *testing.T) {
	zones, pools := map[string]int{}, map[string]int{}
	nodes := readObjects(t, "nodes.yaml")
	for _, n := range nodes {
		zones[n.Metadata.Labels["topology.kubernetes.io/zone"]]++
		pools[n.Metadata.Labels["opslab.dev/pool"]]++
	}
	if len(nodes) < 4 || len(zones) < 2 {
		t.Errorf("%d nodes in %d zones, want at least 4 in 2", len(nodes), len(zones))
	}
	for _, p := range []string{"pdb", "taints", "shutdown"} {
		if pools[p] < 2 {
			t.Errorf("pool %s has %d nodes; its chapter moves pods between at least 2", p, pools[p])
		}
	}
}

func TestConfigHasTheStagesTheCourseNeeds(t *testing.T) {
	// A configuration with any Stage gets none of kwokctl's defaults, so the
	// ones the course still needs must be here, beside its own.
	var stages []string
	for _, o := range readObjects(t, "kwokctl.yaml") {
		if o.Kind == "Stage" {
			stages = append(stages, o.Metadata.Name)
		}
	}
	want := []string{"node-initialize", "node-heartbeat-with-lease", "opslab-node-power-off", "pod-ready",
		"opslab-pod-slow-start-running", "opslab-pod-slow-start-ready", "pod-complete", "pod-delete"}
	if strings.Join(stages, " ") != strings.Join(want, " ") {
		t.Errorf("stages = %v, want %v", stages, want)
	}
}

// TestKubectlAdvice: lab-up warns when the kubectl a learner's shell would
// run is missing or another version than the course's, and says nothing when
// it is the course's version.
func TestKubectlAdvice(t *testing.T) {
	want := version.Kubernetes
	tests := []struct {
		name, client, wantErr, reason string
	}{
		{"none", "", "your shell has no kubectl", "a fresh machine has none; the learner is told how to get the course's"},
		{"older", "v1.32.4", "(" + want + ")", "a client four minors behind the server works until it does not"},
		{"the course's", want, "", "the same version, wherever it is installed, needs no warning"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.client != "" {
				script := "#!/bin/sh\necho 'Client Version: " + tt.client + "'\necho 'Kustomize Version: v5'\n"
				if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("bash", "-c", ". scripts/versions.sh && kubectl_advice")
			cmd.Env = append(os.Environ(), "OPSLAB_USER_PATH="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("kubectl_advice: %v (%s)", err, stderr.String())
			}
			got := stderr.String()
			switch {
			case tt.wantErr == "" && got != "":
				t.Errorf("kubectl %s: advice %q, want none (%s)", tt.client, got, tt.reason)
			case tt.wantErr != "" && !strings.Contains(got, tt.wantErr):
				t.Errorf("kubectl %q: advice %q, want it to say %q (%s)", tt.client, got, tt.wantErr, tt.reason)
			case tt.wantErr != "" && !strings.Contains(got, `eval "$(make -s env)"`):
				t.Errorf("advice %q does not say how to get the course's kubectl", got)
			}
		})
	}
}
