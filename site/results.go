package site

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// results holds the outcome of each test of a go test -json run, by
// package and test name.
type results map[string]string

// readResults reads the output of go test -json from one file or several,
// separated by commas (the unit tests' and the end-to-end tests'). A test
// that failed in any run counts as failed.
func readResults(names string) (results, error) {
	r := results{}
	for _, name := range strings.Split(names, ",") {
		if err := r.read(strings.TrimSpace(name)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r results) read(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("reading test results: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var ev struct{ Action, Package, Test string }
		if len(sc.Bytes()) == 0 || sc.Bytes()[0] != '{' {
			continue // go test -json passes build output through as is
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("%s:%d: not go test -json output: %v", name, line, err)
		}
		if ev.Test == "" {
			continue
		}
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "pass":
			if r[key] != "failed" {
				r[key] = "passed"
			}
		case "fail":
			r[key] = "failed"
		case "skip":
			if r[key] == "" {
				r[key] = "skipped"
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading test results: %w", err)
	}
	return nil
}

// state returns passed, failed, skipped or missing for a test.
func (r results) state(pkg, test string) string {
	if s, ok := r[pkg+" "+test]; ok {
		return s
	}
	return "missing"
}
