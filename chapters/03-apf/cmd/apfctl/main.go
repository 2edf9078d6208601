// Apfctl answers questions about a cluster's API Priority and Fairness
// configuration, read from the cluster or from YAML files:
//
//	apfctl classify  which FlowSchema, priority level and flow a request gets
//	apfctl exempt    the schemas whose requests skip every limit, and the dangling ones
//	apfctl seats     each priority level's seats
//
// Usage:
//
//	apfctl classify [flags] --user NAME [--group G]... [--verb V] [--api-group G] --resource R[/SUB] [-n NS] [--name NAME]
//	apfctl classify [flags] --user NAME [--group G]... [--verb V] --path /PATH
//	apfctl exempt [flags]
//	apfctl seats [flags] [--server-seats N]
//
// Flags every subcommand takes: --kubeconfig FILE and --context NAME (as
// kubectl), or -f FILE (repeatable; - is standard input) to read
// FlowSchemas and PriorityLevelConfigurations from files instead;
// -o text|json (and, for seats, svg: each level's seats drawn as an SVG
// figure). apfctl exits 2 on a usage error and 1 on any other error,
// with one line naming it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	flowcontrol "k8s.io/api/flowcontrol/v1"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/internal/cmdshell"
	"github.com/opslab/opslab/internal/kubeio"
)

const usage = `usage: apfctl classify|exempt|seats [flags]`

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run runs apfctl with args, reading standard input for -f -, and returns
// its exit status: 0, 1 for an error, 2 for a usage error, each error one
// line on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdshell.Exit("apfctl", apfctl(args, stdin, stdout), stderr)
}

// common holds the flags every subcommand takes.
type common struct {
	kubeconfig, context, output string
	files                       cmdshell.Strings
	stdin                       io.Reader
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig `file` (default $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&c.context, "context", "", "kubeconfig `context` (default the current one)")
	fs.StringVar(&c.output, "o", "text", "output `format`: text or json; for seats, svg draws the seats as a figure")
	fs.Var(&c.files, "f", "read FlowSchemas and PriorityLevelConfigurations from `file` instead of the cluster (repeatable; - is standard input)")
}

