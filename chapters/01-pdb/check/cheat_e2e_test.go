//go:build e2e

package check_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient/decoder"
	"sigs.k8s.io/e2e-framework/klient/k8s"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/chapters/01-pdb/check"
	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/version"
)

// The chapter's part of the cluster: its namespace and its nodes.
var (
	ns    = check.Namespace
	nodes = []string{"pdb-1", "pdb-2", check.DrainedNode}
)

// pass marks a check a cheat leaves passing, because the part of the lab it
// judges was done; any other phrase is one that the check's failure
// message must contain. A check a cheat does not name may pass or fail.
const pass = "PASS"

// A cheat is a way a learner reached the lab's final picture (five Ready
// ledger pods on pdb-1 and pdb-2 under a floor of 4, pdb-3 cordoned and
// empty) without the drain the lab teaches. Every one of them scored 10/10
// when the checks read only the final state.
type cheat struct {
	name string
	// do builds the cheat from four ledger pods Ready on pdb-3 under
	// minAvailable 3, pdb-3 not cordoned; onPdb3 false starts it from
	// nothing at all.
	do     func(t *testing.T, l *lab)
	onPdb3 bool
	want   map[string]string // check ID → pass, or a phrase of its failure
	// apiOnly is what the checks must say of the same cheat with no audit
	// log: the API's evidence alone.
	apiOnly map[string]string
}

