//go:build e2e

package check

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reference answer's kubelet.yaml (lab/kubelet-shutdown.yaml), for the
// cheats that change only logind.
const answerKubelet = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
shutdownGracePeriodByPodPriority:
- {priority: 0, shutdownGracePeriodSeconds: 20}
- {priority: 100000, shutdownGracePeriodSeconds: 30}
- {priority: 2000000000, shutdownGracePeriodSeconds: 10}
`

// TestCheatsFailGracefulConfig: the graceful-shutdown check judges the
// configuration a learner wrote with the kubelet's own validation and
// logind's rules, so the quick ways to a "long enough" shutdown that do not
// work on a node fail it: one long period for every pod, the two older
// fields, a longer delay in a drop-in that logind reads before the one it
// should beat, and a mask with the drop-in's name misspelt.
func TestCheatsFailGracefulConfig(t *testing.T) {
	ctx := context.Background()
	withLog, _ := connect(ctx, t)
	k := withLog.Kube
	requireUntouched(ctx, t, k)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := k.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k.CoreV1().Namespaces().Delete(context.Background(), Namespace, metav1.DeleteOptions{})
		for range 120 {
			if _, err := k.CoreV1().Namespaces().Get(context.Background(), Namespace, metav1.GetOptions{}); err != nil {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Errorf("namespace %s still there 30 s after the test", Namespace)
	})
	chk, _ := lookup("shutdown-graceful-config")
	tests := []struct {
		name, reason string
		data         map[string]string
		want         string
	}{
		{
			name:   "one long period for every pod",
			reason: "60 s for everyone is long enough for each group, but the database no longer ends after its clients",
			data: map[string]string{
				"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- {priority: 0, shutdownGracePeriodSeconds: 60}\n",
				"masked":       "unattended-upgrades-logind-maxdelay.conf\n",
			},
			want: "shares a group",
		},
		{
			name:   "the two older fields",
			reason: "shutdownGracePeriod and its critical share give the database no group of its own",
			data: map[string]string{
				"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 60s\nshutdownGracePeriodCriticalPods: 10s\n",
				"masked":       "unattended-upgrades-logind-maxdelay.conf\n",
			},
			want: "uses shutdownGracePeriod",
		},
		{
			name:   "a longer delay in a drop-in read first",
			reason: "logind reads drop-ins in name order and the last one wins: 00-longer.conf is overridden by unattended-upgrades' 30 s",
			data: map[string]string{
				"kubelet.yaml":   answerKubelet,
				"00-longer.conf": "[Login]\nInhibitDelayMaxSec=90\n",
			},
			want: "logind allows 30s",
		},
		{
			name:   "a mask with the drop-in's name misspelt",
			reason: "a link to /dev/null under another name masks nothing",
			data: map[string]string{
				"kubelet.yaml": answerKubelet,
				"masked":       "unattended-upgrade-logind-maxdelay.conf\n",
			},
			want: "logind allows 30s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMap, Namespace: Namespace}, Data: tt.data}
			k.CoreV1().ConfigMaps(Namespace).Delete(ctx, ConfigMap, metav1.DeleteOptions{})
			if _, err := k.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			res, err := chk.Run(ctx, withLog)
			if err != nil {
				t.Fatal(err)
			}
			if res.Pass || !strings.Contains(res.Message, tt.want) {
				t.Errorf("shutdown-graceful-config = pass %v, %q; want a failure that says %q (%s)", res.Pass, res.Message, tt.want, tt.reason)
			}
		})
	}
}
