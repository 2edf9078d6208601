package taints

import "time"

// A Timer is the taint eviction controller's timer for one pod: whether a
// deletion is scheduled, and when it fires. Upstream keeps these in memory
// only (TimedWorkerQueue), keyed by the pod, and starts them when it
// observes a change, not at the taint's timeAdded. The zero Timer is
// unarmed.
type Timer struct {
	armed   bool
	created time.Time // when the work was first scheduled
	fire    time.Time
}

// FireAt returns when the pod will be deleted, if a deletion is scheduled.
func (t Timer) FireAt() (time.Time, bool) { return t.fire, t.armed }

// Observe is what the controller does when, at now, it sees the node's
// taints or the pod's tolerations change (processPodOnNode):
//
//   - no NoExecute taint left, or every used toleration without seconds:
//     cancel;
//   - a taint not tolerated: cancel and delete now;
//   - otherwise schedule now + the minimum toleration time, except that a
//     deletion already scheduled is kept as it is: a longer toleration does
//     not push it later and, because it is measured from the first start, a
//     shorter one does not pull it earlier.
func (t *Timer) Observe(now time.Time, taints []Taint, tols []Toleration) {
	v := Evict(taints, tols)
	switch {
	case v.Untolerated != nil:
		*t = Timer{armed: true, created: now, fire: now}
	case v.Leave.Kind == Never:
		*t = Timer{}
	default:
		trigger := now.Add(v.Leave.After) // After is 0 for AtOnce
		start := now
		if t.armed {
			start = t.created
			if start.Add(v.Leave.After).Before(trigger) {
				return
			}
		}
		*t = Timer{armed: true, created: start, fire: trigger}
	}
}

// Restart is what a controller-manager restart, or a new leader, does to
// the timer: the timers lived in the old process's memory, so the new one
// has none until it observes the pod and starts from its own clock.
func (t *Timer) Restart() { *t = Timer{} }
