package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDaemonSetTolerations(t *testing.T) {
	base := []Toleration{
		tolerate(KeyNotReady, NoExecute, nil),
		tolerate(KeyUnreachable, NoExecute, nil),
		tolerate(KeyDiskPressure, NoSchedule, nil),
		tolerate(KeyMemoryPressure, NoSchedule, nil),
		tolerate(KeyPIDPressure, NoSchedule, nil),
		tolerate(KeyUnschedulable, NoSchedule, nil),
	}
	tests := []struct {
		name        string
		reason      string
		in          []Toleration
		hostNetwork bool
		want        []Toleration
	}{
		{"empty_template", "an empty template gets the six tolerations, none with seconds",
			nil, false, base},
		{"host_network", "host-network pods also tolerate network-unavailable",
			nil, true, append(append([]Toleration(nil), base...), tolerate(KeyNetworkUnavailable, NoSchedule, nil))},
		{"seconds_replaced", "a template's not-ready toleration with seconds is replaced by one without",
			[]Toleration{tolerate(KeyNotReady, NoExecute, Seconds(60))}, false, base},
		{"other_kept", "tolerations of other keys stay first",
			[]Toleration{tolerate("opslab.dev/link-down", NoExecute, Seconds(20))}, false,
			append([]Toleration{tolerate("opslab.dev/link-down", NoExecute, Seconds(20))}, base...)},
		{"equal_kept", "only a toleration with the same key, operator, value and effect is replaced: an Equal one with seconds stays, first",
			[]Toleration{{Key: KeyNotReady, Operator: Equal, Effect: NoExecute, Seconds: Seconds(60)}}, false,
			append([]Toleration{{Key: KeyNotReady, Operator: Equal, Effect: NoExecute, Seconds: Seconds(60)}}, base...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DaemonSetTolerations(tt.in, tt.hostNetwork)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DaemonSetTolerations(%v, %v) mismatch (%s) (-want +got):\n%s", tt.in, tt.hostNetwork, tt.reason, diff)
			}
		})
	}
}

// TestDaemonSetPodsOutlastNodeFailure: after the DaemonSet controller and
// admission both ran, a DaemonSet pod stays on a not-ready or unreachable
// node for good; admission adds nothing, because the tolerations are present.
func TestDaemonSetPodsOutlastNodeFailure(t *testing.T) {
	tols := AdmitDefaults(DaemonSetTolerations(nil, false), DefaultTolerationSeconds)
	for _, key := range []string{KeyNotReady, KeyUnreachable} {
		taint := Taint{Key: key, Effect: NoExecute}
		if got := Evict([]Taint{taint}, tols).Leave; got.Kind != Never {
			t.Errorf("Evict(%v, daemonset) = %v, want never", taint, got)
		}
	}
}

// TestDaemonSetPodWithEqualTolerationLeaves: a template's not-ready
// toleration written with operator Equal is not the one the DaemonSet
// controller adds, so it stays, first; the taint eviction controller uses
// the first toleration that matches, and the pod leaves after its seconds.
func TestDaemonSetPodWithEqualTolerationLeaves(t *testing.T) {
	own := Toleration{Key: KeyNotReady, Operator: Equal, Effect: NoExecute, Seconds: Seconds(60)}
	tols := AdmitDefaults(DaemonSetTolerations([]Toleration{own}, false), DefaultTolerationSeconds)
	taint := Taint{Key: KeyNotReady, Effect: NoExecute}
	if got, want := Evict([]Taint{taint}, tols).Leave, after(60); got != want {
		t.Errorf("Evict(%v, daemonset with %v) = %v, want %v", taint, own, got, want)
	}
}

// TestDaemonSetPodLeavesUnderOtherNoExecute: the DaemonSet controller's
// tolerations name the node-failure keys, not every key. Any other NoExecute
// taint, such as a maintenance taint put on by hand, removes a DaemonSet pod
// at once, unless its template tolerates that key itself.
func TestDaemonSetPodLeavesUnderOtherNoExecute(t *testing.T) {
	tols := AdmitDefaults(DaemonSetTolerations(nil, true), DefaultTolerationSeconds)
	taint := Taint{Key: "opslab.dev/maintenance", Value: "planned", Effect: NoExecute}
	if got := Evict([]Taint{taint}, tols).Leave; got.Kind != AtOnce {
		t.Errorf("Evict(%v, daemonset) = %v, want now", taint, got)
	}
}
