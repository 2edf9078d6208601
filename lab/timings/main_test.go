package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Lanes overlap: the timetable is ordered by start, its wall time runs from
// the first start to the last end, and its CPU is the steps' sum.
func TestTimetable(t *testing.T) {
	steps, err := readSteps(write(t, "steps.tsv", ""+
		"main\tgo test ./...\t1000\t61000\t95.5\t0\n"+
		"02-taints\tchapter 2: e2e\t70000\t100000\t20\t0\n"+
		"main\tlab binaries\t61000\t71000\t3.25\t1\n"))
	if err != nil {
		t.Fatal(err)
	}
	peak, cpu, err := readMemory(write(t, "mem.tsv", ""+
		"1000\topslab-test\t500\t12.5\n"+
		"1000\topslab-test-4\t400\t3\n"+
		"3000\topslab-test\t700\t20\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := timetable(steps, peak)
	got.ClusterCPU = cpu
	want := Timings{
		Wall: 99, CPU: 118.75,
		Steps: []Step{
			{Lane: "main", Name: "go test ./...", Start: 0, End: 60, Wall: 60, CPU: 95.5},
			{Lane: "main", Name: "lab binaries", Start: 60, End: 70, Wall: 10, CPU: 3.25, Status: 1},
			{Lane: "02-taints", Name: "chapter 2: e2e", Start: 69, End: 99, Wall: 30, CPU: 20},
		},
		PeakMB:     map[string]float64{"opslab-test": 700, "opslab-test-4": 400, "all": 900},
		ClusterCPU: map[string]float64{"opslab-test": 20, "opslab-test-4": 3, "all": 23},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timetable (-want +got):\n%s", diff)
	}
	var b strings.Builder
	printTable(&b, got)
	for _, s := range []string{"exit 1", "in all: 99 s of wall time, 119 s of CPU", "all at once 900 MB", "opslab-test 20 s, opslab-test-4 3 s; all 23 s"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the printed table lacks %q:\n%s", s, b.String())
		}
	}
}

// A sampler without the CPU field (three fields a line) still gives the
// peak memory, and no CPU.
func TestMemoryWithoutCPU(t *testing.T) {
	peak, cpu, err := readMemory(write(t, "mem.tsv", "1000\topslab-test\t500\n"))
	if err != nil || peak["opslab-test"] != 500 || cpu != nil {
		t.Errorf("readMemory = %v, %v, %v; want opslab-test 500 MB, no CPU", peak, cpu, err)
	}
}

// A malformed line is refused with its file and line, never skipped.
func TestMalformedLine(t *testing.T) {
	_, err := readSteps(write(t, "steps.tsv", "main\tgo vet\t1\n"))
	if err == nil || !strings.Contains(err.Error(), "steps.tsv:1: 3 fields, want 6") {
		t.Errorf("readSteps = %v, want an error naming steps.tsv:1 and its 3 fields", err)
	}
}

// The machine's CPU is counted from the first step's start to the last
// one's end, samples outside left out, and by minute from that start.
func TestMachine(t *testing.T) {
	steps, err := readSteps(write(t, "steps.tsv", "main\tgo test ./...\t1000\t151000\t95.5\t0\n"))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := readMachine(write(t, "machine.tsv", ""+
		"500\t0\t0\n"+ // before the first step: left out
		"61000\t150\t30\n"+
		"1000\t100\t20\n"+ // out of order: sorted
		"121000\t170\t130\n"+
		"151000\t230\t150\n"+
		"200000\t999\t999\n")) // after the last step: left out
	if err != nil {
		t.Fatal(err)
	}
	got := machine(samples, steps)
	want := &Machine{Busy: 130, Idle: 130, BusyByMinute: []float64{83, 17, 75}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("machine (-want +got):\n%s", diff)
	}
	var b strings.Builder
	printTable(&b, Timings{Machine: got})
	if s := "the machine's CPUs: 130 s busy, 130 s idle (50% busy); busy by minute, in percent: 83 17 75"; !strings.Contains(b.String(), s) {
		t.Errorf("the printed table lacks %q:\n%s", s, b.String())
	}
	if m := machine(samples[:1], steps); m != nil {
		t.Errorf("machine with one sample = %+v, want nil", m)
	}
}

// TestBrowser: Chromium's CPU is each process's largest sample, summed
// over the processes, so a process that ended (and is no longer sampled)
// still counts, once.
func TestBrowser(t *testing.T) {
	got, err := readBrowser(write(t, "browser.tsv", ""+
		"1000\t10\t2\n"+
		"4000\t10\t5\n"+
		"4000\t11\t1\n"+
		"7000\t11\t3\n"))
	if err != nil || got != 8 {
		t.Errorf("readBrowser = %v, %v; want 8 (5 + 3)", got, err)
	}
	var b strings.Builder
	printTable(&b, Timings{BrowserCPU: 8})
	if want := "Chromium's processes, the browser tests': 8 s of CPU"; !strings.Contains(b.String(), want) {
		t.Errorf("the table says:\n%s\nwant a line with %q", b.String(), want)
	}
}
