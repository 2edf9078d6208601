// Timings prints make test's timetable: every step and lane it ran, when it
// started and ended, its wall and CPU seconds, and the peak memory and CPU
// of the lab clusters, so every run shows where its time went. It reads what
// lab/scripts/test.sh recorded and writes the same as JSON.
//
// Usage:
//
//	timings STEPS.tsv MEMORY.tsv OUT.json [MACHINE.tsv]
//
// STEPS.tsv has a line per step, tab-separated: lane, step, start and end
// (Unix milliseconds), CPU seconds of the step and its children, exit
// status. MEMORY.tsv has a line per sample: Unix milliseconds, cluster,
// resident megabytes of its processes and, in a fourth field, the CPU
// seconds they have used so far. MACHINE.tsv has a line per sample: Unix
// milliseconds, and the whole machine's busy and idle CPU seconds since it
// booted. Any file may be empty or missing.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// A Step is one timed step of make test.
type Step struct {
	Lane   string  `json:"lane"`
	Name   string  `json:"step"`
	Start  float64 `json:"start_s"` // seconds since the first step began
	End    float64 `json:"end_s"`
	Wall   float64 `json:"wall_s"`
	CPU    float64 `json:"cpu_s"`
	Status int     `json:"status"`
}

// Timings is what OUT.json holds.
type Timings struct {
	Wall  float64 `json:"wall_s"` // from the first step's start to the last one's end
	CPU   float64 `json:"cpu_s"`  // the steps' CPU, summed (lanes overlap, so it can exceed Wall)
	Steps []Step  `json:"steps"`
	// PeakMB is each cluster's largest resident memory seen, and "all" the
	// largest sum over the clusters up at one time.
	PeakMB map[string]float64 `json:"peak_mb"`
	// ClusterCPU is each cluster's CPU seconds, the last sum seen over its
	// processes (sampled every few seconds: a few seconds' worth short), and
	// "all" their sum. Its processes are not make test's children: the
	// steps' CPU leaves them out.
	ClusterCPU map[string]float64 `json:"cluster_cpu_s,omitempty"`
	// Machine is what the whole machine's CPUs did while make test ran.
	Machine *Machine `json:"machine,omitempty"`
	// BrowserCPU is the CPU seconds of Chromium's processes, the browser
	// tests', each the largest seen while it lived (sampled every few
	// seconds: a process that lived less is missed). The browser tests'
	// step counts only the part its children reaped: Chromium's helpers
	// are reparented when the browser is stopped, so most of it is not.
	BrowserCPU float64 `json:"browser_cpu_s,omitempty"`
}

// Machine is the whole machine's CPU time from the first step's start to
// the last one's end, as far as the samples (every few seconds) reach: what
// the steps, the clusters and everything else used, and what was left.
type Machine struct {
	Busy float64 `json:"busy_cpu_s"`
	Idle float64 `json:"idle_cpu_s"`
	// BusyByMinute is the busy share, in percent, of each minute since
	// the first step began (the last one partial).
	BusyByMinute []float64 `json:"busy_percent_by_minute"`
}

