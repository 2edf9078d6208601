package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	defaultNotReady    = Toleration{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, Seconds: Seconds(300)}
	defaultUnreachable = Toleration{Key: KeyUnreachable, Operator: Exists, Effect: NoExecute, Seconds: Seconds(300)}
)

func TestAdmitDefaults(t *testing.T) {
	db := Toleration{Key: KeyUnreachable, Operator: Exists, Effect: NoExecute, Seconds: Seconds(900)}
	tests := []struct {
		name   string
		reason string
		in     []Toleration
		want   []Toleration
	}{
		{"nothing_written_gets_300s", "a pod that wrote no toleration gets both, 300 s each",
			nil, []Toleration{defaultNotReady, defaultUnreachable}},
		{"own_value_kept", "a pod that wrote its own unreachable toleration keeps it; only not-ready is added",
			[]Toleration{db}, []Toleration{db, defaultNotReady}},
		{"forever_kept", "a toleration without seconds counts as present and stays forever",
			[]Toleration{tolerate(KeyNotReady, NoExecute, nil), tolerate(KeyUnreachable, NoExecute, nil)},
			[]Toleration{tolerate(KeyNotReady, NoExecute, nil), tolerate(KeyUnreachable, NoExecute, nil)}},
		{"value_still_counts", "the plugin reads key and effect only: an Equal toleration with a value, whatever its seconds, counts as present",
			[]Toleration{{Key: KeyNotReady, Operator: Equal, Value: "rack-7", Effect: NoExecute, Seconds: Seconds(30)}},
			[]Toleration{{Key: KeyNotReady, Operator: Equal, Value: "rack-7", Effect: NoExecute, Seconds: Seconds(30)}, defaultUnreachable}},
		{"empty_key_covers_both", "a toleration with an empty key covers both keys",
			[]Toleration{{Operator: Exists, Effect: NoExecute}}, []Toleration{{Operator: Exists, Effect: NoExecute}}},
		{"empty_effect_counts", "a toleration with an empty effect counts as NoExecute",
			[]Toleration{{Key: KeyNotReady, Operator: Exists}}, []Toleration{{Key: KeyNotReady, Operator: Exists}, defaultUnreachable}},
		{"noschedule_does_not_count", "a NoSchedule toleration for not-ready does not stop the default",
			[]Toleration{tolerate(KeyNotReady, NoSchedule, nil)},
			[]Toleration{tolerate(KeyNotReady, NoSchedule, nil), defaultNotReady, defaultUnreachable}},
		{"other_keys_kept", "unrelated tolerations stay, in their order, before the defaults",
			[]Toleration{tolerate("opslab.dev/link-down", NoExecute, Seconds(20))},
			[]Toleration{tolerate("opslab.dev/link-down", NoExecute, Seconds(20)), defaultNotReady, defaultUnreachable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AdmitDefaults(tt.in, DefaultTolerationSeconds)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AdmitDefaults(%v) mismatch (%s) (-want +got):\n%s", tt.in, tt.reason, diff)
			}
		})
	}
}

// TestAdmitDefaultsOnUpdate: the plugin runs on create and update; a second
// pass adds nothing, because its own tolerations are now present.
func TestAdmitDefaultsOnUpdate(t *testing.T) {
	once := AdmitDefaults(nil, DefaultTolerationSeconds)
	twice := AdmitDefaults(once, DefaultTolerationSeconds)
	if diff := cmp.Diff(once, twice); diff != "" {
		t.Errorf("AdmitDefaults twice mismatch (-want +got):\n%s", diff)
	}
}

// TestDefaultPodLeavesAfterFiveMinutes: a pod nobody configured leaves a
// not-ready or unreachable node 300 s after the taint is seen.
func TestDefaultPodLeavesAfterFiveMinutes(t *testing.T) {
	tols := AdmitDefaults(nil, DefaultTolerationSeconds)
	for _, key := range []string{KeyNotReady, KeyUnreachable} {
		taint := Taint{Key: key, Effect: NoExecute}
		if got := Evict([]Taint{taint}, tols).Leave; got != after(300) {
			t.Errorf("Evict(%v, defaults) = %v, want after 300s", taint, got)
		}
	}
	// The defaults say nothing about other keys: a custom taint removes the
	// same pod at once.
	if got := Evict([]Taint{linkDown}, tols).Leave; got.Kind != AtOnce {
		t.Errorf("Evict(%v, defaults) = %v, want now", linkDown, got)
	}
}
