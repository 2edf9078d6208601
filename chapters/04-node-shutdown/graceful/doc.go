// Package graceful models the graceful node shutdown the kubelet runs when
// systemd announces a power-off (k8s.io/kubernetes pkg/kubelet/nodeshutdown,
// v1.36.3), on plain Go types: it imports no Kubernetes package, so the course
// site can compile it, as it is, into the chapter's demo.
//
// The kubelet holds a systemd-logind inhibitor lock. When logind announces a
// shutdown, the kubelet marks its node NotReady, refuses new pods and ends the
// running ones group by group, lowest priority first.
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
// The chapter's package shutdown takes the same inputs as Kubernetes API
// objects (a KubeletConfiguration, core/v1 Pods) and converts them to these
// types; there is one implementation.
//
// Upstream documentation: https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/#graceful-node-shutdown
package graceful
