package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
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

// commands are labcheck's subcommands, each first on its command line.
var commands = []string{"list", "hint", "grade", "verify", "version"}

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
	only, skip []string // patterns of check IDs (--only, --skip)
	version    bool
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
		case "version":
			if len(args) > 1 {
				fmt.Fprintln(stderr, "usage: labcheck version")
				return 2
			}
			printVersion(stdout)
			return 0
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
	if opts.version {
		printVersion(stdout)
		return 0
	}
	all := course.Checks(opts.chapter)
	if len(all) == 0 {
		if opts.chapter == 0 {
			fmt.Fprintln(stderr, "labcheck: the course lists no checks")
		} else {
			fmt.Fprintf(stderr, "labcheck: chapter %d has no checks yet\n", opts.chapter)
		}
		return 2
	}
	checks, err := labcheck.Select(all, opts.only, opts.skip)
	if err != nil {
		list, whose := "labcheck list", "the course's"
		if opts.chapter != 0 {
			list, whose = fmt.Sprintf("labcheck list --chapter %d", opts.chapter), fmt.Sprintf("chapter %d's", opts.chapter)
		}
		fmt.Fprintf(stderr, "labcheck: %v; %s names %s %d checks\n", err, list, whose, len(all))
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
	start := time.Now()
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
	// Nothing is judged from a log that is not this cluster's live one.
	if err := cluster.ProveAuditLog(ctx); err != nil {
		fmt.Fprintf(stderr, "labcheck: %v\n", err)
		return 2
	}
	cluster.Custody = labcheck.SelfAssessed
	id := identify(ctx, cluster, opts.timeout)
	outcomes := labcheck.Run(ctx, cluster, checks, opts.timeout)
	r := labcheck.NewReport(id, chaptersOf(course, opts.chapter), outcomes, time.Since(start))
	r.Evidence, r.Custody = cluster.EvidenceSource(), cluster.CustodySource()
	if len(checks) < len(all) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of the %d checks ran (%s), so the score is theirs, not the lab's", len(checks), len(all), selection(opts)))
	}
	if err := write(stdout, r, opts.output); err != nil {
		fmt.Fprintf(stderr, "labcheck: writing the report: %v\n", err)
		return 2
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
	only := fs.String("only", "", "run only the checks these comma-separated IDs or patterns name, e.g. taints-my-timetable or 'outage-*'")
	skip := fs.String("skip", "", "leave out the checks these comma-separated IDs or patterns name")
	fs.BoolVar(&o.version, "version", false, "print labcheck's version and the Kubernetes version it teaches, and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: labcheck [--chapter N|all] [--kubeconfig FILE] [--context NAME] [--audit-log FILE] [--timeout D] [--only IDS] [--skip IDS] [-o text|json] [--expect pass|fail]")
		fmt.Fprintln(stderr, "       labcheck list|hint|grade|verify|version ...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage // the flag package has printed the problem
	}
	if fs.NArg() > 0 {
		if cmd := fs.Arg(0); slices.Contains(commands, cmd) {
			return o, fmt.Errorf("%q is a command: it goes first, before any flag, and takes flags of its own (labcheck %s -h)", cmd, cmd)
		}
		return o, fmt.Errorf("unknown command %q; use list, hint, grade, verify or version, or flags only to check your lab (labcheck -h)", fs.Arg(0))
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
	o.only, o.skip = patterns(*only), patterns(*skip)
	return o, nil
}

// patterns splits a comma-separated --only or --skip.
func patterns(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// selection says which checks --only and --skip chose, for a report.
func selection(o options) string {
	var parts []string
	if len(o.only) > 0 {
		parts = append(parts, "--only "+strings.Join(o.only, ","))
	}
	if len(o.skip) > 0 {
		parts = append(parts, "--skip "+strings.Join(o.skip, ","))
	}
	return strings.Join(parts, " ")
}

// printVersion prints the line labcheck --version and labcheck version
// print: the course's version, the Kubernetes version it teaches, and the
// commit or module version the binary was built from, when it knows.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "labcheck %s\n", version.Read())
}

// identify names the cluster for a learner's report as far as it can be
// read within timeout: its server always, its version and kube-system UID
// when the server gives them. Unlike a grader, a learner's run goes on
// without them: the checks say what they cannot read.
func identify(ctx context.Context, c *labcheck.Cluster, timeout time.Duration) labcheck.Identity {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id, _ := labcheck.Identify(ctx, c)
	return id
}

// write writes a learner's report: as text, with each failure's hint, or
// as the JSON a grader's report.json also is.
func write(w io.Writer, r *labcheck.Report, output string) error {
	if output == "json" {
		return labcheck.Write(w, r, "json")
	}
	return labcheck.WriteText(w, r, labcheck.TextOptions{Hints: true})
}

// chaptersOf returns chapter n of the course, or every chapter for 0.
func chaptersOf(course *labcheck.Course, n int) []labcheck.Chapter {
	if n == 0 {
		return course.Chapters()
	}
	ch, _ := course.Chapter(n)
	return []labcheck.Chapter{ch}
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
