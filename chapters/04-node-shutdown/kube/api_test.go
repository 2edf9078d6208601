package kube

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
)

// TestValidateReadsKubeletConfiguration: Validate hands the shutdown fields and
// the feature gates of a KubeletConfiguration to shutdown.Validate.
func TestValidateReadsKubeletConfiguration(t *testing.T) {
	tests := []struct {
		name, reason string
		kc           *kubeletv1beta1.KubeletConfiguration
		want         shutdown.Config
		wantErr      string
	}{
		{name: "defaults", reason: "an empty configuration leaves graceful shutdown off",
			kc: &kubeletv1beta1.KubeletConfiguration{}, want: shutdown.Config{}},
		{name: "two values", reason: "shutdownGracePeriod and shutdownGracePeriodCriticalPods become two groups",
			kc: &kubeletv1beta1.KubeletConfiguration{
				ShutdownGracePeriod:             metav1.Duration{Duration: 30 * time.Second},
				ShutdownGracePeriodCriticalPods: metav1.Duration{Duration: 10 * time.Second},
			},
			want: shutdown.Config{Enabled: true, Groups: []shutdown.Group{{Priority: shutdown.RegularPriority, Seconds: 20}, {Priority: shutdown.CriticalPriority, Seconds: 10}}}},
		{name: "priority table", reason: "each entry of shutdownGracePeriodByPodPriority becomes a group, lowest priority first",
			kc: &kubeletv1beta1.KubeletConfiguration{ShutdownGracePeriodByPodPriority: []kubeletv1beta1.ShutdownGracePeriodByPodPriority{
				{Priority: 100000, ShutdownGracePeriodSeconds: 30}, {Priority: 0, ShutdownGracePeriodSeconds: 20},
			}},
			want: shutdown.Config{Enabled: true, ByPriority: true, Groups: []shutdown.Group{{Priority: 0, Seconds: 20}, {Priority: 100000, Seconds: 30}}}},
		{name: "feature gate off", reason: "featureGates reach the validation: GracefulNodeShutdown off alone is refused, two gates on by default depend on it",
			kc: &kubeletv1beta1.KubeletConfiguration{
				ShutdownGracePeriod: metav1.Duration{Duration: 30 * time.Second},
				FeatureGates:        map[string]bool{"GracefulNodeShutdown": false},
			},
			wantErr: "GracefulNodeShutdownBasedOnPodPriority is enabled, but depends on features that are disabled: [GracefulNodeShutdown]\nWindowsGracefulNodeShutdown is enabled, but depends on features that are disabled: [GracefulNodeShutdown]"},
		{name: "feature gates off", reason: "with its dependants off too, the durations are refused for want of GracefulNodeShutdown",
			kc: &kubeletv1beta1.KubeletConfiguration{
				ShutdownGracePeriod: metav1.Duration{Duration: 30 * time.Second},
				FeatureGates:        map[string]bool{"GracefulNodeShutdown": false, "GracefulNodeShutdownBasedOnPodPriority": false, "WindowsGracefulNodeShutdown": false},
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
// and one without terminationGracePeriodSeconds gets the API server's default,
// 30 s.
func TestNewPlanReadsPods(t *testing.T) {
	c := shutdown.Config{Enabled: true, Groups: []shutdown.Group{{Priority: 0, Seconds: 40}, {Priority: shutdown.CriticalPriority, Seconds: 10}}}
	five, critical := int64(5), shutdown.CriticalPriority
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &five}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "report"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "coredns"}, Spec: corev1.PodSpec{Priority: &critical}},
	}
	want := []shutdown.PodStep{
		{Namespace: "shop", Name: "web", Priority: 0, Group: 0, GracePeriodSeconds: 5, Start: 0, Grace: 5 * time.Second, End: 5 * time.Second},
		{Namespace: "shop", Name: "report", Priority: 0, Group: 0, GracePeriodSeconds: 30, Start: 0, Grace: 30 * time.Second, End: 30 * time.Second},
		{Namespace: "kube-system", Name: "coredns", Priority: critical, Group: critical, GracePeriodSeconds: 10, Start: 30 * time.Second, Grace: 10 * time.Second, End: 40 * time.Second},
	}
	p, err := NewPlan(c, pods)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, p.Pods); diff != "" {
		t.Errorf("NewPlan pods mismatch (-want +got):\n%s", diff)
	}
}

// TestNewPlanPriorityClassName: a pod from a file that names a PriorityClass
// but carries no spec.priority gets the built-in classes' values; any other
// class is refused, because only the cluster knows its value.
func TestNewPlanPriorityClassName(t *testing.T) {
	c := shutdown.Config{Enabled: true, Groups: []shutdown.Group{{Priority: 0, Seconds: 20}, {Priority: shutdown.CriticalPriority, Seconds: 10}}}
	tests := []struct {
		name, reason string
		class        string
		want         int32
		wantErr      string
	}{
		{name: "system-node-critical", reason: "a built-in class: 2000001000", class: "system-node-critical", want: shutdown.CriticalPriority + 1000},
		{name: "system-cluster-critical", reason: "a built-in class: 2000000000", class: "system-cluster-critical", want: shutdown.CriticalPriority},
		{name: "own class", reason: "its value is in the cluster, not in the file",
			class: "database", wantErr: `pod shop/db has priorityClassName "database" and no spec.priority: the API server takes the priority from that PriorityClass, which only the cluster knows; set spec.priority or plan the node from the cluster with --node`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"}, Spec: corev1.PodSpec{PriorityClassName: tt.class}}
			got, err := NewPlan(c, []*corev1.Pod{p})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("NewPlan = %v, want error %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil || got.Pods[0].Priority != tt.want {
				t.Errorf("NewPlan = priority %v, %v; want %d (%s)", got.Pods, err, tt.want, tt.reason)
			}
		})
	}
}
