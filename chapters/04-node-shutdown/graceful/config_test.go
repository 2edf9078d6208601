package graceful

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
		{name: "negative critical", reason: "negative durations are refused",
			in: kubelet(30*time.Second, -time.Second), want: "shutdownGracePeriodCriticalPods -1s must be either zero or otherwise >= 1 sec"},
		{name: "both forms", reason: "the table replaces the two values; the kubelet refuses both at once",
			in: kubelet(30*time.Second, 10*time.Second, prio(0, 10)), want: "shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set"},
		{name: "duplicate priority", reason: "the second group of a repeated priority never gets a pod",
			in: kubelet(0, 0, prio(0, 10), prio(1000, 20), prio(1000, 30)), want: "shutdownGracePeriodByPodPriority[2] repeats priority 1000 of entry 1: the second group would never get a pod"},
		{name: "negative seconds", reason: "a group cannot last less than nothing",
			in: kubelet(0, 0, prio(0, -5)), want: "shutdownGracePeriodByPodPriority[0] (priority 0) has -5 seconds, want 0 or more"},
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
}

// TestValidatePriorityTableSorted: the table is accepted in any order and run
// lowest priority first; the table as written is left as it is.
func TestValidatePriorityTableSorted(t *testing.T) {
	table := []Group{prio(100000, 10), prio(10000, 180), prio(1000, 120), prio(0, 60)}
	c, err := Validate(kubelet(0, 0, table...))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Group{{100000, 10}, {10000, 180}, {1000, 120}, {0, 60}}, table); diff != "" {
		t.Errorf("Validate sorted the table it was given (-want +got):\n%s", diff)
	}
	want := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 60}, {1000, 120}, {10000, 180}, {100000, 10}}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Validate(table) mismatch (-want +got):\n%s", diff)
	}
	if c.Total() != 370*time.Second {
		t.Errorf("Total() = %v, want 6m10s", c.Total())
	}
}
