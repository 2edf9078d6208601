//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/lab/labenv"
)

const (
	pool         = "shutdown"
	outOfService = "node.kubernetes.io/out-of-service"
	// slack covers the StatefulSet controller's and the API server's own
	// latency after a pod GC run.
	slack = 5 * time.Second
)

type key int

const stateKey key = 0

// scenario is what the steps share.
type scenario struct {
	k            kubernetes.Interface
	ns, deadNode string
	oldUID       types.UID
	terminating  time.Time
	tainted      time.Time
}

func TestUnplannedShutdownMatchesModel(t *testing.T) {
	f := features.New("unplanned shutdown of a StatefulSet pod's node").
		Setup(func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			requireIdlePool(ctx, t, k)
			s := &scenario{k: k, ns: namespace}
			t.Cleanup(func() { cleanup(t, s) })
			if _, err := k.AppsV1().StatefulSets(s.ns).Create(ctx, statefulSet(), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			cond := conditions.New(cfg.Client().Resources(s.ns))
			pod := db0(s.ns)
			labenv.Poll(ctx, t, 60*time.Second, "db-0 Running and Ready", cond.ResourceMatch(pod, func(o k8s.Object) bool {
				p := o.(*corev1.Pod)
				return p.Spec.NodeName != "" && podReady(p)
			}))
			s.deadNode, s.oldUID = pod.Spec.NodeName, pod.UID
			power(t, "off", s.deadNode)
			labenv.Poll(ctx, t, 150*time.Second, "db-0 marked for deletion after its node went NotReady", cond.ResourceMatch(db0(s.ns), func(o k8s.Object) bool {
				return o.GetDeletionTimestamp() != nil
			}))
			s.terminating = time.Now()
			return context.WithValue(ctx, stateKey, s)
		}).
		Assess("without the out-of-service taint db-0 stays Terminating for longer than a pod GC period", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			s := ctx.Value(stateKey).(*scenario)
			hold := shutdown.PodGCPeriod + 15*time.Second
			model := shutdown.Simulate(shutdown.Scenario{
				Events: []shutdown.Event{{At: 0, Kind: shutdown.NodeNotReady}, {At: time.Second, Kind: shutdown.DeleteRequested}},
				Until:  hold,
			})
			if !model.Gone.Never {
				t.Fatalf("model: pod gone at %v without the taint, want never", model.Gone)
			}
			deadline := time.Now().Add(hold)
			for time.Now().Before(deadline) {
				p, err := s.k.CoreV1().Pods(s.ns).Get(ctx, "db-0", metav1.GetOptions{})
				if err != nil || p.UID != s.oldUID || p.DeletionTimestamp == nil {
					t.Fatalf("cluster: db-0 (uid %s) left Terminating %v after it began (err %v); the model says it stays", s.oldUID, time.Since(s.terminating).Round(time.Second), err)
				}
				time.Sleep(time.Second)
			}
			t.Logf("db-0 still Terminating %v later, as the model predicts (gone: %v)", time.Since(s.terminating).Round(time.Second), model.Gone)
			return ctx
		}).
		Assess("with the taint db-0 goes within one pod GC period plus slack", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			s := ctx.Value(stateKey).(*scenario)
			node, err := s.k.CoreV1().Nodes().Get(ctx, s.deadNode, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if nodeReadyStatus(node) {
				t.Fatalf("%s is Ready; the scenario needs it off before the taint", s.deadNode)
			}
			node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: outOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute})
			if _, err := s.k.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			s.tainted = time.Now()
			// The model's bound: the latest the pod can go after the taint,
			// over every phase of the pod GC's 20 s cycle.
			var bound time.Duration
			for offset := time.Duration(0); offset < shutdown.PodGCPeriod; offset += shutdown.ReconcilerPeriod {
				model := shutdown.Simulate(shutdown.Scenario{
					Events:      []shutdown.Event{{At: 0, Kind: shutdown.NodeNotReady}, {At: time.Second, Kind: shutdown.DeleteRequested}, {At: time.Minute, Kind: shutdown.TaintOutOfService}},
					PodGCOffset: offset,
					Until:       5 * time.Minute,
				})
				if model.Gone.Never || model.By != shutdown.ByPodGC {
					t.Fatalf("model: gone %v by %q, want the pod GC", model.Gone, model.By)
				}
				bound = max(bound, model.Gone.At-time.Minute)
			}
			labenv.Poll(ctx, t, bound+slack, "old db-0 gone", func(ctx context.Context) (bool, error) {
				p, err := s.k.CoreV1().Pods(s.ns).Get(ctx, "db-0", metav1.GetOptions{})
				return apierrors.IsNotFound(err) || err == nil && p.UID != s.oldUID, nil
			})
			t.Logf("old db-0 gone %v after the taint; the model allows at most %v", time.Since(s.tainted).Round(100*time.Millisecond), bound)
			return ctx
		}).
		Assess("the replacement runs on a healthy node", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			s := ctx.Value(stateKey).(*scenario)
			// A fresh object: the old db-0, with its deletionTimestamp, is gone.
			pod := db0(s.ns)
			labenv.Poll(ctx, t, 60*time.Second, "new db-0 Running and Ready", conditions.New(cfg.Client().Resources(s.ns)).ResourceMatch(pod, func(o k8s.Object) bool {
				p := o.(*corev1.Pod)
				return p.UID != s.oldUID && p.DeletionTimestamp == nil && podReady(p)
			}))
			if pod.Spec.NodeName == s.deadNode {
				t.Fatalf("new db-0 runs on %s, the powered-off node", s.deadNode)
			}
			node, err := s.k.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !nodeReadyStatus(node) || node.Labels["opslab.dev/pool"] != pool {
				t.Fatalf("new db-0 runs on %s (Ready %v, pool %q), want a Ready node of pool %s", node.Name, nodeReadyStatus(node), node.Labels["opslab.dev/pool"], pool)
			}
			t.Logf("new db-0 runs on %s, Ready", node.Name)
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// requireIdlePool stops the test when the shutdown pool is not as lab-up
// left it: its nodes must be on, untainted by this chapter and without pods,
// or the power-off would disturb someone's lab.
func requireIdlePool(ctx context.Context, t *testing.T, k kubernetes.Interface) {
	t.Helper()
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "opslab.dev/pool=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) < 2 {
		t.Fatalf("the shutdown pool has %d nodes, want 2", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		pods, err := k.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Name})
		if err != nil {
			t.Fatal(err)
		}
		if n.Labels["opslab.dev/power"] != "" || hasTaint(&n) || !nodeReadyStatus(&n) || len(pods.Items) > 0 {
			t.Fatalf("node %s is in use (power %q, out-of-service %v, Ready %v, %d pods): run chapters/04-node-shutdown/lab/reset.sh first",
				n.Name, n.Labels["opslab.dev/power"], hasTaint(&n), nodeReadyStatus(&n), len(pods.Items))
		}
	}
}

