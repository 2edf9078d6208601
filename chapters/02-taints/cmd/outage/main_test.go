package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"outage": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScript plays the scenarios in testdata. Each gets the lab's recorded
// run of the six experiments (the chapter's testdata/outage-run.json) as
// outage-run.json in its work directory.
func TestScript(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("..", "..", "testdata", "outage-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			return os.WriteFile(filepath.Join(env.WorkDir, "outage-run.json"), recorded, 0o644)
		},
	})
}
