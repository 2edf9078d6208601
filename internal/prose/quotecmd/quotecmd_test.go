package quotecmd

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"quote": Main})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := dir + "/good.md"
	bad := dir + "/bad.md"
	os.WriteFile(good, []byte("# Good\n\nSee [above](#good).\n"), 0o644)
	os.WriteFile(bad, []byte("# Bad\n\nSee [gone](gone.md).\n"), 0o644)
	tests := []struct {
		name, reason string
		args         []string
		want         int
	}{
		{"fine", "no problems exit 0", []string{good}, 0},
		{"problem", "a problem exits 1", []string{good, bad}, 1},
		{"unreadable", "a file that cannot be read exits 1", []string{dir + "/none.md"}, 1},
		{"no files", "a usage error exits 2", nil, 2},
		{"bad flag", "an unknown flag exits 2", []string{"-x", good}, 2},
		{"both modes", "-w with -check exits 2", []string{"-w", "-check", good}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if got := Run(tt.args, &out, &errOut); got != tt.want {
				t.Errorf("Run(%q) = %d, want %d (%s); stderr:\n%s", tt.args, got, tt.want, tt.reason, errOut.String())
			}
		})
	}
}
