package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
	taints "github.com/opslab/opslab/chapters/02-taints"
	apf "github.com/opslab/opslab/chapters/03-apf"
)

// A stated default is a component's flag whose default a chapter states,
// with the chapter's value read from its model where the model has it.
type stated struct {
	Component string
	Flags     []string // the value is their sum when there are several
	Course    string
	Where     string
}

// statedDefaults are the defaults the chapters rely on.
func statedDefaults() []stated {
	r := taints.DefaultRates()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return []stated{
		{"kube-controller-manager", []string{"concurrent-disruption-syncs"}, "1", "chapter 1's README, Across Kubernetes releases"},
		{"kube-controller-manager", []string{"node-eviction-rate"}, f(r.Normal), "chapter 2, taints.DefaultRates"},
		{"kube-controller-manager", []string{"secondary-node-eviction-rate"}, f(r.Secondary), "chapter 2, taints.DefaultRates"},
		{"kube-controller-manager", []string{"large-cluster-size-threshold"}, strconv.Itoa(r.LargeCluster), "chapter 2, taints.DefaultRates"},
		{"kube-controller-manager", []string{"unhealthy-zone-threshold"}, f(r.UnhealthyThreshold), "chapter 2, taints.DefaultRates"},
		{"kube-controller-manager", []string{"node-monitor-grace-period"}, pdb.NodeMonitorGracePeriod.String(), "chapter 1, pdb.NodeMonitorGracePeriod; chapters 2 and 4 in prose"},
		{"kube-controller-manager", []string{"node-monitor-period"}, "5s", "chapter 2's README, The lab"},
		{"kube-apiserver", []string{"default-not-ready-toleration-seconds"}, strconv.Itoa(taints.DefaultTolerationSeconds), "chapter 2, taints.DefaultTolerationSeconds"},
		{"kube-apiserver", []string{"default-unreachable-toleration-seconds"}, strconv.Itoa(taints.DefaultTolerationSeconds), "chapter 2, taints.DefaultTolerationSeconds"},
		{"kube-apiserver", []string{"max-requests-inflight", "max-mutating-requests-inflight"}, strconv.Itoa(apf.DefaultServerSeats), "chapter 3, apf.DefaultServerSeats (their sum)"},
	}
}

// helpDefaults runs a component's --help and returns each flag's default as
// the help prints it ("(default 0.1)"); a flag without one maps to "".
func helpDefaults(binary string) (map[string]string, error) {
	out, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("%s --help: %v", binary, err)
	}
	return parseHelp(string(out)), nil
}

var (
	flagStart = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)`)
	defaultRE = regexp.MustCompile(`\(default (.*?)\)\s*$`)
)

// parseHelp reads pflag's usage text: a line that starts with --name begins
// a flag, and the lines after it continue its description.
func parseHelp(help string) map[string]string {
	flags := map[string]string{}
	var name string
	var text strings.Builder
	flush := func() {
		if name == "" {
			return
		}
		d := ""
		if m := defaultRE.FindStringSubmatch(strings.TrimSpace(text.String())); m != nil {
			d = m[1]
		}
		flags[name] = d
	}
	for _, line := range strings.Split(help, "\n") {
		if m := flagStart.FindStringSubmatch(line); m != nil {
			flush()
			name = m[1]
			text.Reset()
		}
		if strings.TrimSpace(line) == "" || (!strings.HasPrefix(line, " ") && name != "") {
			flush()
			name = ""
			continue
		}
		text.WriteString(" " + strings.TrimSpace(line))
	}
	flush()
	return flags
}

// sameValue reports whether a default the help prints equals the course's:
// numbers as numbers, durations as durations.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	if x, err := time.ParseDuration(a); err == nil {
		y, err := time.ParseDuration(b)
		return err == nil && x == y
	}
	return false
}

// sum adds the defaults of several flags; "" when one is not a number.
func sum(defaults map[string]string, flags []string) string {
	if len(flags) == 1 {
		return defaults[flags[0]]
	}
	total := 0
	for _, f := range flags {
		n, err := strconv.Atoi(defaults[f])
		if err != nil {
			return ""
		}
		total += n
	}
	return strconv.Itoa(total)
}
