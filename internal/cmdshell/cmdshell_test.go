package cmdshell

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestExit: nil exits 0 and prints nothing; a usage error exits 2, any other
// error 1, each as one line that names the command; an error the flag
// package already printed exits 2 (0 for -h) and prints nothing more.
func TestExit(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		out  string
	}{
		{nil, 0, ""},
		{Usagef("-o %s: use text or json", "xml"), 2, "tool: -o xml: use text or json\n"},
		{fmt.Errorf("reading: %w", Usagef("no taint given")), 2, "tool: reading: no taint given\n"},
		{errors.New("cannot reach the cluster\nmore detail"), 1, "tool: cannot reach the cluster\n"},
		{Printed(errors.New("flag provided but not defined: -x")), 2, ""},
		{Printed(flag.ErrHelp), 0, ""},
		{Silent(1), 1, ""},
	} {
		var b strings.Builder
		if code := Exit("tool", tc.err, &b); code != tc.code || b.String() != tc.out {
			t.Errorf("Exit(%v) = %d, %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.out)
		}
	}
}

// TestStrings: each -f adds a value, in order.
func TestStrings(t *testing.T) {
	var files Strings
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&files, "f", "")
	if err := fs.Parse([]string{"-f", "a.yaml", "-f", "-", "-f", "b.yaml"}); err != nil {
		t.Fatal(err)
	}
	if got := files.String(); got != "a.yaml,-,b.yaml" {
		t.Errorf("files = %q", got)
	}
}

func TestInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := fs.String("o", "", "")
	n := fs.Bool("n", false, "")
	rest, err := Interspersed(fs, []string{"run", "-o", "json", "a", "-n", "b"})
	if err != nil || strings.Join(rest, " ") != "run a b" || *o != "json" || !*n {
		t.Errorf("Interspersed = %q, %v; -o %q -n %v", rest, err, *o, *n)
	}
	if _, err := Interspersed(fs, []string{"a", "-x"}); err == nil {
		t.Error("an unknown flag after an argument gave no error")
	}
}
