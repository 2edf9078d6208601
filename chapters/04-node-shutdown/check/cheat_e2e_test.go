//go:build e2e

package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/version"
)

// The cheat tests build on the lab cluster, in namespace shutdown-lab on the
// shutdown pool, what a learner who wants the points without the behaviour
// could build: the out-of-service taint on a node that still runs, a
// Scheduled event written by hand, db-0 force-deleted by hand, as the pod
// GC's account with --as, or with that account's own token, the taint
// before db-0 was stuck, and db-0 restarted afterwards to blur the trail.
// Each check must fail and say what is missing, with the audit log and,
// where the API alone can tell, without it. Each scenario applies
// lab/db.yaml afresh (the checks read what happened since the namespace was
// made) and leaves the chapter as it found it: no namespace, every node of
// the pool on and without taints.

// The checks of the unplanned shutdown.
var unplanned = []string{"shutdown-db-moved", "shutdown-taint-after-off", "shutdown-podgc-deleted"}

const noLogMessage = "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"

// A cheat builds a state and says what each check must answer. In the
// phrases {db} is the node db-0 first ran on and {other} the pool's other
// node; every phrase of a check must be in its message.
type cheat struct {
	name, reason string
	build        func(h *hand)
	want, noLog  map[string][]string
	// restart: db-0 is then restarted, and every check must still answer
	// the same, naming the same node.
	restart bool
	// racesPodGC: the cheat deletes db-0 itself once the node is tainted,
	// racing the pod GC's 20 s cycle; when the pod GC is first the scenario
	// has nothing to judge and is run again.
	racesPodGC bool
}

