package shutdown

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// kubelet returns the settings of a kubelet configuration with
// shutdownGracePeriod total, shutdownGracePeriodCriticalPods critical and
// shutdownGracePeriodByPodPriority table.
func kubelet(total, critical time.Duration, table ...Group) Settings {
	return Settings{
		ShutdownGracePeriod:              total,
		ShutdownGracePeriodCriticalPods:  critical,
		ShutdownGracePeriodByPodPriority: table,
	}
}

// prio is an entry of shutdownGracePeriodByPodPriority.
func prio(priority int32, seconds int64) Group {
	return Group{Priority: priority, Seconds: seconds}
}

// TestValidateBothZeroIsOff: the defaults switch graceful shutdown off.
func TestValidateBothZeroIsOff(t *testing.T) {
	c, err := Validate(kubelet(0, 0))
	if err != nil {
		t.Fatalf("Validate(0s, 0s) = %v, want accepted", err)
	}
	if c.Enabled {
		t.Errorf("Validate(0s, 0s).Enabled = true, want false: both at zero switch the feature off")
	}
}

// TestValidateTwoValues: 30 s / 10 s gives regular pods 20 s and critical ones 10 s.
func TestValidateTwoValues(t *testing.T) {
	c, err := Validate(kubelet(30*time.Second, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Enabled: true, Groups: []Group{{Priority: RegularPriority, Seconds: 20}, {Priority: CriticalPriority, Seconds: 10}}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Validate(30s, 10s) mismatch (-want +got):\n%s", diff)
	}
	if c.Total() != 30*time.Second {
		t.Errorf("Total() = %v, want 30s", c.Total())
	}
}

// TestValidateCriticalAboveTotalRefused: a critical period longer than the
// total is refused, but an equal one is accepted (the kubelet checks <=).
func TestValidateCriticalAboveTotalRefused(t *testing.T) {
	tests := []struct {
		name, reason      string
		total, critical   time.Duration
		wantErr           string
		wantRegularGroupS int64
	}{
		{name: "above", reason: "critical 40s cannot fit in a 30s total",
			total: 30 * time.Second, critical: 40 * time.Second,
			wantErr: "shutdownGracePeriodCriticalPods 40s must be <= shutdownGracePeriod 30s"},
		{name: "equal", reason: "upstream validation only refuses critical > total; regular pods get 0s",
			total: 30 * time.Second, critical: 30 * time.Second, wantRegularGroupS: 0},
		{name: "total zero", reason: "critical without a total is above it",
			total: 0, critical: 10 * time.Second,
			wantErr: "shutdownGracePeriodCriticalPods 10s must be <= shutdownGracePeriod 0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Validate(kubelet(tt.total, tt.critical))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate(%v, %v) = %v, want error %q (%s)", tt.total, tt.critical, err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate(%v, %v) = %v, want accepted (%s)", tt.total, tt.critical, err, tt.reason)
			}
			if got := c.Groups[0].Seconds; got != tt.wantRegularGroupS {
				t.Errorf("regular group = %ds, want %ds (%s)", got, tt.wantRegularGroupS, tt.reason)
			}
		})
	}
}

