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
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Before: InhibitDelay{Value: 5 * time.Second}, After: InhibitDelay{Value: 45 * time.Second, From: "/etc/systemd/logind.conf.d/99-kubelet.conf"}}},
		{name: "unattended-upgrades, 30s", reason: "30s fits the drop-in's 30s",
			files: []LogindFile{main, unattendedUpgrades}, requested: 30 * time.Second,
			want: LogindReport{Requested: 30 * time.Second, Before: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}, After: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}}},
		{name: "unattended-upgrades, 45s", reason: "the drop-in sorts after 99-kubelet.conf and keeps 30s",
			files: []LogindFile{main, unattendedUpgrades}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Conflict: true, Before: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}, After: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}}},
		{name: "masked", reason: "with the drop-in masked the kubelet's override wins",
			files: []LogindFile{main, unattendedUpgrades, {Layer: Etc, Name: unattendedUpgrades.Name, Masked: true}}, requested: 45 * time.Second,
			want: LogindReport{Requested: 45 * time.Second, KubeletWrites: true, Before: InhibitDelay{Value: 5 * time.Second, Notes: []string{"/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf: masked (a link to /dev/null)"}}, After: InhibitDelay{Value: 45 * time.Second, From: "/etc/systemd/logind.conf.d/99-kubelet.conf", Notes: []string{"/etc/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf: masked (a link to /dev/null)"}}}},
		{name: "off", reason: "graceful shutdown off asks for nothing",
			files: []LogindFile{main, unattendedUpgrades}, requested: 0,
			want: LogindReport{Before: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}, After: InhibitDelay{Value: 30 * time.Second, From: unattendedUpgrades.Path()}}},
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
