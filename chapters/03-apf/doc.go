// Package apf models API Priority and Fairness, the part of kube-apiserver
// that decides which requests wait and which receive a 429 when the server
// is busy (https://kubernetes.io/docs/concepts/cluster-administration/flow-control/).
//
// # Classification
//
// [NewConfig] digests FlowSchema and PriorityLevelConfiguration objects of
// k8s.io/api/flowcontrol/v1 the way apf_controller.go in
// k8s.io/apiserver/pkg/util/flowcontrol does: a level whose spec is broken is
// treated as absent; a schema naming an absent level dangles and takes no
// part in matching; the mandatory exempt and catch-all objects are supplied
// when missing; the schemas are sorted by matchingPrecedence and then by
// name. [Config.Classify] walks them and stops at the first schema with a
// rule whose subjects and resource or non-resource rules match the request
// (rule.go upstream), then computes the flow distinguisher.
//
// # Seats
//
// [Config.Seats] divides the server's concurrency limit (600 by default,
// --max-requests-inflight plus --max-mutating-requests-inflight) among the
// levels by their shares, as finishQueueSetReconfigsLocked does: nominal
// seats are rounded up, lendable and borrowing limits are rounded.
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
// the same; the simulation does not model request timeouts, borrowing
// between levels, or work estimates of more than one seat.
// [CollisionProbability] gives the chance that a mouse flow finds every
// queue of its hand shared with elephants.
package apf
