package shutdown

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/opslab/opslab/chapters/04-node-shutdown/graceful"
)

// TestValidateReadsKubeletConfiguration: Validate hands the shutdown fields and
// the feature gates of a KubeletConfiguration to graceful.Validate.
func TestValidateReadsKubeletConfiguration(t *testing.T) {
	tests := []struct {
		name, reason string
		kc           *kubeletv1beta1.KubeletConfiguration
		want         graceful.Config
		wantErr      string
	}{
		{name: "defaults", reason: "an empty configuration leaves graceful shutdown off",
			kc: &kubeletv1beta1.KubeletConfiguration{}, want: graceful.Config{}},
		{name: "two values", reason: "shutdownGracePeriod and shutdownGracePeriodCriticalPods become two groups",
			kc: &kubeletv1beta1.KubeletConfiguration{
				ShutdownGracePeriod:             metav1.Duration{Duration: 30 * time.Second},
				ShutdownGracePeriodCriticalPods: metav1.Duration{Duration: 10 * time.Second},
			},
			want: graceful.Config{Enabled: true, Groups: []graceful.Group{{Priority: graceful.RegularPriority, Seconds: 20}, {Priority: graceful.CriticalPriority, Seconds: 10}}}},
		{name: "priority table", reason: "each entry of shutdownGracePeriodByPodPriority becomes a group, lowest priority first",
			kc: &kubeletv1beta1.KubeletConfiguration{ShutdownGracePeriodByPodPriority: []kubeletv1beta1.ShutdownGracePeriodByPodPriority{
				{Priority: 100000, ShutdownGracePeriodSeconds: 30}, {Priority: 0, ShutdownGracePeriodSeconds: 20},
			}},
			want: graceful.Config{Enabled: true, ByPriority: true, Groups: []graceful.Group{{Priority: 0, Seconds: 20}, {Priority: 100000, Seconds: 30}}}},
		{name: "feature gate off", reason: "featureGates reach the validation",
			kc: &kubeletv1beta1.KubeletConfiguration{
				ShutdownGracePeriod: metav1.Duration{Duration: 30 * time.Second},
				FeatureGates:        map[string]bool{"GracefulNodeShutdown": false},
			},
			wantErr: "shutdownGracePeriod or shutdownGracePeriodCriticalPods needs feature gate GracefulNodeShutdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Validate(tt.kc)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Validate = %v, want error %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v, want accepted (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestNewPlanReadsPods: NewPlan reads a pod's namespace, name, priority and
// terminationGracePeriodSeconds; a pod without spec.priority has priority 0,
// and one without terminationGracePeriodSeconds gets its group's seconds.
func TestNewPlanReadsPods(t *testing.T) {
	c := graceful.Config{Enabled: true, Groups: []graceful.Group{{Priority: 0, Seconds: 20}, {Priority: graceful.CriticalPriority, Seconds: 10}}}
	five, critical := int64(5), graceful.CriticalPriority
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &five}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "coredns"}, Spec: corev1.PodSpec{Priority: &critical}},
	}
	want := []graceful.PodStep{
		{Namespace: "shop", Name: "web", Priority: 0, Group: 0, Start: 0, Grace: 5 * time.Second, End: 5 * time.Second},
		{Namespace: "kube-system", Name: "coredns", Priority: critical, Group: critical, Start: 5 * time.Second, Grace: 10 * time.Second, End: 15 * time.Second},
	}
	if diff := cmp.Diff(want, NewPlan(c, pods).Pods); diff != "" {
		t.Errorf("NewPlan pods mismatch (-want +got):\n%s", diff)
	}
}
