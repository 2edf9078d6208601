// Package pdbcheck holds the lab checks of chapter 1. They read what the
// cluster did, not what a learner wrote: the status the disruption
// controller computed for the budget, the eviction subresource's answer to a
// dry-run eviction of each web pod, where the pods run and whether the
// drained node is cordoned and empty. None of them changes the cluster.
//
// Importing the package registers the checks with labcheck.
package pdbcheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/opslab/opslab/labcheck"
)

// The lab's names, as lab/*.yaml and the README use them.
const (
	Namespace   = "pdb-lab"
	App         = "web"
	Pool        = "pdb"
	DrainedNode = "pdb-3"
	poolLabel   = "opslab.dev/pool"
)

func init() {
	for _, c := range Checks() {
		labcheck.Register(c)
	}
}

// Checks returns chapter 1's checks, in the order a learner meets them.
func Checks() []labcheck.Check {
	return []labcheck.Check{
		{
			Chapter: 1,
			ID:      "pdb-budget-protects-web",
			Title:   "one budget protects web, and the disruption controller counts a floor of at least 2",
			Points:  2,
			Claim:   "the application declares one floor; the disruption controller turns it into desiredHealthy and disruptionsAllowed",
			Reads:   "the PodDisruptionBudgets of pdb-lab that select the web pods, and the status the disruption controller wrote",
			Hints: []string{
				"Apply chapters/01-pdb/lab/namespace.yaml, web.yaml and budget.yaml (step 1 of the lab).",
				"kubectl -n pdb-lab get pdb web -o yaml: status.desiredHealthy is the floor the controller computed; it must be at least 2, and status.observedGeneration must equal metadata.generation.",
				"If you got the stalled drain going by deleting the budget or setting minAvailable to 0, put the floor back and add a replica instead: kubectl -n pdb-lab scale deployment web --replicas=4.",
			},
			Run: budgetProtectsWeb,
		},
		{
			Chapter: 1,
			ID:      "pdb-eviction-allowed",
			Title:   "a dry-run eviction of each web pod is allowed: the floor leaves room for one disruption",
			Points:  3,
			Claim:   "only Ready pods count, and more replicas beat a stricter budget: with one pod above the floor, an eviction is allowed",
			Reads:   "the eviction subresource's answer to a dry-run eviction (policy/v1, dryRun All) of every web pod",
			Hints: []string{
				"An eviction is refused with 429 while the budget's status.disruptionsAllowed is 0: kubectl -n pdb-lab get pdb web.",
				"Wait until every web pod is Ready (new pods take 15 s): kubectl -n pdb-lab get pods -w.",
				"With minAvailable 3 and 3 replicas nothing can be evicted, ever. Scale web to 4 replicas (step 5), or loosen the floor to minAvailable 2.",
			},
			Run: evictionAllowed,
		},
		{
			Chapter: 1,
			ID:      "pdb-node-drained",
			Title:   "pdb-3 is cordoned and empty: the drain finished",
			Points:  3,
			Claim:   "a drain that waits on a budget finishes once the floor leaves room",
			Reads:   "node pdb-3's spec.unschedulable and the pods bound to it in every namespace",
			Hints: []string{
				"Drain the node: kubectl drain pdb-3 --ignore-daemonsets --timeout=3m (steps 4 and 5).",
				"If the drain timed out, read why: the 429s name the budget and its healthy count. The node stays cordoned; run the drain again once there is room.",
				"Do not uncordon pdb-3 after the drain: the check reads the node as kubectl drain left it.",
			},
			Run: nodeDrained,
		},
		{
			Chapter: 1,
			ID:      "pdb-web-placed",
			Title:   "web runs Ready on the other nodes of its pool, one pod above its floor",
			Points:  2,
			Claim:   "availability comes from replicas and spreading; the budget only stops operations from breaking it",
			Reads:   "the web pods' nodes and Ready condition, the nodes' pool label, and the budget's desiredHealthy",
			Hints: []string{
				"kubectl -n pdb-lab get pods -o wide shows where each web pod runs and whether it is Ready.",
				"Pods leave pdb-3 only through the drain; replacements go to schedulable nodes, so uncordon pdb-1 and pdb-2 after step 2.",
				"The floor plus one: with minAvailable 3 you need 4 Ready replicas, spread over pdb-1 and pdb-2.",
			},
			Run: webPlaced,
		},
	}
}