// TestCheatsFail builds each cheat on the lab cluster, runs chapter 1's
// checks, and requires each named check to fail with a message that says
// what is missing. Each cheat starts from the chapter untouched and leaves
// it so. The pods become Ready 1 s after they start (the lab's own take
// 15 s): the checks judge the order of events, not their pace.
func TestCheatsFail(t *testing.T) {
	cheats := []cheat{
		{
			name: "deleted-the-budget-so-the-drain-finished-at-once-then-put-it-back", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.kubectl(t, "-n", ns, "delete", "pdb", "ledger")
				l.kubectl(t, "drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s")
				l.settled(t, 5, -1)
				l.budget(t, 4)
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": "after the drain of pdb-3 began",
				"pdb-eviction-allowed":       "the drain never waited at the floor",
				"pdb-node-drained":           pass,
				"pdb-ledger-placed":          "below the floor of 3: the drain did not wait for replacements",
			},
			apiOnly: map[string]string{
				"pdb-budget-protects-ledger": "after the drain of pdb-3 began",
				"pdb-ledger-placed":          "they were replaced all at once",
			},
		},
		{
			name: "relaxed-the-budget-for-the-drain-then-restored-it", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.kubectl(t, "-n", ns, "patch", "pdb", "ledger", "--type=merge", "-p", `{"spec":{"minAvailable":0}}`)
				l.budgetSettled(t, 0)
				l.kubectl(t, "drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s")
				l.settled(t, 5, -1)
				l.kubectl(t, "-n", ns, "patch", "pdb", "ledger", "--type=merge", "-p", `{"spec":{"minAvailable":4}}`)
				l.settled(t, 5, 4)
			},
			// With no floor the drain may still happen to leave three pods
			// Ready: the budget's own history shows the cheat.
			want: map[string]string{
				"pdb-budget-protects-ledger": "(kubectl) patched budget ledger at",
				"pdb-node-drained":           pass,
			},
			apiOnly: map[string]string{"pdb-budget-protects-ledger": "was changed by kubectl-patch at"},
		},
		{
			name: "scaled-ledger-to-zero-and-back", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 0)
				l.scale(t, 5)
				l.settled(t, 5, 3)
				l.budget(t, 4)
			},
			want: map[string]string{
				"pdb-eviction-allowed": "the drain never waited at the floor",
				"pdb-node-drained":     "deleted by system:serviceaccount:kube-system:replicaset-controller (kube-controller-manager), not evicted",
				"pdb-ledger-placed":    "below the floor of 3",
			},
			apiOnly: map[string]string{"pdb-ledger-placed": "they were replaced all at once"},
		},
		{
			name: "drained-with-disable-eviction", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.budget(t, 4)
				l.kubectl(t, "drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--disable-eviction", "--timeout=60s")
				l.settled(t, 5, 4)
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": pass,
				"pdb-eviction-allowed":       "the drain never waited at the floor",
				"pdb-node-drained":           "(kubectl), not evicted",
				"pdb-ledger-placed":          "below the floor of 3",
			},
			apiOnly: map[string]string{
				"pdb-node-drained":  "an eviction cannot be told from a delete without the API server's audit log",
				"pdb-ledger-placed": "they were replaced all at once",
			},
		},
		{
			name: "cordoned-pdb-3-with-five-replicas-and-never-drained",
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.apply(t, 5, 4)
				l.settled(t, 5, 4)
			},
			want: map[string]string{
				"pdb-budget-protects-ledger": "has not stood through a drain yet",
				"pdb-eviction-allowed":       "the drain never waited at the floor",
				"pdb-node-drained":           "the node was cordoned, not drained",
				"pdb-ledger-placed":          "there was no drain to keep to the floor",
			},
		},
		{
			name: "deleted-the-pods-one-by-one-waiting-for-each-replacement", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.budget(t, 4)
				for _, p := range l.podsOn(t, check.DrainedNode) {
					l.kubectl(t, "-n", ns, "delete", "pod", p, "--wait=false")
					l.settled(t, 5, 4)
				}
			},
			want: map[string]string{
				"pdb-eviction-allowed": "the drain never waited at the floor",
				"pdb-node-drained":     "(kubectl), not evicted: only the eviction API weighs a removal against the budget",
			},
		},
		{
			name: "deleted-the-pods-as-the-replicaset-controller", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.budget(t, 4)
				args := []string{"-n", ns, "delete", "pod", "--wait=false", "--as=system:serviceaccount:kube-system:replicaset-controller"}
				l.kubectl(t, append(args, l.podsOn(t, check.DrainedNode)...)...)
				l.settled(t, 5, 4)
			},
			want: map[string]string{
				"pdb-node-drained":  "as system:serviceaccount:kube-system:replicaset-controller (kubectl), not evicted",
				"pdb-ledger-placed": "below the floor of 3",
			},
		},
		{
			name: "evicted-with-dry-runs-then-deleted-the-pods", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.budget(t, 4)
				// Every eviction is allowed as a dry run (none is spent), and
				// none removes a pod.
				l.kubectl(t, "drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--dry-run=server")
				args := []string{"-n", ns, "delete", "pod", "--wait=false"}
				l.kubectl(t, append(args, l.podsOn(t, check.DrainedNode)...)...)
				l.settled(t, 5, 4)
			},
			// 1.4 is not named: whether ledger falls below its floor here
			// depends on how soon the fake node finishes the deletes
			// against how soon the replacements turn Ready (a run of the
			// lab's earlier three-pod version saw 3, 2 and 2 Ready after
			// its three deletes, at its floor of 2, so 1.4 rightly
			// passed). 1.3, which reads who removed the pods, fails every
			// time.
			want: map[string]string{
				"pdb-node-drained": "(kubectl), not evicted",
			},
		},
		{
			// The admin's own client, claiming kwok's user agent: a dry run
			// named only in the eviction's body (the URI the log keeps says
			// nothing of it), then the real deletes in kwok's agent, as if
			// the node were finishing evictions. kwok has a user of its own,
			// so the deletes are the learner's.
			name: "dry-run-evictions-in-the-body-then-deletes-in-kwoks-agent", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.scale(t, 5)
				l.budget(t, 4)
				ctx := context.Background()
				forged := l.claiming(t, "kwok-controller/"+version.Kwok+" (linux/amd64) kubernetes/$Format")
				for _, p := range l.podsOn(t, check.DrainedNode) {
					ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: ns}, DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
					if err := forged.PolicyV1().Evictions(ns).Evict(ctx, ev); err != nil && !apierrors.IsTooManyRequests(err) {
						t.Fatalf("dry-run eviction of %s: %v", p, err)
					}
					if err := forged.CoreV1().Pods(ns).Delete(ctx, p, metav1.DeleteOptions{}); err != nil {
						t.Fatalf("delete %s in kwok's agent: %v", p, err)
					}
					l.settled(t, 5, 4)
				}
			},
			want: map[string]string{
				"pdb-node-drained": "claims to be kwok-controller",
			},
		},
		{
			// The budget refuses every eviction at the floor; the pods are
			// then relabelled out of its selector (the replicaset controller
			// lets them go and makes replacements) and drained with --force,
			// which evicts them at once: no budget selects them any more. A
			// pod that leaves the budget's selector has left its protection,
			// when its labels changed, whatever removes it afterwards.
			name: "relabelled-the-pods-out-of-the-budget-then-drained-with-force", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.budget(t, 4)
				l.stall(t)
				args := append([]string{"-n", ns, "label", "pod", "--overwrite"}, l.podsOn(t, check.DrainedNode)...)
				l.kubectl(t, append(args, "app=ledger-old")...)
				l.settled(t, 4, 4)
				l.scale(t, 5)
				l.kubectl(t, "drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=60s")
				l.settled(t, 5, 4)
			},
			want: map[string]string{
				"pdb-eviction-allowed": "no refused pod was evicted later",
				"pdb-node-drained":     "taken out of the budget's selector by kwok-admin (kubectl), not evicted",
				"pdb-ledger-placed":    "below the floor of 3",
			},
		},
		{
			// A real delete, with the pod held Terminating by the power-off
			// mark that keeps kwok from finishing it; then an eviction with
			// the dry run named only in its body, which the server allows
			// for a pod already going (and does not store); then the mark
			// removed, so that kwok finishes the pod. The delete removed it,
			// not the dry run that came after.
			name: "deleted-the-pods-then-dry-run-evicted-them-in-the-body", onPdb3: true,
			do: func(t *testing.T, l *lab) {
				l.kubectl(t, "cordon", check.DrainedNode)
				l.budget(t, 4)
				l.stall(t)
				l.scale(t, 5)
				ctx := context.Background()
				for _, p := range l.podsOn(t, check.DrainedNode) {
					l.kubectl(t, "-n", ns, "label", "pod", p, "opslab.dev/power=off")
					l.kubectl(t, "-n", ns, "delete", "pod", p, "--wait=false")
					ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: ns}, DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
					if err := l.k.PolicyV1().Evictions(ns).Evict(ctx, ev); err != nil {
						t.Fatalf("dry-run eviction of %s, being deleted: %v", p, err)
					}
					l.kubectl(t, "-n", ns, "label", "pod", p, "opslab.dev/power-")
					l.settled(t, 5, 4)
				}
			},
			want: map[string]string{
				"pdb-node-drained": "(kubectl), not evicted",
			},
		},
	}

	ctx := context.Background()
	c, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c.AuditPath == "" {
		t.Fatalf("the cheats are judged from the API server's audit log, and there is none: %s", c.NoAudit)
	}
	l := &lab{k: c.Kube, cfg: c.Config}
	for _, ch := range cheats {
		t.Run(ch.name, func(t *testing.T) {
			l.begin(t)
			if ch.onPdb3 {
				l.onPdb3(t)
			}
			ch.do(t, l)
			expect(t, c, ch.want)
			if ch.apiOnly != nil {
				noLog := &labcheck.Cluster{Config: c.Config, Kube: c.Kube, Context: c.Context, NoAudit: "left out by the test"}
				expect(t, noLog, ch.apiOnly)
			}
		})
	}
}