var cheats = []cheat{
	{name: "out-of-service taint on a Ready node", reason: "the taint eviction controller moves db-0 off a node that never lost power",
		build: func(h *hand) {
			h.taint(h.db)
			h.waitRunning(h.db)
		},
		restart: true,
		want: map[string][]string{
			"shutdown-db-moved":        {"{db} carries the out-of-service taint but is Ready"},
			"shutdown-taint-after-off": {"{db} carries the out-of-service taint but is Ready"},
			"shutdown-podgc-deleted":   {"{db} carries the out-of-service taint but is Ready"},
		},
		noLog: map[string][]string{
			"shutdown-db-moved":        {"{db} carries the out-of-service taint but is Ready"},
			"shutdown-taint-after-off": {"{db} carries the out-of-service taint but is Ready"},
			"shutdown-podgc-deleted":   {noLogMessage},
		}},
	{name: "hand-made Scheduled event", reason: "db-0 never ran on the node that was powered off; an event written by hand says it did",
		build: func(h *hand) {
			h.power("off", h.other)
			h.waitMarked(h.other)
			h.taint(h.other)
			first := h.uid
			h.kubectl("", "-n", Namespace, "delete", "pod", Pod)
			h.waitRunning(h.other)
			// The event names the first db-0 by its real UID, as a learner
			// who read it off kubectl get pod -o yaml would.
			now := time.Now().UTC().Format(time.RFC3339)
			h.kubectl(fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: db-0.handmade, namespace: %s}
involvedObject: {kind: Pod, namespace: %s, name: %s, uid: %s}
reason: Scheduled
message: Successfully assigned %s/%s to %s
source: {component: default-scheduler}
type: Normal
firstTimestamp: %q
lastTimestamp: %q
count: 1
`, Namespace, Namespace, Pod, first, Namespace, Pod, h.other, now, now), "create", "-f", "-")
		},
		want: map[string][]string{
			"shutdown-db-moved":        {"ran on {db}, not on the powered-off {other}"},
			"shutdown-taint-after-off": {"ran on {db}, not on the powered-off {other}"},
			"shutdown-podgc-deleted":   {"{db} finished deleting db-0", "the pod GC had nothing to remove"},
		},
		noLog: map[string][]string{
			"shutdown-db-moved":        {"nothing shows a db-0 marked for deletion after {other} went NotReady"},
			"shutdown-taint-after-off": {"nothing shows db-0 Terminating on {other} before the taint"},
			"shutdown-podgc-deleted":   {noLogMessage},
		}},
	{name: "force delete", reason: "kubectl delete --force --grace-period=0 right after the taint, before the pod GC's next run",
		build:   func(h *hand) { h.stuckThen(h.forceDelete("")) },
		restart: true, racesPodGC: true,
		want: map[string][]string{
			"shutdown-podgc-deleted": {"on {db} was removed at", "by kwok-admin (kubectl), not by the pod GC"},
		},
		noLog: map[string][]string{"shutdown-podgc-deleted": {noLogMessage}}},
	{name: "force delete as the pod GC", reason: "kubectl --as the pod GC's service account is recorded as an impersonation",
		build: func(h *hand) {
			h.stuckThen(h.forceDelete("--as=system:serviceaccount:kube-system:pod-garbage-collector"))
		},
		racesPodGC: true,
		want: map[string][]string{
			"shutdown-podgc-deleted": {"on {db} was force-deleted", "acting as the pod GC's account is not the pod GC"},
		}},
	{name: "force delete with the pod GC's token", reason: "the service account's own token, made with kubectl create token and used from kubectl, is not the controller manager",
		build:      func(h *hand) { h.stuckThen(h.forceDeleteWithToken) },
		racesPodGC: true,
		want: map[string][]string{
			"shutdown-podgc-deleted": {"on {db} was force-deleted", "with the pod GC's token from"},
		}},
	{name: "the pod GC's token minted in the controller manager's agent", reason: "the admin's client that claims to be kube-controller-manager is the learner: the token is borrowed, and the delete made with it is not the pod GC's",
		build:      func(h *hand) { h.stuckThen(h.forceDeleteWithForgedToken) },
		racesPodGC: true,
		want: map[string][]string{
			"shutdown-podgc-deleted": {"on {db} was force-deleted", "with the pod GC's token from", "borrowed"},
		}},
	{name: "taint right after the power-off", reason: "db-0 was not stuck yet: the taint itself had it deleted",
		build: func(h *hand) {
			h.power("off", h.db)
			h.waitMarked(h.db)
			h.taint(h.db)
			h.waitTerminating()
		},
		want: map[string][]string{
			"shutdown-taint-after-off": {"after the out-of-service taint at", "the taint is for a pod already stuck Terminating"},
		}},
}

func TestCheatsFailChapter4(t *testing.T) {
	ctx := context.Background()
	withLog, noLog := connect(ctx, t)
	requireUntouched(ctx, t, withLog.Kube)
	start := time.Now()
	for _, c := range cheats {
		t.Run(c.name, func(t *testing.T) {
			for attempt := 1; ; attempt++ {
				h := begin(ctx, t, withLog.Kube)
				c.build(h)
				if c.racesPodGC && h.podGCWasFirst(withLog) && attempt < 3 {
					t.Logf("attempt %d: the pod GC removed db-0 before the cheat did; again", attempt)
					h.cleanup()
					continue
				}
				h.expect(withLog, noLog, c.want, c.noLog, c.reason)
				if c.restart {
					h.restart()
					h.expect(withLog, noLog, c.want, c.noLog, c.reason+", then db-0 restarted")
				}
				h.cleanup()
				return
			}
		})
	}
	t.Logf("cheats took %v", time.Since(start).Round(time.Second))
}

// TestChecksFollowThePoweredOffNode runs the reference solution's steps, then
// restarts db-0 twice: every check passes, before and after, and names the
// node that was powered off.
func TestChecksFollowThePoweredOffNode(t *testing.T) {
	ctx := context.Background()
	withLog, noLog := connect(ctx, t)
	requireUntouched(ctx, t, withLog.Kube)
	h := begin(ctx, t, withLog.Kube)
	h.power("off", h.db)
	// The taint eviction controller marks db-0 5 s after the node lifecycle
	// controller's NoExecute taint, which its rate limiter may delay.
	labenv.Poll(ctx, t, 150*time.Second, "db-0 Terminating", func(ctx context.Context) (bool, error) {
		p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, nil
	})
	h.taint(h.db)
	h.waitRunning(h.db)
	// Without the log the taint eviction controller's event is the only
	// record of the marking; client-go's spam filter stops writing it after
	// 25 for one pod name (then one per 5 minutes), which many runs on one
	// cluster reach.
	events, err := h.k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	judgeNoLog := false
	for _, ev := range events.Items {
		judgeNoLog = judgeNoLog || markedForDeletion(ev, time.Time{})
	}
	if !judgeNoLog {
		t.Log("no event of the taint eviction controller (rate-limited on this cluster): the verdicts without the log are not asserted")
	}
	for round := range 3 {
		if round > 0 {
			h.restart()
		}
		for _, id := range unplanned {
			chk, _ := lookup(id)
			for _, c := range []*labcheck.Cluster{withLog, noLog} {
				if c == noLog && (id == "shutdown-podgc-deleted" || !judgeNoLog) {
					continue
				}
				res, err := chk.Run(ctx, c)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				if !res.Pass || !strings.Contains(res.Message, h.db) {
					t.Errorf("after %d restarts, %s (%s) = pass %v, %q; want a pass that names %s\n  %s", round, id, c.EvidenceSource(), res.Pass, res.Message, h.db, strings.Join(res.Evidence, "\n  "))
				}
			}
		}
	}
	h.cleanup()
}

// connect returns the lab cluster twice: with its audit log, and as a
// grader without the log would see it.
func connect(ctx context.Context, t *testing.T) (withLog, noLog *labcheck.Cluster) {
	t.Helper()
	withLog, err := labcheck.Connect(ctx, labenv.Kubeconfig(), labenv.Context(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if withLog.Audit() == nil {
		t.Fatalf("the lab cluster keeps no audit log here (%s): the cheat tests need it", withLog.NoAudit)
	}
	noLog, err = labcheck.NewCluster(withLog.Config)
	if err != nil {
		t.Fatal(err)
	}
	noLog.NoAudit = "the test hides it"
	return withLog, noLog
}

// requireUntouched stops the test when the chapter is in use: a lab in
// progress, or a node of the pool off or tainted.
func requireUntouched(ctx context.Context, t *testing.T, k kubernetes.Interface) {
	t.Helper()
	if _, err := k.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s exists (err %v): run chapters/04-node-shutdown/lab/reset.sh first", Namespace, err)
	}
	// A node powered back on by the test before keeps the node lifecycle
	// controller's not-ready taint until the controller's next pass, up to
	// 25 s later: wait for it, as for anything else a minute settles.
	var busy *corev1.Node
	wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		nodes := poolNodes(ctx, t, k)
		if len(nodes) < 2 {
			t.Fatalf("the shutdown pool has %d nodes, want 2", len(nodes))
		}
		busy = nil
		for _, n := range nodes {
			if !idle(&n) {
				busy = &n
				return false, nil
			}
		}
		return true, nil
	})
	if n := busy; n != nil {
		t.Fatalf("node %s is in use (power %q, taints %v, Ready %v): run chapters/04-node-shutdown/lab/reset.sh first", n.Name, n.Labels["opslab.dev/power"], n.Spec.Taints, nodeReady(n))
	}
}

func poolNodes(ctx context.Context, t *testing.T, k kubernetes.Interface) []corev1.Node {
	t.Helper()
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "opslab.dev/pool=" + Pool})
	if err != nil {
		t.Fatal(err)
	}
	return nodes.Items
}

// idle reports whether a node is as lab-up left it: on, Ready, untainted.
func idle(n *corev1.Node) bool {
	return n.Labels["opslab.dev/power"] == "" && len(n.Spec.Taints) == 0 && nodeReady(n)
}

// A hand does what a learner does, with the course's kubectl and scripts.
type hand struct {
	t         *testing.T
	ctx       context.Context
	k         kubernetes.Interface
	db, other string // where db-0 first ran; the pool's other node
	uid       string // the db-0 running now
}

// begin applies lab/db.yaml and waits for db-0 to run.
func begin(ctx context.Context, t *testing.T, k kubernetes.Interface) *hand {
	h := &hand{t: t, ctx: ctx, k: k}
	t.Cleanup(h.cleanup)
	h.kubectl("", "apply", "-f", "../lab/db.yaml")
	h.waitRunning("")
	for _, n := range poolNodes(ctx, t, k) {
		if n.Name != h.db {
			h.other = n.Name
		}
	}
	return h
}

// kubectl runs the course's kubectl on the test's cluster with stdin, and
// returns its output; a failure ends the test.
func (h *hand) kubectl(stdin string, args ...string) string {
	h.t.Helper()
	return h.kubectlWith(labenv.Kubeconfig(), labenv.Context(), stdin, args...)
}

func (h *hand) kubectlWith(kubeconfig, context, stdin string, args ...string) string {
	h.t.Helper()
	script := `. ../../../lab/scripts/versions.sh && exec "$LAB_BIN/kubectl" --kubeconfig "$0" --context "$1" "${@:2}"`
	cmd := exec.Command("bash", append([]string{"-c", script, kubeconfig, context}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// power runs the lab's power switch, as the admin the tests run as.
func (h *hand) power(action, node string) {
	h.t.Helper()
	cmd := exec.Command("bash", "../../../lab/scripts/power.sh", action, node)
	cmd.Env = append(os.Environ(), "OPSLAB_CONTEXT="+labenv.Context(), "OPSLAB_ADMIN_CONTEXT="+labenv.Context(), "KUBECONFIG="+labenv.Kubeconfig())
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("power.sh %s %s: %v\n%s", action, node, err, out)
	}
}

func (h *hand) taint(node string) {
	h.t.Helper()
	h.kubectl("", "taint", "node", node, OutOfService+"=nodeshutdown:NoExecute")
}

// waitMarked waits until the node is NotReady and the node lifecycle
// controller has tainted it not-ready, both NoSchedule and NoExecute. It
// writes the two apart (the first when it sees the node change, the second
// on its next tainting pass), and a write of its after a hand-made taint
// takes the node's taints into its own managedFields: without the audit
// log, the hand-made taint's time is then lost, and the check fails for
// that reason rather than the one a case wants.
func (h *hand) waitMarked(node string) {
	h.t.Helper()
	labenv.Poll(h.ctx, h.t, 30*time.Second, node+" marked not-ready by the node lifecycle controller", func(ctx context.Context) (bool, error) {
		n, err := h.k.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil || nodeReady(n) {
			return false, nil
		}
		var noSchedule, noExecute bool
		for _, tn := range n.Spec.Taints {
			if tn.Key != corev1.TaintNodeNotReady {
				continue
			}
			noSchedule = noSchedule || tn.Effect == corev1.TaintEffectNoSchedule
			noExecute = noExecute || (tn.Effect == corev1.TaintEffectNoExecute && tn.TimeAdded != nil)
		}
		return noSchedule && noExecute, nil
	})
}

// waitRunning waits for a db-0 other than the last one seen to be Running
// and Ready on a node other than avoid, and notes where.
func (h *hand) waitRunning(avoid string) {
	h.t.Helper()
	remade := false
	err := labenv.WaitUntil(h.ctx, time.Minute, func(ctx context.Context) (bool, error) {
		p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{})
		if err == nil && h.uid == "" && !remade && markedNotReady(p, func() []corev1.Node { return poolNodes(ctx, h.t, h.k) }) {
			// A case's first db-0, before the case does anything: the
			// node lifecycle controller marked it not ready (event
			// NodeNotReady) as the node came back from the case before,
			// and kwok, unlike a kubelet, never posts its readiness again.
			// It is made once more, and the test says so.
			remade = true
			h.t.Logf("db-0 (uid %s) runs on a Ready node but was marked not ready %v ago and kwok posts no readiness again: deleting it once for the StatefulSet to make it again", p.UID, time.Since(readySince(p)).Round(time.Second))
			return false, h.k.CoreV1().Pods(Namespace).Delete(ctx, Pod, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
		}
		if err != nil || string(p.UID) == h.uid || p.DeletionTimestamp != nil || p.Spec.NodeName == "" || p.Spec.NodeName == avoid || !podReady(p) {
			return false, nil
		}
		h.uid = string(p.UID)
		if h.db == "" {
			h.db = p.Spec.NodeName
		}
		return true, nil
	})
	if err != nil {
		h.t.Fatalf("a new db-0 Running and Ready off %q: not within a minute (%v); then: %s", avoid, err, h.podState())
	}
}

// markedNotReady reports whether pod p runs, not deleting, on one of the
// pool's nodes that is idle, yet has been not Ready for ten seconds: what
// the node lifecycle controller's MarkPodsNotReady leaves on a kwok node
// that came back, where a kubelet would report the pod ready again. The
// nodes are listed only for a pod in that state.
func markedNotReady(p *corev1.Pod, pool func() []corev1.Node) bool {
	since := readySince(p)
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || podReady(p) || since.IsZero() || time.Since(since) < 10*time.Second {
		return false
	}
	for _, n := range pool() {
		if n.Name == p.Spec.NodeName {
			return idle(&n)
		}
	}
	return false
}

// readySince is when pod p's Ready condition last changed (zero without one).
func readySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// podState says where db-0 and the pool's nodes stand, for a wait that
// ran out: the pod's phase, node, deletion and conditions, its events, and
// each node's Ready condition and taints.
func (h *hand) podState() string {
	ctx := context.Background()
	var b strings.Builder
	if p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{}); err != nil {
		fmt.Fprintf(&b, "db-0: %v", err)
	} else {
		fmt.Fprintf(&b, "db-0 uid %s phase %s on %q, deleting %v, conditions %v", p.UID, p.Status.Phase, p.Spec.NodeName, p.DeletionTimestamp != nil, p.Status.Conditions)
	}
	if evs, err := h.k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, e := range evs.Items {
			fmt.Fprintf(&b, "; event %s %s/%s: %s", e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message)
		}
	}
	for _, n := range poolNodes(ctx, h.t, h.k) {
		fmt.Fprintf(&b, "; node %s ready %v power %q taints %v", n.Name, nodeReady(&n), n.Labels["opslab.dev/power"], n.Spec.Taints)
	}
	return b.String()
}

func (h *hand) waitTerminating() {
	h.t.Helper()
	labenv.Poll(h.ctx, h.t, 30*time.Second, "db-0 Terminating", func(ctx context.Context) (bool, error) {
		p, err := h.k.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, nil
	})
}

// stuckThen powers db-0's node off, has db-0 marked for deletion (kubectl
// delete, which a node without power never finishes: quicker than waiting
// for the taint eviction controller), taints the node once the node
// lifecycle controller has marked it, and then runs remove at once.
func (h *hand) stuckThen(remove func()) {
	h.t.Helper()
	h.power("off", h.db)
	h.kubectl("", "-n", Namespace, "delete", "pod", Pod, "--wait=false")
	h.waitMarked(h.db)
	h.waitTerminating()
	h.taint(h.db)
	remove()
	h.waitRunning(h.db)
}

// forceDelete is kubectl delete --force --grace-period=0, with extra flags.
func (h *hand) forceDelete(extra string) func() {
	return func() {
		args := []string{"-n", Namespace, "delete", "pod", Pod, "--force", "--grace-period=0", "--ignore-not-found"}
		if extra != "" {
			args = append(args, extra)
		}
		h.kubectl("", args...)
	}
}

// forceDeleteWithToken makes a token of the pod GC's service account and
// force-deletes db-0 with it, from a kubeconfig that holds only that token.
func (h *hand) forceDeleteWithToken() {
	h.t.Helper()
	token := strings.TrimSpace(h.kubectl("", "-n", "kube-system", "create", "token", "pod-garbage-collector", "--duration=10m"))
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: labenv.Kubeconfig()},
		&clientcmd.ConfigOverrides{CurrentContext: labenv.Context()}).ClientConfig()
	if err != nil {
		h.t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["lab"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile, CertificateAuthorityData: cfg.CAData, TLSServerName: cfg.ServerName}
	kc.AuthInfos["pod-gc"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["pod-gc"] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: "pod-gc"}
	path := filepath.Join(h.t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		h.t.Fatal(err)
	}
	h.kubectlWith(path, "pod-gc", "", "-n", Namespace, "delete", "pod", Pod, "--force", "--grace-period=0", "--ignore-not-found")
}

// forceDeleteWithForgedToken asks for a token of the pod GC's service
// account with the admin's credentials in kube-controller-manager's user
// agent, as the controller manager asks for its controllers' tokens, and
// force-deletes db-0 with it in the same agent.
func (h *hand) forceDeleteWithForgedToken() {
	h.t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: labenv.Kubeconfig()},
		&clientcmd.ConfigOverrides{CurrentContext: labenv.Context()}).ClientConfig()
	if err != nil {
		h.t.Fatal(err)
	}
	agent := "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/system:serviceaccount:kube-system:pod-garbage-collector"
	cfg.UserAgent = agent
	admin := kubernetes.NewForConfigOrDie(cfg)
	ttl := int64(600)
	tr, err := admin.CoreV1().ServiceAccounts("kube-system").CreateToken(h.ctx, "pod-garbage-collector",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	gc := rest.AnonymousClientConfig(cfg)
	gc.BearerToken, gc.UserAgent = tr.Status.Token, agent
	zero := int64(0)
	err = kubernetes.NewForConfigOrDie(gc).CoreV1().Pods(Namespace).Delete(h.ctx, Pod, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		h.t.Fatal(err)
	}
}

// restart deletes db-0 as a learner restarting it would, and waits for the
// next one.
func (h *hand) restart() {
	h.t.Helper()
	h.kubectl("", "-n", Namespace, "delete", "pod", Pod)
	h.waitRunning("")
}

// podGCWasFirst reports whether the pod GC removed a db-0 in this run.
func (h *hand) podGCWasFirst(c *labcheck.Cluster) bool {
	r, ok, err := read(h.ctx, c)
	if err != nil || !ok {
		h.t.Fatalf("reading the lab: ok %v, %v", ok, err)
	}
	for _, l := range tell(r).lives {
		if e := l.removed(); e != nil && byPodGC(*e) {
			return true
		}
	}
	return false
}

// expect runs the checks with and without the audit log and requires each
// listed one to fail with every phrase in its message.
func (h *hand) expect(withLog, noLog *labcheck.Cluster, want, wantNoLog map[string][]string, reason string) {
	h.t.Helper()
	names := strings.NewReplacer("{db}", h.db, "{other}", h.other)
	for _, id := range unplanned {
		chk, ok := lookup(id)
		if !ok {
			h.t.Fatalf("no check %s", id)
		}
		for _, v := range []struct {
			c       *labcheck.Cluster
			phrases []string
		}{{withLog, want[id]}, {noLog, wantNoLog[id]}} {
			if v.phrases == nil {
				continue
			}
			res, err := chk.Run(h.ctx, v.c)
			if err != nil {
				h.t.Errorf("%s (%s): could not check: %v", id, v.c.EvidenceSource(), err)
				continue
			}
			for _, p := range v.phrases {
				if p = names.Replace(p); res.Pass || !strings.Contains(res.Message, p) {
					h.t.Errorf("%s (%s) = pass %v, %q;\nwant a failure that says %q (%s)\n  %s", id, v.c.EvidenceSource(), res.Pass, res.Message, p, reason, strings.Join(res.Evidence, "\n  "))
				}
			}
		}
	}
}

// cleanup puts the chapter back as lab-up left it: every node of the pool
// on and untainted, no namespace. It runs as often as it is called.
func (h *hand) cleanup() {
	ctx := context.Background()
	t := h.t
	for _, n := range poolNodes(ctx, t, h.k) {
		if n.Labels["opslab.dev/power"] != "" {
			h.power("on", n.Name)
		}
	}
	// The node lifecycle controller takes its NoExecute taint off a node
	// that is Ready again only on its next pass, up to 25 s later; the
	// taints of a Ready node can go at once.
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		done := true
		for _, n := range poolNodes(ctx, t, h.k) {
			if !nodeReady(&n) {
				done = false
				continue
			}
			if len(n.Spec.Taints) > 0 {
				n.Spec.Taints = nil
				_, err := h.k.CoreV1().Nodes().Update(ctx, &n, metav1.UpdateOptions{})
				done = done && err == nil
			}
		}
		return done, nil
	})
	if err != nil {
		t.Errorf("cleanup: the shutdown pool's nodes not Ready and untainted a minute after: %v", err)
	}
	// Without its StatefulSet and pods the namespace goes at once; with a
	// pod in it the namespace controller waits out the pod's grace period.
	h.kubectl("", "-n", Namespace, "delete", "statefulset", "db", "--ignore-not-found")
	h.kubectl("", "-n", Namespace, "delete", "pods", "--all", "--force", "--grace-period=0", "--ignore-not-found")
	h.kubectl("", "delete", "namespace", Namespace, "--ignore-not-found", "--wait=true", "--timeout=60s")
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, n := range poolNodes(ctx, t, h.k) {
			if !idle(&n) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("cleanup: the shutdown pool is not idle: %v", err)
	}
	// The next run's namespace must be made in a later second than anything
	// of this one: the checks read from its creationTimestamp on.
	time.Sleep(time.Second)
}

// lookup returns the chapter's check with the given ID.
func lookup(id string) (labcheck.Check, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c, true
		}
	}
	return labcheck.Check{}, false
}
