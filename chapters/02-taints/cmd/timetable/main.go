package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/internal/cmdshell"
)

const usage = `usage: timetable [-f FILE]... [--kubeconfig FILE] [--context NAME] [-n NAMESPACE] [--node NAME] [-o text|json|svg] TAINT...

Timetable prints, for each pod, when it would leave its node once the node
carries TAINT (key[=value]:Effect, as kubectl taint writes it): now, after N
seconds, or never; soonest first.

Pods come from the namespace of a live cluster, or from YAML files with -f
(a Pod or a List per document, several documents per file; - is stdin).

  -f FILE            read pods from FILE instead of a cluster (repeatable)
  --kubeconfig FILE  kubeconfig to use (default $KUBECONFIG or ~/.kube/config)
  --context NAME     kubeconfig context to use
  -n, --namespace NS namespace (default: the context's, else "default")
  --node NAME        only the pods on node NAME: the node that gets the taint
  -o text|json|svg   output format (default text); svg draws the timetable,
                     one pod a row, as a figure
`

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

type options struct {
	files      cmdshell.Strings
	kubeconfig string
	context    string
	namespace  string
	node       string
	output     string
	taints     []taints.Taint
}

// run runs the command, reading pods from stdin for -f -, and returns its
// exit status: 0 on success, 2 on a usage error (a bad flag or taint), 1 on
// any other error, each error one line on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdshell.Exit("timetable", timetable(args, stdin, stdout, stderr), stderr)
}

// timetable prints the timetable args ask for. The rules it applies are
// those of package taints.
func timetable(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	opts, err := parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if err != nil {
		return err
	}
	pods, skipped, err := readPods(opts, stdin)
	if err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "timetable: %d pods not on a node left out\n", skipped)
	}
	rows := taints.Timetable(pods, opts.taints)
	switch opts.output {
	case "json":
		return writeJSON(stdout, rows)
	case "svg":
		_, err := stdout.Write(drawTimetable(rows, opts.taints))
		return err
	}
	return writeText(stdout, rows)
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("timetable", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&o.files, "f", "")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&o.context, "context", "", "")
	fs.StringVar(&o.namespace, "n", "", "")
	fs.StringVar(&o.namespace, "namespace", "", "")
	fs.StringVar(&o.node, "node", "", "")
	fs.StringVar(&o.output, "o", "text", "")
	// Flags may follow the taints, as with kubectl.
	rest, err := cmdshell.Interspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return o, err
	}
	if err != nil {
		return o, cmdshell.Usagef("%v: see timetable -h", err)
	}
	if len(rest) == 0 {
		return o, cmdshell.Usagef("no taint given: write key[=value]:Effect, e.g. opslab.dev/link-down:NoExecute")
	}
	for _, s := range rest {
		t, err := taints.ParseTaint(s)
		if err != nil {
			return o, cmdshell.Usagef("%v", err)
		}
		o.taints = append(o.taints, t)
	}
	if o.output != "text" && o.output != "json" && o.output != "svg" {
		return o, cmdshell.Usagef("output %q is not known: use -o text, -o json or -o svg", o.output)
	}
	if len(o.files) > 0 && (o.kubeconfig != "" || o.context != "") {
		return o, cmdshell.Usagef("-f reads files, --kubeconfig and --context read a cluster: give one or the other")
	}
	return o, nil
}

// toleration returns the toleration column: the toleration that decided,
// "none" when a taint was not tolerated, "-" when no NoExecute taint applies.
func toleration(v taints.Verdict) string {
	switch {
	case v.By != nil:
		return v.By.Toleration.String()
	case v.Untolerated != nil:
		return "none"
	default:
		return "-"
	}
}

func writeText(w io.Writer, rows []taints.Row) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tPOD\tNODE\tTOLERATION\tLEAVES")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Pod.Namespace, r.Pod.Name, r.Pod.Node, toleration(r.Verdict), r.Verdict.Leave)
	}
	return tw.Flush()
}

// A jsonRow is one pod in -o json.
type jsonRow struct {
	Namespace  string  `json:"namespace"`
	Pod        string  `json:"pod"`
	Node       string  `json:"node"`
	Toleration *string `json:"toleration"`        // null when none was used
	Leaves     string  `json:"leaves"`            // now, after or never
	Seconds    *int64  `json:"seconds,omitempty"` // only with "after"
}

func writeJSON(w io.Writer, rows []taints.Row) error {
	out := make([]jsonRow, 0, len(rows))
	for _, r := range rows {
		j := jsonRow{Namespace: r.Pod.Namespace, Pod: r.Pod.Name, Node: r.Pod.Node}
		if r.Verdict.By != nil {
			s := r.Verdict.By.Toleration.String()
			j.Toleration = &s
		}
		switch r.Verdict.Leave.Kind {
		case taints.AtOnce:
			j.Leaves = "now"
		case taints.After:
			j.Leaves = "after"
			s := int64(r.Verdict.Leave.After.Seconds())
			j.Seconds = &s
		default:
			j.Leaves = "never"
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
