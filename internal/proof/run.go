package proof

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A Verdict is what became of a plant's tests.
type Verdict string

const (
	Killed   Verdict = "killed"   // every listed test failed: the claim is proven
	Survived Verdict = "survived" // a listed test passed or was skipped
	Broken   Verdict = "broken"   // the package did not compile, or a listed test did not run
	Stale    Verdict = "stale"    // old does not occur exactly once in the file
)

// A Result is one run of a plant.
type Result struct {
	Plant   *Plant
	Verdict Verdict
	Tests   map[string]string // each listed test: fail, pass, skip, or "" when it did not run
	Reason  string            // why the verdict, in a sentence, when it is not Killed
	Output  string            // what go test printed, when the plant is broken
	Elapsed time.Duration
	// Unjudged: the plant was not run, for its tests did not pass without
	// it either (Unplanted); its verdict, Broken, is not recorded.
	Unjudged bool
}

// Killed reports whether the plant proved its claim.
func (r *Result) Killed() bool { return r.Verdict == Killed }

// A Runner runs plants with the go command.
type Runner struct {
	Go      string        // the go command; "go" when empty
	Timeout time.Duration // go test -timeout; 3 minutes when zero
	TempDir string        // where the overlays go; os.TempDir() when empty
}

// Run applies plant p with go test -overlay, in a temporary directory that
// it removes, and runs the plant's tests once (-count=1). The working tree
// is not touched. The error is for a run that could not judge the plant at
// all (no go command, no module); a plant that does not apply is Stale.
func (r *Runner) Run(ctx context.Context, p *Plant) (*Result, error) {
	start := time.Now()
	res := &Result{Plant: p, Tests: map[string]string{}}
	defer func() { res.Elapsed = time.Since(start) }()
	changed, err := p.Apply()
	var stale *StaleError
	if errors.As(err, &stale) {
		res.Verdict, res.Reason = Stale, stale.Error()
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.TempDir, "plant-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	target, err := filepath.Abs(p.Target())
	if err != nil {
		return nil, err
	}
	replacement := filepath.Join(tmp, filepath.Base(target))
	if err := os.WriteFile(replacement, changed, 0o644); err != nil {
		return nil, err
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {target: replacement}})
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return nil, err
	}
	mod, pattern, err := p.pkgPattern()
	if err != nil {
		return nil, err
	}

	// A test that panics or times out ends the test binary, and the tests
	// after it never run: run those again, on their own, until each has
	// run or none of those left ran.
	todo := slices.Clone(p.Tests)
	for len(todo) > 0 {
		out, err := r.goTest(ctx, mod, pattern, overlayFile, p.Tags, todo)
		if err != nil {
			return nil, err
		}
		if out.buildFailed {
			res.Verdict = Broken
			res.Reason = fmt.Sprintf("plant %s is broken: with it, %s does not compile, and a plant that does not compile proves nothing; make it change the behaviour, not the types", p.Path(), pattern)
			res.Output = out.output
			return res, nil
		}
		var left []string
		for _, t := range todo {
			if s := out.tests[t]; s != "" {
				res.Tests[t] = s
			} else {
				left = append(left, t)
			}
		}
		if len(left) == len(todo) {
			res.Output = out.output
			break
		}
		todo = left
	}
	var passed, skipped, missing []string
	for _, t := range p.Tests {
		switch res.Tests[t] {
		case "pass":
			passed = append(passed, t)
		case "skip":
			skipped = append(skipped, t)
		case "":
			missing = append(missing, t)
		}
	}
	switch {
	case len(missing) > 0:
		res.Verdict = Broken
		res.Reason = fmt.Sprintf("plant %s is broken: %s did not run in %s; is it a test of that package (pkg: for another), and does it need build tags (tags:)?", p.Path(), strings.Join(missing, ", "), pattern)
	case len(passed)+len(skipped) > 0:
		res.Verdict = Survived
		var what []string
		if len(passed) > 0 {
			what = append(what, strings.Join(passed, ", ")+" passed")
		}
		if len(skipped) > 0 {
			what = append(what, strings.Join(skipped, ", ")+" skipped")
		}
		res.Reason = fmt.Sprintf("plant %s survived: if %s, %s", p.Path(), p.If, strings.Join(what, " and "))
	default:
		res.Verdict = Killed
		res.Output = ""
	}
	return res, nil
}

