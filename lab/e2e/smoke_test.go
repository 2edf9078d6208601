//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/opslab/opslab/lab/labenv"
)

// kube returns a typed client for the environment's cluster.
func kube(t *testing.T, cfg *envconf.Config) kubernetes.Interface {
	t.Helper()
	k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pod(name, node string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/hostname": node},
			Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
		},
	}
}

func podReady(p *corev1.Pod) (metav1.Time, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime, true
		}
	}
	return metav1.Time{}, false
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func TestNoExecuteEvictsAnUntoleratedPod(t *testing.T) {
	const node, key = "taints-3", "opslab.dev/smoke"
	f := features.New("NoExecute taint").
		Assess("a NoExecute taint evicts a pod that does not tolerate it, by the taint eviction controller", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k := kube(t, cfg)
			ns := labenv.Namespace(ctx, t, k, "smoke-taint-")
			p, err := k.CoreV1().Pods(ns).Create(ctx, pod("victim", node, nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			labenv.Poll(ctx, t, 30*time.Second, "pod victim Ready", func(ctx context.Context) (bool, error) {
				p, err = k.CoreV1().Pods(ns).Get(ctx, "victim", metav1.GetOptions{})
				_, ok := podReady(p)
				return err == nil && ok, nil
			})
			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: key, Value: "e2e", Effect: corev1.TaintEffectNoExecute})
			labenv.Poll(ctx, t, 30*time.Second, "pod victim evicted", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "victim", metav1.GetOptions{})
				return err != nil || p.DeletionTimestamp != nil, nil
			})
			labenv.Poll(ctx, t, 10*time.Second, "event TaintManagerEviction for victim", func(ctx context.Context) (bool, error) {
				evs, err := k.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=victim,reason=TaintManagerEviction"})
				return err == nil && len(evs.Items) > 0, nil
			})
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

func TestSlowStartDelaysReadiness(t *testing.T) {
	const delay = 6 * time.Second
	f := features.New("slow start").
		Assess(fmt.Sprintf("a pod annotated opslab.dev/ready-after=%v runs at once and is Ready %v later (±2 s)", delay, delay), func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k := kube(t, cfg)
			ns := labenv.Namespace(ctx, t, k, "smoke-slow-")
			if _, err := k.CoreV1().Pods(ns).Create(ctx, pod("slow", "pdb-2", map[string]string{"opslab.dev/ready-after": delay.String()}), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var running time.Time
			labenv.Poll(ctx, t, 20*time.Second, "pod slow running", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "slow", metav1.GetOptions{})
				if err != nil || p.Status.Phase != corev1.PodRunning {
					return false, nil
				}
				if _, ok := podReady(p); ok {
					return false, fmt.Errorf("pod slow was Ready as soon as it ran")
				}
				running = time.Now()
				return true, nil
			})
			var readyAt time.Time
			labenv.Poll(ctx, t, delay+10*time.Second, "pod slow Ready", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "slow", metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				if _, ok := podReady(p); ok {
					readyAt = time.Now()
					return true, nil
				}
				return false, nil
			})
			if got := readyAt.Sub(running); got < delay-2*time.Second || got > delay+2*time.Second {
				t.Fatalf("pod slow became Ready %v after it ran, want %v ± 2s", got.Round(100*time.Millisecond), delay)
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

func TestPowerOffHoldsPodsUntilOutOfService(t *testing.T) {
	f := features.New("power off and out-of-service").
		Assess("a powered-off node goes NotReady, its StatefulSet pod stays Terminating, and the out-of-service taint lets it be recreated on another node", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k := kube(t, cfg)
			ns := labenv.Namespace(ctx, t, k, "smoke-power-")
			labels := map[string]string{"app": "db"}
			tolerate := func(key string) corev1.Toleration {
				return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](3)}
			}
			sts := &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "db"},
				Spec: appsv1.StatefulSetSpec{
					Replicas:    ptr.To[int32](1),
					ServiceName: "db",
					Selector:    &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: corev1.PodSpec{
							NodeSelector: map[string]string{"opslab.dev/pool": "shutdown"},
							// Short tolerations so the taint eviction controller
							// deletes the pod seconds after the node goes NotReady.
							Tolerations: []corev1.Toleration{tolerate("node.kubernetes.io/not-ready"), tolerate("node.kubernetes.io/unreachable")},
							Containers:  []corev1.Container{{Name: "db", Image: "registry.example/db:1"}},
						},
					},
				},
			}
			if _, err := k.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var node string
			var oldUID string
			labenv.Poll(ctx, t, 30*time.Second, "db-0 Ready", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				_, ok := podReady(p)
				node, oldUID = p.Spec.NodeName, string(p.UID)
				return ok, nil
			})
			power(t, "off", node)
			t.Cleanup(func() { power(t, "on", node) })

			labenv.Poll(ctx, t, 30*time.Second, node+" NotReady", func(ctx context.Context) (bool, error) {
				n, err := k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
				return err == nil && !nodeReady(n), nil
			})
			labenv.Poll(ctx, t, 60*time.Second, "db-0 marked for deletion", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
				if err == nil && string(p.UID) != oldUID {
					return false, fmt.Errorf("db-0 was deleted and replaced on %s without the out-of-service taint: nothing held its deletion", p.Spec.NodeName)
				}
				return err == nil && p.DeletionTimestamp != nil, nil
			})
			// Longer than one pod GC period (20 s): nothing finishes the
			// deletion on a node without power.
			hold := 25 * time.Second
			time.Sleep(hold)
			p, err := k.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
			if err != nil || string(p.UID) != oldUID || p.DeletionTimestamp == nil {
				t.Fatalf("db-0 did not stay Terminating on the powered-off node for %v (err %v)", hold, err)
			}

			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: "node.kubernetes.io/out-of-service", Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute})
			labenv.Poll(ctx, t, 45*time.Second, "db-0 recreated and Ready on another node", func(ctx context.Context) (bool, error) {
				p, err := k.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
				if err != nil || string(p.UID) == oldUID {
					return false, nil
				}
				_, ok := podReady(p)
				return ok && p.Spec.NodeName != node, nil
			})
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// power runs the lab's own power script, as a learner would.
func power(t *testing.T, action, node string) {
	t.Helper()
	out, err := exec.Command("../scripts/power.sh", action, node).CombinedOutput()
	if err != nil {
		t.Fatalf("power.sh %s %s: %v\n%s", action, node, err, out)
	}
}
