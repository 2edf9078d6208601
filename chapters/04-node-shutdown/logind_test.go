package shutdown

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const debianLogindConf = "[Login]\n#InhibitDelayMaxSec=5\n"

// unattendedUpgrades is the drop-in Debian's unattended-upgrades package ships.
var unattendedUpgrades = LogindFile{Layer: Lib, Name: "unattended-upgrades-logind-maxdelay.conf", Content: "[Login]\nInhibitDelayMaxSec=30\n"}

// TestEffectiveInhibitDelay pins systemd's rules for logind.conf and its drop-ins.
func TestEffectiveInhibitDelay(t *testing.T) {
	main := LogindFile{Layer: Etc, Name: "logind.conf", Content: debianLogindConf}
	tests := []struct {
		name, reason string
		files        []LogindFile
		want         time.Duration
		wantFrom     string
		wantNotes    []string
	}{
		{name: "default", reason: "a commented-out line sets nothing: logind's 5s",
			files: []LogindFile{main}, want: 5 * time.Second},
		{name: "main file", reason: "the main file's own line counts",
			files: []LogindFile{{Layer: Etc, Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=45\n"}},
			want:  45 * time.Second, wantFrom: "/etc/systemd/logind.conf"},
		{name: "drop-in beats main", reason: "drop-ins are read after the main file",
			files: []LogindFile{{Layer: Etc, Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=45\n"}, {Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=20\n"}},
			want:  20 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "later name wins", reason: "drop-ins are read in lexical order; the last assignment wins",
			files: []LogindFile{main, {Layer: Etc, Name: "20-b.conf", Content: "[Login]\nInhibitDelayMaxSec=90\n"}, {Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=20\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/20-b.conf"},
		{name: "order across layers", reason: "names are sorted whatever directory they are in: /usr/lib's u… sorts after /etc's 99-…",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: "99-kubelet.conf", Content: "[Login]\nInhibitDelayMaxSec=60\n"}},
			want:  30 * time.Second, wantFrom: "/usr/lib/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf"},
		{name: "mask", reason: "a link to /dev/null in /etc hides the vendor file of the same name",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: unattendedUpgrades.Name, Masked: true}},
			want:  5 * time.Second, wantNotes: []string{"/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf: masked (a link to /dev/null)"}},
		{name: "etc replaces lib", reason: "a file of the same name in /etc replaces the one in /usr/lib entirely",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: unattendedUpgrades.Name, Content: "[Login]\nInhibitDelayMaxSec=120\n"}},
			want:  120 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf"},
		{name: "not .conf", reason: "only *.conf files are drop-ins",
			files: []LogindFile{main, {Layer: Etc, Name: "zz.conf.bak", Content: "[Login]\nInhibitDelayMaxSec=1\n"}},
			want:  5 * time.Second, wantNotes: []string{"/etc/systemd/logind.conf.d/zz.conf.bak: ignored, a drop-in's name must end in .conf"}},
		{name: "other section", reason: "the option belongs to [Login]",
			files: []LogindFile{main, {Layer: Etc, Name: "10-a.conf", Content: "[Other]\nInhibitDelayMaxSec=1\n"}},
			want:  5 * time.Second},
		{name: "units", reason: "a systemd time span: 1min 30s",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=1min 30s\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "units without spaces", reason: "systemd.time(5) writes 55s500ms; a unit ends where the next number begins, 0 and 9 included",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=1h9min0s 55s500ms\n"}},
			want:  time.Hour + 9*time.Minute + 55*time.Second + 500*time.Millisecond, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "fraction", reason: "a fraction is taken in the unit's tenths, hundredths, …: 1.25min is 75s",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=1.25min\n"}},
			want:  75 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "fraction alone", reason: "systemd accepts a number that starts with its point: .5 is half a second",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=.5\n"}},
			want:  500 * time.Millisecond, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "below a microsecond", reason: "logind keeps whole microseconds: digits past the microsecond are dropped",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=0.0000019\n"}},
			want:  time.Microsecond, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "number after a space", reason: "parse_time accepts \"12.34 .56\": a number without a unit after a space is seconds again, 12.9s in all",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=12.34 .56\n"}},
			want:  12900 * time.Millisecond, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "two points refused", reason: "parse_time refuses \"12.34.56\" (no space before the second number), so the earlier 90s stays",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=12.34.56\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=12.34.56 is not a time span"}},
		{name: "point without a digit refused", reason: "parse_time wants a digit after the point: 3.s is refused and the earlier 90s stays",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=3.s\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=3.s is not a time span"}},
		{name: "at the bound refused", reason: "parse_time refuses a number of seconds at or above infinity over a million, even where it would fit: the earlier 90s stays",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=18446744073709s\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=18446744073709s is too large"}},
		{name: "past strtoll refused", reason: "parse_time reads the number with strtoll: past 2^63-1 microseconds it is out of range, whatever the unit",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=9223372036854775808us\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=9223372036854775808us is too large"}},
		{name: "sum reaching infinity refused", reason: "parse_time refuses a sum that reaches infinity: twice 2^63-1 and 1 more microsecond",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=9223372036854775807us 9223372036854775807us 1us\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=9223372036854775807us 9223372036854775807us 1us is too large"}},
		{name: "fraction reaching infinity refused", reason: "each digit of a fraction is added on its own, and one that brings the sum to infinity is refused, not wrapped",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\nInhibitDelayMaxSec=9223372036854775807us 9223372036854775807us .000001\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=9223372036854775807us 9223372036854775807us .000001 is too large"}},
		{name: "just below infinity", reason: "twice 2^63-1 microseconds is one short of infinity and is kept, though the kubelet reads it as -2µs",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=9223372036854775807us 9223372036854775807us\n"}},
			want:  -2 * time.Microsecond, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "empty ignored", reason: "an empty value is not a time span: config_parse_sec ignores it and the earlier 90s stays (it does not reset the default)",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\n"}, {Layer: Etc, Name: "20-b.conf", Content: "[Login]\nInhibitDelayMaxSec=\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/20-b.conf:2: ignored, InhibitDelayMaxSec= is not a time span"}},
		{name: "bad value ignored", reason: "systemd ignores a line it cannot parse and keeps the earlier value",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\n"}, {Layer: Etc, Name: "20-b.conf", Content: "[Login]\nInhibitDelayMaxSec=soon\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf",
			wantNotes: []string{"/etc/systemd/logind.conf.d/20-b.conf:2: ignored, InhibitDelayMaxSec=soon is not a time span"}},
		{name: "unknown unit ignored", reason: "a unit systemd does not know makes the line ignored",
			files:     []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\n# thirty\nInhibitDelayMaxSec=30 secs\n"}},
			want:      5 * time.Second,
			wantNotes: []string{`/etc/systemd/logind.conf.d/10-a.conf:3: ignored, InhibitDelayMaxSec=30 secs has unknown unit "secs"`}},
		{name: "main from etc", reason: "only the first logind.conf found is read: /etc before /usr/lib",
			files: []LogindFile{{Layer: Lib, Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=99\n"}, {Layer: Etc, Name: "logind.conf", Content: debianLogindConf}},
			want:  5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := EffectiveInhibitDelay(tt.files)
			if d.Value != tt.want || d.From != tt.wantFrom {
				t.Errorf("EffectiveInhibitDelay = %v from %q, want %v from %q (%s)", d.Value, d.From, tt.want, tt.wantFrom, tt.reason)
			}
			if diff := cmp.Diff(tt.wantNotes, d.Notes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("EffectiveInhibitDelay notes mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// delay is logind's delay d, set in from ("" for the default), with notes.
func delay(d time.Duration, from string, notes ...string) InhibitDelay {
	var got InhibitDelay
	got.set(uint64(d / time.Microsecond))
	got.From, got.Notes = from, notes
	return got
}

// TestCheckLogindUnattendedUpgrades: the kubelet's 99-kubelet.conf sorts before
// unattended-upgrades' drop-in, so a total above 30 s is not granted.
func TestCheckLogindUnattendedUpgrades(t *testing.T) {
	main := LogindFile{Layer: Etc, Name: "logind.conf", Content: debianLogindConf}
	tests := []struct {
		name, reason string
		files        []LogindFile
		requested    time.Duration
		want         LogindReport
	}{
		{name: "no drop-in", reason: "the kubelet's override raises 5s to what it needs",
			files: []LogindFile{main}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Before: delay(5*time.Second, ""), After: delay(45*time.Second, "/etc/systemd/logind.conf.d/99-kubelet.conf")}},
		{name: "unattended-upgrades, 30s", reason: "30s fits the drop-in's 30s",
			files: []LogindFile{main, unattendedUpgrades}, requested: 30 * time.Second,
			want: LogindReport{Requested: 30 * time.Second, Before: delay(30*time.Second, unattendedUpgrades.Path()), After: delay(30*time.Second, unattendedUpgrades.Path())}},
		{name: "unattended-upgrades, 45s", reason: "the drop-in sorts after 99-kubelet.conf and keeps 30s",
			files: []LogindFile{main, unattendedUpgrades}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Conflict: true, Before: delay(30*time.Second, unattendedUpgrades.Path()), After: delay(30*time.Second, unattendedUpgrades.Path())}},
		{name: "masked", reason: "with the drop-in masked the kubelet's override wins",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: unattendedUpgrades.Name, Masked: true}}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Before: delay(5*time.Second, "", "/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf: masked (a link to /dev/null)"), After: delay(45*time.Second, "/etc/systemd/logind.conf.d/99-kubelet.conf", "/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf: masked (a link to /dev/null)")}},
		{name: "its own old drop-in", reason: "a kubelet that needed 20s before wrote 99-kubelet.conf then; needing 45s now, it writes the file again, and the old 20s is gone",
			files: []LogindFile{main, {Layer: Etc, Name: KubeletDropIn, Content: "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=20\n"}}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Before: delay(20*time.Second, "/etc/systemd/logind.conf.d/99-kubelet.conf"), After: delay(45*time.Second, "/etc/systemd/logind.conf.d/99-kubelet.conf")}},
		{name: "nothing asked", reason: "a configuration of zero seconds asks for nothing more than logind allows",
			files: []LogindFile{main, unattendedUpgrades}, requested: 0,
			want: LogindReport{Before: delay(30*time.Second, unattendedUpgrades.Path()), After: delay(30*time.Second, unattendedUpgrades.Path())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckLogind(tt.files, tt.requested)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckLogind mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestCheckLogindInfinity: logind reports InhibitDelayMaxSec=infinity as the
// largest microsecond count, which the kubelet reads as -1µs. So the kubelet
// always writes its drop-in over infinity, and a later drop-in that sets
// infinity again makes its shutdown manager fail to start.
func TestCheckLogindInfinity(t *testing.T) {
	main := LogindFile{Layer: Etc, Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=infinity\n"}
	later := LogindFile{Layer: Etc, Name: "zz-forever.conf", Content: "[Login]\nInhibitDelayMaxSec=infinity\n"}
	infinity := InhibitDelay{USec: USecInfinity, Value: -time.Microsecond, Infinite: true, From: "/etc/systemd/logind.conf"}
	tests := []struct {
		name, reason string
		files        []LogindFile
		want         LogindReport
	}{
		{name: "infinity in logind.conf", reason: "45s > -1µs: the kubelet writes 99-kubelet.conf, which replaces infinity with 45s",
			files: []LogindFile{main},
			want:  LogindReport{Requested: 45 * time.Second, Before: infinity, KubeletWrites: true, After: delay(45*time.Second, "/etc/systemd/logind.conf.d/99-kubelet.conf")}},
		{name: "infinity after 99-kubelet.conf", reason: "zz-forever.conf sorts last and sets infinity again: still -1µs, the manager fails to start",
			files: []LogindFile{main, later},
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Conflict: true,
				Before: InhibitDelay{USec: USecInfinity, Value: -time.Microsecond, Infinite: true, From: later.Path()},
				After:  InhibitDelay{USec: USecInfinity, Value: -time.Microsecond, Infinite: true, From: later.Path()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckLogind(tt.files, 45*time.Second)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckLogind mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestCheckLogindLongDelays: logind keeps whole microseconds, and the kubelet
// reads them back as time.Duration(µs) * time.Microsecond. A request of 150
// years (4,733,640,000 s, past the 2^53 ns where a float64 stops holding every
// nanosecond) is read back exactly; past about 292 years the kubelet's
// conversion wraps.
func TestCheckLogindLongDelays(t *testing.T) {
	tests := []struct {
		name, reason string
		requested    time.Duration
		wantAfter    time.Duration
		wantConflict bool
	}{
		{name: "150 years", reason: "the kubelet writes 4733640001 s and reads back exactly that",
			requested: 4_733_640_001 * time.Second, wantAfter: 4_733_640_001 * time.Second},
		{name: "290 years", reason: "still below the largest Duration",
			requested: 9_145_440_001 * time.Second, wantAfter: 9_145_440_001 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckLogind(nil, tt.requested)
			if !got.KubeletWrites || got.After.Value != tt.wantAfter || got.Conflict != tt.wantConflict {
				t.Errorf("CheckLogind(%v) = writes %v, after %v, conflict %v; want writes true, after %v, conflict %v (%s)",
					tt.requested, got.KubeletWrites, got.After.Value, got.Conflict, tt.wantAfter, tt.wantConflict, tt.reason)
			}
		})
	}
	// Past the largest Duration the kubelet's reading wraps: 300 years reads negative.
	d := EffectiveInhibitDelay([]LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=9467280000\n"}})
	if d.USec != 9_467_280_000_000_000 || d.Value >= 0 {
		t.Errorf("InhibitDelayMaxSec=9467280000: USec %d, the kubelet reads %v; want 9467280000000000 and a negative duration", d.USec, d.Value)
	}
}

// TestInhibitDelayString: how shutdown-plan prints logind's delay. Up to the
// largest Duration it prints the Duration; past it, where the kubelet's
// reading wraps, it prints what logind keeps: whole seconds, or microseconds.
func TestInhibitDelayString(t *testing.T) {
	at := func(usec uint64, from string) InhibitDelay {
		var d InhibitDelay
		d.set(usec)
		d.From = from
		return d
	}
	const largest = uint64(math.MaxInt64 / int64(time.Microsecond)) // the most microseconds a Duration holds
	tests := []struct {
		name, reason string
		d            InhibitDelay
		want         string
	}{
		{name: "default", reason: "no file sets it", d: at(5_000_000, ""), want: "5s (logind's default)"},
		{name: "from a file", reason: "the file whose line won", d: at(45_000_000, "/etc/systemd/logind.conf"), want: "45s (from /etc/systemd/logind.conf)"},
		{name: "infinity", reason: "USEC_INFINITY is printed as logind writes it", d: at(USecInfinity, "/etc/systemd/logind.conf"), want: "infinity (from /etc/systemd/logind.conf)"},
		{name: "largest duration", reason: "still a Duration, printed as one", d: at(largest, ""), want: "2562047h47m16.854775s (logind's default)"},
		{name: "past the largest, whole seconds", reason: "300 years: whole seconds", d: at(9_467_280_000_000_000, ""), want: "9467280000s (logind's default)"},
		{name: "past the largest, microseconds", reason: "not whole seconds: microseconds", d: at(largest+1, ""), want: "9223372036854776µs (logind's default)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.String(); got != tt.want {
				t.Errorf("InhibitDelay{USec: %d}.String() = %q, want %q (%s)", tt.d.USec, got, tt.want, tt.reason)
			}
		})
	}
}
