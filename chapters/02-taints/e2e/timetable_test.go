//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
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

// slack is how long after its predicted time a pod may take to go: the
// controller's reaction, the API's round trips and our polling.
const slack = 10 * time.Second

// A prediction is one row of timetable -o json.
type prediction struct {
	Pod     string `json:"pod"`
	Leaves  string `json:"leaves"`
	Seconds int64  `json:"seconds"`
}

func (p prediction) after() time.Duration { return time.Duration(p.Seconds) * time.Second }

func TestTimetableMatchesEvictions(t *testing.T) {
	key := fmt.Sprintf("opslab.dev/e2e-%06d", rand.IntN(1000000))
	f := features.New("timetable against the taint eviction controller").
		Assess("under a NoExecute taint the pods the timetable says leave do leave, each no earlier than predicted and within 10 s after; the others stay", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, true)
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e")
			tolerate := func(key string, seconds *int64) []corev1.Toleration {
				return []corev1.Toleration{{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}}
			}
			s := func(n int64) *int64 { return &n }
			pods := map[string][]corev1.Toleration{
				"no-toleration": nil,
				"tolerate-0s":   tolerate(key, s(0)),
				"tolerate-5s":   tolerate(key, s(5)),
				"tolerate-10s":  tolerate(key, s(10)),
				"forever":       tolerate(key, nil),
				"other-key":     tolerate(key+"-other", nil),
			}
			for name, tols := range pods {
				p := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.PodSpec{
						NodeSelector: map[string]string{"kubernetes.io/hostname": node},
						Tolerations:  tols,
						Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
					},
				}
				if _, err := k.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			labenv.Poll(ctx, t, 60*time.Second, "every pod Ready", conditions.New(cfg.Client().Resources(ns)).ResourceListMatchN(&corev1.PodList{}, len(pods), podReady))

			// The prediction, from the command a learner runs.
			out, err := timetable(ctx, "--kubeconfig", kubeconfig, "--context", kubeContext, "-n", ns, "--node", node, "-o", "json", key+":NoExecute")
			if err != nil {
				t.Fatal(err)
			}
			var predicted []prediction
			if err := json.Unmarshal([]byte(out), &predicted); err != nil {
				t.Fatalf("timetable -o json: %v\n%s", err, out)
			}
			if len(predicted) != len(pods) {
				t.Fatalf("timetable listed %d pods, want %d:\n%s", len(predicted), len(pods), out)
			}
			var horizon time.Duration
			for _, p := range predicted {
				t.Logf("predicted: %s leaves %s %d", p.Pod, p.Leaves, p.Seconds)
				horizon = max(horizon, p.after())
			}

			// The experiment: taint the node and watch who leaves when.
			before := time.Now()
			labenv.Taint(ctx, t, k, node, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute})
			after := time.Now()
			gone := map[string]time.Duration{} // since before
			deadline := after.Add(horizon + slack)
			for time.Now().Before(deadline) {
				for name := range pods {
					if _, seen := gone[name]; seen {
						continue
					}
					p, err := k.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
					if apierrors.IsNotFound(err) || (err == nil && p.DeletionTimestamp != nil) {
						gone[name] = time.Since(before)
					}
				}
				time.Sleep(200 * time.Millisecond)
			}
			window := after.Sub(before)

			for _, p := range predicted {
				at, left := gone[p.Pod]
				switch p.Leaves {
				case "never":
					if left {
						t.Errorf("%s: predicted never, but it left %v after the taint", p.Pod, at.Round(100*time.Millisecond))
					}
				case "now", "after":
					if !left {
						t.Errorf("%s: predicted %s %d s, but it was still there %v after the taint", p.Pod, p.Leaves, p.Seconds, horizon+slack)
						continue
					}
					// The controller's clock starts when it sees the taint,
					// which is after we started to write it.
					if at < p.after() {
						t.Errorf("%s: left %v after the taint, earlier than the predicted %v", p.Pod, at.Round(100*time.Millisecond), p.after())
					}
					if at > p.after()+window+slack {
						t.Errorf("%s: left %v after the taint, more than %v after the predicted %v", p.Pod, at.Round(100*time.Millisecond), slack, p.after())
					}
					t.Logf("%s: predicted %s, left %v after the taint", p.Pod, strings.TrimSpace(p.Leaves+" "+secondsOf(p)), at.Round(100*time.Millisecond))
					evicted(ctx, t, k, ns, p.Pod)
				default:
					t.Errorf("%s: timetable wrote leaves %q", p.Pod, p.Leaves)
				}
			}
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

func secondsOf(p prediction) string {
	if p.Leaves != "after" {
		return ""
	}
	return fmt.Sprintf("%d s", p.Seconds)
}

// evicted fails the test unless the taint eviction controller recorded
// that it removed the pod.
func evicted(ctx context.Context, t *testing.T, k kubernetes.Interface, ns, pod string) {
	t.Helper()
	want := "Marking for deletion Pod " + ns + "/" + pod
	labenv.Poll(ctx, t, 10*time.Second, "event TaintManagerEviction for "+pod, func(ctx context.Context) (bool, error) {
		evs, err := k.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=TaintManagerEviction,involvedObject.name=" + pod})
		if err != nil {
			return false, nil
		}
		for _, e := range evs.Items {
			if e.Message != want {
				continue
			}
			// Since 1.29 the taint eviction controller is a controller of
			// its own, apart from the node lifecycle controller.
			if e.Source.Component != "taint-eviction-controller" {
				return false, fmt.Errorf("event %q came from %q, not taint-eviction-controller", e.Message, e.Source.Component)
			}
			return true, nil
		}
		return false, nil
	})
}

// untaintedPoolNode returns a node of the chapter's pool with no taint, so
// that nothing but the test's own taint acts on its pods. With empty, the
// node must also run no pod, so that the test's taint acts on nobody else's
// (a learner's lab pods, say).
func untaintedPoolNode(ctx context.Context, t *testing.T, k kubernetes.Interface, empty bool) string {
	t.Helper()
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "opslab.dev/pool=taints"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if len(n.Spec.Taints) > 0 {
			continue
		}
		pods, err := k.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Name})
		if err != nil {
			t.Fatal(err)
		}
		if !empty || len(pods.Items) == 0 {
			return n.Name
		}
	}
	t.Fatalf("no node of pool taints is free of taints (and of pods: %v) among %d nodes: clean up the chapter 2 lab (kubectl delete namespace taints-lab; remove its taints) and run again", empty, len(nodes.Items))
	return ""
}
