package pdbsim_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/opslab/opslab/chapters/01-pdb/pdbsim"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"pdbsim": pdbsim.Main})
}

// TestScript plays the scenarios in testdata: each reads like a lab
// transcript and pins the timeline pdbsim prints.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}
