package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
)

// Validate returns the shutdown configuration the kubelet would run with under
// kc, or the reasons it is refused: [shutdown.Validate] on the fields of kc that
// decide a graceful shutdown.
func Validate(kc *kubeletv1beta1.KubeletConfiguration) (shutdown.Config, error) {
	return shutdown.Validate(settings(kc))
}

// NewPlan returns the timeline of a graceful shutdown under c for pods:
// [shutdown.NewPlan] on what it reads of each pod, with the values the API
// server would have filled in for a pod that never went through it (a pod
// from a file):
//
//   - no terminationGracePeriodSeconds: 30, the default the API server sets
//     (SetDefaults_PodSpec in pkg/apis/core/v1/defaults.go);
//   - no spec.priority but a priorityClassName: the value of the class, which
//     the Priority admission plugin copies into spec.priority. The two
//     built-in classes are known; any other class lives in the cluster, so
//     NewPlan refuses the pod and says so;
//   - neither: priority 0, as on a cluster without a globalDefault class.
func NewPlan(c shutdown.Config, pods []*corev1.Pod) (shutdown.Plan, error) {
	in := make([]shutdown.Pod, len(pods))
	for i, p := range pods {
		gp, err := pod(p)
		if err != nil {
			return shutdown.Plan{}, err
		}
		in[i] = gp
	}
	return shutdown.NewPlan(c, in), nil
}

// builtinClasses are the PriorityClasses every cluster has
// (SystemPriorityClasses in pkg/apis/scheduling/v1/helpers.go).
var builtinClasses = map[string]int32{
	"system-cluster-critical": shutdown.CriticalPriority,
	"system-node-critical":    shutdown.CriticalPriority + 1000,
}

func settings(kc *kubeletv1beta1.KubeletConfiguration) shutdown.Settings {
	s := shutdown.Settings{
		ShutdownGracePeriod:             kc.ShutdownGracePeriod.Duration,
		ShutdownGracePeriodCriticalPods: kc.ShutdownGracePeriodCriticalPods.Duration,
		FeatureGates:                    kc.FeatureGates,
	}
	for _, p := range kc.ShutdownGracePeriodByPodPriority {
		s.ShutdownGracePeriodByPodPriority = append(s.ShutdownGracePeriodByPodPriority, shutdown.Group{Priority: p.Priority, Seconds: p.ShutdownGracePeriodSeconds})
	}
	return s
}

func pod(p *corev1.Pod) (shutdown.Pod, error) {
	var priority int32
	switch class := p.Spec.PriorityClassName; {
	case p.Spec.Priority != nil:
		priority = *p.Spec.Priority
	case class != "":
		v, ok := builtinClasses[class]
		if !ok {
			return shutdown.Pod{}, fmt.Errorf("pod %s has priorityClassName %q and no spec.priority: the API server takes the priority from that PriorityClass, which only the cluster knows; set spec.priority or plan the node from the cluster with --node", podName(p), class)
		}
		priority = v
	}
	grace := p.Spec.TerminationGracePeriodSeconds
	if grace == nil {
		d := int64(corev1.DefaultTerminationGracePeriodSeconds)
		grace = &d
	}
	return shutdown.Pod{Namespace: p.Namespace, Name: p.Name, Priority: priority, TerminationGracePeriodSeconds: grace}, nil
}

func podName(p *corev1.Pod) string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}