// expect runs the checks that want names and compares their outcome.
func expect(t *testing.T, c *labcheck.Cluster, want map[string]string) {
	t.Helper()
	for id, phrase := range want {
		chk, ok := chapters.Course.Lookup(id)
		if !ok {
			t.Fatalf("no check %s in the course", id)
		}
		res, err := chk.Run(context.Background(), c)
		if err != nil {
			t.Errorf("%s could not look: %v", id, err)
			continue
		}
		switch {
		case phrase == pass && !res.Pass:
			t.Errorf("%s failed: %s\n\t%s", id, res.Message, strings.Join(res.Evidence, "\n\t"))
		case phrase != pass && res.Pass:
			t.Errorf("%s passed on the cheat: %s\n\t%s", id, res.Message, strings.Join(res.Evidence, "\n\t"))
		case phrase != pass && !strings.Contains(res.Message, phrase):
			t.Errorf("%s failed with %q, want a message with %q\n\t%s", id, res.Message, phrase, strings.Join(res.Evidence, "\n\t"))
		default:
			t.Logf("%s: %v: %s", id, res.Pass, res.Message)
		}
	}
}

// A lab is the chapter's part of the cluster, as a cheat uses it.
type lab struct {
	k   kubernetes.Interface
	cfg *rest.Config
}

