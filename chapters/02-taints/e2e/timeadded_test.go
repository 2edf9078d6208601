//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/opslab/opslab/lab/labenv"
)

// TestTimerIgnoresTimeAdded is the taint eviction controller's side of
// TestTimerStartsWhenObserved: a NoExecute taint whose timeAdded says an
// hour ago still gives a pod that tolerates it for 10 s its 10 s, counted
// from when the controller saw the taint. A controller that counted from
// timeAdded would delete the pod at once.
func TestTimerIgnoresTimeAdded(t *testing.T) {
	key := fmt.Sprintf("opslab.dev/e2e-old-%06d", rand.IntN(1000000))
	const tolerated = 10 * time.Second
	f := features.New("timeAdded in the past").
		Assess("a pod tolerating a taint written with a timeAdded an hour ago for 10 s leaves 10 s after the taint, not at once", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, true)
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e")
			seconds := int64(tolerated / time.Second)
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "tolerate-10s"},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/hostname": node},
					Tolerations:  []corev1.Toleration{{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}},
					Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
				},
			}
			if _, err := k.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			labenv.Poll(ctx, t, 60*time.Second, "the pod Ready", conditions.New(cfg.Client().Resources(ns)).ResourceListMatchN(&corev1.PodList{}, 1, podReady))

			hourAgo := metav1.NewTime(time.Now().Add(-time.Hour))
			before := time.Now()
			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &hourAgo})
			after := time.Now()
			n, err := k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tn := range n.Spec.Taints {
				if tn.Key == key && (tn.TimeAdded == nil || !tn.TimeAdded.Time.Before(before.Add(-59*time.Minute))) {
					t.Fatalf("the API server kept timeAdded %v, not the hour-old one written: the test shows nothing", tn.TimeAdded)
				}
			}
			var gone time.Duration
			deadline := after.Add(tolerated + slack)
			for gone == 0 && time.Now().Before(deadline) {
				got, err := k.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
				if apierrors.IsNotFound(err) || (err == nil && got.DeletionTimestamp != nil) {
					gone = time.Since(before)
				}
				time.Sleep(200 * time.Millisecond)
			}
			switch {
			case gone == 0:
				t.Errorf("the pod was still there %v after the taint", tolerated+slack)
			case gone < tolerated:
				t.Errorf("the pod left %v after the taint, before its %v: the controller counted from timeAdded", gone.Round(100*time.Millisecond), tolerated)
			case gone > tolerated+after.Sub(before)+slack:
				t.Errorf("the pod left %v after the taint, more than %v after its %v", gone.Round(100*time.Millisecond), slack, tolerated)
			default:
				t.Logf("timeAdded an hour ago, toleration %v: the pod left %v after the taint", tolerated, gone.Round(100*time.Millisecond))
				evicted(ctx, t, k, ns, p.Name)
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
