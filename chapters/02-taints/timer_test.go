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
