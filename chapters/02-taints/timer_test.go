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
	// The taint says it was added at 0 (timeAdded), but the controller
	// saw it at 3: a 20 s toleration fires at 23, not at 20. A taint
	// written an hour before the controller saw it, as a restarted or
	// partitioned controller meets it, still gives the pod its 20 s.
	for _, c := range []struct {
		name  string
		added time.Time
		seen  int
		want  int
	}{
		{"added at 0, seen at 3", at(0), 3, 23},
		{"added an hour before it was seen", at(0).Add(-time.Hour), 3, 23},
		{"no timeAdded written", time.Time{}, 3, 23},
	} {
		t.Run(c.name, func(t *testing.T) {
			taint := linkDown
			taint.TimeAdded = c.added
			var tm Timer
			tm.Observe(at(c.seen), []Taint{taint}, []Toleration{tolerate(linkDown.Key, NoExecute, Seconds(20))})
			if s, ok := fireAt(t, tm); !ok || s != c.want {
				t.Errorf("FireAt = %d s, %v, want %d s, true", s, ok, c.want)
			}
		})
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

// TestOneNumberTwoIncidents follows one value through the chapter's
// incidents, counted from the moment the unreachable taint is seen. The
// timer decides when the pod is deleted; the owner decides when a
// replacement runs: a ReplicaSet replaces a Terminating pod at once, a
// StatefulSet only once the old object is gone, which on an unreachable
// node means when the node answers again (or chapter 4's out-of-service
// taint, not used here).
func TestOneNumberTwoIncidents(t *testing.T) {
	unreachable := Taint{Key: KeyUnreachable, Effect: NoExecute}
	def := AdmitDefaults(nil, DefaultTolerationSeconds)
	long := AdmitDefaults([]Toleration{tolerate(KeyNotReady, NoExecute, Seconds(900)), tolerate(KeyUnreachable, NoExecute, Seconds(900))}, DefaultTolerationSeconds)
	const never = -1
	tests := []struct {
		name     string
		reason   string
		owner    Owner
		tols     []Toleration
		healAt   int   // seconds after the taint when the node answers again; never for a dead node
		grace    int64 // the pod's terminationGracePeriodSeconds
		deleted  int   // seconds after the taint when the pod is deleted (marked Terminating); never
		replaced int   // seconds after the taint when its owner creates a replacement; never
	}{
		{"cache_short_partition", "the default 300 s rides out a 4 min partition: nothing is deleted",
			ReplicaSet, def, 240, 30, never, never},
		{"cache_switch_reboot", "the story's eight-minute switch reboot: after 300 s the ReplicaSet starts an empty copy elsewhere while the old one, warm, is still Terminating on the cut-off node",
			ReplicaSet, def, 480, 30, 300, 300},
		{"db_switch_reboot", "the same reboot deletes db-0 after 300 s, but the StatefulSet waits for the old object: no copy elsewhere, db-0 is restarted when the node is back",
			StatefulSet, def, 480, 30, 300, 480},
		{"db_switch_reboot_900s", "with 900 s the reboot moves and restarts nothing",
			StatefulSet, long, 480, 30, never, never},
		{"cache_dead_node", "on a dead node the default keeps the pod, and the service a replica short, for 300 s; then the ReplicaSet replaces it",
			ReplicaSet, def, never, 30, 300, 300},
		{"db_dead_node", "on a dead node the deletion after 300 s does not help a StatefulSet: db-0 stays Terminating and is never replaced without the Node deleted or the out-of-service taint",
			StatefulSet, def, never, 30, 300, never},
		{"db_dead_node_grace_0", "with terminationGracePeriodSeconds 0 the deletion at 300 s removes db-0 at once, and the StatefulSet creates a new db-0 elsewhere while the old one may still run on the lost node",
			StatefulSet, def, never, 0, 300, 300},
		{"db_dead_node_900s", "on a dead node the 900 s pod stays 15 min before it is even deleted",
			StatefulSet, long, never, 30, 900, never},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tm Timer
			tm.Observe(at(0), []Taint{unreachable}, tt.tols)
			deleted := never
			if f, ok := tm.FireAt(); ok && (tt.healAt == never || f.Before(at(tt.healAt))) {
				deleted = int(f.Sub(t0) / time.Second)
			}
			if tt.healAt != never {
				tm.Observe(at(tt.healAt), nil, tt.tols)
			}
			// The replacement: at the deletion if the object goes at once
			// or the owner replaces a Terminating pod, else when the
			// object goes.
			gone := Deletion{GraceSeconds: tt.grace, Scheduled: true}.GoneAtOnce()
			replaced := never
			switch {
			case deleted == never:
			case Replaces(tt.owner, OldPod{Exists: !gone, Terminating: !gone}):
				replaced = deleted
			case tt.healAt != never && TerminatingPodRemoved(true, false, false) && Replaces(tt.owner, OldPod{}):
				replaced = tt.healAt
			}
			if deleted != tt.deleted || replaced != tt.replaced {
				t.Errorf("deleted at %d s, replaced at %d s; want %d s, %d s (-1: never) (%s)", deleted, replaced, tt.deleted, tt.replaced, tt.reason)
			}
		})
	}
}

// TestTimerStartsAgainAfterRestart: the timers live in the controller's
// memory. A controller-manager restarted (or a new leader) 200 s into a
// 300 s toleration sees the taint for the first time and starts a new
// 300 s: the pod leaves at 500 s, not 300 s.
func TestTimerStartsAgainAfterRestart(t *testing.T) {
	var tm Timer
	tols := []Toleration{tolerate(KeyUnreachable, NoExecute, Seconds(300))}
	unreachable := []Taint{{Key: KeyUnreachable, Effect: NoExecute}}
	tm.Observe(at(0), unreachable, tols)
	tm.Restart()
	tm.Observe(at(200), unreachable, tols)
	if s, ok := fireAt(t, tm); !ok || s != 500 {
		t.Errorf("FireAt after a restart at 200 s = %d s, %v, want 500 s, true", s, ok)
	}
}
