// Command outage runs the zone-outage lab of chapter 2 on the lab's scale
// cluster: it predicts, with the chapter's model and the controller's own
// settings read from the cluster's configuration, which nodes the node
// lifecycle controller taints and when; it switches nodes off; and it
// compares what the controller did with the prediction.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/check"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/internal/cmdshell"
	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/labcheck/audit"
	"k8s.io/client-go/kubernetes"
)

const usage = `usage: outage [--kubeconfig FILE] [--context NAME] [--settings FILE] COMMAND [EXPERIMENT]...

Outage is chapter 2's zone-outage lab on the scale cluster (make outage-up).

  outage predict [EXPERIMENT]...  what the model expects of each experiment
  outage run [EXPERIMENT]...      prepare the cluster, predict, switch the nodes,
                                  watch, and compare what happened with the model
  outage populate                 create the lab's 150 nodes and their pods
  outage show FILE                replay a run recorded with --record against the model

Experiments, in the order run takes them when none is named:
%s
  --kubeconfig FILE  kubeconfig to use (default $KUBECONFIG or ~/.kube/config)
  --context NAME     the scale cluster's context (default $OPSLAB_CONTEXT-scale,
                     else kwok-opslab-scale)
  --settings FILE    read the controller's settings from FILE, a kwokctl
                     cluster's kwok.yaml, instead of the context's cluster
  --record FILE      run: write what was seen, as JSON, to FILE
  --svg FILE         run and show: draw the taints, the model's and the
                     controller's, zone by zone, as an SVG figure in FILE
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command and returns its exit status: 0 on success, 2 on a
// usage error, 1 when an experiment did not go as the model says or on any
// other error, each error one line on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	return cmdshell.Exit("outage", outage(args, stdout, stderr), stderr)
}

type options struct {
	kubeconfig, context, settings, record string
	svg                                   string
	command                               string
	show                                  string // the record file of outage show
	experiments                           []taints.Experiment
}

func experimentList() string {
	var b strings.Builder
	for _, e := range taints.Experiments(taints.OutageLayout) {
		fmt.Fprintf(&b, "  %-14s %s\n", e.Name, e.Title)
	}
	return b.String()
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("outage", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&o.context, "context", defaultContext(), "")
	fs.StringVar(&o.settings, "settings", "", "")
	fs.StringVar(&o.record, "record", "", "")
	fs.StringVar(&o.svg, "svg", "", "")
	// Flags may come before and after the command and the experiments.
	rest, err := cmdshell.Interspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return o, err
	}
	if err != nil {
		return o, cmdshell.Usagef("%v: see outage -h", err)
	}
	if len(rest) == 0 {
		return o, cmdshell.Usagef("no command given: outage predict, outage run or outage populate")
	}
	o.command = rest[0]
	switch o.command {
	case "predict", "run":
	case "show":
		if len(rest) != 2 {
			return o, cmdshell.Usagef("outage show takes one file, written by outage run --record")
		}
		o.show = rest[1]
		if o.record != "" {
			return o, cmdshell.Usagef("--record goes with outage run")
		}
		return o, nil
	case "populate":
		if len(rest) > 1 {
			return o, cmdshell.Usagef("outage populate takes no experiment")
		}
	default:
		return o, cmdshell.Usagef("command %q is not known: use predict, run, show or populate", o.command)
	}
	all := taints.Experiments(taints.OutageLayout)
	for _, name := range rest[1:] {
		i := slices.IndexFunc(all, func(e taints.Experiment) bool { return e.Name == name })
		if i < 0 {
			var names []string
			for _, e := range all {
				names = append(names, e.Name)
			}
			return o, cmdshell.Usagef("experiment %q is not known: use one of %s", name, strings.Join(names, ", "))
		}
		o.experiments = append(o.experiments, all[i])
	}
	if len(o.experiments) == 0 {
		o.experiments = all
	}
	if o.record != "" && o.command != "run" {
		return o, cmdshell.Usagef("--record goes with outage run")
	}
	if o.svg != "" && o.command != "run" && o.command != "show" {
		return o, cmdshell.Usagef("--svg goes with outage run or outage show")
	}
	return o, nil
}

// defaultContext is the scale cluster's context next to the lab cluster of
// $OPSLAB_CONTEXT: kwok-opslab-scale for kwok-opslab.
func defaultContext() string {
	if c := os.Getenv("OPSLAB_CONTEXT"); c != "" {
		return c + "-scale"
	}
	return "kwok-opslab-scale"
}

func outage(args []string, stdout, stderr io.Writer) error {
	o, err := parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, usage, experimentList())
		return nil
	}
	if err != nil {
		return err
	}
	if o.command == "show" {
		return show(o.show, o.svg, stdout)
	}
	ctrl, model, err := settings(o)
	if err != nil {
		return err
	}
	if o.command == "predict" {
		fmt.Fprintln(stdout, describeSettings(model))
		for _, e := range o.experiments {
			fmt.Fprintln(stdout)
			writePrediction(stdout, model, e)
		}
		return nil
	}
	c, err := kubeio.Connect(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	// Switching 150 nodes is 150 requests: lift client-go's default limit
	// of 5 a second, which would stretch a switch over half a minute.
	c.Config.QPS, c.Config.Burst = 500, 500
	if c.Kube, err = kubernetes.NewForConfig(c.Config); err != nil {
		return fmt.Errorf("cannot make a client for %s: %v", c.Config.Host, err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	lab := &lab{cluster: c, ctrl: ctrl, model: model, out: stdout}
	if o.command == "populate" {
		return lab.populate(ctx, nil)
	}
	if err := lab.prepare(ctx, nil); err != nil {
		return err
	}
	fmt.Fprintln(stdout, describeSettings(model))
	if path, err := audit.Locate(o.context); err != nil {
		fmt.Fprintf(stdout, "the times compared are when the lab's watch saw each change: %v\n", err)
	} else if lab.audit, err = audit.Read(path); err != nil {
		return fmt.Errorf("cannot read the scale cluster's audit log: %v", err)
	} else {
		fmt.Fprintln(stdout, "the times compared are when the API server received the write that made each change, from the scale cluster's audit log")
	}
	var records []record
	failed := 0
	for _, e := range o.experiments {
		fmt.Fprintln(stdout)
		rec, err := lab.experiment(ctx, e)
		if err != nil {
			if werr := writeRecord(o.record, records); werr != nil {
				return werr
			}
			return err
		}
		records = append(records, rec)
		if len(rec.Differences) > 0 {
			failed++
		}
	}
	if err := writeRecord(o.record, records); err != nil {
		return err
	}
	if err := writeSVG(o.svg, records); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d experiments did not go as the model predicts", failed, len(o.experiments))
	}
	fmt.Fprintf(stdout, "\nall %d experiments went as the model predicts\n", len(o.experiments))
	return nil
}

// show replays the runs of a record file against the model, with the
// settings each run recorded, and prints each one's timeline.
func show(path, svg string, w io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %v", path, err)
	}
	var records []record
	if err := json.Unmarshal(data, &records); err != nil {
		return fmt.Errorf("%s is not a record of outage run --record: %v", path, err)
	}
	all := taints.Experiments(taints.OutageLayout)
	failed := 0
	for i, r := range records {
		j := slices.IndexFunc(all, func(e taints.Experiment) bool { return e.Name == r.Experiment })
		if j < 0 {
			return fmt.Errorf("%s: experiment %q is not one of the lab's", path, r.Experiment)
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		m := taints.Outage{Rates: r.Rates, MonitorPeriod: r.MonitorPeriod, Layout: taints.OutageLayout}
		fmt.Fprintf(w, "%s: %s\n", r.Experiment, all[j].Title)
		if !report(w, m, all[j], r.Run) {
			failed++
		}
	}
	if err := writeSVG(svg, records); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs do not go as the model predicts", failed, len(records))
	}
	return nil
}

// writeSVG draws the records' taints as a figure into path, if there is one.
func writeSVG(path string, records []record) error {
	if path == "" {
		return nil
	}
	var runs []taints.Run
	for _, r := range records {
		runs = append(runs, r.Run)
	}
	if err := os.WriteFile(path, taints.OutageFigure(runs), 0o644); err != nil {
		return fmt.Errorf("cannot write the figure: %v", err)
	}
	return nil
}

// report replays a run against the model and prints its timeline and the
// verdict; it returns whether the run went as predicted.
func report(w io.Writer, m taints.Outage, e taints.Experiment, run taints.Run) bool {
	fit, diffs := m.Replay(e, run)
	observed := e
	observed.Flips, observed.Watch = run.Flips, run.End
	writeSeen(w, m, run.Marks, run.Evicted, fit.Predict(observed), run.End)
	if len(diffs) == 0 {
		fmt.Fprintf(w, "  as predicted%s\n", insideNote(fit.Inside))
		return true
	}
	fmt.Fprintln(w, "  NOT as predicted, at best:")
	for _, d := range diffs {
		fmt.Fprintf(w, "    %s\n", d)
	}
	return false
}

// writeRecord writes the experiments' records to path, if there is one.
func writeRecord(path string, records []record) error {
	if path == "" {
		return nil
	}
	data, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write the record: %v", err)
	}
	return nil
}

// settings reads the controller's settings, from --settings or from the
// context's cluster, into the model's outage.
func settings(o options) (kube.Controller, taints.Outage, error) {
	var (
		c   kube.Controller
		err error
	)
	if o.settings != "" {
		data, rerr := os.ReadFile(o.settings)
		if rerr != nil {
			return c, taints.Outage{}, fmt.Errorf("cannot read --settings: %v", rerr)
		}
		c, err = kube.Settings(data)
	} else {
		c, err = kube.SettingsOf(o.context)
	}
	if err != nil {
		return c, taints.Outage{}, err
	}
	return c, taints.Outage{Rates: c.Rates, MonitorPeriod: c.MonitorPeriod, Layout: taints.OutageLayout}, nil
}

func describeSettings(m taints.Outage) string {
	r := m.Rates
	return fmt.Sprintf("the controller's settings, from the cluster's configuration: --node-eviction-rate %g, --secondary-node-eviction-rate %g, --large-cluster-size-threshold %d, --unhealthy-zone-threshold %g, --node-monitor-period %s",
		r.Normal, r.Secondary, r.LargeCluster, r.UnhealthyThreshold, m.MonitorPeriod)
}

// writePrediction prints what the model expects, with the health pass
// coming right at the start; the real one comes up to a monitor period
// later, and everything with it.
func writePrediction(w io.Writer, m taints.Outage, e taints.Experiment) {
	p := m.Predict(e)
	fmt.Fprintf(w, "%s: %s\n", e.Name, e.Title)
	fmt.Fprintf(w, "  the model predicts, in seconds from the first health pass after the switch (at most %s after it):\n", m.MonitorPeriod)
	for _, z := range p.Zones {
		fmt.Fprintf(w, "    at %4.1fs %s becomes %s, tainting %s\n", z.At.Seconds(), z.Zone, z.State, rate(z.Rate))
	}
	added := p.Tainted()
	for _, z := range m.Layout {
		if ts := added[z.Name]; len(ts) > 0 {
			fmt.Fprintf(w, "    %s: %d nodes tainted, at %s s\n", z.Name, len(ts), secs(ts))
		}
	}
	removed := 0
	for _, mk := range p.Marks {
		if !mk.Added {
			removed++
		}
	}
	switch {
	case len(p.Marks) == 0:
		fmt.Fprintln(w, "    no node is tainted, so no pod is evicted")
	case removed > 0:
		fmt.Fprintf(w, "    %d taints taken off again\n", removed)
	}
	if left := p.Left(); len(left) > 0 {
		fmt.Fprintf(w, "    the pods of the %d nodes still tainted are evicted %ds after their node's taint\n", len(left), kube.OutageTolerationSeconds)
	}
}

func rate(r float64) string {
	if r == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%g nodes/s (one every %.1fs)", r, 1/r)
}

func secs(ts []time.Duration) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprintf("%.1f", t.Seconds()))
	}
	return strings.Join(s, " ")
}

// stoppedTries is how many times prepare switches every node off before
// it gives up on a start with no taint the race left on.
const stoppedTries = 5

// A lab is the scale cluster and its controller, with the model that
// predicts it.
type lab struct {
	cluster *kubeio.Cluster
	ctrl    kube.Controller
	model   taints.Outage
	out     io.Writer
	// audit is the scale cluster's audit log, nil when it is not on this
	// machine: then the times compared are the watch's.
	audit *audit.Log
}

// prepare brings the cluster to an experiment's start (populate), then
// waits for a health pass that sees the zones so, and for every zone's
// bucket to fill.
//
// An experiment that starts with every node down (recovery) starts, in the
// model, with no taint: entering that state the controller takes its
// taints off the nodes as its health pass listed them. But a tainting pass
// inside that very health pass may have put one on (the race,
// taints.Outage.Inside), and the controller, stopped, never takes it off.
// Then prepare switches every node on, so that the controller takes it
// off, and off again, up to stoppedTries times.
func (l *lab) prepare(ctx context.Context, down []string) error {
	for try := 1; ; try++ {
		if err := l.populate(ctx, down); err != nil {
			return err
		}
		// A health pass that sees the nodes as they are now.
		if _, err := l.nextPass(ctx); err != nil {
			return err
		}
		if len(down) < len(l.model.Layout.Nodes()) {
			break
		}
		// That pass may have been the one that found every node down.
		left, err := kube.ControllerTainted(ctx, l.cluster.Kube)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			break
		}
		if try == stoppedTries {
			return fmt.Errorf("after %d tries, every node down still leaves the controller's taint on %s, which the model's start has not; make outage-down and make outage-up start the cluster again", try, strings.Join(left, ", "))
		}
		fmt.Fprintf(l.out, "  preparing: the race between the controller's two loops left its taint on %s as every node went down, and stopped, it never takes it off: switching every node on and off again\n", strings.Join(left, ", "))
		if err := l.populate(ctx, nil); err != nil {
			return err
		}
	}
	// One token's time for the buckets the pass swapped.
	return sleep(ctx, time.Duration(float64(time.Second)/l.model.Rates.Normal)+200*time.Millisecond)
}

// populate creates the lab's nodes and pods where missing, switches the
// nodes of down off and every other node on, and waits until those are
// Ready and untainted and every lab pod runs.
func (l *lab) populate(ctx context.Context, down []string) error {
	c, m := l.cluster, l.model
	if err := kube.PopulateNodes(ctx, c.Kube, m.Layout); err != nil {
		return err
	}
	var on []string
	for _, n := range m.Layout.Nodes() {
		if !slices.Contains(down, n.Name) {
			on = append(on, n.Name)
		}
	}
	if err := kube.Power(ctx, c.Kube, on, true); err != nil {
		return err
	}
	if err := kube.Power(ctx, c.Kube, down, false); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	last := ""
	for {
		// The pods come once the nodes are as the experiment starts them:
		// a pod created on a node still tainted would be evicted again.
		ok, why, err := kube.NodesAsStarted(ctx, c.Kube, m.Layout, down)
		if err == nil && ok {
			if err = kube.PopulatePods(ctx, c.Kube, m.Layout); err == nil {
				ok, why, err = kube.PodsRunning(ctx, c.Kube, m.Layout)
			}
		}
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if why != last {
			fmt.Fprintf(l.out, "  preparing: %s\n", why)
			last = why
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster did not get ready for the experiment in 2 minutes (%s); make outage-down and make outage-up start it again", why)
		}
		if err := kube.PopulateNodes(ctx, c.Kube, m.Layout); err != nil {
			return err
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// nextPass waits for the controller's next health pass, polling its metrics,
// and returns when it saw it.
func (l *lab) nextPass(ctx context.Context) (time.Time, error) {
	first, err := l.ctrl.ReadMetrics(ctx)
	if err != nil {
		return time.Time{}, err
	}
	deadline := time.Now().Add(3 * l.model.MonitorPeriod)
	for time.Now().Before(deadline) {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return time.Time{}, err
		}
		m, err := l.ctrl.ReadMetrics(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if m.Passes > first.Passes {
			return time.Now(), nil
		}
	}
	return time.Time{}, fmt.Errorf("the node lifecycle controller made no health pass in %s; is kube-controller-manager running? make outage-down and make outage-up start the cluster again", 3*l.model.MonitorPeriod)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return errors.New("interrupted")
	case <-time.After(d):
		return nil
	}
}

// A record is one experiment as the lab ran it, the JSON of --record.
type record struct {
	taints.Run
	Differences []string `json:"differences,omitempty"`
}

// experiment runs one experiment and prints how it went. It switches the
// nodes right after a health pass, so that the outage is whole by the next
// one, and it lets the model know when that pass came.
func (l *lab) experiment(ctx context.Context, e taints.Experiment) (record, error) {
	c, m, w := l.cluster, l.model, l.out
	writePrediction(w, m, e)
	if err := l.prepare(ctx, e.Before); err != nil {
		return record{}, err
	}
	rec, err := kube.Record(ctx, c.Kube)
	if err != nil {
		return record{}, err
	}
	started := time.Now().Add(-rec.Since()) // when the recording's times count from
	pass, err := l.nextPass(ctx)
	if err != nil {
		rec.Stop()
		return record{}, err
	}
	passAt := rec.Since() - time.Since(pass)
	var switching time.Duration // the time spent in the switches' requests
	for _, group := range groupFlips(e.Flips) {
		if wait := passAt + group[0].At - rec.Since(); wait > 0 {
			time.Sleep(wait)
		}
		var names []string
		for _, f := range group {
			names = append(names, f.Node)
		}
		begun := time.Now()
		if err := kube.Power(ctx, c.Kube, names, group[0].Ready == taints.True); err != nil {
			rec.Stop()
			return record{}, err
		}
		switching += time.Since(begun)
	}
	fmt.Fprintf(w, "  switched %d nodes right after a health pass, in %.1fs; watching for %s\n", len(e.Flips), switching.Seconds(), e.Watch+m.MonitorPeriod)
	passes, err := l.passes(ctx, rec, passAt+m.MonitorPeriod+e.Watch)
	if err != nil {
		rec.Stop()
		return record{}, err
	}
	seen := rec.Stop()
	if l.audit != nil {
		if err := l.audit.Refresh(); err != nil {
			return record{}, fmt.Errorf("cannot read the scale cluster's audit log: %v", err)
		}
		var found int
		total := len(seen.Flips) + len(seen.Marks) + len(seen.Evicted)
		watched := seen.Marks
		seen, found = check.AtRequests(l.audit.Events, m.Layout, started, seen)
		if found < total {
			fmt.Fprintf(w, "  the audit log holds the writes of %d of the %d changes seen; the others keep the time the watch saw them\n", found, total)
		}
		if len(watched) > 0 {
			var delays []time.Duration
			for i := range watched {
				delays = append(delays, watched[i].At-seen.Marks[i].At)
			}
			slices.Sort(delays)
			fmt.Fprintf(w, "  the watch saw the taints %.2fs after their writes arrived (median; at most %.2fs)\n", delays[len(delays)/2].Seconds(), delays[len(delays)-1].Seconds())
		}
	}
	run := taints.Run{
		Experiment: e.Name, Rates: m.Rates, MonitorPeriod: m.MonitorPeriod,
		TolerationSeconds: kube.OutageTolerationSeconds,
		Flips:             seen.Flips, Passes: append([]time.Duration{passAt}, passes...),
		Marks: seen.Marks, Evicted: seen.Evicted, End: passAt + m.MonitorPeriod + e.Watch,
	}
	_, diffs := m.Replay(e, run)
	report(w, m, e, run)
	return record{Run: run, Differences: diffs}, nil
}

// passes polls the controller's metrics until the recording is until old,
// and returns when it saw each health pass end, counted as the recording
// counts.
func (l *lab) passes(ctx context.Context, rec *kube.Recorder, until time.Duration) ([]time.Duration, error) {
	first, err := l.ctrl.ReadMetrics(ctx)
	if err != nil {
		return nil, err
	}
	var passes []time.Duration
	last := first.Passes
	for rec.Since() < until {
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
		m, err := l.ctrl.ReadMetrics(ctx)
		if err != nil {
			return nil, err
		}
		if m.Passes > last {
			passes = append(passes, rec.Since())
			last = m.Passes
		}
	}
	return passes, nil
}

// insideNote names the zones in which a tainting pass inside a health
// pass found failed nodes queued, when the fit has one.
func insideNote(inside []string) string {
	if len(inside) == 0 {
		return ""
	}
	return fmt.Sprintf(", with a tainting pass inside a health pass (%s)", strings.Join(inside, ", "))
}

// groupFlips splits flips into groups made at the same time.
func groupFlips(flips []taints.Flip) [][]taints.Flip {
	var groups [][]taints.Flip
	for _, f := range flips {
		if n := len(groups); n > 0 && groups[n-1][0].At == f.At && groups[n-1][0].Ready == f.Ready {
			groups[n-1] = append(groups[n-1], f)
			continue
		}
		groups = append(groups, []taints.Flip{f})
	}
	return groups
}

// writeSeen prints a timeline per zone, one column a second: the taints put
// on (a digit, + for more than 9) and taken off (-) in that second, as the
// fitted model predicted them and as they were seen, and the evictions.
func writeSeen(w io.Writer, m taints.Outage, marks []taints.Mark, evicted []taints.Eviction, p taints.Prediction, span time.Duration) {
	cols := int(span.Seconds()) + 1
	row := func(marks []taints.Mark, zone string) string {
		on, off := make([]int, cols), make([]int, cols)
		for _, mk := range marks {
			if mk.Zone != zone {
				continue
			}
			i := min(int(mk.At.Seconds()), cols-1)
			if mk.Added {
				on[i]++
			} else {
				off[i]++
			}
		}
		var b strings.Builder
		for i := range cols {
			switch {
			case on[i] > 9:
				b.WriteByte('+')
			case on[i] > 0:
				b.WriteByte(byte('0' + on[i]))
			case off[i] > 0:
				b.WriteByte('-')
			default:
				b.WriteString("·")
			}
		}
		return b.String()
	}
	fmt.Fprintf(w, "  taints by second (digit: put on, -: taken off)\n")
	for _, z := range m.Layout {
		fmt.Fprintf(w, "    %-7s model %s\n", z.Name, row(p.Marks, z.Name))
		fmt.Fprintf(w, "    %-7s seen  %s\n", "", row(marks, z.Name))
	}
	if len(evicted) > 0 {
		var ts []time.Duration
		for _, ev := range evicted {
			ts = append(ts, ev.At)
		}
		slices.Sort(ts)
		fmt.Fprintf(w, "  %d pods evicted, at %s s\n", len(evicted), secs(ts))
	} else {
		fmt.Fprintln(w, "  no pod evicted")
	}
}
