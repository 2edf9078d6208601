package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	taints "github.com/opslab/opslab/chapters/02-taints"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"timetable": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript plays the scenarios in testdata: each reads like a lab
// transcript and pins the timetable the command prints.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	pod := dir + "/pod.yaml"
	os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {nodeName: n1}\n"), 0o644)
	tests := []struct {
		name, reason string
		args         []string
		want         int
	}{
		{"fine", "a readable file and a taint exit 0", []string{"-f", pod, "k:NoExecute"}, 0},
		{"flags_after_taint", "flags may follow the taint, as with kubectl", []string{"k:NoExecute", "-f", pod, "-o", "json"}, 0},
		{"no_taint", "a missing taint is a usage error", []string{"-f", pod}, 2},
		{"bad_taint", "a malformed taint is a usage error", []string{"-f", pod, "k"}, 2},
		{"bad_flag", "an unknown flag is a usage error", []string{"-x", "k:NoExecute"}, 2},
		{"bad_output", "an unknown output format is a usage error", []string{"-f", pod, "-o", "yaml", "k:NoExecute"}, 2},
		{"files_and_cluster", "-f with --context is a usage error", []string{"-f", pod, "--context", "x", "k:NoExecute"}, 2},
		{"missing_file", "a file that cannot be read exits 1", []string{"-f", dir + "/none.yaml", "k:NoExecute"}, 1},
		{"no_cluster", "a kubeconfig that does not exist exits 1", []string{"--kubeconfig", dir + "/none", "k:NoExecute"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if got := run(tt.args, strings.NewReader(""), &out, &errOut); got != tt.want {
				t.Errorf("run(%q) = %d, want %d (%s); stderr: %s", tt.args, got, tt.want, tt.reason, errOut.String())
			}
			if lines := strings.Count(errOut.String(), "\n"); lines > 1 {
				t.Errorf("run(%q) wrote %d lines to stderr, want at most one:\n%s", tt.args, lines, errOut.String())
			}
		})
	}
}

// BenchmarkTimetable100000Pods times the timetable of 100,000 pods under one
// NoExecute taint, printed as text: the model and the output, without the
// reading.
func BenchmarkTimetable100000Pods(b *testing.B) {
	taint := taints.Taint{Key: "opslab.dev/link-down", Effect: taints.NoExecute}
	pods := make([]taints.Pod, 100000)
	for i := range pods {
		tols := taints.AdmitDefaults(nil, taints.DefaultTolerationSeconds)
		switch i % 4 {
		case 1:
			tols = append(tols, taints.Toleration{Key: taint.Key, Operator: taints.Exists, Effect: taints.NoExecute, Seconds: taints.Seconds(int64(i % 3600))})
		case 2:
			tols = append(tols, taints.Toleration{Key: taint.Key, Operator: taints.Exists, Effect: taints.NoExecute})
		}
		pods[i] = taints.Pod{Namespace: "bench", Name: fmt.Sprintf("pod-%06d", i), Node: fmt.Sprintf("node-%d", i%500), Tolerations: tols}
	}
	b.ResetTimer()
	for b.Loop() {
		rows := taints.Timetable(pods, []taints.Taint{taint})
		if err := writeText(io.Discard, rows); err != nil {
			b.Fatal(err)
		}
	}
}
