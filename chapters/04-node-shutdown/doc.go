// Package shutdown models how a Kubernetes node ends: the graceful shutdown
// the kubelet runs when systemd announces a power-off, and the unplanned one
// where the node simply disappears. It imports no Kubernetes package, so the
// course site can compile it, as it is, into the chapter's demo; package
// kube takes the same inputs as Kubernetes API objects (a
// KubeletConfiguration, core/v1 Pods) and converts them to these types.
//
// # Graceful shutdown
//
// The kubelet (k8s.io/kubernetes pkg/kubelet/nodeshutdown, v1.37.2) holds a
// systemd-logind inhibitor lock. When logind announces a shutdown, the kubelet
// marks its node NotReady, refuses new pods and ends the running ones group by
// group, lowest priority first.
//
// [Validate] reads the kubelet's shutdown [Settings] (the fields of its
// KubeletConfiguration and its three shutdown feature gates, as plain values),
// refuses what the kubelet would refuse (the gates' dependencies, then
// pkg/kubelet/apis/config/validation), accepts what it accepts, and turns the
// accepted settings into priority [Group]s, as the kubelet's migrateConfig and
// newPodManager do. [NewPlan] places [Pod]s in groups exactly as upstream's
// groupByPriority does and gives every pod the grace period killPods asks
// for, its start, grace and end on a clock that starts when the shutdown is
// announced, with the kubelet's unchecked arithmetic where it matters.
//
// The kubelet can only delay a shutdown for as long as logind lets it.
// [EffectiveInhibitDelay] reads logind.conf and its drop-ins by systemd's
// rules into logind's microseconds, [InhibitDelay] says how the kubelet reads
// them back (infinity as -1µs), and [CheckLogind] says whether the kubelet's
// own override survives them.
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
