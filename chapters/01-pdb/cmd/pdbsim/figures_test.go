package main

import (
	"io"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/internal/figure/figuretest"
)

// TestFiguresAreCurrent draws the chapter's figures from the scenarios its
// transcripts play, as pdbsim -svg does, and holds figures/ to them.
func TestFiguresAreCurrent(t *testing.T) {
	figuretest.Current(t, "../../figures", map[string][]byte{
		"drain.svg":       drawScenario(t, "lab_walkthrough.txtar", "lab.txt", "The lab's drains: Ready pods of ledger, the floor, and each eviction"),
		"below-floor.svg": drawScenario(t, "crash_below_floor.txtar", "crash.txt", "A power loss and a crash go under the floor no eviction may cross"),
	})
}

// drawScenario plays the scenario file of a transcript and draws it.
func drawScenario(t *testing.T, script, file, title string) []byte {
	t.Helper()
	a, err := txtar.ParseFile("testdata/" + script)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name != file {
			continue
		}
		c := pdb.NewCluster()
		d := newDrawing(c)
		if err := play(c, file, string(f.Data), io.Discard); err != nil {
			t.Fatal(err)
		}
		return d.figure(title, c)
	}
	t.Fatalf("%s has no %s", script, file)
	return nil
}
