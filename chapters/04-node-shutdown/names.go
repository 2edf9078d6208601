package shutdown

// Names a person types to find a shutdown after the fact: in a node's events,
// in the kubelet's metrics, in a node's taints. Each is the value upstream
// writes, which is not always the name of upstream's Go constant.
const (
	// ShutdownEventReason is the reason of the Normal event the kubelet
	// records on its node when logind announces a shutdown, and again when
	// the shutdown is cancelled. Upstream's constant is named
	// kubeletevents.NodeShutdown; its value is "Shutdown"
	// (pkg/kubelet/events/event.go).
	ShutdownEventReason = "Shutdown"
	// NotAdmittedReason is the reason a pod gets when the kubelet refuses to
	// start it during a shutdown (nodeshutdown.NodeShutdownNotAdmittedReason).
	NotAdmittedReason = "NodeShutdown"
	// StoppedPodReason is the status reason of a pod the shutdown ended, the
	// word kubectl get pods shows in its STATUS column.
	StoppedPodReason = "Terminated"

	// MetricShutdownStart and MetricShutdownEnd are the kubelet's gauges of
	// its last graceful shutdown, in Unix seconds, as its /metrics serves
	// them: both gauges belong to the subsystem "kubelet", which prefixes
	// their names (pkg/kubelet/metrics/metrics.go).
	MetricShutdownStart = "kubelet_graceful_shutdown_start_time_seconds"
	MetricShutdownEnd   = "kubelet_graceful_shutdown_end_time_seconds"

	// OutOfServiceTaint is the taint key a person adds to a node that is
	// really off, for the pod garbage collector and the attach/detach
	// controller (v1.TaintNodeOutOfService).
	OutOfServiceTaint = "node.kubernetes.io/out-of-service"
	// CloudShutdownTaint is the NoSchedule taint the cloud node lifecycle
	// controller puts on a node whose instance exists but is stopped
	// (k8s.io/cloud-provider/api.TaintNodeShutdown). It is a different key
	// from OutOfServiceTaint, and no controller of this chapter reads it.
	CloudShutdownTaint = "node.cloudprovider.kubernetes.io/shutdown"
)

// RuntimeMinimumGraceSeconds is the least grace a container gets when it is
// stopped: the kubelet's killContainer raises any grace period below it to
// it before it asks the container runtime to stop the container
// (minimumGracePeriodInSeconds, pkg/kubelet/kuberuntime). The pod worker's own
// floor, one second, is below it, so it is the one that counts.
const RuntimeMinimumGraceSeconds = 2
