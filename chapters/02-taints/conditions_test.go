package taints

import (
	"testing"

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
