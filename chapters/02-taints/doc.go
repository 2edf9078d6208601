// Package taints models who decides when a Pod leaves a node that has gone
// bad: taints on the node, tolerations on the pod, and the controllers that
// join them.
//
// # Matching
//
// A toleration tolerates a taint when its effect is empty or equal to the
// taint's, its key is empty or equal to the taint's, and its operator agrees
// on the value: Exists accepts any value, Equal (or no operator) wants the
// same value. Lt and Gt compare integers and only behind the alpha feature
// gate TaintTolerationComparisonOperators, off by default in v1.37. See
// [Toleration.Tolerates]; upstream is Toleration.ToleratesTaint in
// k8s.io/api/core/v1/toleration.go.
//
// The scheduler asks the same question before it places a pod: every
// NoSchedule and NoExecute taint must be tolerated ([Placeable]).
//
// # When a pod leaves
//
// Only NoExecute taints remove running pods. For each NoExecute taint the
// taint eviction controller takes the first toleration, in the pod's order,
// that tolerates it. If some taint has none, the pod is deleted at once. If
// every used toleration has no tolerationSeconds, the pod stays for good.
// Otherwise it leaves after the smallest tolerationSeconds of the used
// tolerations, and a value of zero or less means at once. See [Evict];
// upstream is processPodOnNode and getMinTolerationTime in
// k8s.io/kubernetes/pkg/controller/tainteviction/taint_eviction.go.
// A pod whose tolerations the API server refuses never runs, so [EvictPod]
// answers it with the server's refusal ([ValidatePod]), not a verdict.
// [Timer] follows one pod's scheduled deletion through changes: it starts
// when the controller sees the taint, is cancelled when the taint goes
// first, and once scheduled is neither pushed later nor pulled earlier.
//
// # Who wrote the numbers
//
// The DefaultTolerationSeconds admission plugin gives every pod that lacks
// them NoExecute tolerations for node.kubernetes.io/not-ready and
// node.kubernetes.io/unreachable, 300 s each ([DefaultTolerationSeconds];
// upstream plugin/pkg/admission/defaulttolerationseconds). The DaemonSet
// controller gives its pods the same two without seconds, so they stay on a
// failing node (other NoExecute taints still remove them), plus NoSchedule
// tolerations for the pressure and unschedulable taints
// ([DaemonSetTolerations]; upstream pkg/controller/daemon/util).
//
// # Who writes the taints
//
// The node lifecycle controller turns node conditions into taints
// ([ConditionTaints]) and adds the NoExecute ones through a rate-limited
// queue per zone ([Tainter]; upstream pkg/controller/nodelifecycle). The model
// runs on a logical clock: every method that needs the time takes it as an
// argument.
//
// # A zone goes dark
//
// [Outage] runs the zone-outage lab's [Experiments] on a [Layout] of zones
// with the controller's settings, its health passes where the lab saw them
// and its tainting passes every 100 ms, and predicts the NoExecute taints
// zone by zone; [Outage.Replay] holds a [Run] the lab recorded on a real
// control plane to that prediction.
//
// # Many pods
//
// [Timetable] applies [Evict] to every pod on a node and orders the result
// soonest first.
//
// Upstream: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
package taints
