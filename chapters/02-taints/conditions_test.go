package taints

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConditionTaints(t *testing.T) {
	ns := func(key string) Taint { return Taint{Key: key, Effect: NoSchedule} }
	tests := []struct {
		name          string
		reason        string
		conds         []Condition
		unschedulable bool
		want          []Taint
	}{
		{"healthy", "a Ready node without pressure has no taint",
			[]Condition{{"Ready", True}, {"MemoryPressure", False}, {"DiskPressure", False}}, false, nil},
		{"ready_false", "Ready=False is not-ready",
			[]Condition{{"Ready", False}}, false, []Taint{ns(KeyNotReady)}},
		{"ready_unknown", "Ready=Unknown (no heartbeat) is unreachable",
			[]Condition{{"Ready", Unknown}}, false, []Taint{ns(KeyUnreachable)}},
		{"pressures", "each pressure condition that is True gives its own key",
			[]Condition{{"Ready", True}, {"MemoryPressure", True}, {"DiskPressure", True}, {"PIDPressure", True}, {"NetworkUnavailable", True}}, false,
			[]Taint{ns(KeyMemoryPressure), ns(KeyDiskPressure), ns(KeyPIDPressure), ns(KeyNetworkUnavailable)}},
		{"pressure_unknown", "a pressure condition that is Unknown gives no taint",
			[]Condition{{"MemoryPressure", Unknown}}, false, nil},
		{"cordoned", "spec.unschedulable gives the unschedulable taint",
			[]Condition{{"Ready", True}}, true, []Taint{ns(KeyUnschedulable)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConditionTaints(tt.conds, tt.unschedulable)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ConditionTaints(%v, %v) mismatch (%s) (-want +got):\n%s", tt.conds, tt.unschedulable, tt.reason, diff)
			}
		})
	}
}

func TestReadyTaint(t *testing.T) {
	tests := []struct {
		status Status
		want   Taint
		ok     bool
	}{
		{False, Taint{Key: KeyNotReady, Effect: NoExecute}, true},
		{Unknown, Taint{Key: KeyUnreachable, Effect: NoExecute}, true},
		{True, Taint{}, false},
	}
	for _, tt := range tests {
		got, ok := ReadyTaint(tt.status)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ReadyTaint(%s) = %v, %v, want %v, %v", tt.status, got, ok, tt.want, tt.ok)
		}
	}
}

// TestObservedReady: the Lease is a heartbeat as good as the status. The
// kubelet posts its status every 5 min when nothing changes, but renews its
// Lease every 10 s; the controller writes Ready=Unknown only when neither
// moved for the grace period.
func TestObservedReady(t *testing.T) {
	const grace = 50 * time.Second
	tests := []struct {
		name                string
		reason              string
		statusAgo, leaseAgo time.Duration
		want                Status
	}{
		{"lease_keeps_node_ready", "status 4 min old, Lease renewed 10 s ago: healthy", 4 * time.Minute, 10 * time.Second, True},
		{"both_silent", "status and Lease both older than the grace period: Unknown", 4 * time.Minute, 51 * time.Second, Unknown},
		{"status_alone", "a fresh status is enough", 10 * time.Second, 4 * time.Minute, True},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := at(600)
			if got := ObservedReady(True, now.Add(-tt.statusAgo), now.Add(-tt.leaseAgo), now, grace); got != tt.want {
				t.Errorf("ObservedReady(True, status %v ago, lease %v ago) = %s, want %s (%s)", tt.statusAgo, tt.leaseAgo, got, tt.want, tt.reason)
			}
		})
	}
}
