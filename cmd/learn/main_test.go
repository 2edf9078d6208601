package main

import (
	"fmt"
	"io/fs"
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
			env.Setenv("OPSLAB_REPO", root) // stays when a script empties OPSLAB_ROOT
			dir := fmt.Sprintf("_learn/script-%x", rand.Uint64())
			env.Setenv("LEARNDIR", dir)
			env.Setenv("WS", filepath.Join(root, dir))
			env.Defer(func() { os.RemoveAll(filepath.Join(root, dir)) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// write-in FILE FUNC BODY: as write, on FILE relative to the
			// script's directory rather than to the workspace.
			"write-in": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: write-in FILE FUNC BODY")
				}
				rewrite(ts, ts.MkAbs(args[0]), args[1], args[2])
			},
			// course DIR: a copy of the course's sources in DIR, as
			// make gradescope ships them: no Git history, no caches, no
			// workspaces, no build output.
			"course": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: course DIR")
				}
				ts.Check(copyCourse(root, ts.MkAbs(args[0])))
			},
			// write FILE FUNC BODY: the learner replaces FUNC's body in
			// FILE of the workspace with the statements in the archive's
			// file BODY, as an editor would save it.
			"write": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: write FILE FUNC BODY")
				}
				rewrite(ts, ts.MkAbs(filepath.Join(ts.Getenv("WS"), args[0])), args[1], args[2])
			},
		},
	})
}

// copyCourse copies the course's sources from root into dst, leaving out
// what git archive would not ship: .git, caches, workspaces, build output
// and test artefacts.
func copyCourse(root, dst string) error {
	skip := map[string]bool{".git": true, ".cache": true, "_learn": true, ".artifacts": true, "site/out": true}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skip[filepath.ToSlash(rel)] {
			return filepath.SkipDir
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, fi.Mode().Perm())
	})
}

// rewrite replaces the body of function name in the Go file p with the
// statements in the script's file body, as an editor would save it.
func rewrite(ts *testscript.TestScript, p, name, body string) {
	src, err := os.ReadFile(p)
	ts.Check(err)
	out, err := learn.Rewrite(src, name, ts.ReadFile(body))
	ts.Check(err)
	ts.Check(os.WriteFile(p, out, 0o644))
}