// cleanup powers the node back on and removes the taint; TestMain deletes
// the namespace once the node is back.
func cleanup(t *testing.T, s *scenario) {
	ctx := context.Background()
	if s.deadNode != "" {
		power(t, "on", s.deadNode)
		err := wait.For(func(ctx context.Context) (bool, error) {
			n, err := s.k.CoreV1().Nodes().Get(ctx, s.deadNode, metav1.GetOptions{})
			if err != nil || !hasTaint(n) {
				return err == nil, nil
			}
			var keep []corev1.Taint
			for _, tn := range n.Spec.Taints {
				if tn.Key != outOfService {
					keep = append(keep, tn)
				}
			}
			n.Spec.Taints = keep
			_, err = s.k.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return false, nil
		}, wait.WithContext(ctx), wait.WithTimeout(30*time.Second), wait.WithInterval(time.Second), wait.WithImmediate())
		if err != nil {
			t.Errorf("cleanup: removing the taint from %s: %v", s.deadNode, err)
		}
	}
}

// db0 is the StatefulSet's pod db-0, to be read by a condition.
func db0(ns string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: ns}}
}

// power runs the lab's power switch, as a learner does.
func power(t *testing.T, action, node string) {
	t.Helper()
	cmd := exec.Command("bash", "../../../lab/scripts/power.sh", action, node)
	// The tests run as the admin, the power switch's own context.
	cmd.Env = append(os.Environ(), "OPSLAB_ADMIN_CONTEXT="+labenv.Context())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("power.sh %s %s: %v\n%s", action, node, err, out)
	}
}

func statefulSet() *appsv1.StatefulSet {
	one := int32(1)
	five := int64(5)
	labels := map[string]string{"app": "db"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "db",
			Replicas:    &one,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"opslab.dev/pool": pool},
					Tolerations: []corev1.Toleration{
						{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &five},
						{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &five},
					},
					Containers: []corev1.Container{{Name: "db", Image: "postgres:17"}},
				},
			},
		},
	}
}

func podReady(p *corev1.Pod) bool { return kubeio.PodReady(p) }

func nodeReadyStatus(n *corev1.Node) bool { return kubeio.NodeReady(n) }

func hasTaint(n *corev1.Node) bool {
	for _, tn := range n.Spec.Taints {
		if tn.Key == outOfService {
			return true
		}
	}
	return false
}
