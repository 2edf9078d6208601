// Package shutdowncheck holds the lab checks of chapter 4: where db-0 runs
// after its node lost power, that the out-of-service taint went on a node that
// was already off, that the pod garbage collector (not a hand) removed the old
// pod, and that the learner's graceful-shutdown configuration passes the
// chapter's model.
package shutdowncheck

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck"
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

func init() {
	labcheck.Register(labcheck.Check{
		Chapter: 4, ID: "shutdown-db-moved", Points: 2,
		Title: "db-0 runs again, on a healthy node",
		Claim: "a StatefulSet pod stuck Terminating on a dead node comes back elsewhere once the node is marked out of service",
		Reads: "pod shutdown-lab/db-0, its node, and the scheduler's Scheduled events for earlier db-0 pods",
		Hints: []string{
			"Apply lab/db.yaml, note the node db-0 runs on, and power that node off with lab/scripts/power.sh off NODE.",
			"db-0 stays Terminating: nothing on a node without power can finish its deletion. Confirm the node is off (kubectl get node NODE).",
			"kubectl taint node NODE node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, then watch kubectl -n shutdown-lab get pods -o wide.",
		},
		Run: checkMoved,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 4, ID: "shutdown-taint-after-off", Points: 2,
		Title: "the out-of-service taint went on a node that was already off",
		Claim: "the out-of-service taint is added only once the node is truly off",
		Reads: "the old db-0's node: its Ready condition and when the out-of-service taint was written (managedFields)",
		Hints: []string{
			"The taint tells Kubernetes the node will not come back on its own: add it only after you have confirmed the node is NotReady.",
			"kubectl get node NODE shows NotReady once power.sh off has run.",
			"kubectl taint node NODE node.kubernetes.io/out-of-service=nodeshutdown:NoExecute",
		},
		Run: checkTaint,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 4, ID: "shutdown-podgc-deleted", Points: 3,
		Title: "the pod GC, not a hand, removed the old db-0",
		Claim: "with the node NotReady and tainted out-of-service, the pod GC force-deletes its Terminating pods within one 20 s period",
		Reads: "the taint's arrival (node managedFields, else the taint eviction controller's event), the new db-0's creation time",
		Hints: []string{
			"Do not delete db-0 yourself: kubectl delete --force skips the pod GC's test that the node is really off.",
			"Add the out-of-service taint and wait up to 20 s: the pod GC runs every 20 s.",
			"To try again: lab/scripts/power.sh on NODE, remove the taint (kubectl taint node NODE node.kubernetes.io/out-of-service-), and start from the power-off.",
		},
		Run: checkPodGC,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 4, ID: "shutdown-graceful-config", Points: 3,
		Title: "the graceful-shutdown configuration gives each group its time and fits logind",
		Claim: "priority-based graceful shutdown, and the logind drop-in that silently defeats it",
		Reads: "ConfigMap shutdown-lab/kubelet-shutdown, run through the chapter's model (shutdown.Validate, graceful.CheckLogind)",
		Hints: []string{
			"Create ConfigMap kubelet-shutdown in shutdown-lab with a key kubelet.yaml holding a KubeletConfiguration with shutdownGracePeriodByPodPriority.",
			"Regular pods (0) need 20 s, the database (100000) 30 s in a group of its own, system-node-critical pods 10 s: try it with shutdown-plan.",
			"60 s is more than unattended-upgrades' 30 s: list unattended-upgrades-logind-maxdelay.conf under the key masked.",
		},
		Run: checkConfig,
	})
}

func checkMoved(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	h, pod, err := gather(ctx, c)
	if err != nil || pod == nil {
		return labcheck.Failf("no pod %s/%s: apply lab/db.yaml first", Namespace, Pod), err
	}
	var r labcheck.Result
	if h.OldUID == "" {
		r.Message = fmt.Sprintf("db-0 still runs where it was first scheduled (%s); power that node off and bring db-0 back elsewhere (events last one hour)", pod.Spec.NodeName)
		return r, nil
	}
	r.Seen("old db-0 (uid %s) was scheduled to %s", short(h.OldUID), h.OldNode)
	r.Seen("db-0 now: uid %s, node %q, phase %s, ready %v", short(string(pod.UID)), pod.Spec.NodeName, pod.Status.Phase, podReady(pod))
	switch {
	case pod.DeletionTimestamp != nil:
		r.Message = "db-0 is still Terminating"
		return r, nil
	case pod.Spec.NodeName == "":
		r.Message = "the new db-0 is not scheduled yet"
		return r, nil
	case pod.Spec.NodeName == h.OldNode:
		r.Message = fmt.Sprintf("db-0 runs on %s again, the node that was powered off", h.OldNode)
		return r, nil
	case pod.Status.Phase != corev1.PodRunning || !podReady(pod):
		r.Message = fmt.Sprintf("db-0 on %s is not Running and Ready yet", pod.Spec.NodeName)
		return r, nil
	}
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		return r, err
	}
	ready := nodeReady(node)
	r.Seen("node %s: Ready=%v, pool %q", node.Name, ready, node.Labels["opslab.dev/pool"])
	if !ready {
		r.Message = fmt.Sprintf("db-0 runs on %s, which is not Ready", node.Name)
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("db-0 moved from %s to %s, which is Ready", h.OldNode, node.Name)
	return r, nil
}

