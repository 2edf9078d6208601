//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/lab/labenv"
)

// TestAdmitDefaultsMatchesServer holds AdmitDefaults' edge rules to the
// API server's DefaultTolerationSeconds plugin: for each pod, sent as a
// dry run, the tolerations the server would store are the model's, in
// the same order.
func TestAdmitDefaultsMatchesServer(t *testing.T) {
	s := func(n int64) *int64 { return &n }
	tol := func(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect, seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect, TolerationSeconds: seconds}
	}
	const nr, ur = taints.KeyNotReady, taints.KeyUnreachable
	ex, eq := corev1.TolerationOpExists, corev1.TolerationOpEqual
	ne, ns := corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule
	cases := map[string][]corev1.Toleration{
		"no toleration":                    nil,
		"unreachable for 900 s":            {tol(ur, ex, "", ne, s(900))},
		"both keys, no seconds":            {tol(nr, ex, "", ne, nil), tol(ur, ex, "", ne, nil)},
		"not-ready for NoSchedule only":    {tol(nr, ex, "", ns, nil)},
		"empty key and effect":             {tol("", ex, "", "", nil)},
		"empty key for NoSchedule":         {tol("", ex, "", ns, nil)},
		"empty key for NoExecute, 30 s":    {tol("", ex, "", ne, s(30))},
		"not-ready with a value, 10 s":     {tol(nr, eq, "x", ne, s(10))},
		"unreachable with no effect":       {tol(ur, ex, "", "", nil)},
		"another key for NoExecute, 5 s":   {tol("opslab.dev/link-down", ex, "", ne, s(5))},
		"not-ready for NoExecute, 0 s":     {tol(nr, ex, "", ne, s(0))},
		"unreachable for PreferNoSchedule": {tol(ur, ex, "", corev1.TaintEffectPreferNoSchedule, nil)},
	}
	f := features.New("admission defaults").
		Assess("the server adds the 300 s tolerations exactly where AdmitDefaults does", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e")
			for name, tols := range cases {
				p := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: "admit", Namespace: ns},
					Spec:       corev1.PodSpec{Tolerations: tols, Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
				}
				got, err := k.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil {
					t.Errorf("%s: dry-run create: %v", name, err)
					continue
				}
				want := taints.AdmitDefaults(kube.Tolerations(tols), taints.DefaultTolerationSeconds)
				if diff := cmp.Diff(want, kube.Tolerations(got.Spec.Tolerations)); diff != "" {
					t.Errorf("%s: the server stored other tolerations than AdmitDefaults (-model +server):\n%s", name, diff)
				}
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// TestDaemonSetTolerationsMatchController holds DaemonSetTolerations to
// the DaemonSet controller: the pod it makes from a template carries the
// model's tolerations, in the same order, with and without the host
// network, and a template's not-ready toleration with seconds becomes one
// without.
func TestDaemonSetTolerationsMatchController(t *testing.T) {
	sixty := int64(60)
	template := []corev1.Toleration{
		{Key: taints.KeyNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &sixty},
		{Key: "opslab.dev/maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	f := features.New("DaemonSet tolerations").
		Assess("the DaemonSet controller's pods carry DaemonSetTolerations' tolerations", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, false)
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e")
			for _, hostNetwork := range []bool{false, true} {
				name := fmt.Sprintf("agent-host-%v", hostNetwork)
				labels := map[string]string{"app": name}
				ds := &appsv1.DaemonSet{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.DaemonSetSpec{
						Selector: &metav1.LabelSelector{MatchLabels: labels},
						Template: corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Labels: labels},
							Spec: corev1.PodSpec{
								NodeSelector: map[string]string{"kubernetes.io/hostname": node},
								HostNetwork:  hostNetwork,
								Tolerations:  template,
								Containers:   []corev1.Container{{Name: "agent", Image: "registry.example/agent:1"}},
							},
						},
					},
				}
				if _, err := k.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				var pod *corev1.Pod
				labenv.Poll(ctx, t, 60*time.Second, "the DaemonSet's pod "+name, func(ctx context.Context) (bool, error) {
					pods, err := k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
					if err != nil || len(pods.Items) == 0 {
						return false, nil
					}
					pod = &pods.Items[0]
					return true, nil
				})
				want := taints.AdmitDefaults(taints.DaemonSetTolerations(kube.Tolerations(template), hostNetwork), taints.DefaultTolerationSeconds)
				if diff := cmp.Diff(want, kube.Tolerations(pod.Spec.Tolerations)); diff != "" {
					t.Errorf("host network %v: the controller's pod has other tolerations than the model's (-model +server):\n%s", hostNetwork, diff)
				}
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
