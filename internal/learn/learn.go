// Package learn is the machinery of the course's build-along tracks: in each
// chapter the learner writes the model's heart, step by step, in the order
// the prose explains it, guided by the chapter's own tests.
//
// A chapter's track is a list of Steps (chapters/NN-name/track). A step
// names the model's functions the learner writes (FILE#Func, the quote
// marker's syntax) and the tests that must pass. The learner's workspace is
// cut from the real model with go/ast: a copy of the model package, tests
// included, whose steps' functions keep their signature and doc comment and
// lose their body. The model and the exercises cannot drift, because the
// exercise is the model with holes.
//
// The workspace lives under _learn/ at the root of the course's module: the
// leading underscore keeps it out of go test ./..., and inside the module its
// tests may import k8s.io/api, which the oracle tests ask.
package learn

import (
	"fmt"
	"strings"
)

// A Step is one function or a few of the model, written by the learner.
type Step struct {
	ID      string   // short, for reset: "tolerates"
	Title   string   // what the learner writes, in a few words
	Section string   // the README heading's anchor the step belongs to
	Funcs   []string // the functions to write: "taint.go#Toleration.Tolerates"
	Tests   []string // the claim-proving tests that must pass, in the order they are shown
	Oracle  string   // a property test against upstream, if any: it prints the smallest counterexample
	Hints   []string // staged: the first, then the next, as labcheck's are
}

// AllTests is the step's tests, the oracle last.
func (s Step) AllTests() []string {
	if s.Oracle == "" {
		return s.Tests
	}
	return append(append([]string(nil), s.Tests...), s.Oracle)
}

// A Track is one chapter's steps.
type Track struct {
	Dir   string // the chapter's directory under chapters/: "02-taints"
	Steps []Step
}

// Number is the chapter's number, read from its directory.
func (t Track) Number() int {
	var n int
	fmt.Sscanf(t.Dir, "%d", &n)
	return n
}

// Step returns the step named id (or numbered id, from 1).
func (t Track) Step(id string) (int, bool) {
	for i, s := range t.Steps {
		if s.ID == id || fmt.Sprint(i+1) == id {
			return i, true
		}
	}
	return 0, false
}

// Check reports what is wrong with the track's own list: a step without a
// function or a test, a malformed FILE#Func, an id used twice.
func (t Track) Check() error {
	seen := map[string]bool{}
	for i, s := range t.Steps {
		switch {
		case s.ID == "" || seen[s.ID]:
			return fmt.Errorf("chapter %s, step %d: id %q is empty or used twice", t.Dir, i+1, s.ID)
		case len(s.Funcs) == 0 || len(s.Tests) == 0:
			return fmt.Errorf("chapter %s, step %s: a step names at least one function and one test", t.Dir, s.ID)
		case s.Section == "" || len(s.Hints) == 0:
			return fmt.Errorf("chapter %s, step %s: a step names its section and has a hint", t.Dir, s.ID)
		}
		seen[s.ID] = true
		for _, f := range s.Funcs {
			if file, name, ok := strings.Cut(f, "#"); !ok || !strings.HasSuffix(file, ".go") || name == "" {
				return fmt.Errorf("chapter %s, step %s: %q is not FILE.go#Func", t.Dir, s.ID, f)
			}
		}
	}
	return nil
}