// lab is what the checks read from the cluster.
type lab struct {
	pods    []corev1.Pod // the web pods, not being deleted
	budgets []policyv1.PodDisruptionBudget
}

func read(ctx context.Context, kube kubernetes.Interface) (lab, error) {
	var l lab
	pods, err := kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + App})
	if err != nil {
		return l, fmt.Errorf("list pods in %s: %w", Namespace, err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			l.pods = append(l.pods, p)
		}
	}
	slices.SortFunc(l.pods, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	pdbs, err := kube.PolicyV1().PodDisruptionBudgets(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return l, fmt.Errorf("list budgets in %s: %w", Namespace, err)
	}
	// A budget counts when it selects a web pod, as the eviction
	// subresource decides: nil selects nothing, {} selects everything.
	for _, b := range pdbs.Items {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			continue
		}
		if sel.Matches(labels.Set{"app": App}) {
			l.budgets = append(l.budgets, b)
		}
	}
	return l, nil
}

func ready(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func floor(b policyv1.PodDisruptionBudget) string {
	switch {
	case b.Spec.MinAvailable != nil:
		return "minAvailable " + b.Spec.MinAvailable.String()
	case b.Spec.MaxUnavailable != nil:
		return "maxUnavailable " + b.Spec.MaxUnavailable.String()
	}
	return "no floor"
}

func statusLine(b policyv1.PodDisruptionBudget) string {
	s := b.Status
	return fmt.Sprintf("budget %s (%s, generation %d, observed %d): expected %d, desired %d, healthy %d, allowed %d",
		b.Name, floor(b), b.Generation, s.ObservedGeneration, s.ExpectedPods, s.DesiredHealthy, s.CurrentHealthy, s.DisruptionsAllowed)
}

func budgetProtectsWeb(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, err := read(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	for _, b := range l.budgets {
		r.Seen("%s", statusLine(b))
	}
	switch len(l.budgets) {
	case 0:
		r.Seen("PodDisruptionBudgets in %s selecting app=%s: none", Namespace, App)
		r.Message = "no PodDisruptionBudget in pdb-lab selects the web pods"
		return r, nil
	case 1:
	default:
		r.Message = fmt.Sprintf("%d budgets select the web pods; the eviction subresource answers 500 to every eviction of them", len(l.budgets))
		return r, nil
	}
	b := l.budgets[0]
	s := b.Status
	switch {
	case s.ObservedGeneration < b.Generation:
		r.Message = fmt.Sprintf("the disruption controller has not processed generation %d of budget %s yet", b.Generation, b.Name)
	case s.ExpectedPods < 3:
		r.Message = fmt.Sprintf("budget %s expects %d pods, want the 3 or more replicas of web", b.Name, s.ExpectedPods)
	case s.DesiredHealthy < 2:
		r.Message = fmt.Sprintf("budget %s keeps only %d pods (desiredHealthy), want a floor of at least 2", b.Name, s.DesiredHealthy)
	default:
		r.Pass = true
		r.Message = fmt.Sprintf("budget %s keeps %d of %d web pods", b.Name, s.DesiredHealthy, s.ExpectedPods)
	}
	return r, nil
}

// dryRunEvict asks the eviction subresource whether it would evict a pod
// now. It returns the HTTP code of the answer and its message with causes.
func dryRunEvict(ctx context.Context, kube kubernetes.Interface, pod string) (int, string, error) {
	err := kube.PolicyV1().Evictions(Namespace).Evict(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod, Namespace: Namespace},
		DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}},
	})
	if err == nil {
		return 201, "allowed", nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return 0, "", fmt.Errorf("dry-run eviction of %s: %w", pod, err)
	}
	st := status.Status()
	msg := st.Message
	if st.Details != nil {
		for _, cause := range st.Details.Causes {
			msg += " (" + cause.Message + ")"
		}
	}
	return int(st.Code), msg, nil
}

