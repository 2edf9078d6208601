package shutdown

import (
	"testing"
	"time"
)

const s = time.Second

// TestUnplannedStaysTerminatingWithoutTaint: a pod on a powered-off node stays
// Terminating, and its volume attached, for as long as nobody acts, when the
// node's last report had its containers running (TestUnplannedDetachWhileTerminating
// is the other case).
func TestUnplannedStaysTerminatingWithoutTaint(t *testing.T) {
	o := Simulate(Scenario{
		Events: []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}},
		Volume: true, Until: time.Hour,
	})
	if o.Terminating != at(5*s) || !o.Gone.Never || !o.Detached.Never || !o.Replacement.Never {
		t.Errorf("Simulate = terminating %v, gone %v, detached %v, replacement %v; want t+5s, never, never, never", o.Terminating, o.Gone, o.Detached, o.Replacement)
	}
}

// TestUnplannedOutOfServiceNeedsNotReady: the pod GC needs both conditions,
// the node not Ready and the out-of-service taint.
func TestUnplannedOutOfServiceNeedsNotReady(t *testing.T) {
	tests := []struct {
		name, reason string
		events       []Event
		grace        time.Duration
		wantGone     Moment
		wantBy       string
	}{
		{name: "both", reason: "node NotReady and tainted: the next pod GC run (t+20s) force-deletes",
			events:   []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, TaintOutOfService}},
			wantGone: at(20 * s), wantBy: ByPodGC},
		{name: "taint on a Ready node", reason: "the pod GC leaves a Ready node's pod to its kubelet, which ends it after its 60s grace",
			events: []Event{{5 * s, DeleteRequested}, {12 * s, TaintOutOfService}}, grace: 60 * s,
			wantGone: at(65 * s), wantBy: ByKubelet},
		{name: "not terminating", reason: "the pod GC only collects pods already being deleted (on a cluster the taint eviction controller deletes this one; Simulate takes deletions as events)",
			events:   []Event{{0, NodeNotReady}, {12 * s, TaintOutOfService}},
			wantGone: Moment{Never: true}},
		{name: "leftover taint then NotReady", reason: "a taint left on a Ready node counts the moment the node goes NotReady: the next run (t+40s) force-deletes, though nobody checked the machine this time",
			events:   []Event{{0, TaintOutOfService}, {30 * s, NodeNotReady}, {35 * s, DeleteRequested}},
			wantGone: at(40 * s), wantBy: ByPodGC},
		{name: "taint removed before the run", reason: "the taint must be there when the pod GC looks",
			events:   []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, TaintOutOfService}, {15 * s, UntaintOutOfService}},
			wantGone: Moment{Never: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Simulate(Scenario{Events: tt.events, GracePeriod: tt.grace, Until: 10 * time.Minute})
			if o.Gone != tt.wantGone || o.By != tt.wantBy {
				t.Errorf("gone = %v by %q, want %v by %q (%s)", o.Gone, o.By, tt.wantGone, tt.wantBy, tt.reason)
			}
		})
	}
}

// TestUnplannedPodGCWithinOnePeriod: wherever the taint falls between two runs
// of the pod GC, the pod is gone within one period of 20 s.
func TestUnplannedPodGCWithinOnePeriod(t *testing.T) {
	for taintAt := 30 * s; taintAt < 30*s+PodGCPeriod; taintAt += 900 * time.Millisecond {
		for _, offset := range []time.Duration{0, 7 * s, 19900 * time.Millisecond} {
			o := Simulate(Scenario{
				Events:      []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {taintAt, TaintOutOfService}},
				PodGCOffset: offset, Until: 5 * time.Minute,
			})
			if o.Gone.Never || o.Gone.At < taintAt || o.Gone.At-taintAt > PodGCPeriod {
				t.Errorf("taint at t+%v, pod GC offset %v: gone %v, want within %v of the taint", taintAt, offset, o.Gone, PodGCPeriod)
			}
		}
	}
}

