package taints

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	linkDown = Taint{Key: "opslab.dev/link-down", Effect: NoExecute}
	notReady = Taint{Key: KeyNotReady, Effect: NoExecute}
)

func tolerate(key string, effect Effect, seconds *int64) Toleration {
	return Toleration{Key: key, Operator: Exists, Effect: effect, Seconds: seconds}
}

func after(s int64) Leave { return Leave{Kind: After, After: time.Duration(s) * time.Second} }

// TestEvict pins the rule of the taint eviction controller, one case per
// claim of the chapter.
func TestEvict(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		taints []Taint
		tols   []Toleration
		want   Leave
		by     *Toleration // the toleration that decided, nil for none
	}{
		{"untolerated_at_once", "a NoExecute taint nobody tolerates deletes the pod as soon as it is seen",
			[]Taint{linkDown}, nil, Leave{Kind: AtOnce}, nil},
		{"tolerated_without_seconds_never", "a toleration without tolerationSeconds keeps the pod for good",
			[]Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, nil)}, Leave{Kind: Never}, &Toleration{Key: linkDown.Key, Operator: Exists, Effect: NoExecute}},
		{"tolerated_with_seconds_after", "tolerationSeconds 20 means the pod leaves 20 s after the taint is seen",
			[]Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))}, after(20), &Toleration{Key: linkDown.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(20)}},
		{"zero_seconds_at_once", "tolerationSeconds 0 is at once",
			[]Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(0))}, Leave{Kind: AtOnce}, &Toleration{Key: linkDown.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(0)}},
		{"negative_seconds_at_once", "a negative tolerationSeconds is at once too",
			[]Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(-5))}, Leave{Kind: AtOnce}, &Toleration{Key: linkDown.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(-5)}},
		{"noschedule_changes_nothing", "NoSchedule only stops new placements: a running pod without tolerations stays",
			[]Taint{{Key: linkDown.Key, Effect: NoSchedule}}, nil, Leave{Kind: Never}, nil},
		{"prefernoschedule_changes_nothing", "PreferNoSchedule is a preference for the scheduler",
			[]Taint{{Key: linkDown.Key, Effect: PreferNoSchedule}}, nil, Leave{Kind: Never}, nil},
		{"no_taints_never", "a node without taints evicts nobody",
			nil, nil, Leave{Kind: Never}, nil},
		{"minimum_over_taints", "two taints tolerated for 300 s and 20 s: the pod leaves after the smaller",
			[]Taint{notReady, linkDown},
			[]Toleration{tolerate(KeyNotReady, NoExecute, Seconds(300)), tolerate(linkDown.Key, NoExecute, Seconds(20))},
			after(20), &Toleration{Key: linkDown.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(20)}},
		{"forever_and_seconds", "one taint tolerated forever, another for 300 s: the seconds win",
			[]Taint{notReady, linkDown},
			[]Toleration{tolerate(KeyNotReady, NoExecute, Seconds(300)), tolerate(linkDown.Key, NoExecute, nil)},
			after(300), &Toleration{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, Seconds: Seconds(300)}},
		{"one_untolerated_taint_at_once", "one untolerated taint is enough, whatever the others allow",
			[]Taint{notReady, linkDown},
			[]Toleration{tolerate(KeyNotReady, NoExecute, nil)},
			Leave{Kind: AtOnce}, nil},
		{"first_toleration_per_taint", "only the first toleration that tolerates a taint is used: a later, shorter one is ignored",
			[]Taint{linkDown},
			[]Toleration{{Operator: Exists, Effect: NoExecute, Seconds: Seconds(3600)}, tolerate(linkDown.Key, NoExecute, Seconds(5))},
			after(3600), &Toleration{Operator: Exists, Effect: NoExecute, Seconds: Seconds(3600)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A case the API server would refuse to create teaches nothing.
			for _, tol := range tt.tols {
				if errs := ValidateToleration(tol); errs != nil {
					t.Errorf("toleration %v is refused by the API: %v", tol, errs)
				}
			}
			v := Evict(tt.taints, tt.tols)
			if v.Leave != tt.want {
				t.Errorf("Evict(%v, %v) = %v, want %v (%s)", tt.taints, tt.tols, v.Leave, tt.want, tt.reason)
			}
			var by *Toleration
			if v.By != nil {
				by = &v.By.Toleration
			}
			if diff := cmp.Diff(tt.by, by); diff != "" {
				t.Errorf("Evict(%v, %v).By mismatch (-want +got):\n%s", tt.taints, tt.tols, diff)
			}
		})
	}
}

func TestEvictNamesUntoleratedTaint(t *testing.T) {
	v := Evict([]Taint{notReady, linkDown}, []Toleration{tolerate(KeyNotReady, NoExecute, nil)})
	if v.Untolerated == nil || *v.Untolerated != linkDown {
		t.Errorf("Evict(...).Untolerated = %v, want %v", v.Untolerated, linkDown)
	}
}

func TestLeaveString(t *testing.T) {
	for _, tt := range []struct {
		l    Leave
		want string
	}{
		{Leave{Kind: AtOnce}, "now"},
		{after(20), "after 20s"},
		{after(3600), "after 3600s"},
		{Leave{Kind: Never}, "never"},
	} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

// TestLeaveBefore holds the timetable's order to a strict one: at once
// first, then the shorter delays, never last, and no leave before itself.
func TestLeaveBefore(t *testing.T) {
	now, never := Leave{Kind: AtOnce}, Leave{Kind: Never}
	after := func(s int) Leave { return Leave{Kind: After, After: time.Duration(s) * time.Second} }
	for _, c := range []struct {
		l, m Leave
		want bool
	}{
		{now, after(5), true},
		{after(5), now, false},
		{after(5), never, true},
		{never, after(5), false},
		{after(5), after(20), true},
		{after(20), after(5), false},
		{after(20), after(20), false},
		{now, now, false},
		{never, never, false},
	} {
		if got := c.l.Before(c.m); got != c.want {
			t.Errorf("%v.Before(%v) = %v, want %v", c.l, c.m, got, c.want)
		}
	}
}

// TestEvictByFirstOfEqualSeconds: when two used tolerations share the
// smallest seconds, the verdict names the first of them, in the order of
// the node's taints.
func TestEvictByFirstOfEqualSeconds(t *testing.T) {
	a := Taint{Key: "opslab.dev/a", Effect: NoExecute}
	b := Taint{Key: "opslab.dev/b", Effect: NoExecute}
	v := Evict([]Taint{a, b}, []Toleration{
		{Key: a.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(20)},
		{Key: b.Key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(20)},
	})
	if v.By == nil || v.By.Taint.Key != a.Key {
		t.Errorf("By = %+v, want the use of %s, the first with 20 s", v.By, a.Key)
	}
}
