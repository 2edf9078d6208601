package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run plays the scenario named by args, reading it from stdin when it is
// named -, and returns the exit status: 0, 1 when the scenario is wrong, 2
// on a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdbsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pdbsim SCENARIO")
		fmt.Fprintln(stderr, "Plays a scenario on the PodDisruptionBudget model and prints its timeline; SCENARIO may be - for standard input.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "pdbsim: want one scenario file, got", fs.NArg())
		fs.Usage()
		return 2
	}
	name := fs.Arg(0)
	var src []byte
	var err error
	if name == "-" {
		name = "stdin"
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(name)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pdbsim:", unwrapPathError(err))
		return 1
	}
	if err := play(name, string(src), stdout); err != nil {
		fmt.Fprintln(stderr, "pdbsim:", err)
		return 1
	}
	return 0
}

// unwrapPathError keeps os errors to one short line: "open x: no such file
// or directory".
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}

// play runs every statement of a scenario and prints the events each one
// caused.
func play(name, src string, out io.Writer) error {
	s := &sim{c: pdb.NewCluster(), out: out}
	for i, line := range strings.Split(src, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		if err := s.do(words); err != nil {
			return fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		s.flush()
	}
	return nil
}
