// Package check holds the lab checks of chapter 1. They read what the
// cluster did, not what a learner wrote: the status the disruption
// controller computed for the budget, the eviction subresource's answer to a
// dry-run eviction of each ledger pod, where the pods run and whether the
// drained node is cordoned and empty; and, since a learner can reach that
// final picture by deleting the budget, scaling to zero or deleting pods,
// the drain of pdb-3 that led to it. The API server's audit log says how
// each ledger pod went (an eviction or a delete, and whose), which evictions
// were refused, when the budget was made or changed, and who made the
// replacements; the pods' creation and Ready times say how many were Ready
// after each removal. None of the checks changes the cluster.
//
// The judging is in pure functions (story.go) that take the log's events,
// the pods and the times, so that it is tested without a cluster; the
// cheats that used to pass are tests on the real cluster (TestCheat...).
//
// See https://kubernetes.io/docs/concepts/workloads/pods/disruptions/ and
// https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/.
//
// The course's list of chapters (package chapters) hands Checks to labcheck.
package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/labcheck"
)

// The lab's names, as lab/*.yaml and the README use them.
const (
	Namespace   = "pdb-lab"
	App         = "ledger"
	Pool        = "pdb"
	DrainedNode = "pdb-3"
	poolLabel   = "opslab.dev/pool"
)

// Checks returns chapter 1's checks, in the order a learner meets them.
// Each judges the final state first, then the drain of pdb-3 that led to
// it (see story): from the API server's audit log where there is one,
// from the API alone, and saying so, where there is none.
func Checks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID:     "pdb-budget-protects-ledger",
			Title:  "one budget protects ledger with a floor of at least 3, and it stood unchanged through the drain of pdb-3",
			Points: 2,
			Claim:  "the application declares one floor; the disruption controller turns it into desiredHealthy, and a drain keeps to it only while the budget is there",
			Reads: "the status the disruption controller wrote for the budget of pdb-lab that selects the ledger pods; its creationTimestamp against the first ledger pod to leave pdb-3; " +
				"from the audit log, every create, change and delete of pdb-lab's budgets (without the log: the budget's managedFields)",
			Hints: []string{
				"Apply chapters/01-pdb/lab/namespace.yaml, ledger.yaml and budget.yaml (step 1 of the lab).",
				"kubectl -n pdb-lab get pdb ledger -o yaml: status.desiredHealthy is the floor the controller computed; it must be at least 3, and status.observedGeneration must equal metadata.generation.",
				"Do not delete the budget or loosen it during the drain and put it back afterwards: the budget must be older than the drain and unchanged since. Add a replica instead: kubectl -n pdb-lab scale deployment ledger --replicas=5.",
			},
			Run: budgetProtectsLedger,
		},
		{
			ID:     "pdb-eviction-allowed",
			Title:  "the budget made the drain wait: evictions refused at the floor went through once there was room, and one is allowed now",
			Points: 3,
			Claim:  "only Ready pods count: at the floor an eviction is refused until a replacement is Ready, and with one pod above the floor it is allowed",
			Reads: "from the audit log, your evictions of ledger pods since pdb-3 was cordoned, the 429s among them, and which refused pods were evicted later; " +
				"the eviction subresource's answer to a dry-run eviction (dryRun=All) of every ledger pod now",
			Hints: []string{
				"Drain pdb-3 with the budget in place (steps 4 and 5): each refusal is the budget doing its job, and kubectl drain asks again every 5 s until a replacement is Ready.",
				"ALLOWED DISRUPTIONS 0 (kubectl -n pdb-lab get pdb ledger) means ledger is at its floor: keep the budget as it is and give ledger room above it, a replica to spare (step 5), then wait for every ledger pod to be Ready (new pods take 15 s).",
				"With minAvailable 4 and 4 replicas nothing can be evicted, ever; the repair is a fifth replica, not a lower floor: kubectl -n pdb-lab scale deployment/ledger --replicas=5, then drain pdb-3 again.",
			},
			Run: evictionAllowed,
		},
		{
			ID:     "pdb-node-drained",
			Title:  "pdb-3 is cordoned and empty, and its ledger pods left through the eviction API",
			Points: 3,
			Claim:  "a drain asks the eviction API, which weighs each removal against the budget; a delete or a scale-down asks nobody",
			Reads: "node pdb-3's spec.unschedulable and the pods bound to it in every namespace; " +
				"from the audit log, the request that removed each ledger pod since pdb-3 was cordoned (an eviction, a delete, a scale-down) and who made it",
			Hints: []string{
				"Drain the node with the budget in place: kubectl drain pdb-3 --ignore-daemonsets --timeout=3m (step 5, after ledger has a fifth replica).",
				"kubectl drain evicts; kubectl delete pod, kubectl drain --disable-eviction and scaling ledger down remove pods without asking the budget, and the audit log keeps that.",
				"Do not uncordon pdb-3 after the drain: the checks read the node as kubectl drain left it.",
			},
			Run: nodeDrained,
		},
		{
			ID:     "pdb-ledger-placed",
			Title:  "ledger runs Ready on the other nodes of its pool, one pod above its floor, and never fell below the floor during the drain",
			Points: 2,
			Claim:  "availability comes from replicas and spreading; the budget keeps a drain from taking ledger below its floor, one replacement at a time",
			Reads: "the ledger pods' nodes and Ready condition, and the budget's desiredHealthy; from the audit log, when each ledger pod left and who created the pods since pdb-3 was cordoned, " +
				"with the Ready times of the replacements, to count the Ready pods after each removal (without the log: the pods' creation and Ready times)",
			Hints: []string{
				"kubectl -n pdb-lab get pods -o wide shows where each ledger pod runs and whether it is Ready.",
				"Pods leave pdb-3 only through the drain; replacements go to schedulable nodes, so uncordon pdb-1 and pdb-2 after step 2.",
				"The floor plus one: with minAvailable 4 you need 5 Ready replicas, spread over pdb-1 and pdb-2; the drain must evict one pod at a time, each after the previous replacement is Ready, and the last replacement must be Ready when you check.",
			},
			Run: ledgerPlaced,
		},
	}
}

