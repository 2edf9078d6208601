// Package apf is chapter 3's model of API Priority and Fairness
// (https://kubernetes.io/docs/concepts/cluster-administration/flow-control/),
// its pure core: the arithmetic and the queuing that kube-apiserver applies
// once a request is classified, on plain numbers instead of the types of
// k8s.io/api/flowcontrol/v1. Package kube classifies on the real types and
// calls this package for everything below; the course site's demo imports
// only this package, so it runs the same code the tests check.
//
// # Seats
//
// A [Level] holds what the server reads of a PriorityLevelConfiguration's
// spec: shares, lendable percent, borrowing limit percent and queuing.
// [Seats] divides the server's concurrency limit (600 by default,
// --max-requests-inflight plus --max-mutating-requests-inflight) among the
// levels by their shares, as finishQueueSetReconfigsLocked in
// k8s.io/apiserver/pkg/util/flowcontrol does: nominal seats are rounded up,
// lendable and borrowing limits are rounded. [DefaultLevels] are the levels
// a new API server creates; package kube tests them against upstream's
// bootstrap objects field by field.
//
// # Work estimates
//
// [ListSeats], [MutatingSeats] and [MaxSeats] price a request as the work
// estimator of k8s.io/apiserver/pkg/util/flowcontrol/request does in
// v1.37: a LIST by the stored bytes of its resource, a write by the
// watchers it notifies, both capped by the level.
//
// # Shuffle sharding
//
// [Dealer] deals a hand of queues from a flow's hash exactly as
// k8s.io/apiserver/pkg/util/shufflesharding does, [FlowHash] hashes a flow
// as apf_controller.go's hashFlowID does, and [ChooseQueue] picks the queue a
// request joins as queueset.go's shuffleShardLocked does.
//
// # Simulation
//
// [Simulate] runs one Limited priority level on a logical clock with
// deterministic arrivals: requests take seats, wait in queues chosen by
// shuffle sharding, or are rejected. Dispatch takes the non-empty queues in
// turn, which is what upstream's fair queuing does when every request costs
// the same; a request may take several seats. The simulation does not model
// request timeouts or borrowing between levels.
// [CollisionProbability] gives the chance that a mouse flow finds every
// queue of its hand shared with elephants.
package apf
