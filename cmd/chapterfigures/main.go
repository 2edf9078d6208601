// Chapterfigures prints the figures of each chapter's path, its README.md,
// against the budgets of the shape of a chapter (CONTRIBUTING.md, "The
// shape of a chapter"): the words of the core prose and of the lab steps,
// the words before the first command, the average sentence, the links,
// the claims, the test names and line numbers left in the path, the
// required sections, and the rules the chapter breaks. Package shape says
// how each figure is counted.
//
// Usage:
//
//	chapterfigures [-json] [DIR...]
//
// Without DIR it reads every chapters/NN-name/ of the current directory,
// the course's root. It prints a table, one row per chapter, or with -json
// a JSON array. A chapter with an EVIDENCE.md has moved to the shape, and
// the contract (chapters/shape_test.go) holds it to the budgets; the others
// are only printed, so breaking a rule does not change the exit status. It
// exits 1 when a README cannot be read and 2 on a usage error.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/opslab/opslab/internal/shape"
)

const usage = `usage: chapterfigures [-json] [DIR...]

Chapterfigures prints the figures of each chapter's README.md against the
budgets of the shape of a chapter, one row per chapter. Without DIR it reads
every chapters/NN-name/ of the current directory.

  -json  print a JSON array, one object per chapter
`

func main() {
	log.SetPrefix("chapterfigures: ")
	log.SetFlags(0)
	os.Exit(run(os.Args[1:], os.Stdout))
}

// run runs the command and returns its exit status; errors go to the log.
func run(args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet("chapterfigures", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		log.Printf("%v", err)
		fmt.Fprint(log.Writer(), usage)
		return 2
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = chapterDirs()
		if len(dirs) == 0 {
			log.Print("no chapters/NN-name/ here: run it at the course's root, or name the chapters' directories")
			return 1
		}
	}
	var rows []row
	for _, dir := range dirs {
		f, err := shape.Measure(dir)
		if err != nil {
			log.Print(err)
			return 1
		}
		r := row{Figures: f, Breaches: []string{}}
		for _, b := range f.Breaches() {
			r.Breaches = append(r.Breaches, b.String())
		}
		rows = append(rows, r)
	}
	if *asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			log.Print(err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	table(stdout, rows)
	return 0
}

// A row is one chapter: its figures and the rules it breaks.
type row struct {
	*shape.Figures
	Breaches []string `json:"breaches"`
}

// chapterDirs returns the chapters' directories, chapters/NN-name, in order.
func chapterDirs() []string {
	matches, _ := filepath.Glob(filepath.Join("chapters", "[0-9][0-9]-*"))
	var dirs []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			dirs = append(dirs, m)
		}
	}
	return dirs
}

func table(w io.Writer, rows []row) {
	// The figures align right, the chapters' names left.
	width := len("chapter")
	for _, r := range rows {
		width = max(width, len(r.Chapter))
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tevidence\tpath\tlab\tsteps\tbefore\tcommand\tsentence\tlinks\tclaims\ttests\tlines\tsections\t\n", width, "chapter")
	for _, r := range rows {
		f := r.Figures
		evidence, command := "no", "none"
		if f.Evidence {
			evidence = "yes"
		}
		if f.FirstCommand > 0 {
			command = fmt.Sprintf("line %d", f.FirstCommand)
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%d\t%s\t%s\t%.1f\t%d\t%d\t%d\t%d\t%d/%d\t\n",
			width, f.Chapter, evidence, shape.Thousands(f.PathWords), shape.Thousands(f.LabWords), f.LabSteps,
			shape.Thousands(f.BeforeCommand), command, f.AvgSentence, f.Links, f.Claims,
			len(f.TestNames), len(f.LineNumbers), f.SectionsOK(), len(f.Sections))
	}
	tw.Flush()
	// Right alignment pads the first column on its left too.
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		io.WriteString(w, strings.TrimPrefix(l, "  "))
	}
	fmt.Fprintf(w, "\nbudgets: path %s words, lab %s, before the first command %s, each with %d %% over (%s, %s, %s);\n"+
		"an average sentence of %d words at most; no test names or line numbers in the path; the required sections.\n",
		shape.Thousands(shape.PathWords), shape.Thousands(shape.LabWords), shape.Thousands(shape.BeforeCommand), shape.Tolerance,
		shape.Thousands(shape.Allowed(shape.PathWords)), shape.Thousands(shape.Allowed(shape.LabWords)), shape.Thousands(shape.Allowed(shape.BeforeCommand)),
		shape.SentenceWords)
	for _, r := range rows {
		if len(r.Breaches) == 0 {
			continue
		}
		held := "printed only, it has no EVIDENCE.md"
		if r.Evidence {
			held = "the contract fails"
		}
		fmt.Fprintf(w, "%s breaks %s (%s)\n", r.Chapter, rules(r.Breaches), held)
	}
}

// rules returns the distinct rules of a chapter's breaches.
func rules(breaches []string) string {
	var out []string
	for _, b := range breaches {
		rule, _, _ := strings.Cut(b, ":")
		if len(out) == 0 || out[len(out)-1] != rule {
			out = append(out, rule)
		}
	}
	return strings.Join(out, ", ")
}
