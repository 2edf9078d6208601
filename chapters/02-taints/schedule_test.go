package taints

import "testing"

func TestPlaceable(t *testing.T) {
	maintenance := Taint{Key: "opslab.dev/maintenance", Effect: NoExecute}
	tests := []struct {
		name   string
		reason string
		taints []Taint
		tols   []Toleration
		want   bool
	}{
		{"noschedule_refuses", "an untolerated NoSchedule taint keeps a new pod off",
			[]Taint{{Key: "dedicated", Effect: NoSchedule}}, nil, false},
		{"prefer_allows", "PreferNoSchedule is a preference: the pod may still be placed",
			[]Taint{{Key: "dedicated", Effect: PreferNoSchedule}}, nil, true},
		{"forgotten_noexecute_refuses", "a forgotten NoExecute taint keeps every new pod without a toleration off, for as long as it stays",
			[]Taint{maintenance}, AdmitDefaults(nil, DefaultTolerationSeconds), false},
		{"seconds_still_placeable", "a toleration with seconds is a toleration: the scheduler places the pod, the eviction timer then runs",
			[]Taint{maintenance}, []Toleration{tolerate(maintenance.Key, NoExecute, Seconds(20))}, true},
		{"noschedule_toleration_not_enough", "a toleration for NoSchedule does not cover the NoExecute taint of the same key",
			[]Taint{maintenance}, []Toleration{tolerate(maintenance.Key, NoSchedule, nil)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := Placeable(tt.taints, tt.tols); got != tt.want {
				t.Errorf("Placeable(%v, %v) = %v, want %v (%s)", tt.taints, tt.tols, got, tt.want, tt.reason)
			}
		})
	}
}

// TestOneRuleForPlacementAndEviction: for NoExecute taints the scheduler
// and the taint eviction controller agree, because both ask the same
// question of the same tolerations: a pod is placed exactly when it would
// not be deleted at once.
func TestOneRuleForPlacementAndEviction(t *testing.T) {
	keys := []string{"", "a", "b"}
	effects := []Effect{"", NoSchedule, NoExecute}
	seconds := []*int64{nil, Seconds(30)}
	var tolsets [][]Toleration
	for _, k := range keys {
		for _, e := range effects {
			for _, s := range seconds {
				tolsets = append(tolsets, []Toleration{{Key: k, Operator: Exists, Effect: e, Seconds: s}})
			}
		}
	}
	tolsets = append(tolsets, nil)
	taintsets := [][]Taint{
		{{Key: "a", Effect: NoExecute}},
		{{Key: "a", Effect: NoExecute}, {Key: "b", Effect: NoExecute}},
	}
	for _, ts := range taintsets {
		for _, tols := range tolsets {
			_, placed := Placeable(ts, tols)
			evictedAtOnce := Evict(ts, tols).Untolerated != nil
			if placed == evictedAtOnce {
				t.Errorf("taints %v, tolerations %v: placeable %v, untolerated for eviction %v", ts, tols, placed, evictedAtOnce)
			}
		}
	}
}