func evictionAllowed(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, err := read(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	r.Seen("web pods in %s: %d; budgets selecting them: %d", Namespace, len(l.pods), len(l.budgets))
	if len(l.budgets) == 0 {
		r.Message = "no budget selects the web pods; an eviction nobody guards proves nothing"
		return r, nil
	}
	if len(l.pods) < 3 {
		r.Message = fmt.Sprintf("%d web pods in pdb-lab, want at least 3", len(l.pods))
		return r, nil
	}
	refused := 0
	for _, p := range l.pods {
		code, msg, err := dryRunEvict(ctx, c.Kube, p.Name)
		if err != nil {
			return labcheck.Result{}, err
		}
		r.Seen("dry-run eviction of %s on %s: %d %s", p.Name, p.Spec.NodeName, code, msg)
		if code != 201 {
			refused++
		}
	}
	if refused > 0 {
		r.Message = fmt.Sprintf("%d of %d web pods cannot be evicted now", refused, len(l.pods))
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("each of the %d web pods may be evicted now", len(l.pods))
	return r, nil
}

func nodeDrained(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	var r labcheck.Result
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, DrainedNode, metav1.GetOptions{})
	if err != nil {
		return r, fmt.Errorf("read node %s: %w", DrainedNode, err)
	}
	r.Seen("node %s: unschedulable=%v", DrainedNode, node.Spec.Unschedulable)
	pods, err := c.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + DrainedNode})
	if err != nil {
		return r, fmt.Errorf("list pods on %s: %w", DrainedNode, err)
	}
	var left []string
	for _, p := range pods.Items {
		// kubectl drain leaves DaemonSet pods (with --ignore-daemonsets) and
		// pods already being deleted are on their way out.
		if p.DeletionTimestamp != nil || ownedBy(p, "DaemonSet") {
			continue
		}
		left = append(left, p.Namespace+"/"+p.Name)
	}
	r.Seen("pods on %s: %s", DrainedNode, orNone(left))
	switch {
	case !node.Spec.Unschedulable && len(left) > 0:
		r.Message = fmt.Sprintf("%s is schedulable and runs %d pods: it was not drained", DrainedNode, len(left))
	case !node.Spec.Unschedulable:
		r.Message = fmt.Sprintf("%s is schedulable: kubectl drain cordons the node it drains", DrainedNode)
	case len(left) > 0:
		r.Message = fmt.Sprintf("%s is cordoned but still runs %s", DrainedNode, strings.Join(left, ", "))
	default:
		r.Pass = true
		r.Message = fmt.Sprintf("%s is cordoned and runs no pod", DrainedNode)
	}
	return r, nil
}

func ownedBy(p corev1.Pod, kind string) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == kind {
			return true
		}
	}
	return false
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func webPlaced(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, err := read(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: poolLabel + "=" + Pool})
	if err != nil {
		return r, fmt.Errorf("list the nodes of pool %s: %w", Pool, err)
	}
	pool := map[string]bool{}
	for _, n := range nodes.Items {
		pool[n.Name] = true
	}
	readyOn := map[string]int{}
	readyPods := 0
	var wrong []string
	for _, p := range l.pods {
		state := "not Ready"
		if ready(p) {
			state = "Ready"
		}
		where := p.Spec.NodeName
		if where == "" {
			where = "no node"
		}
		r.Seen("pod %s on %s: %s", p.Name, where, state)
		if p.Spec.NodeName == DrainedNode || !pool[p.Spec.NodeName] {
			wrong = append(wrong, p.Name)
			continue
		}
		if ready(p) {
			readyPods++
			readyOn[p.Spec.NodeName]++
		}
	}
	desired := 0
	if len(l.budgets) == 1 {
		desired = int(l.budgets[0].Status.DesiredHealthy)
		r.Seen("budget %s: desiredHealthy %d", l.budgets[0].Name, desired)
	}
	switch {
	case len(l.pods) == 0:
		r.Seen("web pods in %s: none", Namespace)
		r.Message = "no web pods in pdb-lab"
	case len(wrong) > 0:
		r.Message = fmt.Sprintf("%s not on pdb-1 or pdb-2", strings.Join(wrong, ", "))
	case len(l.budgets) != 1:
		r.Message = "web needs exactly one budget to be measured against"
	case desired < 2:
		r.Message = fmt.Sprintf("the budget keeps %d pods; with no real floor there is nothing to stay above", desired)
	case readyPods <= desired:
		r.Message = fmt.Sprintf("%d web pods Ready, want more than the floor of %d", readyPods, desired)
	case len(readyOn) < 2:
		r.Message = "every Ready web pod is on one node: one node failure takes them all"
	default:
		r.Pass = true
		r.Message = fmt.Sprintf("%d web pods Ready over %d nodes, floor %d", readyPods, len(readyOn), desired)
	}
	return r, nil
}
