package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	"github.com/opslab/opslab/internal/cmdshell"
)

const usage = `usage: pdbsim [-svg FILE] SCENARIO

Pdbsim plays a scenario on the PodDisruptionBudget model and prints its
timeline. SCENARIO is a file, or - for standard input; the scenario
language is in the command's doc (go doc ./chapters/01-pdb/cmd/pdbsim).

  -svg FILE  also draw the run into FILE (.svg): each budget's Ready pods
             and floor over time, and every eviction allowed or refused
`

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run plays the scenario named by args, reading it from stdin when it is
// named -, and returns the exit status: 0, 2 on a usage error, 1 when the
// scenario cannot be read or played, each error one line on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdshell.Exit("pdbsim", pdbsim(args, stdin, stdout), stderr)
}

// pdbsim reads the scenario args name and plays it.
func pdbsim(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("pdbsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	svg := fs.String("svg", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return nil
		}
		return cmdshell.Usagef("%v: see pdbsim -h", err)
	}
	if fs.NArg() != 1 {
		return cmdshell.Usagef("want one scenario file, or - for standard input, got %d arguments", fs.NArg())
	}
	if *svg != "" && !strings.HasSuffix(*svg, ".svg") {
		return cmdshell.Usagef("-svg %s: the figure is SVG, name a .svg file", *svg)
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
		return unwrapPathError(err)
	}
	c := pdb.NewCluster()
	var d *drawing
	if *svg != "" {
		d = newDrawing(c)
	}
	if err := play(c, name, string(src), stdout); err != nil {
		return err
	}
	if d == nil {
		return nil
	}
	return unwrapPathError(os.WriteFile(*svg, d.figure("pdbsim "+fs.Arg(0)+": Ready pods, the floor and each eviction", c), 0o644))
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
func play(c *pdb.Cluster, name, src string, out io.Writer) error {
	s := &sim{c: c, out: out}
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
