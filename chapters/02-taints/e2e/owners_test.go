//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/lab/labenv"
)

// TestTerminatingPodReplacedByReplicaSetOnly shows the two owners of the
// chapter's incidents on the real controllers. The pods carry the lab
// cluster's label opslab.dev/power=off, so kwok, like a dead kubelet, never
// finishes their deletion: a deleted pod stays Terminating. The ReplicaSet
// replaces it at once; the StatefulSet does not, until the old object is
// gone (here by a forced deletion, as the out-of-service taint does).
func TestTerminatingPodReplacedByReplicaSetOnly(t *testing.T) {
	f := features.New("who replaces a Terminating pod").
		Assess("a ReplicaSet replaces a Terminating pod at once, a StatefulSet only once the old object is gone", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			k, err := kubernetes.NewForConfig(cfg.Client().RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			node := untaintedPoolNode(ctx, t, k, false)
			ns := labenv.TestNamespace(ctx, t, cfg.Client().RESTConfig(), "taints-e2e-owners")
			one := int32(1)
			template := func(app string) corev1.PodTemplateSpec {
				return corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app, "opslab.dev/power": "off"}},
					Spec: corev1.PodSpec{
						NodeSelector: map[string]string{"kubernetes.io/hostname": node},
						Containers:   []corev1.Container{{Name: "app", Image: "registry.example/app:1"}},
					},
				}
			}
			sel := func(app string) *metav1.LabelSelector {
				return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
			}
			if _, err := k.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: "cache"},
				Spec:       appsv1.ReplicaSetSpec{Replicas: &one, Selector: sel("cache"), Template: template("cache")},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := k.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "db"},
				Spec:       appsv1.StatefulSetSpec{Replicas: &one, Selector: sel("db"), Template: template("db"), ServiceName: "db"},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			// Nothing finishes these pods' deletion: force them out at the
			// end, after their owners, or the namespace never goes.
			t.Cleanup(func() {
				bg := context.Background()
				k.AppsV1().ReplicaSets(ns).Delete(bg, "cache", metav1.DeleteOptions{})
				k.AppsV1().StatefulSets(ns).Delete(bg, "db", metav1.DeleteOptions{})
				forceDeleteAll(bg, k, ns)
			})

			pods := func(ctx context.Context, app string) []corev1.Pod {
				list, err := k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
				if err != nil {
					return nil
				}
				return list.Items
			}
			var cache0, db0 corev1.Pod
			labenv.Poll(ctx, t, 60*time.Second, "cache and db-0 running on "+node, func(ctx context.Context) (bool, error) {
				c, d := pods(ctx, "cache"), pods(ctx, "db")
				if len(c) != 1 || len(d) != 1 || c[0].Spec.NodeName == "" || d[0].Spec.NodeName == "" {
					return false, nil
				}
				cache0, db0 = c[0], d[0]
				return true, nil
			})
			for _, p := range []corev1.Pod{cache0, db0} {
				if err := k.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			deleted := time.Now()

			// The ReplicaSet does not count a Terminating pod: a new one.
			labenv.Poll(ctx, t, 30*time.Second, "a replacement for "+cache0.Name+" while it is Terminating", func(ctx context.Context) (bool, error) {
				var old, replacement bool
				for _, p := range pods(ctx, "cache") {
					switch {
					case p.UID == cache0.UID && p.DeletionTimestamp != nil:
						old = true
					case p.UID != cache0.UID && p.DeletionTimestamp == nil:
						replacement = true
					}
				}
				return old && replacement, nil
			})
			t.Logf("ReplicaSet: a replacement %v after the deletion, the old pod still Terminating", time.Since(deleted).Round(100*time.Millisecond))
			if !taints.Replaces(taints.ReplicaSet, taints.OldPod{Exists: true, Terminating: true}) {
				t.Error("the model's Replaces(ReplicaSet, Terminating) says no replacement; the cluster made one")
			}

			// The StatefulSet waits: db-0 stays the old, Terminating db-0.
			time.Sleep(10 * time.Second)
			for _, p := range pods(ctx, "db") {
				if p.UID != db0.UID {
					t.Fatalf("StatefulSet: pod %s (uid %s) exists while the old db-0 is Terminating; want none", p.Name, p.UID)
				}
				if p.DeletionTimestamp == nil {
					t.Fatalf("StatefulSet: the old db-0 is not Terminating")
				}
			}
			t.Logf("StatefulSet: 10 s after the deletion, only the old db-0, Terminating")
			if taints.Replaces(taints.StatefulSet, taints.OldPod{Exists: true, Terminating: true}) {
				t.Error("the model's Replaces(StatefulSet, Terminating) says a replacement; the cluster made none")
			}

			// Once the old object is gone, db-0 comes back.
			zero := int64(0)
			if err := k.CoreV1().Pods(ns).Delete(ctx, db0.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
			gone := time.Now()
			labenv.Poll(ctx, t, 30*time.Second, "a new db-0 after the old one is gone", func(ctx context.Context) (bool, error) {
				for _, p := range pods(ctx, "db") {
					if p.UID != db0.UID && p.Name == "db-0" {
						return true, nil
					}
				}
				return false, nil
			})
			t.Logf("StatefulSet: a new db-0 %v after the old object was removed", time.Since(gone).Round(100*time.Millisecond))
			return ctx
		}).Feature()
	testenv.Test(t, f)
}

// forceDeleteAll removes every pod of a namespace without waiting for a
// kubelet, until none is left (an owner may still be making one).
func forceDeleteAll(ctx context.Context, k kubernetes.Interface, ns string) {
	zero := int64(0)
	labenv.WaitUntil(ctx, 20*time.Second, func(ctx context.Context) (bool, error) {
		list, err := k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, p := range list.Items {
			k.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}
		return len(list.Items) == 0, nil
	})
}
