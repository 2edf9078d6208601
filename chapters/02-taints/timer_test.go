package taints

import (
	"testing"
	"time"
)

// at returns t0 plus s seconds.
func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func fireAt(t *testing.T, tm Timer) (int, bool) {
	t.Helper()
	f, ok := tm.FireAt()
	return int(f.Sub(t0) / time.Second), ok
}

func TestTimerStartsWhenObserved(t *testing.T) {
	// The taint was added at 0 but the controller saw it at 3: a 20 s
	// toleration fires at 23, not at 20.
	var tm Timer
	tm.Observe(at(3), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))})
	if s, ok := fireAt(t, tm); !ok || s != 23 {
		t.Errorf("FireAt = %d s, %v, want 23 s, true", s, ok)
	}
}

func TestTimerCancelledWhenTaintGoesFirst(t *testing.T) {
	// A 20 s toleration, and the link comes back after 10 s: the taint goes,
	// the deletion is cancelled, the pod stays.
	var tm Timer
	tols := []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))}
	tm.Observe(at(0), []Taint{linkDown}, tols)
	tm.Observe(at(10), nil, tols)
	if s, ok := fireAt(t, tm); ok {
		t.Errorf("FireAt = %d s, armed; want cancelled", s)
	}
}

func TestTimerNotPushedLater(t *testing.T) {
	// Scheduled for 20 s; at 5 s the pod's toleration becomes 3600 s. The
	// deletion already scheduled stands.
	var tm Timer
	tm.Observe(at(0), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))})
	tm.Observe(at(5), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(3600))})
	if s, ok := fireAt(t, tm); !ok || s != 20 {
		t.Errorf("FireAt = %d s, %v, want 20 s, true", s, ok)
	}
}

func TestTimerNotPulledEarlier(t *testing.T) {
	// Scheduled for 3600 s; at 10 s the toleration becomes 20 s. Measured
	// from the first start, 0 + 20 is before 10 + 20, so upstream keeps the
	// work it has: the pod still leaves at 3600 s.
	var tm Timer
	tm.Observe(at(0), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(3600))})
	tm.Observe(at(10), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))})
	if s, ok := fireAt(t, tm); !ok || s != 3600 {
		t.Errorf("FireAt = %d s, %v, want 3600 s, true", s, ok)
	}
}

func TestTimerUntoleratedReplacesSchedule(t *testing.T) {
	// A second NoExecute taint the pod does not tolerate: whatever was
	// scheduled, it goes now.
	var tm Timer
	tols := []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(3600))}
	tm.Observe(at(0), []Taint{linkDown}, tols)
	tm.Observe(at(30), []Taint{linkDown, notReady}, tols)
	if s, ok := fireAt(t, tm); !ok || s != 30 {
		t.Errorf("FireAt = %d s, %v, want 30 s, true", s, ok)
	}
}

func TestTimerForeverCancels(t *testing.T) {
	// The pod gains a toleration without seconds: the scheduled deletion is
	// cancelled.
	var tm Timer
	tm.Observe(at(0), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))})
	tm.Observe(at(5), []Taint{linkDown}, []Toleration{tolerate(linkDown.Key, NoExecute, nil)})
	if _, ok := tm.FireAt(); ok {
		t.Error("FireAt armed, want cancelled")
	}
}

// TestOneNumberTwoIncidents follows one value through two incidents, counted
// from the moment the unreachable taint is seen. A partition that heals
// within the tolerationSeconds moves nobody; a node that is really dead
// keeps its pods, and the service short of them, for the whole value.
func TestOneNumberTwoIncidents(t *testing.T) {
	unreachable := Taint{Key: KeyUnreachable, Effect: NoExecute}
	frontend := AdmitDefaults(nil, DefaultTolerationSeconds)
	db := AdmitDefaults([]Toleration{tolerate(KeyNotReady, NoExecute, Seconds(6000)), tolerate(KeyUnreachable, NoExecute, Seconds(6000))}, DefaultTolerationSeconds)
	tests := []struct {
		name   string
		reason string
		tols   []Toleration
		healAt int // seconds after the taint when the node is back; 0 for never
		want   int // seconds after the taint when the pod is deleted; 0 for never
	}{
		{"frontend_short_partition", "the default 300 s rides out a 4 min partition", frontend, 240, 0},
		{"frontend_dead_node", "on a dead node the default keeps the pod, and the service a replica short, for 300 s", frontend, 0, 300},
		{"db_long_partition", "a 20 min partition moves a pod with the default, not one with 6000 s", db, 1200, 0},
		{"frontend_long_partition", "the same 20 min partition moves the default pod after 300 s, to an empty disk if it had state", frontend, 1200, 300},
		{"db_dead_node", "on a dead node the 6000 s pod stays 100 min", db, 0, 6000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tm Timer
			tm.Observe(at(0), []Taint{unreachable}, tt.tols)
			got := 0
			if f, ok := tm.FireAt(); ok && (tt.healAt == 0 || f.Before(at(tt.healAt))) {
				got = int(f.Sub(t0) / time.Second)
			}
			if tt.healAt != 0 {
				tm.Observe(at(tt.healAt), nil, tt.tols)
			}
			if got != tt.want {
				t.Errorf("deleted at %d s, want %d s (0: never) (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