// lab is what the checks read from the cluster.
type lab struct {
	ns      *corev1.Namespace // nil until the lab's namespace exists
	pods    []corev1.Pod      // the ledger pods, not being deleted
	all     []corev1.Pod      // the ledger pods, those being deleted too
	budgets []policyv1.PodDisruptionBudget
}

func read(ctx context.Context, kube kubernetes.Interface) (lab, error) {
	var l lab
	ns, err := kube.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return l, fmt.Errorf("read namespace %s: %w", Namespace, err)
	default:
		l.ns = ns
	}
	pods, err := kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + App})
	if err != nil {
		return l, fmt.Errorf("list pods in %s: %w", Namespace, err)
	}
	l.all = pods.Items
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
	// A budget counts when it selects a ledger pod, as the eviction
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

// protects reports whether a pod with these labels is under a budget that
// selects ledger's pods, as the eviction subresource matches them; with no
// such budget, whether it is ledger's (app=ledger).
func (l lab) protects(set map[string]string) bool {
	if len(l.budgets) == 0 {
		return ledgerSelected(set)
	}
	for _, b := range l.budgets {
		if sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector); err == nil && sel.Matches(labels.Set(set)) {
			return true
		}
	}
	return false
}

// drain reads the story of the drain of pdb-3: from the audit log when
// there is one that covers the lab run, from the API alone otherwise. When
// there is no drain to judge yet, it says why in the returned sentence.
func drain(ctx context.Context, c *labcheck.Cluster, l lab) (story, string, error) {
	if l.ns == nil {
		return story{}, "there is no namespace " + Namespace + ": the lab has not begun", nil
	}
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, DrainedNode, metav1.GetOptions{})
	if err != nil {
		return story{}, "", fmt.Errorf("read node %s: %w", DrainedNode, err)
	}
	if !node.Spec.Unschedulable {
		return story{}, DrainedNode + " is not cordoned: there is no drain of it to judge yet", nil
	}
	cordoned, ok := cordonedAt(node)
	if !ok {
		return story{}, "", fmt.Errorf("node %s is cordoned, but neither its taint %s nor its managedFields say since when", DrainedNode, corev1.TaintNodeUnschedulable)
	}
	start := l.ns.CreationTimestamp.Time
	var pods []ledgerPod
	for _, p := range l.all {
		pods = append(pods, toLedgerPod(p))
	}
	log := c.Audit()
	s := story{Start: start, Cordoned: cordoned, Pods: pods, NoAudit: c.NoAudit, Advice: c.AuditAdvice()}
	switch {
	case log == nil:
		if s.NoAudit == "" {
			s.NoAudit = "none was given"
		}
	case !log.Covers(start):
		s.NoAudit = fmt.Sprintf("the audit log %s begins after the lab began at %s", log.Path, clock(start))
	default:
		events := log.Window(start)
		s = tell(events, Namespace, start, cordonRequest(events, DrainedNode, cordoned), pods, l.protects)
	}
	return s, "", nil
}

