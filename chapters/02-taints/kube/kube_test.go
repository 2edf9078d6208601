package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
)

func TestPod(t *testing.T) {
	thirty := int64(30)
	in := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "taints-lab", Name: "dispatcher"},
		Spec: corev1.PodSpec{NodeName: "taints-3", Tolerations: []corev1.Toleration{
			{Key: "opslab.dev/link-down", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &thirty},
			{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
		}},
	}
	want := taints.Pod{Namespace: "taints-lab", Name: "dispatcher", Node: "taints-3", Tolerations: []taints.Toleration{
		{Key: "opslab.dev/link-down", Operator: taints.Exists, Effect: taints.NoExecute, Seconds: taints.Seconds(30)},
		{Key: "dedicated", Value: "db", Effect: taints.NoSchedule},
	}}
	if diff := cmp.Diff(want, Pod(in)); diff != "" {
		t.Errorf("Pod mismatch (-want +got):\n%s", diff)
	}
	now := metav1.Now()
	got := Taint(corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
	if want := (taints.Taint{Key: "k", Value: "v", Effect: taints.NoExecute, TimeAdded: now.Time}); got != want {
		t.Errorf("Taint = %v, want %v", got, want)
	}
}
