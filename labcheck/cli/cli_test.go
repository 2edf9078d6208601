package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/labcheck"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"labcheck": func() { Main(chapters.Course) }})
}

// TestScript runs the transcripts in testdata: what labcheck says to bad
// input, to a cluster that is not there, and to a report edited after
// grading. None of them needs a cluster.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(e *testscript.Env) error {
			e.Setenv("OPSLAB_HINTS_FILE", e.WorkDir+"/hints.json")
			return nil
		},
	})
}

// TestNothingSeenScoresNothing: when no check could read the cluster within
// --timeout, labcheck exits 2 (it could not see) rather than 1 (the lab
// fails), and says so in one line. The server answers only /version, as an
// API server too slow for the timeout would.
func TestNothingSeenScoresNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			fmt.Fprint(w, `{"major":"1","minor":"36","gitVersion":"v1.36.3"}`)
			return
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	kubeconfig := filepath.Join(t.TempDir(), "slow.kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: slow\n  cluster: {server: %q}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: slow\n  context: {cluster: slow, user: u}\ncurrent-context: slow\n", srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := Run(context.Background(), chapters.Course, []string{"--chapter", "1", "--kubeconfig", kubeconfig, "--timeout", "1ns"}, &stdout, &stderr)
	if code != 2 {
		t.Errorf("labcheck --timeout 1ns exited %d, want 2 (nothing could be checked)\nstderr: %s", code, stderr.String())
	}
	if want := "labcheck: no check could read the cluster (timed out after 1ns), so nothing was scored"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start %q", stderr.String(), want)
	}
}

// TestFailureSaysHowToGetTheNextHint: a failed check shows its first hint
// and, when it has more, the command that gives the next; a check with a
// single hint already shown does not promise another.
func TestFailureSaysHowToGetTheNextHint(t *testing.T) {
	staged := labcheck.Check{Chapter: 1, ID: "staged", Title: "t", Points: 1, Hints: []string{"first", "second"}}
	single := labcheck.Check{Chapter: 1, ID: "single", Title: "t", Points: 1, Hints: []string{"only"}}
	own := labcheck.Check{Chapter: 1, ID: "own", Title: "t", Points: 1, Hints: []string{"staged one"}}
	var out strings.Builder
	writeText(&out, chapters.Course, "the API server alone", []labcheck.Outcome{
		{Check: staged, Result: labcheck.Failf("no")},
		{Check: single, Result: labcheck.Failf("no")},
		{Check: own, Result: labcheck.Result{Message: "no", Hint: "this failure's own"}},
	})
	got := out.String()
	for _, want := range []string{"hint: first\n      next hint: go run ./cmd/labcheck hint staged\n", "hint: this failure's own\n      next hint: go run ./cmd/labcheck hint own\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hint single") {
		t.Errorf("a check whose one hint was shown promises another:\n%s", got)
	}
}
