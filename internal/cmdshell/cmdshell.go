// Package cmdshell is the shell every command of the course shares: how a
// mistake on the command line is told apart from a failure, how either is
// printed (one line, naming the fix), which exit status each gets, and the
// repeatable flag the commands use for -f FILE.
//
// A command's run function returns an error; Exit turns it into the exit
// status:
//
//	func main() { os.Exit(cmdshell.Exit("timetable", run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr)) }
package cmdshell

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A usageError is a mistake on the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Usagef returns a usage error: the command line is wrong, and the message
// says how to right it.
func Usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// IsUsage reports whether err is, or wraps, a usage error.
func IsUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// A failure whose message was already printed (for example by the flag
// package) exits with its status and prints nothing more.
type printed struct{ code int }

func (p printed) Error() string { return fmt.Sprintf("exit status %d", p.code) }

// Printed returns an error for a usage mistake the flag package has already
// described on stderr, or for -h (flag.ErrHelp), which exits 0.
func Printed(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return printed{0}
	}
	return printed{2}
}

// Silent returns an error that exits with code and prints nothing: the
// command has said what it had to (a plan that would cut the kubelet short,
// checks that failed).
func Silent(code int) error { return printed{code} }

// Exit prints err, if any, as one line "name: message" on stderr and returns
// the exit status: 0 for nil, 2 for a usage error, 1 for any other.
func Exit(name string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var p printed
	if errors.As(err, &p) {
		return p.code
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	fmt.Fprintf(stderr, "%s: %s\n", name, msg)
	if IsUsage(err) {
		return 2
	}
	return 1
}

// Strings is a flag that may be given several times, each value kept in
// order: flag.Var(&files, "f", "a file to read (repeatable)").
type Strings []string

// String returns the values joined by commas.
func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set appends one value.
func (s *Strings) Set(v string) error { *s = append(*s, v); return nil }

// Interspersed parses args with fs, letting flags come before, between and
// after the arguments, as kubectl's do, and returns the arguments. Its
// error is fs.Parse's.
func Interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return rest, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