// TestValidateRefusals lists every configuration Validate refuses, with the
// one line that says why.
func TestValidateRefusals(t *testing.T) {
	tests := []struct {
		name, reason string
		in           Settings
		want         string
	}{
		{name: "sub-second total", reason: "the kubelet wants zero or at least one second",
			in: kubelet(500*time.Millisecond, 0), want: "shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec"},
		{name: "sub-second critical", reason: "the same rule holds for the critical period: 999ms is refused",
			in: kubelet(30*time.Second, 999*time.Millisecond), want: "shutdownGracePeriodCriticalPods 999ms must be either zero or otherwise >= 1 sec"},
		{name: "negative critical", reason: "negative durations are refused",
			in: kubelet(30*time.Second, -time.Second), want: "shutdownGracePeriodCriticalPods -1s must be either zero or otherwise >= 1 sec"},
		{name: "both forms", reason: "the table replaces the two values; the kubelet refuses both at once",
			in: kubelet(30*time.Second, 10*time.Second, prio(0, 10)), want: "shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set"},
		{name: "table without gate", reason: "the table needs GracefulNodeShutdownBasedOnPodPriority",
			in: func() Settings {
				in := kubelet(0, 0, prio(0, 10))
				in.FeatureGates = map[string]bool{"GracefulNodeShutdownBasedOnPodPriority": false}
				return in
			}(), want: "shutdownGracePeriodByPodPriority needs feature gate GracefulNodeShutdownBasedOnPodPriority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Validate(tt.in)
			if err == nil {
				t.Fatalf("Validate = accepted, want refused with %q (%s)", tt.want, tt.reason)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Validate error mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
	// "At least one second" includes one second: the kubelet refuses only
	// periods below it.
	accepted := []struct {
		name, reason    string
		total, critical time.Duration
	}{
		{name: "one-second total", reason: "1s is the shortest total the kubelet accepts", total: time.Second},
		{name: "one-second critical", reason: "1s is the shortest critical period the kubelet accepts", total: 30 * time.Second, critical: time.Second},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Validate(kubelet(tt.total, tt.critical)); err != nil {
				t.Errorf("Validate(%v, %v) = %v, want accepted (%s)", tt.total, tt.critical, err, tt.reason)
			}
		})
	}
}

// TestValidateFeatureGates: the three gates are on by default in v1.37, and
// the two that depend on GracefulNodeShutdown make switching it off alone a
// refusal, before any other rule is checked (component-base's featuregate
// dependency check, run first by ValidateKubeletConfiguration).
func TestValidateFeatureGates(t *testing.T) {
	const (
		byPriorityNeedsGraceful = "GracefulNodeShutdownBasedOnPodPriority is enabled, but depends on features that are disabled: [GracefulNodeShutdown]"
		windowsNeedsGraceful    = "WindowsGracefulNodeShutdown is enabled, but depends on features that are disabled: [GracefulNodeShutdown]"
	)
	allOff := map[string]bool{GateGraceful: false, GateByPriority: false, GateWindowsGraceful: false}
	tests := []struct {
		name, reason string
		in           Settings
		gates        map[string]bool
		want         Config
		wantErr      string
	}{
		{name: "defaults", reason: "all three gates on: the table is used",
			in: kubelet(0, 0, prio(0, 10)), want: Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 10}}}},
		{name: "graceful off alone", reason: "the two gates that depend on it are still on by default: refused, whatever else is set",
			in: kubelet(0, 0), gates: map[string]bool{GateGraceful: false},
			wantErr: byPriorityNeedsGraceful + "\n" + windowsNeedsGraceful},
		{name: "graceful off alone, with durations", reason: "the dependency refusal comes first and alone",
			in: kubelet(30*time.Second, 10*time.Second), gates: map[string]bool{GateGraceful: false},
			wantErr: byPriorityNeedsGraceful + "\n" + windowsNeedsGraceful},
		{name: "graceful off with its dependants", reason: "all three off: accepted, no shutdown manager",
			in: kubelet(0, 0), gates: allOff, want: Config{}},
		{name: "all off, with durations", reason: "the durations need GracefulNodeShutdown",
			in: kubelet(30*time.Second, 0), gates: allOff,
			wantErr: "shutdownGracePeriod or shutdownGracePeriodCriticalPods needs feature gate GracefulNodeShutdown"},
		{name: "all off, with a table", reason: "the table needs GracefulNodeShutdownBasedOnPodPriority",
			in: kubelet(0, 0, prio(0, 10)), gates: allOff,
			wantErr: "shutdownGracePeriodByPodPriority needs feature gate GracefulNodeShutdownBasedOnPodPriority"},
		{name: "by priority off", reason: "nothing depends on it: the two values still work",
			in: kubelet(30*time.Second, 10*time.Second), gates: map[string]bool{GateByPriority: false},
			want: Config{Enabled: true, Groups: []Group{{RegularPriority, 20}, {CriticalPriority, 10}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.FeatureGates = tt.gates
			got, err := Validate(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Validate = %v, want refused with %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v, want accepted (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestValidateAcceptsWhatTheKubeletAccepts: the kubelet does not check the
// priority table, so a repeated priority and negative seconds are accepted;
// NewPlan's tests show what it then does with them.
func TestValidateAcceptsWhatTheKubeletAccepts(t *testing.T) {
	tests := []struct {
		name, reason string
		table        []Group
		want         []Group
	}{
		{name: "repeated priority", reason: "both entries of priority 0 stay, in the order written",
			table: []Group{prio(0, 10), prio(0, 20), prio(1000, 30)}, want: []Group{{0, 10}, {0, 20}, {1000, 30}}},
		{name: "negative seconds", reason: "validation has no rule for the table's seconds",
			table: []Group{prio(0, -5), prio(1000, 30)}, want: []Group{{0, -5}, {1000, 30}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Validate(kubelet(0, 0, tt.table...))
			if err != nil {
				t.Fatalf("Validate = %v, want accepted (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, c.Groups); diff != "" {
				t.Errorf("groups mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestValidatePriorityTableSorted: the table is accepted in any order and run
// lowest priority first; the table as written is left as it is.
func TestValidatePriorityTableSorted(t *testing.T) {
	table := []Group{prio(50000, 15), prio(7000, 120), prio(800, 45), prio(0, 30)}
	c, err := Validate(kubelet(0, 0, table...))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Group{{50000, 15}, {7000, 120}, {800, 45}, {0, 30}}, table); diff != "" {
		t.Errorf("Validate sorted the table it was given (-want +got):\n%s", diff)
	}
	want := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 30}, {800, 45}, {7000, 120}, {50000, 15}}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Validate(table) mismatch (-want +got):\n%s", diff)
	}
	if c.Total() != 210*time.Second {
		t.Errorf("Total() = %v, want 3m30s", c.Total())
	}
}
