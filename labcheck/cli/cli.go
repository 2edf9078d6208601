// Package cli is the labcheck command: it checks a learner's lab on their
// cluster and prints, per check, ✓ or ✗ with the evidence it read, the hint
// for each failure, and the score; and it grades a class for instructors.
//
// Usage:
//
//	labcheck [--chapter N|all] [--kubeconfig FILE] [--context NAME] [--audit-log FILE] [--timeout D] [-o text|json] [--expect pass|fail]
//	labcheck list [--chapter N|all]
//	labcheck hint [--reset] CHECK
//	labcheck grade --roster FILE [--chapter N|all] [--parallel N] [--format F,...] [--out DIR] [--sign-key FILE]
//	labcheck verify [--sign-key FILE] REPORT.json
//
// The checks read what happened from the API server and, where it can be
// read, from its audit log: the one record of who evicted, deleted or wrote
// an event that a learner cannot write. labcheck finds the log of a kwokctl
// cluster on this machine by its context (kwok-NAME); --audit-log names
// another. Without one the checks judge from the API alone, and the report
// says so in its first line.
//
// A roster has one line per student: NAME KUBECONFIG [CONTEXT [AUDIT-LOG]],
// with - for the kubeconfig's current context. grade writes,
// per student, a report in each format asked (text; json, labcheck's own,
// which verify reads; Exercism v3 and Gradescope results.json; JUnit XML) and
// a class summary. Each report carries the evidence each check read, the
// cluster's identity (server version, kube-system UID), the time of grading,
// and a digest, an HMAC with --sign-key.
//
// Exit status: 0 when every check passes, 1 when some fail, 2 when labcheck
// cannot run or cannot see (a bad flag, no cluster, a check that could not
// read the cluster within --timeout). grade exits 1 when some student could
// not be graded; the others' reports are written all the same. With --expect, 0 means every check had
// the expected outcome; the course's own test suite uses it to show every
// check failing on an untouched cluster and passing after the reference
// solution.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// Main runs labcheck on the course's chapters with the process's arguments
// and exits.
func Main(course *labcheck.Course) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := Run(ctx, course, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// auditLogFix is what to do about an --audit-log that cannot be read.
const auditLogFix = "give --audit-log the API server's audit log (a kwokctl cluster keeps it in ~/.kwok/clusters/NAME/logs/audit.log), or leave it out"

// errUsage marks errors that are the caller's: exit status 2.
var errUsage = errors.New("usage")

type options struct {
	chapter    int // 0: all
	kubeconfig string
	context    string
	auditLog   string
	timeout    time.Duration
	output     string
	expect     string
}

// Run runs labcheck on the course's chapters with args and returns its exit
// status.
func Run(ctx context.Context, course *labcheck.Course, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "list":
			return list(course, args[1:], stdout, stderr)
		case "hint":
			return hint(course, args[1:], stdout, stderr)
		case "grade":
			return grade(ctx, course, args[1:], stdout, stderr)
		case "verify":
			return verify(args[1:], stdout, stderr)
		}
	}
	opts, err := parse(course, args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if !errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "labcheck: %v\n", err)
		}
		return 2
	}
	checks := course.Checks(opts.chapter)
	if len(checks) == 0 {
		if opts.chapter == 0 {
			fmt.Fprintln(stderr, "labcheck: no checks are registered; this labcheck was built without the chapters")
		} else {
			fmt.Fprintf(stderr, "labcheck: chapter %d has no checks yet\n", opts.chapter)
		}
		return 2
	}
	// A named audit log is read before the cluster is reached: a wrong
	// path is the caller's mistake, whether or not the cluster is up.
	var auditLog *audit.Log
	if opts.auditLog != "" {
		if auditLog, err = audit.Read(opts.auditLog); err != nil {
			fmt.Fprintf(stderr, "labcheck: %v; %s\n", err, auditLogFix)
			return 2
		}
	}
	cluster, err := labcheck.Connect(ctx, opts.kubeconfig, opts.context, 5*time.Second)
	if err != nil {
		var ke *labcheck.KubeconfigError
		if errors.As(err, &ke) {
			fmt.Fprintf(stderr, "labcheck: %v; give --kubeconfig the file that make lab-up wrote, or leave it out for ~/.kube/config\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "labcheck: %v\n", err)
		return 2
	}
	if auditLog != nil {
		cluster.UseAuditLog(auditLog)
	}
	outcomes := labcheck.Run(ctx, cluster, checks, opts.timeout)
	switch opts.output {
	case "json":
		writeJSON(stdout, cluster.EvidenceSource(), outcomes)
	default:
		writeText(stdout, course, cluster.EvidenceSource(), outcomes)
	}
	if opts.expect != "" {
		return expectExit(stderr, outcomes, opts.expect == "pass")
	}
	// A check that could not look scored nothing: the score is not the lab's.
	var blind []string
	for _, o := range outcomes {
		if o.Err != nil {
			blind = append(blind, o.Check.ID)
		}
	}
	const again = "run it again, with a longer --timeout if the cluster is slow"
	switch {
	case len(blind) == 0:
	case len(blind) == len(outcomes):
		fmt.Fprintf(stderr, "labcheck: no check could read the cluster (%v), so nothing was scored; %s\n", outcomes[0].Err, again)
		return 2
	default:
		fmt.Fprintf(stderr, "labcheck: %d of %d checks could not read the cluster (%s), so the score is incomplete; %s\n", len(blind), len(outcomes), strings.Join(blind, ", "), again)
		return 2
	}
	for _, o := range outcomes {
		if !o.Passed() {
			return 1
		}
	}
	return 0
}

func parse(course *labcheck.Course, args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("labcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	chapter := fs.String("chapter", "all", "the chapter to check: "+course.Span()+", or all")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "the kubeconfig context (default: the current context)")
	fs.StringVar(&o.auditLog, "audit-log", "", "the API server's audit log (default: the kwokctl cluster's own, when it is on this machine)")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, "how long one check may take")
	fs.StringVar(&o.output, "o", "text", "output format: text or json")
	fs.StringVar(&o.expect, "expect", "", "pass or fail: succeed only if every check has that outcome")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: labcheck [--chapter N|all] [--kubeconfig FILE] [--context NAME] [--audit-log FILE] [--timeout D] [-o text|json] [--expect pass|fail]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage // the flag package has printed the problem
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unknown command %q; use list, hint, grade or verify, or flags only to check your lab (labcheck -h)", fs.Arg(0))
	}
	n, err := chapterArg(course, *chapter)
	if err != nil {
		return o, err
	}
	o.chapter = n
	if o.output != "text" && o.output != "json" {
		return o, fmt.Errorf("-o %q is not an output format; use text or json", o.output)
	}
	if o.expect != "" && o.expect != "pass" && o.expect != "fail" {
		return o, fmt.Errorf("--expect %q is not an outcome; use pass or fail", o.expect)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout %v is not positive", o.timeout)
	}
	return o, nil
}