// claiming is a client with the admin's credentials that sends agent as its
// user agent, as curl -A would.
func (l *lab) claiming(t *testing.T, agent string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(l.cfg)
	c.UserAgent = agent
	k, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// stall drains pdb-3 at the floor, as step 4 of the lab does: every
// eviction is refused with 429 until the drain gives up.
func (l *lab) stall(t *testing.T) {
	t.Helper()
	args := []string{"--kubeconfig", labenv.Kubeconfig(), "--context", labenv.Context(),
		"drain", check.DrainedNode, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=8s"}
	if out, err := exec.Command("kubectl", args...).CombinedOutput(); err == nil {
		t.Fatalf("the drain of %s at the floor finished; it should have stalled\n%s", check.DrainedNode, out)
	}
}

func (l *lab) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{"--kubeconfig", labenv.Kubeconfig(), "--context", labenv.Context()}, args...)
	out, err := exec.Command("kubectl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args[4:], " "), err, out)
	}
	return string(out)
}

// begin requires the chapter untouched (no namespace pdb-lab, the pool's
// nodes schedulable) and puts it back so when the cheat ends.
func (l *lab) begin(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, err := l.k.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s exists (%v): the cheats start from chapter 1 untouched", ns, err)
	}
	for _, n := range nodes {
		node, err := l.k.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if node.Spec.Unschedulable {
			t.Fatalf("node %s is cordoned: the cheats start from chapter 1 untouched", n)
		}
	}
	t.Cleanup(func() { l.reset(t) })
}