func main() {
	log.SetPrefix("timings: ")
	log.SetFlags(0)
	if len(os.Args) < 4 || len(os.Args) > 6 {
		fmt.Fprintln(os.Stderr, "usage: timings STEPS.tsv MEMORY.tsv OUT.json [MACHINE.tsv [BROWSER.tsv]]")
		os.Exit(2)
	}
	steps, err := readSteps(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	peak, cpu, err := readMemory(os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	t := timetable(steps, peak)
	t.ClusterCPU = cpu
	if len(os.Args) >= 5 {
		samples, err := readMachine(os.Args[4])
		if err != nil {
			log.Fatal(err)
		}
		t.Machine = machine(samples, steps)
	}
	if len(os.Args) == 6 {
		if t.BrowserCPU, err = readBrowser(os.Args[5]); err != nil {
			log.Fatal(err)
		}
	}
	printTable(os.Stdout, t)
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(os.Args[3], append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

// rawStep is a line of STEPS.tsv, its times in Unix milliseconds.
type rawStep struct {
	lane, name string
	start, end int64
	cpu        float64
	status     int
}

// lines returns the tab-separated fields of each non-empty line of a file,
// fields or, when more is set, one more; a missing file has none.
func lines(name string, fields int, more bool) ([][]string, error) {
	f, err := os.Open(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != fields && !(more && len(f) == fields+1) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", name, n, len(f), fields)
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

func readSteps(name string) ([]rawStep, error) {
	ls, err := lines(name, 6, false)
	if err != nil {
		return nil, err
	}
	var steps []rawStep
	for _, f := range ls {
		s := rawStep{lane: f[0], name: f[1]}
		var errs [4]error
		s.start, errs[0] = strconv.ParseInt(f[2], 10, 64)
		s.end, errs[1] = strconv.ParseInt(f[3], 10, 64)
		s.cpu, errs[2] = strconv.ParseFloat(f[4], 64)
		s.status, errs[3] = strconv.Atoi(f[5])
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s: step %q: %v", name, s.name, e)
			}
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// readMemory returns each cluster's peak resident megabytes, and under
// "all" the peak of their sum at one sample time; and each cluster's CPU
// seconds, the largest seen, and under "all" their sum (nil when no line
// has them).
func readMemory(name string) (peak, cpu map[string]float64, err error) {
	ls, err := lines(name, 3, true)
	if err != nil {
		return nil, nil, err
	}
	peak = map[string]float64{}
	sum := map[string]float64{}
	for _, f := range ls {
		mb, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		peak[f[1]] = max(peak[f[1]], mb)
		sum[f[0]] += mb
		if len(f) == 4 {
			s, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", name, err)
			}
			if cpu == nil {
				cpu = map[string]float64{}
			}
			cpu[f[1]] = max(cpu[f[1]], s)
		}
	}
	for _, mb := range sum {
		peak["all"] = max(peak["all"], mb)
	}
	if cpu != nil {
		all := 0.0
		for _, s := range cpu {
			all += s
		}
		cpu["all"] = all
	}
	return peak, cpu, nil
}

// readBrowser returns the CPU seconds of the processes BROWSER.tsv samples
// ("unix-ms pid cpu-seconds" a line): the sum over the processes of the
// largest each was seen at.
func readBrowser(name string) (float64, error) {
	ls, err := lines(name, 3, false)
	if err != nil {
		return 0, err
	}
	most := map[string]float64{}
	for _, f := range ls {
		s, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", name, err)
		}
		most[f[1]] = max(most[f[1]], s)
	}
	all := 0.0
	for _, s := range most {
		all += s
	}
	return all, nil
}

// A machineSample is a line of MACHINE.tsv.
type machineSample struct {
	at         int64 // Unix milliseconds
	busy, idle float64
}

func readMachine(name string) ([]machineSample, error) {
	ls, err := lines(name, 3, false)
	if err != nil {
		return nil, err
	}
	var out []machineSample
	for _, f := range ls {
		var s machineSample
		var errs [3]error
		s.at, errs[0] = strconv.ParseInt(f[0], 10, 64)
		s.busy, errs[1] = strconv.ParseFloat(f[1], 64)
		s.idle, errs[2] = strconv.ParseFloat(f[2], 64)
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s: %v", name, e)
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b machineSample) int { return cmp.Compare(a.at, b.at) })
	return out, nil
}

// machine sums the samples' CPU time from the steps' first start to their
// last end, and by minute from that start; nil when fewer than two samples
// fall in that span.
func machine(samples []machineSample, raw []rawStep) *Machine {
	if len(raw) == 0 {
		return nil
	}
	first, last := span(raw)
	var in []machineSample
	for _, s := range samples {
		if s.at >= first && s.at <= last {
			in = append(in, s)
		}
	}
	if len(in) < 2 {
		return nil
	}
	m := &Machine{Busy: in[len(in)-1].busy - in[0].busy, Idle: in[len(in)-1].idle - in[0].idle}
	// Each minute runs from the last sample before its end (or the first
	// sample) to the last sample before the next minute's end.
	from, i := in[0], 0
	for end := first + 60_000; ; end += 60_000 {
		for i+1 < len(in) && in[i+1].at <= end {
			i++
		}
		to := in[i]
		if to.at > from.at {
			busy, idle := to.busy-from.busy, to.idle-from.idle
			m.BusyByMinute = append(m.BusyByMinute, math.Round(100*busy/(busy+idle)))
		}
		from = to
		if end >= last {
			break
		}
	}
	return m
}

// span returns the first step's start and the last one's end; raw is not
// empty.
func span(raw []rawStep) (first, last int64) {
	first, last = raw[0].start, raw[0].end
	for _, s := range raw {
		first, last = min(first, s.start), max(last, s.end)
	}
	return first, last
}

func timetable(raw []rawStep, peak map[string]float64) Timings {
	t := Timings{Steps: []Step{}, PeakMB: peak}
	if len(raw) == 0 {
		return t
	}
	first, last := span(raw)
	for _, s := range raw {
		t.Steps = append(t.Steps, Step{
			Lane: s.lane, Name: s.name,
			Start:  float64(s.start-first) / 1000,
			End:    float64(s.end-first) / 1000,
			Wall:   float64(s.end-s.start) / 1000,
			CPU:    s.cpu,
			Status: s.status,
		})
		t.CPU += s.cpu
	}
	slices.SortStableFunc(t.Steps, func(a, b Step) int { return cmp.Compare(a.Start, b.Start) })
	t.Wall = float64(last-first) / 1000
	return t
}

func printTable(w io.Writer, t Timings) {
	fmt.Fprintln(w, "\nwhere make test's time went (seconds since it began; CPU of each step and its children):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "start\tend\twall\tcpu\t\tlane\tstep\t")
	for _, s := range t.Steps {
		mark := ""
		if s.Status != 0 {
			mark = fmt.Sprintf("exit %d", s.Status)
		}
		fmt.Fprintf(tw, "%.0f\t%.0f\t%.1f\t%.1f\t%s\t%s\t%s\t\n", s.Start, s.End, s.Wall, s.CPU, mark, s.Lane, s.Name)
	}
	tw.Flush()
	fmt.Fprintf(w, "in all: %.0f s of wall time, %.0f s of CPU in the steps\n", t.Wall, t.CPU)
	if len(t.PeakMB) > 0 {
		fmt.Fprintf(w, "the lab clusters' peak resident memory: %s; all at once %.0f MB\n", perCluster(t.PeakMB, "%s %.0f MB"), t.PeakMB["all"])
	}
	if len(t.ClusterCPU) > 0 {
		fmt.Fprintf(w, "the lab clusters' CPU (their processes, not make test's children): %s; all %.0f s\n", perCluster(t.ClusterCPU, "%s %.0f s"), t.ClusterCPU["all"])
	}
	if t.BrowserCPU > 0 {
		fmt.Fprintf(w, "Chromium's processes, the browser tests': %.0f s of CPU (the browser tests' step counts only what it reaped of them)\n", t.BrowserCPU)
	}
	if m := t.Machine; m != nil && m.Busy+m.Idle > 0 {
		var pct []string
		for _, p := range m.BusyByMinute {
			pct = append(pct, strconv.FormatFloat(p, 'f', 0, 64))
		}
		fmt.Fprintf(w, "the machine's CPUs: %.0f s busy, %.0f s idle (%.0f%% busy); busy by minute, in percent: %s\n",
			m.Busy, m.Idle, 100*m.Busy/(m.Busy+m.Idle), strings.Join(pct, " "))
	}
}

// perCluster lists m's clusters by name, each with its value in format,
// "all" left out.
func perCluster(m map[string]float64, format string) string {
	names := make([]string, 0, len(m))
	for n := range m {
		if n != "all" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf(format, n, m[n]))
	}
	return strings.Join(parts, ", ")
}
