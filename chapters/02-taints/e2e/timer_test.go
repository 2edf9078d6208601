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

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/lab/labenv"
)

// TestTimerRulesMatchController holds the model's Timer to the taint
// eviction controller when a pod's tolerationSeconds change after its
// deletion was scheduled (the API lets an existing toleration change only
// its seconds): 10 s made 3600 s is not pushed later, 3600 s made 5 s is
// not pulled earlier, 10 s made "forever" is cancelled. The model is given
// the same two observations, the taint at 0 and the change when it was
// written, and its answer is what the pod must do.
func TestTimerRulesMatchController(t *testing.T) {
	key := fmt.Sprintf("opslab.dev/e2e-timer-%06d", rand.IntN(1000000))
	s := func(n int64) *int64 { return &n }
	const change = 3 * time.Second
	const horizon = 12*time.Second + slack
	pods := []struct {
		name          string
		before, after *int64
	}{
		{"pushed-later", s(10), s(3600)},
		{"pulled-earlier", s(3600), s(5)},
		{"made-forever", s(10), nil},
	}
	f := features.New("the controller's timer").
		Assess("a change of tolerationSeconds after the taint moves the deletion as the model's Timer says", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, true)
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e")
			tolerate := func(seconds *int64) []corev1.Toleration {
				return []corev1.Toleration{{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}}
			}
			for _, p := range pods {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: p.name},
					Spec: corev1.PodSpec{
						NodeSelector: map[string]string{"kubernetes.io/hostname": node},
						Tolerations:  tolerate(p.before),
						Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
					},
				}
				if _, err := k.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			labenv.Poll(ctx, t, 60*time.Second, "every pod Ready", conditions.New(cfg.Client().Resources(ns)).ResourceListMatchN(&corev1.PodList{}, len(pods), podReady))

			before := time.Now()
			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute})
			time.Sleep(change - time.Since(before))
			changed := map[string]time.Duration{}
			for _, p := range pods {
				got, err := k.CoreV1().Pods(ns).Get(ctx, p.name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got.Spec.Tolerations[0].TolerationSeconds = p.after
				if _, err := k.CoreV1().Pods(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil {
					t.Fatalf("%s: update tolerationSeconds: %v", p.name, err)
				}
				changed[p.name] = time.Since(before)
			}

			gone := map[string]time.Duration{}
			for time.Since(before) < horizon {
				for _, p := range pods {
					if _, seen := gone[p.name]; seen {
						continue
					}
					got, err := k.CoreV1().Pods(ns).Get(ctx, p.name, metav1.GetOptions{})
					if apierrors.IsNotFound(err) || (err == nil && got.DeletionTimestamp != nil) {
						gone[p.name] = time.Since(before)
					}
				}
				time.Sleep(200 * time.Millisecond)
			}

			t0 := time.Unix(0, 0)
			model := func(seconds *int64) []taints.Toleration {
				return []taints.Toleration{{Key: key, Operator: taints.Exists, Effect: taints.NoExecute, Seconds: seconds}}
			}
			taint := []taints.Taint{{Key: key, Effect: taints.NoExecute}}
			for _, p := range pods {
				var tm taints.Timer
				tm.Observe(t0, taint, model(p.before))
				tm.Observe(t0.Add(changed[p.name]), taint, model(p.after))
				fire, armed := tm.FireAt()
				due := fire.Sub(t0)
				says := "never deletes it"
				if armed {
					says = fmt.Sprintf("deletes it at %v", due)
				}
				at, left := gone[p.name]
				switch {
				case armed && due+slack < horizon:
					if !left {
						t.Errorf("%s: the model deletes it at %v, but it was still there at %v", p.name, due, horizon)
					} else if at < due || at > due+slack {
						t.Errorf("%s: the model deletes it at %v, it went at %v", p.name, due, at.Round(100*time.Millisecond))
					} else {
						t.Logf("%s: the model deletes it at %v, it went at %v", p.name, due, at.Round(100*time.Millisecond))
					}
				case left:
					t.Errorf("%s: went at %v, but the model %s", p.name, at.Round(100*time.Millisecond), says)
				default:
					t.Logf("%s: stayed past %v; the model %s", p.name, horizon, says)
				}
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}
