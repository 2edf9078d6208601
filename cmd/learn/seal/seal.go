// Package seal is the graded test binary's end of learn grade: the verdict
// of each test, written by the testing package's own account of it
// (t.Failed, t.Skipped) once the test and its subtests have ended, to a
// pipe the grader opened, never to the binary's standard output.
//
// A learner's code runs in the test binary, and whatever it prints is
// output: a line that looks like "--- PASS: TestX", with or without the
// marker byte test2json reads framing by, written from init, from a test
// or from another goroutine, followed by an exit with status 0 before the
// tests run. learn grade reads none of it as a verdict. It builds the test
// binary with a TestMain that calls Main, hands the binary the write end
// of a pipe as file descriptor 3 and a fresh nonce on a second pipe, file
// descriptor 4, which this package reads and closes while it is
// initialized, before the package under test's own init functions run;
// every verdict line carries the nonce. A test whose verdict line is
// missing (the binary stopped before it ended) did not pass.
//
// Code that sets out to defeat the grader, reading the nonce from this
// package's memory and writing verdicts of its own, still can: the test
// and the learner's code share a process. The seal closes the forgeries a
// program's output can make, not that one.
package seal

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

// The file descriptors learn grade gives a graded test binary.
const (
	VerdictFD = 3 // the pipe the verdicts go to
	NonceFD   = 4 // the pipe the nonce comes from, closed once read
)

var (
	nonce string
	out   *os.File
	mu    sync.Mutex
)

func init() {
	in := os.NewFile(NonceFD, "nonce")
	b, err := io.ReadAll(io.LimitReader(in, 128))
	in.Close()
	if err != nil || len(b) < 16 {
		return // not run by learn grade
	}
	nonce, out = string(b), os.NewFile(VerdictFD, "verdicts")
	closeOnExec(VerdictFD)
}

// Main runs the tests of m and exits. Under learn grade each top-level
// test writes its verdict, pass, fail or skip, to the verdict pipe when it
// has ended; otherwise Main is m.Run.
func Main(m *testing.M) {
	if out == nil {
		os.Exit(m.Run())
	}
	v := reflect.ValueOf(m).Elem().FieldByName("tests")
	if !v.IsValid() || v.Type() != reflect.TypeFor[[]testing.InternalTest]() {
		// The testing package of another Go release: no verdict at all.
		fmt.Fprintf(out, "%s broken testing.M has no field tests []testing.InternalTest\n", nonce)
		os.Exit(2)
	}
	tests := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface().([]testing.InternalTest)
	for i := range tests {
		name, f := tests[i].Name, tests[i].F
		tests[i].F = func(t *testing.T) {
			// The first cleanup registered runs last, after the test's
			// own and its subtests'.
			t.Cleanup(func() { verdict(name, t) })
			f(t)
		}
	}
	code := m.Run()
	write("end %d", code)
	os.Exit(code)
}

func verdict(name string, t *testing.T) {
	state := "pass"
	switch {
	case t.Failed():
		state = "fail"
	case t.Skipped():
		state = "skip"
	}
	write("%s %s", state, name)
}

func write(format string, args ...any) {
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(out, "%s "+format+"\n", append([]any{nonce}, args...)...)
}
