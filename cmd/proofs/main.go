// Proofs checks that every claim of the course is proven: it breaks the
// model the way each of the chapters' plants says (chapters/NN-x/plants,
// see package proof) and checks that the claim's tests fail.
//
// Usage:
//
//	proofs [-all] [-w] [-chapter N] [-j N] [-cluster] [-root DIR] [-v]
//
// By default it checks incrementally, as make test does: a plant whose
// inputs are unchanged since the verdict its chapter's plants/verdicts.sum
// records keeps that verdict; the others run. It prints one line per plant
// that fails (survived, broken, stale, or recorded so), a note on the
// plants that ran and were killed without a recorded verdict, and a
// summary.
//
// The flags are:
//
//	-all      run every plant, recorded or not, and print a table of
//	          claim, plant, tests, verdict and time, and the total time
//	-w        write each chapter's verdicts.sum from this run
//	-chapter  only chapter N
//	-j        plants run at once (default: the number of CPUs)
//	-cluster  run the plants that need a cluster (tags: e2e) too; their
//	          tests run once without a plant first, and a plant whose
//	          tests fail there (no cluster answers) is broken, not run,
//	          and keeps its recorded verdict
//	-root     the repository (default: the current directory)
//	-v        name every plant a note is about (a plant that ran and was
//	          killed without a recorded verdict), not only their number
//
// It exits 0 when every plant is killed, 1 when one is not or the check
// could not run, and 2 on a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/opslab/opslab/internal/proof"
)

const usage = `usage: proofs [-all] [-w] [-chapter N] [-j N] [-cluster] [-root DIR] [-v]

Proofs applies each chapter's plants (plants/*.plant) and checks that each
plant's tests fail. Without -all only plants whose inputs changed since
plants/verdicts.sum run.
`

func main() {
	log.SetPrefix("proofs: ")
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	logger := log.New(stderr, "proofs: ", 0)
	fs := flag.NewFlagSet("proofs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "")
	write := fs.Bool("w", false, "")
	chapter := fs.Int("chapter", 0, "")
	jobs := fs.Int("j", runtime.NumCPU(), "")
	cluster := fs.Bool("cluster", false, "")
	root := fs.String("root", ".", "")
	verbose := fs.Bool("v", false, "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "proofs: %v\n%s", err, usage)
		return 2
	}
	if fs.NArg() > 0 || *jobs < 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	dirs, err := proof.Chapters(*root)
	if err != nil {
		logger.Print(err)
		return 1
	}
	if *chapter != 0 {
		var one []string
		for _, d := range dirs {
			if n, _ := strconv.Atoi(filepath.Base(d)[:2]); n == *chapter {
				one = append(one, d)
			}
		}
		if len(one) == 0 {
			fmt.Fprintf(stderr, "proofs: there is no chapter %d in %s\n", *chapter, filepath.Join(*root, "chapters"))
			return 2
		}
		dirs = one
	}
	start := time.Now()
	out, err := proof.Check(ctx, proof.Options{
		Chapters: dirs,
		All:      *all,
		Write:    *write,
		Cluster:  *cluster,
		Jobs:     *jobs,
		Runner:   &proof.Runner{},
		Keyer:    &proof.Keyer{Root: *root},
	})
	if err != nil {
		logger.Print(err)
		return 1
	}
	if *all {
		table(stdout, *root, out)
	}
	status, ran, failed := 0, 0, 0
	notes := map[string][]string{}
	for _, o := range out {
		if o.Result != nil {
			ran++
		}
		switch {
		case o.Failed():
			failed++
			status = 1
			logger.Print(o.Problem)
			if o.Result != nil && o.Result.Output != "" {
				fmt.Fprintln(stderr, indent(o.Result.Output))
			}
		case o.Note != "":
			notes[o.Note] = append(notes[o.Note], rel(*root, o.Plant.Path()))
		}
	}
	for _, note := range slices.Sorted(maps.Keys(notes)) {
		plants := notes[note]
		if *verbose || len(plants) == 1 {
			for _, p := range plants {
				logger.Printf("plant %s: %s", p, note)
			}
			continue
		}
		logger.Printf("%d plants: %s (-v names them)", len(plants), note)
	}
	fmt.Fprintf(stdout, "proofs: %d plants in %d chapters, %d run, %d not killed, in %s\n", len(out), len(dirs), ran, failed, time.Since(start).Round(100*time.Millisecond))
	if *write {
		fmt.Fprintf(stdout, "proofs: wrote plants/%s of every chapter checked\n", proof.SumFile)
	}
	return status
}

// table prints a line per plant: claim, plant, tests, verdict and time.
func table(w io.Writer, root string, out []*proof.Outcome) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tPLANT\tTESTS\tVERDICT\tTIME")
	for _, o := range out {
		took := "-"
		if o.Result != nil {
			took = o.Result.Elapsed.Round(100 * time.Millisecond).String()
		}
		verdict := string(o.Verdict)
		if verdict == "" {
			verdict = "not run"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.Plant.Claim, rel(root, o.Plant.Path()), strings.Join(o.Plant.Tests, " "), verdict, took)
	}
	tw.Flush()
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t")
}
