// Package shutdown models how a Kubernetes node ends: the graceful shutdown
// the kubelet runs when systemd announces a power-off, and the unplanned one
// where the node simply disappears.
//
// # Graceful shutdown
//
// The kubelet (k8s.io/kubernetes pkg/kubelet/nodeshutdown, v1.36.3) holds a
// systemd-logind inhibitor lock. When logind announces a shutdown, the kubelet
// marks its node NotReady, refuses new pods and ends the running ones group by
// group, lowest priority first. Package [graceful] models it on plain Go
// types, without Kubernetes packages, so that the course site can run it in
// the browser. This package takes the same inputs as the kubelet does:
// [Validate] reads a KubeletConfiguration and [NewPlan] core/v1 Pods, and both
// hand them to package graceful, the one implementation.
//
// # Unplanned shutdown
//
// A node that loses power runs no kubelet, so its pods are never finalized: they
// stay Terminating. [Simulate] runs the controllers that decide what happens
// next on a logical clock: the pod garbage collector (pkg/controller/podgc,
// every 20 s) force-deletes such pods when the node is not Ready and carries
// the node.kubernetes.io/out-of-service taint, and deletes every pod of a
// Node object that is gone, after a 40 s quarantine; the attach/detach
// controller (pkg/controller/volume/attachdetach) lets a volume go once no
// pod needs it (the pod is gone, or Terminating with its containers last
// reported stopped) and detaches it at once under the taint, or after six
// minutes from an unhealthy node unless force detach on timeout is disabled.
//
// Upstream documentation: https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/
package shutdown
