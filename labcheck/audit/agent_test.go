package audit

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoCheckReadsAnAgent: no check decides who acted by a user agent. The
// checks' code (every chapter's check package and labcheck's, tests aside)
// never reads an Event's Agent, nor the raw userAgent field: an agent is a
// string any client sets, and the evidence shows it only through Who and
// String. A Hint does not compare with ==, so this grep covers the one way
// left, reading it back as a string.
func TestNoCheckReadsAnAgent(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, pattern := range []string{"chapters/*/check/*.go", "labcheck/*.go", "labcheck/*/*.go"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d files of checks; the glob patterns no longer match the tree", len(files))
	}
	reads := regexp.MustCompile(`\.Agent\b|\bUserAgent\b|\buserAgent\b|\bAgentHint\(|\.program\(\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(filepath.Dir(f)) == "audit" || filepath.Base(filepath.Dir(f)) == "audittest" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if reads.MatchString(code) {
				t.Errorf("%s:%d reads a user agent: %s\n\tjudge the sender by its user (audit.Event.By, FromScheduler, ByController); the agent is for Who and String", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
