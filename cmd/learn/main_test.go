package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/opslab/opslab/internal/learn"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"learn": main})
}

// TestScript plays the scenarios in testdata against the course's own
// chapters: each gets a workspace directory of its own under _learn/,
// removed at its end, and the go command's caches of the one running the
// tests, so that the workspace's tests build as fast as a learner's.
func TestScript(t *testing.T) {
	root := repoRoot(t)
	goenv := map[string]string{}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Skip("no go command")
		}
		goenv[v] = strings.TrimSpace(string(out))
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			for k, v := range goenv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")
			env.Setenv("OPSLAB_ROOT", root)
			dir := fmt.Sprintf("_learn/script-%x", rand.Uint64())
			env.Setenv("LEARNDIR", dir)
			env.Setenv("WS", filepath.Join(root, dir))
			env.Defer(func() { os.RemoveAll(filepath.Join(root, dir)) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// write FILE FUNC BODY: the learner replaces FUNC's body in
			// FILE of the workspace with the statements in the archive's
			// file BODY, as an editor would save it.
			"write": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: write FILE FUNC BODY")
				}
				p := ts.MkAbs(filepath.Join(ts.Getenv("WS"), args[0]))
				src, err := os.ReadFile(p)
				ts.Check(err)
				out, err := learn.Rewrite(src, args[1], ts.ReadFile(args[2]))
				ts.Check(err)
				ts.Check(os.WriteFile(p, out, 0o644))
			},
		},
	})
}
