package apf

import "math"

// The work estimator's constants in kube-apiserver v1.37 with its default
// feature gates (k8s.io/apiserver/pkg/util/flowcontrol/request: config.go,
// list_work_estimator.go, mutating_work_estimator.go).
const (
	// MinimumSeats is what most requests cost: one seat.
	MinimumSeats = 1
	// MaximumListSeats caps a LIST under the SizeBasedListCostEstimate
	// gate, beta and on since v1.34; with the gate off it is 10.
	MaximumListSeats = 100
	// MaximumMutatingSeats caps the seats a write holds after it finishes.
	MaximumMutatingSeats = 10
	// BytesPerSeat is how much memory a LIST may load per seat.
	BytesPerSeat = 100_000
	// CacheMemoryCap bounds the memory counted for a LIST served from the
	// watch cache, which streams its answer: at most 10 seats.
	CacheMemoryCap = 1_000_000
	// WatchesPerSeat is how many watchers one seat notifies after a write.
	WatchesPerSeat = 10
)

// MaxSeats is the most seats the work estimator gives one request of a
// level, as apf_controller.go sets it when it configures a level that
// queues:
//
//	max(1, min(ceil(0.15 × nominal), nominal / handSize))
//
// with an integer division. A level created without queues (Reject) gets
// no limit of its own: it returns 0 and the estimator's own caps apply. (A
// level switched from Queue to Reject keeps the cap it had: the server
// forgets a level's cap only when the level is removed.)
func MaxSeats(nominal int, q *Queuing) int {
	if q == nil || q.HandSize < 1 {
		return 0
	}
	m := math.Min(math.Ceil(float64(nominal)*0.15), float64(int32(nominal)/q.HandSize))
	return int(math.Max(1, m))
}

// capSeats returns the estimator's cap for a level whose MaxSeats is
// levelMax: the level's own cap, unless it is 0 or above the estimator's.
func capSeats(levelMax, estimatorMax int) int {
	if levelMax == 0 || levelMax > estimatorMax {
		return estimatorMax
	}
	return levelMax
}

// ResourceStats is what the API server last measured of one resource's
// storage (the object count tracker, refreshed about once a minute per
// resource, and exported as apiserver_resource_objects and
// apiserver_resource_size_estimate_bytes = Objects × AverageSize).
type ResourceStats struct {
	Objects     int64
	AverageSize int64 // bytes
}

// A List is the part of a LIST request the estimator reads.
type List struct {
	// Single is true when the request names one object (a field selector
	// on metadata.name).
	Single bool
	// FromCache is true when the server answers from its watch cache: a
	// LIST with resourceVersion "" (consistent reads come from the cache
	// in v1.37) or "0"; false for resourceVersionMatch=Exact, a continue
	// token, or a limit with a resourceVersion other than "" and "0".
	FromCache bool
	// Selector is true with a label or field selector.
	Selector bool
	// Limit is the request's limit, 0 for none.
	Limit int64
}

// ListSeats returns the seats a LIST takes, as the size-based estimate of
// list_work_estimator.go computes them: the memory the request may load at
// once, one seat per BytesPerSeat, at least 1 and at most the level's cap
// (MaxSeats, or MaximumListSeats when the level has none). The memory
// counts every object of the resource the server stores, in every
// namespace, not the ones the caller will see. stats is nil when the server
// has not measured the resource yet: the request then costs one seat.
func ListSeats(stats *ResourceStats, l List, levelMax int) int {
	if stats == nil {
		return MinimumSeats
	}
	avg := stats.AverageSize
	if avg <= 0 && stats.Objects != 0 {
		avg = 1_500_000 // maxObjectSize: no size measured yet, assume the worst
	}
	limited := stats.Objects
	if l.Limit > 0 && l.Limit < limited {
		limited = l.Limit
	}
	var loaded int64
	switch {
	case l.Single:
		loaded = 1
	case l.FromCache:
		loaded = limited
	case l.Selector:
		loaded = max(limited, stats.Objects/2)
	default:
		loaded = limited
	}
	memory := loaded * avg
	if l.FromCache {
		memory = min(memory, CacheMemoryCap)
	}
	seats := int(math.Ceil(float64(memory) / BytesPerSeat))
	return min(max(seats, MinimumSeats), capSeats(levelMax, MaximumListSeats))
}

// A Write's estimate, as the mutating work estimator makes it: Initial
// seats for the write itself, Final seats for the watch events it causes,
// and Extra, the time those events take on Final seats.
type Write struct {
	Initial, Final int
	Extra          float64 // seconds
}

// Seats is the most seats the write ever holds, which is what
// apiserver_flowcontrol_work_estimated_seats records.
func (w Write) Seats() int { return max(w.Initial, w.Final) }

// Hold is how the queue set holds a write that runs for run seconds
// (queueset.go): it takes Seats(), the larger of Initial and Final, when
// it dispatches the write, and gives every one of them back only Extra
// seconds after the write has finished. The estimator's own comment says
// it: "we reserve max(initialSeats, finalSeats) for time of executing both
// phases". So a create that 26 watchers follow holds 3 seats from its
// start, not 1 seat and then 3.
func (w Write) Hold(run float64) (seats int, seconds float64) {
	return w.Seats(), run + w.Extra
}

// MutatingSeats returns the estimate of a create, update, patch or delete
// that watchers are watching (mutating_work_estimator.go): one initial
// seat and, from WatchesPerSeat watchers on, ceil(watchers / 10) final
// seats capped by the level (MaxSeats, or MaximumMutatingSeats), with the
// extra time that 5 ms per uncapped seat takes on the capped ones. How the
// queue set holds them is [Write.Hold].
func MutatingSeats(watchers int, levelMax int) Write {
	w := Write{Initial: MinimumSeats}
	if watchers < WatchesPerSeat {
		return w
	}
	final := int(math.Ceil(float64(watchers) / WatchesPerSeat))
	work := float64(final) * 0.005 // seat-seconds
	w.Final = min(final, capSeats(levelMax, MaximumMutatingSeats))
	w.Extra = work / float64(w.Final)
	return w
}

// ListFromCache reports whether the work estimator expects the API server
// to answer a LIST from its watch cache, as delegator.ShouldDelegateList
// with CacheWithoutSnapshots decides (with consistent reads served from
// the cache, as in v1.37 on etcd 3.6): resourceVersionMatch NotOlderThan,
// or no match with resourceVersion "" or "0" and no continue token, is
// priced as served from the cache; Exact, a continue token, or a limit
// with any other resourceVersion is priced as sent to etcd, though the
// cacher may still answer it from a snapshot (ListFromCacheSnapshot).
func ListFromCache(resourceVersion, match string, limit int64, continued bool) bool {
	switch match {
	case "NotOlderThan":
		return true
	case "":
	default:
		return false
	}
	if continued {
		return false
	}
	if limit > 0 && resourceVersion != "" && resourceVersion != "0" {
		return false
	}
	return true
}

// QueueWaitLimit is how long a request may wait in a queue before it is
// ejected and counted as time-out (getRequestWaitContext in
// k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go): a quarter
// of the time from its arrival to its deadline, or def when it has no
// deadline, and never more than a minute. A client that hangs up while
// queued ends the same wait, which is derived from the request's context.
func QueueWaitLimit(deadline float64, hasDeadline bool, def float64) float64 {
	limit := def
	if hasDeadline {
		limit = deadline / 4
	}
	return min(limit, 60)
}