func checkTaint(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	h, _, err := gather(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	if h.OldNode == "" {
		return labcheck.Failf("no earlier db-0 seen, so no powered-off node to look at (events last one hour)"), nil
	}
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, h.OldNode, metav1.GetOptions{})
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	cond := readyCondition(node)
	if cond == nil || cond.Status == corev1.ConditionTrue {
		r.Seen("node %s is Ready", node.Name)
		r.Message = fmt.Sprintf("%s is Ready: the taint belongs on a node that is off (to retry, power it off again)", node.Name)
		return r, nil
	}
	r.Seen("node %s: Ready=%s since %s (%s)", node.Name, cond.Status, clock(cond.LastTransitionTime.Time), cond.Message)
	if !hasTaint(node) {
		r.Message = fmt.Sprintf("%s has no %s taint", node.Name, OutOfService)
		return r, nil
	}
	if h.TaintAt.IsZero() {
		r.Message = fmt.Sprintf("%s carries the taint but nothing shows when it was added", node.Name)
		return r, nil
	}
	r.Seen("taint %s added at %s (%s)", OutOfService, clock(h.TaintAt), h.TaintFrom)
	if h.TaintAt.Before(cond.LastTransitionTime.Time) {
		r.Message = fmt.Sprintf("the taint came at %s, before %s went NotReady at %s: it must follow the power-off, not precede it", clock(h.TaintAt), node.Name, clock(cond.LastTransitionTime.Time))
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("%s went NotReady at %s and was tainted out-of-service %v later", node.Name, clock(cond.LastTransitionTime.Time), h.TaintAt.Sub(cond.LastTransitionTime.Time).Truncate(time.Second))
	return r, nil
}

func checkPodGC(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	h, _, err := gather(ctx, c)
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgePodGC(h), nil
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

// gather reads db-0's history: the current pod, the Scheduled events of
// earlier db-0 pods, the taint eviction controller's events, and the old
// node's out-of-service taint.
func gather(ctx context.Context, c *labcheck.Cluster) (history, *corev1.Pod, error) {
	var h history
	pod, err := c.Kube.CoreV1().Pods(Namespace).Get(ctx, Pod, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		pod, err = nil, nil
	}
	if err != nil {
		return h, nil, err
	}
	if pod != nil && pod.DeletionTimestamp == nil {
		h.NewUID, h.NewCreated, h.NewNode = string(pod.UID), pod.CreationTimestamp.Time, pod.Spec.NodeName
	}
	events, err := c.Kube.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + Pod})
	if err != nil {
		return h, pod, err
	}
	sort.Slice(events.Items, func(i, j int) bool { return eventTime(events.Items[i]).Before(eventTime(events.Items[j])) })
	var evictions []corev1.Event
	for _, e := range events.Items {
		switch e.Reason {
		case "Scheduled":
			if h.NewUID != "" && string(e.InvolvedObject.UID) == h.NewUID {
				continue
			}
			if _, node, ok := strings.Cut(e.Message, " to "); ok {
				// The latest earlier pod is the one the learner moved.
				h.OldUID, h.OldNode = string(e.InvolvedObject.UID), node
			}
		case "TaintManagerEviction":
			evictions = append(evictions, e)
		}
	}
	if pod != nil && pod.DeletionTimestamp != nil {
		// db-0 is still Terminating: it is the old pod.
		h.OldUID, h.OldNode = string(pod.UID), pod.Spec.NodeName
	}
	if h.OldNode == "" {
		return h, pod, nil
	}
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, h.OldNode, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return h, pod, nil
	}
	if err != nil {
		return h, pod, err
	}
	if !hasTaint(node) {
		return h, pod, nil
	}
	h.TaintAt, h.TaintFrom = taintTime(node, evictions)
	return h, pod, nil
}

// taintTime says when the out-of-service taint arrived. A taint added with
// kubectl has no timeAdded; the API server's managedFields record when a
// manager other than the controllers last wrote the node's taints. When the
// controllers took over the list since, the taint eviction controller's event
// (it marks the pods again when a new NoExecute taint arrives) is the fallback.
func taintTime(node *corev1.Node, evictions []corev1.Event) (time.Time, string) {
	for _, t := range node.Spec.Taints {
		if t.Key == OutOfService && t.TimeAdded != nil {
			return t.TimeAdded.Time, "the taint's timeAdded"
		}
	}
	var at time.Time
	var who string
	for _, m := range node.ManagedFields {
		if m.Manager == "kube-controller-manager" || m.Subresource != "" || m.FieldsV1 == nil || m.Time == nil {
			continue
		}
		if strings.Contains(string(m.FieldsV1.Raw), `"f:taints"`) && m.Time.After(at) {
			at, who = m.Time.Time, m.Manager
		}
	}
	if !at.IsZero() {
		return at, "managedFields of " + who
	}
	for _, e := range evictions {
		if e.Count > 1 && e.LastTimestamp.After(at) {
			at = e.LastTimestamp.Time
		}
	}
	if !at.IsZero() {
		return at, "the taint eviction controller's last TaintManagerEviction event"
	}
	return time.Time{}, ""
}

func hasTaint(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == OutOfService {
			return true
		}
	}
	return false
}

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

func nodeReady(node *corev1.Node) bool {
	c := readyCondition(node)
	return c != nil && c.Status == corev1.ConditionTrue
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// eventTime is when an event last happened, whichever API wrote it.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
