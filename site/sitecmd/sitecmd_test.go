package sitecmd

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"site": Main})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		want         int
	}{
		{"no out", "-out is required", nil, 2},
		{"argument", "the command takes no arguments", []string{"-out", t.TempDir(), "x"}, 2},
		{"watch alone", "-watch needs -serve", []string{"-out", t.TempDir(), "-watch"}, 2},
		{"bad flag", "an unknown flag is a usage error", []string{"-x"}, 2},
		{"no repository", "a root without go.mod fails the build", []string{"-out", filepath.Join(t.TempDir(), "o"), "-root", t.TempDir()}, 1},
		{"builds", "the test course builds", []string{"-out", filepath.Join(t.TempDir(), "o"), "-root", "../testdata/repo"}, 0},
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

// TestServeWatch serves a course, changes a chapter and sees the served
// page change.
func TestServeWatch(t *testing.T) {
	repo := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/c\n")
	write("README.md", "# C\n\nA course. Run `make start` and `make test`.\n")
	write("chapters/01-a/README.md", "# The first title\n\nOne chapter.\n")

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"-root", repo, "-out", filepath.Join(t.TempDir(), "out"), "-serve", "127.0.0.1:0", "-watch"}, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serving ended with status %d, want 0 after the context ended", code)
		}
	}()
	lines := bufio.NewScanner(pr)
	var addr string
	for lines.Scan() {
		if a, ok := strings.CutPrefix(lines.Text(), "serving the course at "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("the command did not say where it serves")
	}
	go io.Copy(io.Discard, pr)
	page := addr + "chapters/01-a/index.html"
	get := func() string {
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if body := get(); !strings.Contains(body, "The first title") {
		t.Fatalf("GET %s does not show the chapter's title", page)
	}
	write("chapters/01-a/README.md", "# The second title\n\nOne chapter.\n")
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(get(), "The second title") {
		if time.Now().After(deadline) {
			t.Fatal("15 s after the chapter changed, the served page still shows the old title")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
