package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/opslab/opslab/internal/learn"
)

// sealFile is the test file the grader adds to each package of the
// grading copy: its TestMain hands the tests to package seal. The copy's
// test files are the chapter's (Workspace.ForGrading), none of which has a
// TestMain; a learner's TestMain in a file of theirs fails the build.
const sealFile = "zz_opslab_seal_test.go"

const sealSource = `package %s

import (
	opslabseal "github.com/opslab/opslab/cmd/learn/seal"
	opslabtesting "testing"
)

func TestMain(m *opslabtesting.M) { opslabseal.Main(m) }
`

// sealedRunTrack runs every step's tests of the grading copy g, one test
// binary per package, and returns each step's run. A test passed when
// the seal's verdict line for it, read from the pipe the grader opened,
// says so; the binary's output, whatever it prints, is shown, never
// believed.
func sealedRunTrack(ctx context.Context, g learn.Workspace) []learn.Run {
	byPkg := map[string][]string{}
	for _, st := range g.Track.Steps {
		byPkg[st.Package()] = append(byPkg[st.Package()], st.AllTests()...)
	}
	tmp, err := os.MkdirTemp("", "learn-grade-")
	runs := map[string]learn.Run{}
	for i, pkg := range g.Track.Packages() {
		tests := byPkg[pkg]
		if len(tests) == 0 {
			continue
		}
		if err != nil {
			runs[pkg] = learn.Run{BuildErr: err.Error()}
			continue
		}
		runs[pkg] = sealedRun(ctx, g.Root, path.Join(g.Dir(), pkg), tests, filepath.Join(tmp, fmt.Sprintf("p%d.test", i)))
	}
	if err == nil {
		os.RemoveAll(tmp)
	}
	out := make([]learn.Run, len(g.Track.Steps))
	for i, st := range g.Track.Steps {
		out[i] = runs[st.Package()]
	}
	return out
}

// sealedRun builds the tests of the package in dir (relative to root) into
// bin with the seal's TestMain, runs those named, and reads their
// verdicts.
func sealedRun(ctx context.Context, root, dir string, tests []string, bin string) learn.Run {
	start := time.Now()
	run := learn.Run{Results: make([]learn.Result, len(tests))}
	for i, t := range tests {
		run.Results[i].Test = t
	}
	abs := filepath.Join(root, filepath.FromSlash(dir))
	name, err := testPackage(abs)
	if err == nil {
		err = os.WriteFile(filepath.Join(abs, sealFile), fmt.Appendf(nil, sealSource, name), 0o644)
	}
	if err != nil {
		run.BuildErr = err.Error()
		return run
	}
	build := exec.CommandContext(ctx, "go", "test", "-c", "-vet=off", "-tags", learn.UpstreamTag, "-o", bin, "./"+dir)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		run.BuildErr = strings.TrimSpace(string(out))
		if run.BuildErr == "" {
			run.BuildErr = err.Error()
		}
		return run
	}

	// The nonce goes down one pipe, the verdicts come up another.
	nonce := make([]byte, 16)
	rand.Read(nonce)
	key := hex.EncodeToString(nonce)
	nonceR, nonceW, err := os.Pipe()
	if err != nil {
		run.BuildErr = err.Error()
		return run
	}
	verdictR, verdictW, err := os.Pipe()
	if err != nil {
		nonceR.Close()
		nonceW.Close()
		run.BuildErr = err.Error()
		return run
	}
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	cmd := exec.CommandContext(ctx, bin, "-test.v=test2json", "-test.count=1", "-test.timeout=60s",
		"-test.run", "^("+strings.Join(quoted, "|")+")$")
	cmd.Dir = abs
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.ExtraFiles = []*os.File{verdictW, nonceR} // seal.VerdictFD and seal.NonceFD: 3 and 4
	cmd.WaitDelay = 5 * time.Second               // a program the tests started may hold the output open
	read := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(verdictR)
		read <- b.Bytes()
	}()
	err = cmd.Start()
	nonceR.Close()
	verdictW.Close()
	nonceW.WriteString(key)
	nonceW.Close()
	if err == nil {
		cmd.Wait()
	}
	var verdicts []byte
	select {
	case verdicts = <-read:
	case <-time.After(5 * time.Second):
		// A program the tests started still holds the pipe: what was
		// written by the time the binary ended is all there is.
	}
	verdictR.Close()
	if err != nil {
		run.BuildErr = err.Error()
		return run
	}

	seen, ended, broken := readVerdicts(verdicts, key)
	shown := testOutput(ctx, output.Bytes(), dir)
	for i := range run.Results {
		r := &run.Results[i]
		r.Output, r.Failed = shown[r.Test].lines, shown[r.Test].failed
		switch v := seen[r.Test]; {
		case broken != "":
			r.Output = slices.Insert(r.Output, 0, "the grader could not read this test's result: "+broken)
		case v == "pass":
			r.Ran, r.Passed = true, true
		case v == "fail":
			r.Ran = true
		case v == "skip":
			r.Ran = true
			r.Output = slices.Insert(r.Output, 0, "skipped")
		case !ended:
			r.Output = slices.Insert(r.Output, 0, "the test binary stopped before this test ended: a panic, a timeout, or the code under test exiting")
		default:
			r.Output = slices.Insert(r.Output, 0, "the test binary ran to its end without running this test")
		}
	}
	run.Took = time.Since(start)
	return run
}

// readVerdicts reads the seal's lines that carry the nonce: each test's
// verdict, and whether the binary reached its end. A test with two
// verdicts, or a line the seal does not write, makes every verdict void.
func readVerdicts(b []byte, nonce string) (seen map[string]string, ended bool, broken string) {
	seen = map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), nonce+" ")
		if !ok {
			continue // not the seal's
		}
		state, name, _ := strings.Cut(rest, " ")
		switch state {
		case "pass", "fail", "skip":
			if _, twice := seen[name]; twice {
				return nil, false, "two verdicts for " + name
			}
			seen[name] = state
		case "end":
			ended = true
		case "broken":
			return nil, false, name
		default:
			return nil, false, "a verdict line the seal does not write"
		}
	}
	return seen, ended, ""
}

// testPackage is the package clause of the test files in dir.
func testPackage(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	for _, f := range files {
		if filepath.Base(f) == sealFile {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err == nil {
			return af.Name.Name, nil
		}
	}
	return "", fmt.Errorf("no test file in %s", dir)
}

// shownTest is what a test printed, for the learner to read.
type shownTest struct {
	lines  []string
	failed []string
}

var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|FAIL|SKIP))`)

// testOutput sorts the binary's output by test with test2json: only to
// show it, since the code under test can print anything there.
func testOutput(ctx context.Context, out []byte, dir string) map[string]shownTest {
	shown := map[string]shownTest{}
	conv := exec.CommandContext(ctx, "go", "tool", "test2json", "-p", dir)
	conv.Stdin = bytes.NewReader(out)
	events, err := conv.Output()
	if err != nil {
		return shown
	}
	sc := bufio.NewScanner(bytes.NewReader(events))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		name, _, _ := strings.Cut(e.Test, "/")
		s := shown[name]
		switch e.Action {
		case "output":
			line := strings.TrimRight(e.Output, "\n")
			if line != "" && !framing.MatchString(line) {
				s.lines = append(s.lines, strings.TrimSpace(line))
			}
		case "fail":
			if e.Test != name {
				s.failed = append(s.failed, e.Test)
			}
		}
		shown[name] = s
	}
	return shown
}
