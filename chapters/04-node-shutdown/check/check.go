// Package check holds the lab checks of chapter 4: where db-0 runs
// after its node lost power, that the out-of-service taint went on a node that
// was already off, that the pod garbage collector (not a hand) removed the old
// pod, and that the learner's graceful-shutdown configuration passes the
// chapter's model.
//
// The first three read behaviour, not a final state a learner could set by
// hand. The powered-off node is found from the node side (its Ready
// condition, the node lifecycle controller's not-ready taint and, in the API
// server's audit log, that controller's own write), so later restarts of
// db-0 do not change which node is named. Each db-0 is told from the next by
// the audit log's order of requests and the UID in the scheduler's binding;
// who removed the stuck one is the identity on its last delete. Without an
// audit log the first two judge from the API alone and say so; the third
// cannot, and says how to give it the log.
//
// See https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/#non-graceful-node-shutdown
package check

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// The lab's names.
const (
	Namespace = "shutdown-lab"
	Pod       = "db-0"
	Pool      = "shutdown"
	ConfigMap = "kubelet-shutdown"
	// OutOfService is the taint key the pod GC and the attach/detach controller look for.
	OutOfService = "node.kubernetes.io/out-of-service"
)

// Checks returns the chapter's checks, in the order a learner meets them.
func Checks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID: "shutdown-db-moved", Points: 2,
			Title: "db-0 runs again, on a healthy node",
			Claim: "a StatefulSet pod stuck Terminating on a dead node comes back elsewhere once the node is marked out of service",
			Reads: "the shutdown pool's nodes (Ready condition, the node lifecycle controller's not-ready taint), pod shutdown-lab/db-0, and in the audit log each db-0's creation, binding by the scheduler and deletes",
			Hints: []string{
				"Apply chapters/04-node-shutdown/lab/db.yaml, note the node db-0 runs on, and power that node off with lab/scripts/power.sh off NODE.",
				"db-0 goes Terminating and stays so: nothing on a node without power can finish its deletion. Confirm the node is off (kubectl get node NODE).",
				"kubectl taint node NODE node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, then watch kubectl -n shutdown-lab get pods -o wide.",
			},
			Run: checkMoved,
		},
		{
			ID: "shutdown-taint-after-off", Points: 2,
			Title: "the out-of-service taint went on a node that was already off",
			Claim: "the out-of-service taint is added only once the node is truly off",
			Reads: "the powered-off node's Ready condition and the node lifecycle controller's taint and writes; in the audit log the learner's write of the taint and when db-0 was marked for deletion (without the log: the taints' managedFields and the taint eviction controller's event)",
			Hints: []string{
				"The taint tells Kubernetes the node will not come back on its own: add it only once the node is NotReady and db-0 is stuck Terminating on it.",
				"kubectl get node NODE shows NotReady once power.sh off has run; kubectl -n shutdown-lab get pods shows db-0 Terminating a few seconds later.",
				"To try again: chapters/04-node-shutdown/lab/reset.sh, then start again from step 1 (lab/db.yaml).",
			},
			Run: checkTaint,
		},
		{
			ID: "shutdown-podgc-deleted", Points: 3,
			Title: "the pod GC, not a hand, removed the old db-0",
			Claim: "with the node NotReady and tainted out-of-service, the pod GC force-deletes its Terminating pods within one 20 s period",
			Reads: "the audit log: who sent the delete that removed the db-0 stuck on the powered-off node (the pod GC's own account, not impersonated, from the controller manager), tokens made for that account, Node deletions",
			Hints: []string{
				"Do not delete db-0 yourself, not even as the pod GC (--as): kubectl delete --force skips the pod GC's test that the node is really off.",
				"Add the out-of-service taint and wait up to 20 s: the pod GC runs every 20 s.",
				"To try again: chapters/04-node-shutdown/lab/reset.sh, then start again from step 1 (lab/db.yaml).",
			},
			Run: checkPodGC,
		},
		{
			ID: "shutdown-graceful-config", Points: 3,
			Title: "the graceful-shutdown configuration gives each group its time and fits logind",
			Claim: "priority-based graceful shutdown, and the logind drop-in that silently defeats it",
			Reads: "ConfigMap shutdown-lab/kubelet-shutdown, run through the chapter's model (kube.Validate, shutdown.CheckLogind)",
			Hints: []string{
				"Create ConfigMap kubelet-shutdown in shutdown-lab with a key kubelet.yaml holding a KubeletConfiguration with shutdownGracePeriodByPodPriority.",
				"Regular pods (0) need 20 s, the database (100000) 30 s in a group of its own, system-node-critical pods 10 s: try it with shutdown-plan on a copy of chapters/04-node-shutdown/lab/logind (step 4 gives the commands).",
				"60 s is more than unattended-upgrades' 30 s: list unattended-upgrades-logind-maxdelay.conf under the key masked.",
			},
			Run: checkConfig,
		},
	}
}

func checkMoved(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	return judgeWith(ctx, c, judgeMoved)
}

func checkTaint(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	return judgeWith(ctx, c, judgeTaint)
}

func checkPodGC(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	return judgeWith(ctx, c, judgePodGC)
}

func judgeWith(ctx context.Context, c *labcheck.Cluster, judge func(record) labcheck.Result) (labcheck.Result, error) {
	r, ok, err := read(ctx, c)
	if err != nil || !ok {
		return labcheck.Failf("no namespace %s: apply chapters/04-node-shutdown/lab/db.yaml first", Namespace), err
	}
	return judge(r), nil
}

func checkConfig(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	cm, err := c.Kube.CoreV1().ConfigMaps(Namespace).Get(ctx, ConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return labcheck.Failf("no ConfigMap %s/%s", Namespace, ConfigMap), nil
	}
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgeConfig(cm.Data), nil
}

// read gathers the record the checks judge: the lab namespace's creation,
// db-0, the shutdown pool's nodes, the events about db-0, and the audit log
// since the namespace was created. ok is false when there is no namespace.
func read(ctx context.Context, c *labcheck.Cluster) (r record, ok bool, err error) {
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	r.Start = ns.CreationTimestamp.Time
	pod, err := c.Kube.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return r, false, err
	default:
		r.Pod = pod
	}
	nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "opslab.dev/pool=" + Pool})
	if err != nil {
		return r, false, err
	}
	r.Nodes = nodes.Items
	events, err := c.Kube.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + Pod})
	if err != nil {
		return r, false, err
	}
	r.Events = events.Items
	log := c.Audit()
	r.advice = c.AuditAdvice()
	switch {
	case log == nil && c.NoAudit != "":
		r.NoAudit = c.NoAudit
	case log == nil:
		r.NoAudit = "none was given"
	case !log.Covers(r.Start):
		r.NoAudit = fmt.Sprintf("the audit log %s begins after the lab began at %s", log.Path, clock(r.Start))
	default:
		// A check's own dry runs and anything of an earlier run of the lab
		// stay out: the story starts when the namespace was created.
		r.Log = log.Window(r.Start)
		if r.Log == nil {
			r.Log = []audit.Event{}
		}
	}
	return r, true, nil
}