// Unplanted runs plant p's tests once without the plant (-count=1) and
// returns those that did not pass, with what go test printed. A kill means
// something only when the tests pass unplanted: go test ./... shows that
// for the tests that need no cluster, but a test against a cluster also
// fails when none answers.
func (r *Runner) Unplanted(ctx context.Context, p *Plant) ([]string, string, error) {
	mod, pattern, err := p.pkgPattern()
	if err != nil {
		return nil, "", err
	}
	out, err := r.goTest(ctx, mod, pattern, "", p.Tags, p.Tests)
	if err != nil {
		return nil, "", err
	}
	var failed []string
	for _, t := range p.Tests {
		if out.tests[t] != "pass" {
			failed = append(failed, t)
		}
	}
	return failed, out.output, nil
}

// pkgPattern returns the module that holds the plant's package and the
// package's pattern in it (./chapters/02-taints), as go test wants them.
func (p *Plant) pkgPattern() (mod, pattern string, err error) {
	mod, err = moduleRoot(p.PkgDir())
	if err != nil {
		return "", "", err
	}
	pkgDir, _ := filepath.Abs(p.PkgDir())
	rel, err := filepath.Rel(mod, pkgDir)
	if err != nil {
		return "", "", err
	}
	return mod, "./" + filepath.ToSlash(rel), nil
}

// moduleRoot returns the directory of the go.mod that holds dir.
func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is in no Go module", dir)
		}
		d = parent
	}
}

func (r *Runner) goCmd() string {
	if r.Go == "" {
		return "go"
	}
	return r.Go
}

// testRun is what one go test -json run said.
type testRun struct {
	tests       map[string]string // test → pass, fail, skip
	buildFailed bool
	output      string
}

// goTest runs the tests of the package pattern in module mod with the
// overlay, if there is one.
func (r *Runner) goTest(ctx context.Context, mod, pattern, overlay string, tags, tests []string) (*testRun, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	args := []string{"test", "-json", "-count=1", "-timeout", timeout.String(), "-run", RunPattern(tests)}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, pattern)
	cmd := exec.CommandContext(ctx, r.goCmd(), args...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS="+goFlags(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("go test %s: %w", pattern, err)
	}
	out, perr := parseTestJSON(&stdout)
	if perr != nil {
		return nil, fmt.Errorf("go test %s: %w", pattern, perr)
	}
	out.output += stderr.String()
	if err != nil && len(out.tests) == 0 && !out.buildFailed {
		// go test failed before any test ran, and not in the compiler:
		// no such package, a bad overlay, a test binary that died at start.
		return nil, fmt.Errorf("go test %s: %v\n%s", pattern, err, strings.TrimSpace(out.output))
	}
	return out, nil
}

// parseTestJSON reads go test -json output.
func parseTestJSON(r *bytes.Buffer) (*testRun, error) {
	out := &testRun{tests: map[string]string{}}
	var text strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			text.Write(line)
			text.WriteByte('\n')
			continue
		}
		var ev struct {
			Action, Package, Test, Output, FailedBuild string
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("not go test -json output: %v", err)
		}
		switch ev.Action {
		case "build-output", "output":
			text.WriteString(ev.Output)
		case "build-fail":
			out.buildFailed = true
		case "pass", "fail", "skip":
			if ev.Test != "" {
				out.tests[ev.Test] = ev.Action
			} else if ev.FailedBuild != "" {
				out.buildFailed = true
			}
		}
	}
	out.output = text.String()
	if strings.Contains(out.output, "[setup failed]") || strings.Contains(out.output, "[build failed]") {
		out.buildFailed = true
	}
	return out, sc.Err()
}

// RunPattern returns the -run pattern that runs the tests named (TestX or
// TestX/sub), anchored at each level. When every test names a subtest at
// the same depth, only those subtests run; otherwise the whole of each
// top-level test runs, and the verdict reads the named ones.
func RunPattern(tests []string) string {
	var levels [][]string
	depth := -1
	for _, t := range tests {
		parts := strings.Split(t, "/")
		if depth == -1 {
			depth = len(parts)
		} else if depth != len(parts) {
			depth = 1
		}
		for len(levels) < len(parts) {
			levels = append(levels, nil)
		}
		for i, part := range parts {
			q := regexp.QuoteMeta(part)
			if !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	if depth < 1 {
		depth = 1
	}
	var b []string
	for _, names := range levels[:min(depth, len(levels))] {
		b = append(b, "^("+strings.Join(names, "|")+")$")
	}
	return strings.Join(b, "/")
}

// goFlags is the GOFLAGS of the go commands the proofs run: the caller's
// (make test's -trimpath, so a plant's build shares the cache with go test
// ./...) and -mod=readonly, so a plant never edits go.mod or go.sum.
func goFlags() string {
	return strings.TrimSpace(os.Getenv("GOFLAGS") + " -mod=readonly")
}
