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
// and the taint eviction controller ask the same question of the same
// tolerations: is every taint tolerated? A pod is placed exactly when the
// controller finds a toleration for every NoExecute taint. The generator
// covers seconds absent, positive, zero and negative (on the tolerations
// the API accepts), and fails if it stops producing a pod that is placed
// and then deleted at once.
func TestOneRuleForPlacementAndEviction(t *testing.T) {
	keys := []string{"", "a", "b"}
	effects := []Effect{"", NoSchedule, NoExecute}
	seconds := []*int64{nil, Seconds(30), Seconds(0), Seconds(-5)}
	var tolsets [][]Toleration
	for _, k := range keys {
		for _, e := range effects {
			for _, s := range seconds {
				tol := Toleration{Key: k, Operator: Exists, Effect: e, Seconds: s}
				if ValidateToleration(tol) != nil {
					continue // seconds without NoExecute: the API refuses the pod
				}
				tolsets = append(tolsets, []Toleration{tol})
			}
		}
	}
	tolsets = append(tolsets, nil)
	taintsets := [][]Taint{
		{{Key: "a", Effect: NoExecute}},
		{{Key: "a", Effect: NoExecute}, {Key: "b", Effect: NoExecute}},
	}
	placedThenAtOnce := 0
	for _, ts := range taintsets {
		for _, tols := range tolsets {
			_, placed := Placeable(ts, tols)
			v := Evict(ts, tols)
			if placed != (v.Untolerated == nil) {
				t.Errorf("taints %v, tolerations %v: placeable %v, untolerated for eviction %v", ts, tols, placed, v.Untolerated)
			}
			if placed && v.Leave.Kind == AtOnce {
				placedThenAtOnce++
			}
		}
	}
	if placedThenAtOnce == 0 {
		t.Error("no generated pod is placed and then deleted at once: the generator lost its zero and negative seconds")
	}
}

// TestPlacedThenDeletedAtOnce: "placed" does not mean "stays". The
// scheduler never reads tolerationSeconds, so a pod tolerating a NoExecute
// taint for 0 s, or for a negative time, is placed on the tainted node, and
// the taint eviction controller deletes it as soon as it sees it there.
func TestPlacedThenDeletedAtOnce(t *testing.T) {
	maintenance := Taint{Key: "opslab.dev/maintenance", Effect: NoExecute}
	for _, s := range []int64{0, -5} {
		tols := []Toleration{tolerate(maintenance.Key, NoExecute, Seconds(s))}
		_, placed := Placeable([]Taint{maintenance}, tols)
		leave := Evict([]Taint{maintenance}, tols).Leave
		if !placed || leave.Kind != AtOnce {
			t.Errorf("tolerationSeconds %d: Placeable = %v, Evict = %v; want placed, then deleted now", s, placed, leave)
		}
	}
}