func (c *common) load() (kube.Objects, error) {
	if len(c.files) > 0 {
		return kube.ReadFiles(c.files, c.stdin)
	}
	cl, err := kubeio.Connect(c.kubeconfig, c.context)
	if err != nil {
		return kube.Objects{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubeio.Timeout)
	defer cancel()
	return kube.Load(ctx, cl.Kube)
}

// apfctl runs the subcommand args[0] with the flags after it.
func apfctl(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return cmdshell.Usagef("%s", usage)
	}
	sub := args[0]
	fs := flag.NewFlagSet("apfctl "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := common{stdin: stdin}
	c.register(fs)
	parse := func() error {
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return cmdshell.Usagef("%v; see apfctl %s -h", err, sub)
		}
		if fs.NArg() > 0 {
			return cmdshell.Usagef("unexpected argument %q", fs.Arg(0))
		}
		if c.output == "svg" && sub != "seats" {
			return cmdshell.Usagef("-o svg: only apfctl seats draws a figure; want text or json")
		}
		if c.output != "text" && c.output != "json" && c.output != "svg" {
			return cmdshell.Usagef("-o %s: want text or json (or svg for seats)", c.output)
		}
		return nil
	}
	var err error
	switch sub {
	case "classify":
		err = classify(fs, &c, parse, stdout)
	case "exempt":
		if err = parse(); err == nil {
			err = exempt(&c, stdout)
		}
	case "seats":
		server := fs.Int("server-seats", apf.DefaultServerSeats, "the server's concurrency `limit`: --max-requests-inflight plus --max-mutating-requests-inflight")
		if err = parse(); err == nil {
			if *server < 1 {
				return cmdshell.Usagef("--server-seats %d: want a positive number", *server)
			}
			err = seats(&c, *server, stdout)
		}
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		fmt.Fprintln(stdout, `run "apfctl SUBCOMMAND -h" for a subcommand's flags`)
		return nil
	default:
		return cmdshell.Usagef("unknown subcommand %q: want classify, exempt or seats", sub)
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: apfctl %s [flags]\n", sub)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	}
	return err
}

func config(c *common) (*kube.Config, error) {
	objs, err := c.load()
	if err != nil {
		return nil, err
	}
	return objs.Config()
}

// classification is classify's answer; -o json prints it as is.
type classification struct {
	User          string   `json:"user"`
	Groups        []string `json:"groups"`
	Namespace     string   `json:"namespace,omitempty"` // the namespace the server reads from the path
	FlowSchema    string   `json:"flowSchema"`
	Precedence    int32    `json:"matchingPrecedence"`
	PriorityLevel string   `json:"priorityLevel"`
	LevelType     string   `json:"levelType"`
	Distinguisher string   `json:"distinguisher"`
	Method        string   `json:"distinguisherMethod,omitempty"`
	// Ties lists the other schemas of the same precedence that match too:
	// only the name order decided between them.
	Ties []string `json:"ties,omitempty"`
}

func classify(fs *flag.FlagSet, c *common, parse func() error, stdout io.Writer) error {
	var r kube.Request
	var groups []string
	fs.StringVar(&r.User, "user", "", "the user `name`, e.g. system:serviceaccount:NS:NAME for a service account")
	fs.Func("group", "a `group` of the user (repeatable, or comma-separated)", func(s string) error {
		groups = append(groups, strings.Split(s, ",")...)
		return nil
	})
	fs.StringVar(&r.Verb, "verb", "get", "the `verb`: get, list, watch, create, update, patch, delete, deletecollection; for a path, the lower-case HTTP method")
	fs.StringVar(&r.APIGroup, "api-group", "", "the API `group` of the resource (\"\" is the core group)")
	resource := fs.String("resource", "", "the `resource`, or resource/subresource")
	fs.StringVar(&r.Namespace, "namespace", "", "the `namespace` (none: a cluster-scoped request)")
	fs.StringVar(&r.Namespace, "n", "", "shorthand for --namespace")
	fs.StringVar(&r.Name, "name", "", "the object's `name`; required to get, update, patch or delete a Namespace, whose name the server reads as the request's namespace")
	fs.StringVar(&r.Path, "path", "", "the URL `path` of a non-resource request, e.g. /healthz")
	literal := fs.Bool("no-implicit-groups", false, "use the groups exactly as given, without the ones the API server adds (system:authenticated, a service account's groups)")
	if err := parse(); err != nil {
		return err
	}
	r.Resource, r.Subresource, _ = strings.Cut(*resource, "/")
	switch {
	case r.User == "":
		return cmdshell.Usagef("--user is required")
	case (r.Resource == "") == (r.Path == ""):
		return cmdshell.Usagef("give either --resource or --path")
	case r.Path != "" && (r.Namespace != "" || r.APIGroup != ""):
		return cmdshell.Usagef("--path is a non-resource request: it takes no --namespace or --api-group")
	case r.Path != "" && !strings.HasPrefix(r.Path, "/"):
		return cmdshell.Usagef("--path %q: want a path starting with /", r.Path)
	case r.Resource == "namespaces" && r.Name == "" && r.Namespace == "" && oneObject[r.Verb]:
		return cmdshell.Usagef("--verb %s --resource namespaces needs --name: the server classifies a Namespace by name in the namespace of that name", r.Verb)
	}
	given := r.Namespace
	if r.IsResourceRequest() {
		// Classify what the server reads from the request line, not what
		// the flags say: the path decides the namespace.
		seen, err := kube.Seen(r)
		if err != nil {
			return cmdshell.Usagef("%v", err)
		}
		r = seen
	}
	r.Groups = groups
	if !*literal {
		r.Groups = kube.Impersonated(r.User, groups)
	}
	cfg, err := config(c)
	if err != nil {
		return err
	}
	got := cfg.Classify(r)
	out := classification{
		User: r.User, Groups: r.Groups, Namespace: r.Namespace,
		FlowSchema: got.Schema.Name, Precedence: got.Schema.Spec.MatchingPrecedence,
		PriorityLevel: got.Level.Name, LevelType: levelType(got.Level),
		Distinguisher: got.Distinguisher,
	}
	if out.Groups == nil {
		out.Groups = []string{}
	}
	if m := got.Schema.Spec.DistinguisherMethod; m != nil && got.Queued {
		out.Method = string(m.Type)
	}
	for _, s := range cfg.Matching(r) {
		if s != got.Schema && s.Spec.MatchingPrecedence == got.Schema.Spec.MatchingPrecedence {
			out.Ties = append(out.Ties, s.Name)
		}
	}
	if c.output == "json" {
		return printJSON(stdout, out)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "flowSchema:\t%s (matchingPrecedence %d)\n", out.FlowSchema, out.Precedence)
	fmt.Fprintf(w, "priorityLevel:\t%s (%s)\n", out.PriorityLevel, out.LevelType)
	switch {
	case !got.Queued:
		fmt.Fprintf(w, "distinguisher:\tnone: the level does not queue, so it has no flows\n")
	case out.Method == "":
		fmt.Fprintf(w, "distinguisher:\t\"\" (no method: the whole schema is one flow)\n")
	default:
		fmt.Fprintf(w, "distinguisher:\t%q (%s)\n", out.Distinguisher, out.Method)
	}
	if r.Namespace != given {
		fmt.Fprintf(w, "namespace:\t%s (the server reads a Namespace's name as the request's namespace)\n", r.Namespace)
	}
	if len(out.Groups) == 0 {
		fmt.Fprintf(w, "groups:\t(none)\n")
	} else {
		fmt.Fprintf(w, "groups:\t%s\n", strings.Join(out.Groups, " "))
	}
	for _, t := range out.Ties {
		fmt.Fprintf(w, "tie:\t%s matches too at precedence %d; %s wins only because its name sorts first\n", t, out.Precedence, out.FlowSchema)
	}
	return w.Flush()
}

// oneObject are the verbs of requests for one named object.
var oneObject = map[string]bool{"get": true, "update": true, "patch": true, "delete": true}

func levelType(pl *flowcontrol.PriorityLevelConfiguration) string {
	l := pl.Spec.Limited
	if l == nil {
		return string(pl.Spec.Type)
	}
	if q := l.LimitResponse.Queuing; q != nil {
		return fmt.Sprintf("Limited, Queue: %d queues, handSize %d, queueLengthLimit %d", q.Queues, q.HandSize, q.QueueLengthLimit)
	}
	return "Limited, Reject"
}

type exemptReport struct {
	Exempt   []exemptSchema  `json:"exempt"`
	Dangling []kube.Dangling `json:"dangling"`
	Broken   []kube.Broken   `json:"brokenLevels"`
	Supplied []string        `json:"supplied"`
}

type exemptSchema struct {
	Name       string   `json:"name"`
	Precedence int32    `json:"matchingPrecedence"`
	Level      string   `json:"priorityLevel"`
	Subjects   []string `json:"subjects"`
}

func exempt(c *common, stdout io.Writer) error {
	cfg, err := config(c)
	if err != nil {
		return err
	}
	rep := exemptReport{Dangling: cfg.Dangling, Broken: cfg.Broken, Supplied: cfg.Supplied}
	for _, s := range cfg.Exempt() {
		rep.Exempt = append(rep.Exempt, exemptSchema{s.Name, s.Spec.MatchingPrecedence, s.Spec.PriorityLevelConfiguration.Name, subjects(s)})
	}
	if c.output == "json" {
		if rep.Dangling == nil {
			rep.Dangling = []kube.Dangling{}
		}
		if rep.Broken == nil {
			rep.Broken = []kube.Broken{}
		}
		if rep.Supplied == nil {
			rep.Supplied = []string{}
		}
		return printJSON(stdout, rep)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "EXEMPT SCHEMA\tPRECEDENCE\tLEVEL\tSUBJECTS")
	for _, e := range rep.Exempt {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\n", e.Name, e.Precedence, e.Level, strings.Join(e.Subjects, ", "))
	}
	w.Flush()
	fmt.Fprintln(stdout)
	if len(rep.Dangling) == 0 {
		fmt.Fprintln(stdout, "no dangling schemas")
	} else {
		fmt.Fprintln(w, "DANGLING SCHEMA\tMISSING LEVEL")
		for _, d := range rep.Dangling {
			fmt.Fprintf(w, "%s\t%s\n", d.Schema, d.Level)
		}
		w.Flush()
	}
	for _, b := range rep.Broken {
		fmt.Fprintf(stdout, "broken level %s is ignored: %s\n", b.Level, b.Reason)
	}
	for _, s := range rep.Supplied {
		fmt.Fprintf(stdout, "missing mandatory %s: the server supplies it\n", s)
	}
	return nil
}

func subjects(fs *flowcontrol.FlowSchema) []string {
	var out []string
	for _, r := range fs.Spec.Rules {
		for _, s := range r.Subjects {
			switch {
			case s.User != nil:
				out = append(out, "user "+s.User.Name)
			case s.Group != nil:
				out = append(out, "group "+s.Group.Name)
			case s.ServiceAccount != nil:
				out = append(out, "serviceaccount "+s.ServiceAccount.Namespace+"/"+s.ServiceAccount.Name)
			}
		}
	}
	return out
}

func seats(c *common, server int, stdout io.Writer) error {
	cfg, err := config(c)
	if err != nil {
		return err
	}
	rows := cfg.Seats(server)
	if c.output == "svg" {
		var plain []apf.LevelSeats
		for _, s := range rows {
			plain = append(plain, s.LevelSeats)
		}
		_, err := stdout.Write(apf.SeatsFigure(server, plain))
		return err
	}
	if c.output == "json" {
		type row struct {
			Level     string `json:"priorityLevel"`
			Type      string `json:"type"`
			Shares    int32  `json:"nominalConcurrencyShares"`
			Nominal   int    `json:"nominal"`
			Lendable  int    `json:"lendable"`
			Borrowing int    `json:"borrowing"`
			Min       int    `json:"min"`
			Max       int    `json:"max"`
		}
		out := []row{}
		for _, s := range rows {
			out = append(out, row{s.Level, string(s.Type), s.Shares, s.Nominal, s.Lendable, s.Borrowing, s.Min, s.Max})
		}
		return printJSON(stdout, out)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "LEVEL\tTYPE\tSHARES\tNOMINAL\tLENDABLE\tBORROWING\tMIN\tMAX")
	total := 0
	for _, s := range rows {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", s.Level, s.Type, s.Shares, s.Nominal, s.Lendable, s.Borrowing, s.Min, s.Max)
		total += s.Nominal
	}
	w.Flush()
	fmt.Fprintf(stdout, "server seats %d; nominal seats add up to %d (each level's share is rounded up)\n", server, total)
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
