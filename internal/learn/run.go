package learn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// A Result is one test's outcome in a run.
type Result struct {
	Test   string
	Passed bool
	Ran    bool     // false when the test did not run: the package did not build, or it does not exist
	Output []string // the test's own lines (t.Error's messages), without go test's framing
	Failed []string // the subtests that failed, TestX/case, in the order they ran
}

// A Run is the outcome of one step's tests.
type Run struct {
	Results  []Result // in the step's order
	BuildErr string   // the compiler's complaint, when the workspace does not build
	Took     time.Duration
}

// Passed reports whether every test ran and passed.
func (r Run) Passed() bool {
	if r.BuildErr != "" {
		return false
	}
	for _, res := range r.Results {
		if !res.Passed {
			return false
		}
	}
	return true
}

// FirstFailure is the first test of the step's order that ran and
// failed, or else the first that did not run (a test before it panicked,
// which ends the test binary).
func (r Run) FirstFailure() (Result, bool) {
	for _, res := range r.Results {
		if res.Ran && !res.Passed {
			return res, true
		}
	}
	for _, res := range r.Results {
		if !res.Passed {
			return res, true
		}
	}
	return Result{}, false
}

// RunStaged runs tests of the package in dir (relative to root, run as
// ./dir with go test -json from root) as the watch loop answers a save: the tests declared in files without UpstreamTag in one go test, and
// those declared in files with it (which link Kubernetes' own packages, for
// seconds) in a second go test beside it. first is called with the light
// run as soon as it ends, its Results holding only its own tests; RunStaged
// returns both runs merged, in the order of tests. When the light run does
// not build, neither can the other: it is stopped, and the light run is the
// answer. Without an upstream test among tests, or without a light one,
// one go test runs them all (with UpstreamTag only when it must), and first
// is not called.
func RunStaged(ctx context.Context, root, dir string, tests []string, first func(Run)) Run {
	upstream, _ := UpstreamTests(filepath.Join(root, filepath.FromSlash(dir)))
	var light, heavy []string
	for _, t := range tests {
		if upstream[t] {
			heavy = append(heavy, t)
		} else {
			light = append(light, t)
		}
	}
	switch {
	case len(heavy) == 0:
		return RunPackages(ctx, root, []string{dir}, tests, "")[dir]
	case len(light) == 0:
		return RunPackages(ctx, root, []string{dir}, tests, UpstreamTag)[dir]
	}
	start := time.Now()
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	heavyRun := make(chan Run, 1)
	go func() { heavyRun <- runPackages(hctx, root, []string{dir}, heavy, UpstreamTag, true)[dir] }()
	l := RunPackages(ctx, root, []string{dir}, light, "")[dir]
	if l.BuildErr != "" {
		stop()
		<-heavyRun
		return l
	}
	first(l)
	h := <-heavyRun
	merged := Run{BuildErr: h.BuildErr, Took: time.Since(start)}
	byName := map[string]Result{}
	for _, r := range append(l.Results, h.Results...) {
		byName[r.Test] = r
	}
	for _, t := range tests {
		merged.Results = append(merged.Results, byName[t])
	}
	return merged
}

// RunTrack runs every step's tests of the workspace in dir (relative to
// root) with one go test, the model and its lab programs side by side, as
// grading does. It returns, for each step in order, the run of the step's
// package, which holds that package's results of every step's tests.
func RunTrack(ctx context.Context, root, dir string, t Track) []Run {
	var every, dirs []string
	for _, st := range t.Steps {
		every = append(every, st.AllTests()...)
	}
	for _, p := range t.Packages() {
		dirs = append(dirs, path.Join(dir, p))
	}
	runs := RunPackages(ctx, root, dirs, every, UpstreamTag)
	out := make([]Run, len(t.Steps))
	for i, st := range t.Steps {
		out[i] = runs[path.Join(dir, st.Package())]
	}
	return out
}

// RunPackages runs the same tests in several packages with one go test,
// which builds them side by side; the runs are keyed by directory.
func RunPackages(ctx context.Context, root string, dirs []string, tests []string, tags string) map[string]Run {
	return runPackages(ctx, root, dirs, tests, tags, false)
}

// runPackages is RunPackages; behind, it runs go test at a lower priority
// (with nice, where there is one), so that a run beside it answers first.
func runPackages(ctx context.Context, root string, dirs []string, tests []string, tags string, behind bool) map[string]Run {
	start := time.Now()
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	// vet is off: a learner's save should be answered as fast as the
	// build allows, and the step's tests say what is wrong.
	args := []string{"test", "-vet=off", "-timeout", "60s", "-tags", tags, "-json", "-run", "^(" + strings.Join(quoted, "|") + ")$"}
	pkgs := map[string]string{} // import path -> dir
	for _, d := range dirs {
		args = append(args, "./"+d)
		pkgs[Module+"/"+d] = d
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	if nice, err := exec.LookPath("nice"); err == nil && behind {
		cmd = exec.CommandContext(ctx, nice, append([]string{"-n", "10", "go"}, args...)...)
	}
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	runs := parse(out, tests, pkgs)
	for _, d := range dirs {
		run := runs[d]
		if !anyRan(run.Results) {
			run.BuildErr = strings.TrimSpace(run.BuildErr + "\n" + stderr.String())
			if run.BuildErr == "" {
				run.BuildErr = "go test ran none of the step's tests"
			}
		}
		run.Took = time.Since(start)
		runs[d] = run
	}
	return runs
}

func anyRan(rs []Result) bool {
	for _, r := range rs {
		if r.Ran {
			return true
		}
	}
	return false
}

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|FAIL|SKIP))`)

func parse(out []byte, tests []string, pkgs map[string]string) map[string]Run {
	runs := map[string]*Run{}
	byName := map[string]map[string]*Result{}
	build := map[string]*strings.Builder{}
	for _, d := range pkgs {
		run := &Run{Results: make([]Result, len(tests))}
		byName[d] = map[string]*Result{}
		for i, t := range tests {
			run.Results[i] = Result{Test: t}
			byName[d][t] = &run.Results[i]
		}
		runs[d] = run
		build[d] = &strings.Builder{}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "build-output" {
			// ImportPath is "pkg [pkg.test]" for a test build.
			ip, _, _ := strings.Cut(e.ImportPath, " ")
			if d, ok := pkgs[ip]; ok {
				build[d].WriteString(e.Output)
			}
			continue
		}
		d, ok := pkgs[e.Package]
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(e.Test, "/")
		r := byName[d][name]
		if r == nil {
			continue
		}
		switch e.Action {
		case "output":
			line := strings.TrimRight(e.Output, "\n")
			if line != "" && !framing.MatchString(line) {
				r.Output = append(r.Output, strings.TrimSpace(line))
			}
		case "pass":
			if e.Test == name {
				r.Ran, r.Passed = true, true
			}
		case "fail":
			if e.Test == name {
				r.Ran, r.Passed = true, false
			} else {
				r.Failed = append(r.Failed, e.Test)
			}
		}
	}
	out2 := map[string]Run{}
	for d, run := range runs {
		run.BuildErr = strings.TrimSpace(build[d].String())
		out2[d] = *run
	}
	return out2
}
