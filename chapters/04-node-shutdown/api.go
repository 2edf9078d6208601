package shutdown

import (
	corev1 "k8s.io/api/core/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/opslab/opslab/chapters/04-node-shutdown/graceful"
)

// Validate returns the shutdown configuration the kubelet would run with under
// kc, or the reasons it is refused: [graceful.Validate] on the fields of kc that
// decide a graceful shutdown.
func Validate(kc *kubeletv1beta1.KubeletConfiguration) (graceful.Config, error) {
	return graceful.Validate(settings(kc))
}

// NewPlan returns the timeline of a graceful shutdown under c for pods:
// [graceful.NewPlan] on what it reads of each pod.
func NewPlan(c graceful.Config, pods []*corev1.Pod) graceful.Plan {
	in := make([]graceful.Pod, len(pods))
	for i, p := range pods {
		in[i] = pod(p)
	}
	return graceful.NewPlan(c, in)
}

func settings(kc *kubeletv1beta1.KubeletConfiguration) graceful.Settings {
	s := graceful.Settings{
		ShutdownGracePeriod:             kc.ShutdownGracePeriod.Duration,
		ShutdownGracePeriodCriticalPods: kc.ShutdownGracePeriodCriticalPods.Duration,
		FeatureGates:                    kc.FeatureGates,
	}
	for _, p := range kc.ShutdownGracePeriodByPodPriority {
		s.ShutdownGracePeriodByPodPriority = append(s.ShutdownGracePeriodByPodPriority, graceful.Group{Priority: p.Priority, Seconds: p.ShutdownGracePeriodSeconds})
	}
	return s
}

func pod(p *corev1.Pod) graceful.Pod {
	// As in the kubelet's groupByPriority, a pod without spec.priority has 0.
	var priority int32
	if p.Spec.Priority != nil {
		priority = *p.Spec.Priority
	}
	return graceful.Pod{Namespace: p.Namespace, Name: p.Name, Priority: priority, TerminationGracePeriodSeconds: p.Spec.TerminationGracePeriodSeconds}
}
