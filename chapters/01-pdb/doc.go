// Package pdb models a PodDisruptionBudget: a floor of available pods that an
// application declares, and that every voluntary remover of pods must ask
// before it removes one.
//
// It is the model of chapter 1 of the course. It follows upstream Kubernetes
// v1.37.2 where the behaviour matters to an operator, and it is small enough
// to read in one sitting.
//
// # The cluster
//
// A [Cluster] holds nodes, pods, controllers and budgets, and a logical clock
// that starts at zero and only moves when asked ([Cluster.Advance], or a
// [Cluster.Drain] waiting between retries). Nothing in the package reads the
// wall clock or starts a goroutine.
//
// A [Controller] stands for a Deployment: it keeps Replicas pods running,
// and when one of its pods goes away it creates a replacement at once. The
// replacement is placed on the schedulable node with the fewest pods of the
// same controller (then the fewest pods, then the first name), and becomes
// Ready ReadyAfter later. With no schedulable node it stays Pending.
//
// # Budgets and their status
//
// A [Budget] selects pods by labels (a nil selector selects nothing, an empty
// one selects every pod) and declares either MinAvailable or MaxUnavailable,
// each an integer or a percentage ([IntOrPercent]). The disruption controller
// of kube-controller-manager turns that declaration into a [Status]
// (pkg/controller/disruption/disruption.go, getExpectedPodCount,
// countHealthyPods and updatePdbStatus):
//
//   - maxUnavailable: ExpectedPods is the sum of the scale of the controllers
//     of the selected pods; a percentage is taken of it, rounding up;
//     DesiredHealthy = max(0, ExpectedPods − maxUnavailable).
//   - minAvailable as an integer: DesiredHealthy is the integer and
//     ExpectedPods the number of selected pods.
//   - minAvailable as a percentage: ExpectedPods from the controllers' scale;
//     DesiredHealthy is the percentage of it, rounding up.
//   - CurrentHealthy counts selected pods that are Ready, not being deleted,
//     and not recorded in DisruptedPods in the last two minutes.
//   - DisruptionsAllowed = max(0, CurrentHealthy − DesiredHealthy), and 0 when
//     ExpectedPods is 0.
//
// The controller runs after every change while it is running
// ([Cluster.StopController] stands for a kube-controller-manager that is down
// or behind); ObservedGeneration records the budget generation it last saw.
// A change of a pod syncs one budget only, even when several select the pod
// (getPdbForPod); the others keep their status until their own update
// ([Cluster.ResyncBudget]) or the controller's next start.
//
// # Evictions
//
// [Cluster.Evict] is the eviction subresource of the API server
// (pkg/registry/core/pod/storage/eviction.go), in two halves that
// [Cluster.BeginEviction] and [Eviction.Commit] expose: the reads of the
// pod and its budgets, then the decision and the writes. It does not count
// pods: it trusts the status it read, in this order:
//
//  1. a Pending, Succeeded or Failed pod, or one already being deleted, is
//     deleted without looking at budgets;
//  2. no budget selects the pod: deleted;
//  3. more than one budget selects it: code 500, "This pod has more than one
//     PodDisruptionBudget, which the eviction subresource does not support.";
//  4. the pod is not Ready: with UnhealthyPodEvictionPolicy AlwaysAllow it is
//     deleted; with IfHealthyBudget (the default) it is deleted when
//     CurrentHealthy ≥ DesiredHealthy > 0, and otherwise takes the normal path;
//  5. the controller has not observed the budget's generation: code 429,
//     "Cannot evict pod as it would violate the pod's disruption budget.";
//  6. DisruptionsAllowed is negative, or DisruptedPods holds more than
//     [MaxDisruptedPodSize] entries: code 403;
//  7. DisruptionsAllowed is 0: code 429, the same message;
//  8. otherwise the status is written back with DisruptionsAllowed
//     decremented and the pod in DisruptedPods, and the pod is deleted. The
//     write carries the ResourceVersion that was read; if the budget changed
//     since, it conflicts, and the handler reads the budget again and goes
//     back to step 5 (retry.RetryOnConflict).
//
// [Cluster.EvictDryRun] answers the same question and changes nothing, as an
// eviction with dryRun: All does. [Cluster.Delete] removes a pod without
// asking any budget, as a remover that deletes rather than evicts does.
//
// # Rolling updates and the autoscaler
//
// [Cluster.Rollout] is a change of a Deployment's pod template: a new
// ReplicaSet grows within [Strategy].MaxSurge, and the old one shrinks only
// while more than replicas − MaxUnavailable pods are available
// (pkg/controller/deployment/rolling.go). It asks no budget, and a pod that
// a drain evicted holds it up until the replacement is available. For a
// budget, the two ReplicaSets are one controller, the Deployment, with its
// replicas (getPodDeployment). [Cluster.ScaleDownBlocker] is the Cluster
// Autoscaler's PDB rule: a node with a pod whose budget allows less than
// one disruption is left out of a scale-down, without a cordon or an
// eviction.
//
// # Losses nobody asks about
//
// [Cluster.CrashContainer] is a container that exits: the kubelet restarts
// it in the same pod, which is not Ready until its probe passes again.
// [Cluster.PowerOff] is a node that loses power: its pods stay, Ready as far
// as the API server knows, until the node lifecycle controller marks them
// not Ready [NodeMonitorGracePeriod] later and taints the node unreachable;
// [DefaultTolerationSeconds] after that the taint eviction controller
// deletes them, they stay Terminating on the dead node, and their
// controllers replace them on other nodes. Neither asks a budget.
//
// # Drains
//
// [Cluster.Drain] does what kubectl drain does (k8s.io/kubectl pkg/drain):
// it cordons the node and evicts every pod on it; a pod refused with 429 is
// tried again every 5 seconds until the timeout; any other error is a hard
// failure for that pod. The [DrainResult] says what was evicted, what failed
// and what is left, and whether the drain could never finish because nothing
// in the cluster will change.
//
// # Simplifications
//
// One namespace; selectors with matchLabels only; a deleted pod is gone at
// once (no grace period) unless its node is down; the scheduler is the
// placement rule above; the ReplicaSet and disruption controllers react
// within the same instant; the disruption controller's pick among several
// budgets is the oldest (or [Cluster.PreferBudget]), not map order.
//
// Upstream documentation: https://kubernetes.io/docs/concepts/workloads/pods/disruptions/
// and https://kubernetes.io/docs/tasks/run-application/configure-pdb/.
package pdb