// cordonedAt returns when a cordoned node was cordoned: the time the node
// lifecycle controller put its unschedulable taint on, or else the time of
// the last write of spec.unschedulable in its managedFields. Both are in
// whole seconds.
func cordonedAt(n *corev1.Node) (time.Time, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeUnschedulable && t.TimeAdded != nil {
			return t.TimeAdded.Time, true
		}
	}
	for _, m := range n.ManagedFields {
		if m.Subresource == "" && m.FieldsV1 != nil && strings.Contains(string(m.FieldsV1.Raw), `"f:unschedulable"`) {
			return m.Time.Time, true
		}
	}
	return time.Time{}, false
}

func toLedgerPod(p corev1.Pod) ledgerPod {
	w := ledgerPod{Name: p.Name, Node: p.Spec.NodeName, Created: p.CreationTimestamp.Time, Deleting: p.DeletionTimestamp != nil}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			w.ReadyAt = c.LastTransitionTime.Time
		}
	}
	if o := metav1.GetControllerOf(&p); o != nil {
		w.Owner = o.Kind
	}
	for _, m := range p.ManagedFields {
		if m.Subresource == "status" {
			w.StatusBy = append(w.StatusBy, m.Manager)
		}
	}
	return w
}

// specWrites returns the managers that wrote a budget's spec or metadata,
// each with the time of its last write.
func specWrites(b policyv1.PodDisruptionBudget) []specWrite {
	var out []specWrite
	for _, m := range b.ManagedFields {
		if m.Subresource == "" && m.Time != nil {
			out = append(out, specWrite{Manager: m.Manager, Time: m.Time.Time})
		}
	}
	return out
}

// The hints of failures that the lab's steps explain.
const (
	// A check read the lab a few seconds too early: a replacement made by
	// the last eviction is still starting, and only Ready pods count.
	hintWait = "Wait until every ledger pod is Ready (a new one takes 15 s), then check again: kubectl -n pdb-lab wait pod -l app=ledger --for=condition=Ready --timeout=1m"
	// The budget leaves no room with every pod Ready: the floor is at the
	// replica count. Loosening it would pass the check and lose the lesson.
	hintRoom = "Keep the budget: give ledger a replica to spare (kubectl -n pdb-lab scale deployment/ledger --replicas=5), wait for it to be Ready, and drain pdb-3 again (step 5)."
)

// starting lists the ledger pods that run on a node and are not Ready yet:
// those the lab's slow-start stage has not made Ready.
func starting(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		if p.Spec.NodeName != "" && !ready(p) {
			names = append(names, p.Name)
		}
	}
	return names
}

// notReadyYet says which pods are still starting: "ledger-g is not Ready
// yet", "ledger-f and ledger-g are not Ready yet".
func notReadyYet(names []string) string {
	if len(names) == 1 {
		return names[0] + " is not Ready yet"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are not Ready yet"
}

func ready(p corev1.Pod) bool { return kubeio.PodReady(&p) }

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

// withDrain reads the drain's story for a check whose final state is
// right, and gives it to judge; when there is no drain to judge, the check
// fails with the reason.
func withDrain(ctx context.Context, c *labcheck.Cluster, l lab, r labcheck.Result, judge func(story) verdict) (labcheck.Result, error) {
	s, none, err := drain(ctx, c, l)
	if err != nil {
		return labcheck.Result{}, err
	}
	if none != "" {
		r.Message = none
		return r, nil
	}
	// The final state was right: the behaviour decides.
	v := judge(s)
	r.Evidence = append(r.Evidence, v.evidence...)
	r.Pass, r.Message, r.Hint = v.ok, v.msg, v.hint
	return r, nil
}

func budgetProtectsLedger(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
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
		r.Message = "no PodDisruptionBudget in pdb-lab selects the ledger pods"
		return r, nil
	case 1:
	default:
		r.Message = fmt.Sprintf("%d budgets select the ledger pods; the eviction subresource answers 500 to every eviction of them", len(l.budgets))
		return r, nil
	}
	b := l.budgets[0]
	s := b.Status
	switch {
	case s.ObservedGeneration < b.Generation:
		r.Message = fmt.Sprintf("the disruption controller has not processed generation %d of budget %s yet", b.Generation, b.Name)
		return r, nil
	case s.ExpectedPods < 4:
		r.Message = fmt.Sprintf("budget %s expects %d pods, want the 4 or more replicas of ledger", b.Name, s.ExpectedPods)
		return r, nil
	case s.DesiredHealthy < 3:
		r.Message = fmt.Sprintf("budget %s keeps only %d pods (desiredHealthy), want a floor of at least 3", b.Name, s.DesiredHealthy)
		return r, nil
	}
	return withDrain(ctx, c, l, r, func(st story) verdict {
		v := judgeBudgetStood(st, b.Name, b.CreationTimestamp.Time, specWrites(b))
		if v.ok {
			v.msg = fmt.Sprintf("budget %s keeps %d of %d ledger pods, and %s", b.Name, s.DesiredHealthy, s.ExpectedPods, strings.TrimPrefix(v.msg, "budget "+b.Name+" "))
		}
		return v
	})
}

