package graceful

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
			want:  5 * time.Second},
		{name: "etc replaces lib", reason: "a file of the same name in /etc replaces the one in /usr/lib entirely",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: unattendedUpgrades.Name, Content: "[Login]\nInhibitDelayMaxSec=120\n"}},
			want:  120 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf"},
		{name: "not .conf", reason: "only *.conf files are drop-ins",
			files: []LogindFile{main, {Layer: Etc, Name: "zz.conf.bak", Content: "[Login]\nInhibitDelayMaxSec=1\n"}},
			want:  5 * time.Second},
		{name: "other section", reason: "the option belongs to [Login]",
			files: []LogindFile{main, {Layer: Etc, Name: "10-a.conf", Content: "[Other]\nInhibitDelayMaxSec=1\n"}},
			want:  5 * time.Second},
		{name: "units", reason: "a systemd time span: 1min 30s",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=1min 30s\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
		{name: "empty resets", reason: "an empty assignment resets to the default",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\n"}, {Layer: Etc, Name: "20-b.conf", Content: "[Login]\nInhibitDelayMaxSec=\n"}},
			want:  5 * time.Second},
		{name: "bad value ignored", reason: "systemd ignores a line it cannot parse and keeps the earlier value",
			files: []LogindFile{{Layer: Etc, Name: "10-a.conf", Content: "[Login]\nInhibitDelayMaxSec=90\n"}, {Layer: Etc, Name: "20-b.conf", Content: "[Login]\nInhibitDelayMaxSec=soon\n"}},
			want:  90 * time.Second, wantFrom: "/etc/systemd/logind.conf.d/10-a.conf"},
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
