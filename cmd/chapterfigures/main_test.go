package main

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"chapterfigures": main})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

// TestRunExitStatus: figures print and exit 0 whatever the chapters break;
// a README that cannot be read exits 1, a usage error 2, each one line.
func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	ch := filepath.Join(dir, "01-one")
	os.Mkdir(ch, 0o755)
	os.WriteFile(filepath.Join(ch, "README.md"), []byte("# 1. One\n\nNo shape at all.\n"), 0o644)
	tests := []struct {
		name, reason string
		args         []string
		want         int
		stderr       string
	}{
		{"figures", "a chapter that breaks every rule is printed, exit 0", []string{ch}, 0, ""},
		{"json", "-json too", []string{"-json", ch}, 0, ""},
		{"help", "-h prints the usage on stdout", []string{"-h"}, 0, ""},
		{"unreadable", "a directory without README.md exits 1", []string{dir}, 1, "chapterfigures: open "},
		{"bad flag", "an unknown flag exits 2", []string{"-x", ch}, 2, "chapterfigures: flag provided but not defined: -x\nusage: chapterfigures"},
	}
	defer log.SetOutput(log.Writer())
	log.SetPrefix("chapterfigures: ")
	log.SetFlags(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			log.SetOutput(&stderr)
			if got := run(tt.args, &stdout); got != tt.want {
				t.Errorf("%s: run(%q) = %d, want %d; stderr:\n%s", tt.reason, tt.args, got, tt.want, stderr.String())
			}
			if !strings.HasPrefix(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() > 0) {
				t.Errorf("%s: stderr = %q, want it to start %q", tt.reason, stderr.String(), tt.stderr)
			}
		})
	}
}