// dryRunEvict asks the eviction subresource whether it would evict a pod
// now. It returns the HTTP code of the answer and its message with causes.
func dryRunEvict(ctx context.Context, kube kubernetes.Interface, pod string) (int, string, error) {
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod, Namespace: Namespace},
		DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}},
	}
	var err error
	if rc, ok := kube.PolicyV1().RESTClient().(*rest.RESTClient); ok && rc != nil {
		// The dry run is named in the query too: the audit log keeps no
		// bodies, and the checks read a request without ?dryRun as one
		// that may have been stored.
		err = rc.Post().AbsPath("/api/v1").Namespace(Namespace).Resource("pods").Name(pod).SubResource("eviction").
			Param("dryRun", metav1.DryRunAll).Body(ev).Do(ctx).Error()
	} else {
		err = kube.PolicyV1().Evictions(Namespace).Evict(ctx, ev) // a clientset with no wire: the tests' fake
	}
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
	r.Seen("ledger pods in %s: %d; budgets selecting them: %d", Namespace, len(l.pods), len(l.budgets))
	if len(l.budgets) == 0 {
		r.Message = "no budget selects the ledger pods; an eviction nobody guards proves nothing"
		return r, nil
	}
	if len(l.pods) < 4 {
		r.Message = fmt.Sprintf("%d ledger pods in pdb-lab, want at least 4", len(l.pods))
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
		r.Message = fmt.Sprintf("%d of %d ledger pods cannot be evicted now", refused, len(l.pods))
		if wait := starting(l.pods); len(wait) > 0 {
			r.Message = fmt.Sprintf("%s, so %s", notReadyYet(wait), r.Message)
			r.Hint = hintWait
		} else if len(l.budgets) == 1 && l.budgets[0].Status.DisruptionsAllowed == 0 {
			b := l.budgets[0]
			r.Message += fmt.Sprintf(": every ledger pod is Ready, and budget %s allows no disruption (floor %d, %d healthy)", b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy)
			r.Hint = hintRoom
		}
		return r, nil
	}
	return withDrain(ctx, c, l, r, func(s story) verdict {
		v := judgeRefusals(s)
		if v.ok {
			v.msg += fmt.Sprintf(", and each of the %d ledger pods may be evicted now", len(l.pods))
		}
		return v
	})
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
		return r, nil
	case !node.Spec.Unschedulable:
		r.Message = fmt.Sprintf("%s is schedulable: kubectl drain cordons the node it drains", DrainedNode)
		return r, nil
	case len(left) > 0:
		r.Message = fmt.Sprintf("%s is cordoned but still runs %s", DrainedNode, strings.Join(left, ", "))
		return r, nil
	}
	l, err := read(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	return withDrain(ctx, c, l, r, func(s story) verdict {
		v := judgeRoute(s)
		if v.ok {
			v.msg = fmt.Sprintf("%s is cordoned and empty, and %s", DrainedNode, v.msg)
		}
		return v
	})
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

func ledgerPlaced(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
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
		r.Seen("ledger pods in %s: none", Namespace)
		r.Message = "no ledger pods in pdb-lab"
		return r, nil
	case len(wrong) > 0:
		r.Message = fmt.Sprintf("%s not on pdb-1 or pdb-2", strings.Join(wrong, ", "))
		return r, nil
	case len(l.budgets) != 1:
		r.Message = "ledger needs exactly one budget to be measured against"
		return r, nil
	case desired < 2:
		r.Message = fmt.Sprintf("the budget keeps %d pods; with no real floor there is nothing to stay above", desired)
		return r, nil
	case readyPods <= desired:
		r.Message = fmt.Sprintf("%d ledger pods Ready, want more than the floor of %d", readyPods, desired)
		if wait := starting(l.pods); len(wait) > 0 {
			r.Message = fmt.Sprintf("%s: %s", notReadyYet(wait), r.Message)
			r.Hint = hintWait
		}
		return r, nil
	case len(readyOn) < 2:
		r.Message = "every Ready ledger pod is on one node: one node failure takes them all"
		return r, nil
	}
	return withDrain(ctx, c, l, r, func(s story) verdict {
		v := judgeFloor(s)
		if v.ok {
			v.msg = fmt.Sprintf("%d ledger pods Ready over %d nodes, floor %d; %s", readyPods, len(readyOn), desired, v.msg)
		}
		return v
	})
}