// TestUnplannedVolumeDetach: the volume leaves the dead node at once under the
// out-of-service taint, six minutes after the pod is gone otherwise, and never
// when force detach on timeout is disabled.
func TestUnplannedVolumeDetach(t *testing.T) {
	tests := []struct {
		name, reason      string
		events            []Event
		disable           bool
		wantHow           string
		wantAfterGoneMin  time.Duration
		wantAfterGoneMax  time.Duration
		wantDetachedNever bool
	}{
		{name: "out-of-service", reason: "with the taint the attach/detach controller does not wait for the unmount",
			events:  []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, TaintOutOfService}},
			wantHow: DetachedOutOfService, wantAfterGoneMax: ReconcilerPeriod},
		{name: "hand delete, timeout", reason: "a force delete frees the name but the volume waits 6 minutes for an unmount that never comes",
			events:  []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, ForceDeleted}},
			wantHow: DetachedTimeout, wantAfterGoneMin: 6 * time.Minute, wantAfterGoneMax: 6*time.Minute + time.Second},
		{name: "hand delete, timeout disabled", reason: "--disable-force-detach-on-timeout keeps the volume attached",
			events:  []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, ForceDeleted}},
			disable: true, wantDetachedNever: true},
		{name: "power back", reason: "the returning kubelet finishes the deletion and unmounts",
			events:  []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {60 * s, NodeReady}},
			wantHow: DetachedNormal, wantAfterGoneMax: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Simulate(Scenario{Events: tt.events, Volume: true, DisableForceDetachOnTimeout: tt.disable, Until: time.Hour})
			if tt.wantDetachedNever {
				if !o.Detached.Never || !o.Replacement.Never {
					t.Errorf("detached %v, replacement %v; want never, never (%s)", o.Detached, o.Replacement, tt.reason)
				}
				return
			}
			wait := o.Detached.At - o.Gone.At
			if o.Detached.Never || o.How != tt.wantHow || wait < tt.wantAfterGoneMin || wait > tt.wantAfterGoneMax {
				t.Errorf("detached %v (%s), %v after the pod went; want %s within [%v, %v] (%s)", o.Detached, o.How, wait, tt.wantHow, tt.wantAfterGoneMin, tt.wantAfterGoneMax, tt.reason)
			}
			if o.Replacement != o.Detached {
				t.Errorf("replacement %v, want %v: it needs the volume", o.Replacement, o.Detached)
			}
		})
	}
}

// TestUnplannedDetachWhileTerminating: a Terminating pod whose containers the
// node last reported stopped no longer needs its volume
// (DetermineVolumeAction, IsPodTerminated), so the six minutes start at its
// deletion and the volume is force-detached while the pod is still
// Terminating; the name stays taken, so no replacement.
func TestUnplannedDetachWhileTerminating(t *testing.T) {
	tests := []struct {
		name, reason string
		stopped      bool
		wantDetached Moment
	}{
		{name: "containers running", reason: "the volume is still needed: never detached",
			wantDetached: Moment{Never: true}},
		{name: "containers stopped", reason: "terminated for the attach/detach controller: detached 6 min after the deletion",
			stopped: true, wantDetached: at(5*s + MaxWaitForUnmount + ReconcilerPeriod)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Simulate(Scenario{
				Events: []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}},
				Volume: true, ContainersStopped: tt.stopped, Until: time.Hour,
			})
			if o.Detached != tt.wantDetached || !o.Gone.Never || !o.Replacement.Never {
				t.Errorf("detached %v, gone %v, replacement %v; want %v, never, never (%s)", o.Detached, o.Gone, o.Replacement, tt.wantDetached, tt.reason)
			}
			if !tt.wantDetached.Never && o.How != DetachedTimeout {
				t.Errorf("detached by %q, want %q", o.How, DetachedTimeout)
			}
		})
	}
}

// TestUnplannedOrphanedPodGC: once the Node object is deleted, the pod GC
// deletes its pods, Terminating or not and without any taint, on its first run
// 40 s or more after the run that first missed the node: 40 to 60 s after the
// deletion. The volume then waits the six minutes, the node never confirming
// the unmount.
func TestUnplannedOrphanedPodGC(t *testing.T) {
	for _, offset := range []time.Duration{0, 7 * s, 19900 * time.Millisecond} {
		for _, terminating := range []bool{false, true} {
			events := []Event{{0, NodeNotReady}, {30 * s, NodeDeleted}}
			if terminating {
				events = []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {30 * s, NodeDeleted}}
			}
			o := Simulate(Scenario{Events: events, Volume: true, PodGCOffset: offset, Until: time.Hour})
			if o.By != ByPodGCOrphaned || o.Gone.Never || o.Gone.At < 30*s+OrphanQuarantine || o.Gone.At > 30*s+OrphanQuarantine+PodGCPeriod {
				t.Errorf("offset %v, terminating %v: gone %v by %q; want by %q within [70s, 90s]", offset, terminating, o.Gone, o.By, ByPodGCOrphaned)
			}
			if o.How != DetachedTimeout || o.Detached.At-o.Gone.At < MaxWaitForUnmount {
				t.Errorf("offset %v: detached %v (%s); want %s 6 min after the pod went", offset, o.Detached, o.How, DetachedTimeout)
			}
		}
	}
}

// TestUnplannedUntilIsInclusive: Simulate looks at the moment Until itself, so
// a pod GC run that falls exactly on it still counts.
func TestUnplannedUntilIsInclusive(t *testing.T) {
	tests := []struct {
		name, reason string
		until        time.Duration
		wantGone     Moment
	}{
		{name: "run at until", reason: "the pod GC's run at t+20s is inside a simulation that stops at t+20s", until: 20 * s, wantGone: at(20 * s)},
		{name: "until just before the run", reason: "stopped 100ms earlier, the run at t+20s never happens", until: 19900 * time.Millisecond, wantGone: Moment{Never: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Simulate(Scenario{Events: []Event{{0, NodeNotReady}, {5 * s, DeleteRequested}, {12 * s, TaintOutOfService}}, Until: tt.until})
			if o.Gone != tt.wantGone {
				t.Errorf("Simulate(until %v) gone = %v, want %v (%s)", tt.until, o.Gone, tt.wantGone, tt.reason)
			}
		})
	}
}