func writeText(w io.Writer, course *labcheck.Course, source string, outcomes []labcheck.Outcome) {
	fmt.Fprintf(w, "Evidence: %s\n", source)
	chapter, got, max := 0, 0, 0
	for _, o := range outcomes {
		if o.Check.Chapter != chapter {
			chapter = o.Check.Chapter
			fmt.Fprintf(w, "Chapter %d: %s\n", chapter, course.Title(chapter))
		}
		mark := "✓"
		if !o.Passed() {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s (%d/%d) [%s]\n", mark, o.Check.Title, o.Points(), o.Check.Points, o.Check.ID)
		switch {
		case o.Err != nil:
			fmt.Fprintf(w, "      could not check: %v\n", o.Err)
		case o.Result.Message != "":
			fmt.Fprintf(w, "      %s\n", o.Result.Message)
		}
		for _, e := range o.Result.Evidence {
			fmt.Fprintf(w, "      · %s\n", e)
		}
		if h := o.FirstHint(); !o.Passed() && h != "" {
			fmt.Fprintf(w, "      hint: %s\n", h)
			if more := len(o.Check.Hints); more > 1 || (more == 1 && o.Result.Hint != "") {
				fmt.Fprintf(w, "      next hint: go run ./cmd/labcheck hint %s\n", o.Check.ID)
			}
		}
		got += o.Points()
		max += o.Check.Points
	}
	fmt.Fprintf(w, "Score: %d/%d\n", got, max)
}

type jsonOutcome struct {
	Chapter  int      `json:"chapter"`
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Passed   bool     `json:"passed"`
	Points   int      `json:"points"`
	Max      int      `json:"max_points"`
	Message  string   `json:"message,omitempty"`
	Error    string   `json:"error,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	Hint     string   `json:"hint,omitempty"`
	Seconds  float64  `json:"seconds"`
}

// jsonRun is labcheck -o json: what the checks judged from, and each check.
type jsonRun struct {
	Evidence string        `json:"evidence"`
	Checks   []jsonOutcome `json:"checks"`
}

func writeJSON(w io.Writer, source string, outcomes []labcheck.Outcome) {
	out := make([]jsonOutcome, 0, len(outcomes))
	for _, o := range outcomes {
		j := jsonOutcome{
			Chapter: o.Check.Chapter, ID: o.Check.ID, Title: o.Check.Title,
			Passed: o.Passed(), Points: o.Points(), Max: o.Check.Points,
			Message: o.Result.Message, Evidence: o.Result.Evidence,
			Seconds: o.Duration.Seconds(),
		}
		if o.Err != nil {
			j.Error = o.Err.Error()
		}
		if h := o.FirstHint(); !o.Passed() && h != "" {
			j.Hint = h
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(jsonRun{Evidence: source, Checks: out})
}

func expectExit(stderr io.Writer, outcomes []labcheck.Outcome, pass bool) int {
	var wrong []string
	for _, o := range outcomes {
		if o.Err != nil {
			wrong = append(wrong, o.Check.ID+" (could not check: "+o.Err.Error()+")")
		} else if o.Result.Pass != pass {
			wrong = append(wrong, o.Check.ID)
		}
	}
	if len(wrong) == 0 {
		return 0
	}
	want := "fail"
	if pass {
		want = "pass"
	}
	fmt.Fprintf(stderr, "labcheck: expected every check to %s, but not: %s\n", want, strings.Join(wrong, ", "))
	return 1
}
