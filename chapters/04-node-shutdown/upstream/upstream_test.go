package upstream

import (
	"context"
	"time"
	_ "unsafe" // for go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
	"k8s.io/kubernetes/pkg/kubelet/volumemanager"
)

// The kubelet's unexported functions, reached by name. Each declaration has
// the upstream signature; the types of unexported results are mirrored with
// the same layout.

// podShutdownGroup mirrors nodeshutdown.podShutdownGroup.
type podShutdownGroup struct {
	kubeletconfig.ShutdownGracePeriodByPodPriority
	Pods []*v1.Pod
}

// podManager stands for nodeshutdown.podManager; it is only ever used
// through a pointer the kubelet's newPodManager returns.
type podManager struct{}

//go:linkname groupByPriority k8s.io/kubernetes/pkg/kubelet/nodeshutdown.groupByPriority
func groupByPriority(shutdownGracePeriodByPodPriority []kubeletconfig.ShutdownGracePeriodByPodPriority, pods []*v1.Pod) []podShutdownGroup

//go:linkname migrateConfig k8s.io/kubernetes/pkg/kubelet/nodeshutdown.migrateConfig
func migrateConfig(shutdownGracePeriodRequested, shutdownGracePeriodCriticalPods time.Duration) []kubeletconfig.ShutdownGracePeriodByPodPriority

//go:linkname newPodManager k8s.io/kubernetes/pkg/kubelet/nodeshutdown.newPodManager
func newPodManager(conf *nodeshutdown.Config) *podManager

//go:linkname periodRequested k8s.io/kubernetes/pkg/kubelet/nodeshutdown.(*podManager).periodRequested
func periodRequested(m *podManager) time.Duration

//go:linkname killPods k8s.io/kubernetes/pkg/kubelet/nodeshutdown.(*podManager).killPods
func killPods(m *podManager, ctx context.Context, activePods []*v1.Pod) error

// dbusInhibiter mirrors nodeshutdown.dbusInhibiter, method for method.
type dbusInhibiter interface {
	CurrentInhibitDelay() (time.Duration, error)
	InhibitShutdown() (systemd.InhibitLock, error)
	ReleaseInhibitLock(lock systemd.InhibitLock) error
	ReloadLogindConf() error
	MonitorShutdown(klog.Logger) (<-chan bool, error)
	OverrideInhibitDelay(inhibitDelayMax time.Duration) error
	Close() error
}

// systemDbus is the kubelet's hook for its D-Bus connection; the tests
// replace it with a fake logind.
//
//go:linkname systemDbus k8s.io/kubernetes/pkg/kubelet/nodeshutdown.systemDbus
var systemDbus func() (dbusInhibiter, error)

// noVolumes is a volume manager whose pods have nothing to unmount.
type noVolumes struct{ volumemanager.VolumeManager }

func (noVolumes) WaitForAllPodsUnmount(context.Context, []*v1.Pod) error { return nil }
