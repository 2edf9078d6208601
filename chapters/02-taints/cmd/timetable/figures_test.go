package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/internal/figure/figuretest"
)

// TestFiguresAreCurrent draws the chapter's figures, by running timetable
// -o svg on the pods of its transcripts and by replaying the zone-outage
// lab's recorded run (taints.OutageFigure), and holds figures/ to them.
func TestFiguresAreCurrent(t *testing.T) {
	data, err := os.ReadFile("../../testdata/outage-run.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []taints.Run
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	figuretest.Current(t, "../../figures", map[string][]byte{
		"timetable.svg":    drawScript(t, "leave_every_outcome.txtar", "opslab.dev/link-down:NoExecute"),
		"default-300s.svg": drawScript(t, "leave_default_300s.txtar", "node.kubernetes.io/unreachable:NoExecute"),
		"outage.svg":       taints.OutageFigure(runs),
	})
}

// drawScript runs timetable -o svg on the pods.yaml of a transcript.
func drawScript(t *testing.T, script, taint string) []byte {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := timetable([]string{"-f", filepath.Join(dir, "pods.yaml"), "-o", "svg", taint}, nil, &out, io.Discard); err != nil {
		t.Fatalf("timetable -o svg on %s: %v", script, err)
	}
	return out.Bytes()
}
