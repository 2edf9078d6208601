package shutdown

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

// USecInfinity is logind's "infinity": the largest microsecond count
// (systemd's USEC_INFINITY), which is what logind reports for
// InhibitDelayMaxSec=infinity.
const USecInfinity = math.MaxUint64

// An InhibitDelay is logind's effective InhibitDelayMaxSec and where it came from.
type InhibitDelay struct {
	// USec is the delay as logind keeps it and reports it over D-Bus
	// (InhibitDelayMaxUSec): microseconds, USecInfinity for infinity.
	USec uint64
	// Value is the delay as the kubelet reads it (CurrentInhibitDelay in
	// pkg/kubelet/nodeshutdown/systemd): time.Duration(USec) * time.Microsecond.
	// That conversion wraps: infinity reads as -1µs, and a delay past about
	// 292 years as a wrong, possibly negative, duration.
	Value    time.Duration
	Infinite bool
	// From is the path of the file whose line won, or "" for the default.
	From string
	// Notes lists lines systemd would ignore, and masked files.
	Notes []string
}

func (d *InhibitDelay) set(usec uint64) {
	d.USec = usec
	d.Infinite = usec == USecInfinity
	d.Value = time.Duration(usec) * time.Microsecond
}

// Covers says whether the kubelet, reading the delay, finds it long enough for
// total: total <= Value, the kubelet's own comparison. Infinity does not cover
// anything above -1µs.
func (d InhibitDelay) Covers(total time.Duration) bool { return total <= d.Value }

func (d InhibitDelay) String() string {
	var v string
	switch {
	case d.Infinite:
		v = "infinity"
	case d.USec <= math.MaxInt64/uint64(time.Microsecond):
		v = (time.Duration(d.USec) * time.Microsecond).String()
	case d.USec%1_000_000 == 0:
		v = strconv.FormatUint(d.USec/1_000_000, 10) + "s"
	default:
		v = strconv.FormatUint(d.USec, 10) + "µs"
	}
	if d.From == "" {
		return v + " (logind's default)"
	}
	return v + " (from " + d.From + ")"
}

// EffectiveInhibitDelay is logind's InhibitDelayMaxSec as the files set it,
// by systemd's precedence. The chapter states that precedence once, with its
// tests and plants, on its evidence page (EVIDENCE.md, "Drop-ins are read by
// name"); this function follows it step by step.
func EffectiveInhibitDelay(files []LogindFile) InhibitDelay {
	var d InhibitDelay
	d.set(uint64(DefaultInhibitDelay / time.Microsecond))
	var main *LogindFile
	dropIns := map[string]LogindFile{}
	// The layers from the highest precedence down: the first file of a name
	// found is the one systemd reads.
	for _, layer := range [...]Layer{Etc, Run, LocalLib, Lib} {
		for i, f := range files {
			if f.Layer != layer {
				continue
			}
			if f.Name == "logind.conf" {
				if main == nil {
					main = &files[i]
				}
				continue
			}
			if !strings.HasSuffix(f.Name, ".conf") {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: ignored, a drop-in's name must end in .conf", f.Path()))
				continue
			}
			if _, ok := dropIns[f.Name]; !ok {
				dropIns[f.Name] = f
			}
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
		// An empty value is no time span either (parse_time finds no
		// number): config_parse_sec logs it and the value before stays.
		usec, err := parseTimespan(value)
		if err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("%s:%d: ignored, %v", f.Path(), n, err))
			continue
		}
		d.set(usec)
		d.From = f.Path()
	}
}

// timeUnits are systemd's time span units, in microseconds (a subset of
// time-util.c's table: no months or years).
var timeUnits = map[string]uint64{
	"us": 1, "usec": 1, "µs": 1, "μs": 1,
	"ms": 1_000, "msec": 1_000,
	"s": 1_000_000, "sec": 1_000_000, "second": 1_000_000, "seconds": 1_000_000,
	"m": 60_000_000, "min": 60_000_000, "minute": 60_000_000, "minutes": 60_000_000,
	"h": 3_600_000_000, "hr": 3_600_000_000, "hour": 3_600_000_000, "hours": 3_600_000_000,
	"d": 86_400_000_000, "day": 86_400_000_000, "days": 86_400_000_000,
	"w": 604_800_000_000, "week": 604_800_000_000, "weeks": 604_800_000_000,
}