// reset removes the lab's namespace and uncordons its nodes. The pods go
// first, at once, so that the namespace controller finds it empty and
// does not wait out their grace period.
func (l *lab) reset(t *testing.T) {
	ctx := context.Background()
	now := int64(0)
	l.k.AppsV1().Deployments(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	l.k.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	labenv.Poll(ctx, t, 60*time.Second, "the ledger pods gone", func(ctx context.Context) (bool, error) {
		l.k.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &now}, metav1.ListOptions{})
		pods, err := l.k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, nil
	})
	if err := l.k.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete namespace %s: %v", ns, err)
	}
	labenv.Poll(ctx, t, 60*time.Second, "namespace "+ns+" gone", func(ctx context.Context) (bool, error) {
		_, err := l.k.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	for _, n := range nodes {
		if _, err := l.k.CoreV1().Nodes().Patch(ctx, n, types.MergePatchType, []byte(`{"spec":{"unschedulable":null}}`), metav1.PatchOptions{}); err != nil {
			t.Errorf("uncordon %s: %v", n, err)
		}
	}
	labenv.Poll(ctx, t, 30*time.Second, "the pool's nodes without the unschedulable taint", func(ctx context.Context) (bool, error) {
		for _, n := range nodes {
			node, err := l.k.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			for _, tn := range node.Spec.Taints {
				if tn.Key == corev1.TaintNodeUnschedulable {
					return false, nil
				}
			}
		}
		return true, nil
	})
}

// manifests are the lab's own: the namespace, ledger and its budget as the
// README has the learner apply them.
var manifests = os.DirFS(filepath.Join("..", "lab"))

// decode reads one of the lab's manifests into obj.
func decode(t *testing.T, name string, obj k8s.Object) {
	t.Helper()
	if err := decoder.DecodeFile(manifests, name, obj); err != nil {
		t.Fatalf("lab/%s: %v", name, err)
	}
}

// apply makes the namespace, ledger and its budget from lab/*.yaml, with the
// replicas and floor given and pods that are Ready 1 s after they start.
func (l *lab) apply(t *testing.T, replicas int32, minAvailable int) {
	t.Helper()
	ctx := context.Background()
	var namespace corev1.Namespace
	decode(t, "namespace.yaml", &namespace)
	if _, err := l.k.CoreV1().Namespaces().Create(ctx, &namespace, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var ledger appsv1.Deployment
	decode(t, "ledger.yaml", &ledger)
	ledger.Spec.Replicas = &replicas
	ledger.Spec.Template.Annotations["opslab.dev/ready-after"] = "1s"
	if _, err := l.k.AppsV1().Deployments(ns).Create(ctx, &ledger, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l.budget(t, minAvailable)
}

// budget makes the budget ledger of lab/budget.yaml with the floor given, or
// sets its floor if it exists.
func (l *lab) budget(t *testing.T, minAvailable int) {
	t.Helper()
	ctx := context.Background()
	var b policyv1.PodDisruptionBudget
	decode(t, "budget.yaml", &b)
	v := intstr.FromInt32(int32(minAvailable))
	b.Spec.MinAvailable = &v
	if _, err := l.k.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &b, metav1.CreateOptions{}); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		l.kubectl(t, "-n", ns, "patch", "pdb", "ledger", "--type=merge", "-p", fmt.Sprintf(`{"spec":{"minAvailable":%d}}`, minAvailable))
	}
	l.budgetSettled(t, minAvailable)
}

// budgetSettled waits until the disruption controller has counted the
// budget's current floor over the Ready pods.
func (l *lab) budgetSettled(t *testing.T, minAvailable int) {
	t.Helper()
	labenv.Poll(context.Background(), t, 30*time.Second, fmt.Sprintf("budget ledger counted with minAvailable %d", minAvailable), func(ctx context.Context) (bool, error) {
		b, err := l.k.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "ledger", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		pods, err := l.ready(ctx)
		s := b.Status
		return err == nil && s.ObservedGeneration == b.Generation && s.DesiredHealthy == int32(minAvailable) &&
			s.CurrentHealthy == int32(len(pods)), nil
	})
}

func (l *lab) scale(t *testing.T, replicas int) {
	t.Helper()
	l.kubectl(t, "-n", ns, "scale", "deployment", check.App, fmt.Sprintf("--replicas=%d", replicas))
	l.settled(t, replicas, -1)
}

// onPdb3 starts ledger as step 3 of the lab leaves it: four pods Ready on
// pdb-3 under minAvailable 3, every node schedulable. pdb-1 and pdb-2 are
// cordoned while the pods are placed.
func (l *lab) onPdb3(t *testing.T) {
	t.Helper()
	l.kubectl(t, "cordon", "pdb-1", "pdb-2")
	l.apply(t, 4, 3)
	l.settled(t, 4, 3)
	if on := l.podsOn(t, check.DrainedNode); len(on) != 4 {
		t.Fatalf("ledger pods on %s: %v, want all four", check.DrainedNode, on)
	}
	l.kubectl(t, "uncordon", "pdb-1", "pdb-2")
}

// settled waits until ledger has exactly n pods, each Ready and none being
// deleted, and, when minAvailable is 0 or more, its budget counts them
// under that floor.
func (l *lab) settled(t *testing.T, n, minAvailable int) {
	t.Helper()
	labenv.Poll(context.Background(), t, 60*time.Second, fmt.Sprintf("%d ledger pods Ready", n), func(ctx context.Context) (bool, error) {
		all, err := l.k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + check.App})
		if err != nil {
			return false, nil
		}
		ready, err := l.ready(ctx)
		return err == nil && len(all.Items) == n && len(ready) == n, nil
	})
	if minAvailable >= 0 {
		l.budgetSettled(t, minAvailable)
	}
}

// ready returns the ledger pods that are Ready and not being deleted.
func (l *lab) ready(ctx context.Context) ([]corev1.Pod, error) {
	all, err := l.k.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + check.App})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range all.Items {
		for _, c := range p.Status.Conditions {
			if p.DeletionTimestamp == nil && c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func (l *lab) podsOn(t *testing.T, node string) []string {
	t.Helper()
	pods, err := l.k.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name)
	}
	return out
}
