package graceful

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultInhibitDelay is logind's InhibitDelayMaxSec when nothing sets it.
const DefaultInhibitDelay = 5 * time.Second

// KubeletDropIn is the drop-in the kubelet writes into /etc/systemd/logind.conf.d
// when logind's delay is shorter than the time it needs.
const KubeletDropIn = "99-kubelet.conf"

// A Layer is one of the directories systemd reads logind's configuration from,
// in order of precedence: a file in Etc replaces a file of the same name in
// Run, LocalLib or Lib.
type Layer int

const (
	Etc      Layer = iota // /etc/systemd, the administrator's
	Run                   // /run/systemd, runtime
	LocalLib              // /usr/local/lib/systemd, local installs
	Lib                   // /usr/lib/systemd, the distribution's packages
)

var layerDirs = [...]string{"/etc/systemd", "/run/systemd", "/usr/local/lib/systemd", "/usr/lib/systemd"}

// A LogindFile is logind.conf or one of its drop-ins.
type LogindFile struct {
	Layer Layer
	// Name is "logind.conf" for the main file, else the drop-in's file name
	// inside logind.conf.d.
	Name string
	// Masked says the file is a symbolic link to /dev/null.
	Masked  bool
	Content string
}

// Path is where the file lives on the node.
func (f LogindFile) Path() string {
	if f.Name == "logind.conf" {
		return layerDirs[f.Layer] + "/logind.conf"
	}
	return layerDirs[f.Layer] + "/logind.conf.d/" + f.Name
}

// An InhibitDelay is logind's effective InhibitDelayMaxSec and where it came from.
type InhibitDelay struct {
	Value    time.Duration
	Infinite bool
	// From is the path of the file whose line won, or "" for the default.
	From string
	// Notes lists lines systemd would ignore, and masked files.
	Notes []string
}

// Covers says whether the delay lets the kubelet hold a shutdown for d.
func (d InhibitDelay) Covers(total time.Duration) bool { return d.Infinite || d.Value >= total }

func (d InhibitDelay) String() string {
	v := d.Value.String()
	if d.Infinite {
		v = "infinity"
	}
	if d.From == "" {
		return v + " (logind's default)"
	}
	return v + " (from " + d.From + ")"
}

// EffectiveInhibitDelay reads files by the rules of logind.conf(5): the main
// file is the first logind.conf found in Etc, Run, LocalLib, Lib; drop-ins are
// the *.conf files of every logind.conf.d, where a name in a layer of higher
// precedence hides the same name below it and a link to /dev/null hides it
// without adding anything; the main file is read first, then the drop-ins in
// lexical order of their names whatever their layer, and the last assignment
// wins.
func EffectiveInhibitDelay(files []LogindFile) InhibitDelay {
	d := InhibitDelay{Value: DefaultInhibitDelay}
	var main *LogindFile
	dropIns := map[string]LogindFile{}
	for i, f := range files {
		if f.Name == "logind.conf" {
			if main == nil || f.Layer < main.Layer {
				main = &files[i]
			}
			continue
		}
		if !strings.HasSuffix(f.Name, ".conf") {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: ignored, a drop-in's name must end in .conf", f.Path()))
			continue
		}
		if have, ok := dropIns[f.Name]; !ok || f.Layer < have.Layer {
			dropIns[f.Name] = f
		}
	}
	order := make([]LogindFile, 0, len(dropIns)+1)
	if main != nil {
		order = append(order, *main)
	}
	names := make([]string, 0, len(dropIns))
	for name := range dropIns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		order = append(order, dropIns[name])
	}
	for _, f := range order {
		if f.Masked {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: masked (a link to /dev/null)", f.Path()))
			continue
		}
		readLogind(f, &d)
	}
	return d
}

func readLogind(f LogindFile, d *InhibitDelay) {
	section := ""
	sc := bufio.NewScanner(strings.NewReader(f.Content))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || section != "Login" || strings.TrimSpace(key) != "InhibitDelayMaxSec" {
			continue
		}
		value = strings.TrimSpace(value)
		if value == "" {
			// An empty assignment resets the option to its default.
			d.Value, d.Infinite, d.From = DefaultInhibitDelay, false, ""
			continue
		}
		v, inf, err := parseTimespan(value)
		if err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("%s:%d: ignored, %v", f.Path(), n, err))
			continue
		}
		d.Value, d.Infinite, d.From = v, inf, f.Path()
	}
}

var timeUnits = map[string]time.Duration{
	"us": time.Microsecond, "usec": time.Microsecond, "µs": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond,
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseTimespan reads a systemd time span ("30", "30s", "1min 30s",
// "infinity"); a number without a unit is seconds.
func parseTimespan(s string) (time.Duration, bool, error) {
	if s == "infinity" {
		return 0, true, nil
	}
	var total time.Duration
	rest := s
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		i := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i == 0 {
			return 0, false, fmt.Errorf("InhibitDelayMaxSec=%s is not a time span", s)
		}
		if i < 0 {
			i = len(rest)
		}
		num, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, false, fmt.Errorf("InhibitDelayMaxSec=%s is not a time span", s)
		}
		rest = strings.TrimLeft(rest[i:], " ")
		j := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || (r >= '0' && r <= '9') })
		if j < 0 {
			j = len(rest)
		}
		unit := time.Second
		if j > 0 {
			u, ok := timeUnits[rest[:j]]
			if !ok {
				return 0, false, fmt.Errorf("InhibitDelayMaxSec=%s has unknown unit %q", s, rest[:j])
			}
			unit = u
		}
		rest = rest[j:]
		total += time.Duration(math.Round(num * float64(unit)))
	}
	return total, false, nil
}

// A LogindReport says whether logind lets the kubelet hold a shutdown as long
// as its configuration asks.
type LogindReport struct {
	// Requested is what the kubelet needs (Config.Total).
	Requested time.Duration
	// Before is logind's delay as configured on the node.
	Before InhibitDelay
	// KubeletWrites says the kubelet writes KubeletDropIn because Before is too short.
	KubeletWrites bool
	// After is logind's delay once the kubelet's drop-in is in place.
	After InhibitDelay
	// Conflict says After is still too short: the kubelet's node shutdown
	// manager then fails to start, and the node has no graceful shutdown.
	Conflict bool
}

// CheckLogind does what the kubelet's shutdown manager does at start-up: if
// logind's delay is below requested, it adds /etc/systemd/logind.conf.d/99-kubelet.conf
// with InhibitDelayMaxSec set to requested and reads the delay again. A drop-in
// that sorts after 99-kubelet.conf and sets a smaller value wins.
func CheckLogind(files []LogindFile, requested time.Duration) LogindReport {
	r := LogindReport{Requested: requested, Before: EffectiveInhibitDelay(files)}
	r.After = r.Before
	if requested > 0 && !r.Before.Covers(requested) {
		r.KubeletWrites = true
		withKubelet := slices.DeleteFunc(slices.Clone(files), func(f LogindFile) bool {
			return f.Layer == Etc && f.Name == KubeletDropIn
		})
		withKubelet = append(withKubelet, LogindFile{
			Layer: Etc, Name: KubeletDropIn,
			Content: fmt.Sprintf("# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=%.0f\n", requested.Seconds()),
		})
		r.After = EffectiveInhibitDelay(withKubelet)
	}
	r.Conflict = requested > 0 && !r.After.Covers(requested)
	return r
}

// SortLogindFiles orders files by layer and then name, for stable output.
func SortLogindFiles(files []LogindFile) {
	slices.SortFunc(files, func(a, b LogindFile) int {
		return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Name, b.Name))
	})
}
