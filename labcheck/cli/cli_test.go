package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"labcheck": Main})
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
