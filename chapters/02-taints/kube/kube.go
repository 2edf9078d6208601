// Package kube turns the Kubernetes API's pods, taints and tolerations
// (k8s.io/api/core/v1) into the model's types, for the chapter's command and
// its lab checks. The model itself stays free of API types.
package kube

import (
	corev1 "k8s.io/api/core/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
)

// Tolerations converts a pod's tolerations, in order.
func Tolerations(tols []corev1.Toleration) []taints.Toleration {
	out := make([]taints.Toleration, len(tols))
	for i, t := range tols {
		out[i] = taints.Toleration{
			Key:      t.Key,
			Operator: taints.Operator(t.Operator),
			Value:    t.Value,
			Effect:   taints.Effect(t.Effect),
			Seconds:  t.TolerationSeconds,
		}
	}
	return out
}

// Taint converts a node's taint, timeAdded included (which taints.Timer
// does not read, as the taint eviction controller does not).
func Taint(t corev1.Taint) taints.Taint {
	out := taints.Taint{Key: t.Key, Value: t.Value, Effect: taints.Effect(t.Effect)}
	if t.TimeAdded != nil {
		out.TimeAdded = t.TimeAdded.Time
	}
	return out
}

// Pod converts what the timetable needs of a pod.
func Pod(p *corev1.Pod) taints.Pod {
	return taints.Pod{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Tolerations: Tolerations(p.Spec.Tolerations)}
}
