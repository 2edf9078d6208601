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
	"path"
	"slices"
	"strings"
)

// A Step is one function or a few of the model, written by the learner,
// or of one of the chapter's lab programs: the small programs its lab asks
// the learner to write, whose reference answers live in a directory of
// the chapter (lab/mytimetable) with tests that hold them to the model.
type Step struct {
	ID      string   // short, for reset: "tolerates"
	Title   string   // what the learner writes, in a few words
	Section string   // the README heading's anchor the step belongs to
	Funcs   []string // the functions to write: "taint.go#Toleration.Tolerates", or "lab/mytimetable/main.go#leaves" in a lab program
	Tests   []string // the claim-proving tests that must pass, in the order they are shown
	Oracle  string   // a property test against upstream, if any: it prints the smallest counterexample
	Hints   []string // staged: the first, then the next, as labcheck's are
}

// Package is the directory of the step's functions and tests, relative to
// the chapter (and to the workspace): "." for the model, "lab/mytimetable"
// for a lab program. A lab program's tests judge it by the course's own
// model, so a workspace keeps their imports of the chapter as they are.
func (s Step) Package() string {
	if len(s.Funcs) == 0 {
		return "."
	}
	file, _, _ := strings.Cut(s.Funcs[0], "#")
	return path.Dir(file)
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

// Packages is the directories of the track's steps, the model (".")
// first, then each lab program once, in the steps' order.
func (t Track) Packages() []string {
	pkgs := []string{"."}
	for _, s := range t.Steps {
		if !slices.Contains(pkgs, s.Package()) {
			pkgs = append(pkgs, s.Package())
		}
	}
	return pkgs
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
			} else if path.Dir(file) != s.Package() {
				return fmt.Errorf("chapter %s, step %s: its functions are in more than one package (%s)", t.Dir, s.ID, f)
			}
		}
	}
	return nil
}