// parseTimespan reads a systemd time span ("30", "30s", "1min 30s", "1.5s",
// "infinity") into microseconds, as logind's parse_sec does: a number
// without a unit is seconds, the sum is kept in whole microseconds (a
// fraction below one is dropped), and a sum that reaches infinity is
// refused, as time-util.c's parse_time refuses it (ERANGE).
func parseTimespan(s string) (uint64, error) {
	if s == "infinity" {
		return USecInfinity, nil
	}
	notSpan := fmt.Errorf("InhibitDelayMaxSec=%s is not a time span", s)
	tooLarge := fmt.Errorf("InhibitDelayMaxSec=%s is too large", s)
	var total uint64
	rest := s
	if strings.Trim(rest, " ") == "" {
		return 0, notSpan
	}
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			break
		}
		i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if i < 0 {
			i = len(rest)
		}
		whole, frac := rest[:i], ""
		rest = rest[i:]
		if strings.HasPrefix(rest, ".") {
			j := strings.IndexFunc(rest[1:], func(r rune) bool { return r < '0' || r > '9' })
			if j < 0 {
				j = len(rest) - 1
			}
			frac, rest = rest[1:1+j], rest[1+j:]
			if frac == "" {
				// parse_time wants a digit after the point: "3." and
				// "3.s" are not time spans.
				return 0, notSpan
			}
		}
		if whole == "" && frac == "" {
			return 0, notSpan
		}
		trimmed := strings.TrimLeft(rest, " ")
		spaced := len(trimmed) < len(rest)
		rest = trimmed
		j := strings.IndexFunc(rest, func(r rune) bool { return r == ' ' || (r >= '0' && r <= '9') || r == '.' })
		if j < 0 {
			j = len(rest)
		}
		if j == 0 && !spaced && rest != "" {
			// parse_time refuses a second point right after a fraction
			// ("12.34.56") but takes "12.34 .56" as two numbers.
			return 0, notSpan
		}
		unit := uint64(1_000_000)
		if j > 0 {
			u, ok := timeUnits[rest[:j]]
			if !ok {
				return 0, fmt.Errorf("InhibitDelayMaxSec=%s has unknown unit %q", s, rest[:j])
			}
			unit = u
		}
		rest = rest[j:]
		// parse_time's bounds: the number is a strtoll (past 2^63-1 it is
		// out of range), it times its unit must stay below infinity, and so
		// must the sum after each number and after each digit of a fraction.
		var n uint64
		if whole != "" {
			v, err := strconv.ParseInt(whole, 10, 64)
			if err != nil {
				return 0, tooLarge
			}
			n = uint64(v)
		}
		if n >= USecInfinity/unit {
			return 0, tooLarge
		}
		k := n * unit
		if k >= USecInfinity-total {
			return 0, tooLarge
		}
		total += k
		// Each digit of the fraction is worth a tenth of the one before;
		// past the microsecond they are worth nothing.
		place := unit
		for _, c := range frac {
			place /= 10
			k = uint64(c-'0') * place
			if k >= USecInfinity-total {
				return 0, tooLarge
			}
			total += k
		}
	}
	return total, nil
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
	// Conflict says After still reads shorter than Requested: the kubelet's
	// node shutdown manager then fails to start ("node shutdown manager was
	// timed out after 5 attempts waiting for logind InhibitDelayMaxSec to
	// update"), and the node has no graceful shutdown.
	Conflict bool
}

// CheckLogind does what the kubelet's shutdown manager does when it starts
// (managerImpl.start), for an enabled configuration that asks for requested
// ([Config.Total]): it reads logind's delay as a Duration; if requested is
// larger, it adds /etc/systemd/logind.conf.d/99-kubelet.conf with
// InhibitDelayMaxSec set to requested, in whole seconds, and reads the delay
// again. A drop-in that sorts after 99-kubelet.conf and sets a smaller value
// wins, and so does one that sets infinity, which the kubelet reads as -1µs.
func CheckLogind(files []LogindFile, requested time.Duration) LogindReport {
	r := LogindReport{Requested: requested, Before: EffectiveInhibitDelay(files)}
	r.After = r.Before
	if !r.Before.Covers(requested) {
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
	r.Conflict = r.KubeletWrites && !r.After.Covers(requested)
	return r
}

// SortLogindFiles orders files by layer and then name, for stable output.
func SortLogindFiles(files []LogindFile) {
	slices.SortFunc(files, func(a, b LogindFile) int {
		return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Name, b.Name))
	})
}
