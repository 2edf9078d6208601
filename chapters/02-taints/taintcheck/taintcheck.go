// Package taintcheck holds the lab checks of chapter 2 (taints,
// tolerations and NoExecute). They read what the controllers did in
// namespace taints-lab on nodes taints-1..3: events of the taint eviction
// controller, the pods that are left, the taints of the nodes and when the
// API server recorded them, and the tolerations admission wrote. They never
// change the cluster and never wait for an experiment to happen again.
//
// Importing the package registers its checks with labcheck.
package taintcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/apiconv"
	"github.com/opslab/opslab/labcheck"
)

// The lab's names.
const (
	Namespace   = "taints-lab"
	LinkKey     = "opslab.dev/link-down"
	MaintKey    = "opslab.dev/maintenance"
	ReasonKey   = "opslab.dev/toleration-reason"
	eventTTL    = time.Hour // kube-apiserver's default --event-ttl
	evictReason = "TaintManagerEviction"
)

func init() {
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-control-defaults", Points: 1,
		Title: "the untouched control pod carries the tolerations admission added",
		Claim: "admission adds not-ready and unreachable NoExecute tolerations of 300 s to every pod that lacks them",
		Reads: "pod taints-lab/control: its node, its tolerations, and the manifest kubectl applied",
		Hints: []string{
			"Apply the lab's namespace, wait for its default service account, then the pods: the three commands are at the top of the lab's steps.",
			"The control pod must run on taints-1 with the manifest as written: no toleration of its own.",
		},
		Run: checkControl,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-noschedule-evicted-nothing", Points: 1,
		Title: "a NoSchedule taint on taints-2 removed none of its running pods",
		Claim: "NoSchedule only stops new placements; running pods stay",
		Reads: "node taints-2's taints and when they last changed; the pods of taints-lab on taints-2 and the scheduler's Scheduled event for each (who bound it, when)",
		Hints: []string{
			"Put a NoSchedule taint on taints-2: kubectl taint node taints-2 opslab.dev/maintenance=planned:NoSchedule",
			"The twins tolerate opslab.dev/maintenance only for NoExecute, so the NoSchedule taint is not tolerated: watch them keep running.",
		},
		Run: checkNoSchedule,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-noexecute-removed-one-twin", Points: 1,
		Title: "a NoExecute taint on taints-2 removed twin-0s and kept twin-forever",
		Claim: "tolerationSeconds 0 means at once; no tolerationSeconds means never",
		Reads: "events TaintManagerEviction in taints-lab; pods twin-0s and twin-forever",
		Hints: []string{
			"Add the NoExecute twin of the taint: kubectl taint node taints-2 opslab.dev/maintenance=planned:NoExecute",
			"Do not delete the pods yourself: the check looks for the taint eviction controller's event.",
		},
		Run: checkTwins,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-link-20s-evicted", Points: 2,
		Title: "the link-down taint removed link-20s, by the controller, no earlier than 20 s after it",
		Claim: "with tolerationSeconds 20 a pod leaves 20 s after the taint eviction controller sees the NoExecute taint",
		Reads: "node taints-3's opslab.dev/link-down taint and when the API server recorded it; events TaintManagerEviction for link-20s",
		Hints: []string{
			"Take the link of taints-3 down: kubectl taint node taints-3 opslab.dev/link-down=switch-4:NoExecute",
			"Then wait: link-20s leaves by itself about 20 s later. A pod you delete yourself does not count.",
			"To start the experiment again: remove the taint (kubectl taint node taints-3 opslab.dev/link-down-), re-apply pods.yaml, and taint again.",
		},
		Run: checkLink20,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-link-3600s-stays", Points: 1,
		Title: "link-3600s still runs on taints-3 under the link-down taint",
		Claim: "a pod that tolerates a NoExecute taint for 3600 s stays until then",
		Reads: "node taints-3's opslab.dev/link-down taint; pod link-3600s",
		Hints: []string{
			"The link-down taint must be on taints-3 (see the previous check) and link-3600s must still run there.",
		},
		Run: checkLink3600,
	})
	labcheck.Register(labcheck.Check{
		Chapter: 2, ID: "taints-db-value-and-reason", Points: 2,
		Title: "the stateful workload db runs with its own tolerationSeconds and says why",
		Claim: "stateful workloads choose a longer value than the 300 s default, and the choice is written down",
		Reads: "StatefulSet taints-lab/db: its annotation " + ReasonKey + " and rollout; the tolerations of its running pods",
		Hints: []string{
			"Give db's pod template not-ready and unreachable NoExecute tolerations with tolerationSeconds above 300.",
			"Write the reason on the StatefulSet: kubectl annotate statefulset db opslab.dev/toleration-reason='...'",
			"chapters/02-taints/lab/db-patch.yaml is one answer: kubectl patch statefulset db --patch-file it.",
		},
		Run: checkDB,
	})
}

// hms formats a time the way the evidence shows it.
func hms(t time.Time) string { return t.UTC().Format("15:04:05") }

func secs(d time.Duration) string { return fmt.Sprintf("%.0f s", d.Seconds()) }

// getPod returns a pod, or nil when it does not exist.
func getPod(ctx context.Context, k kubernetes.Interface, name string) (*corev1.Pod, error) {
	p, err := k.CoreV1().Pods(Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return p, err
}

// running reports whether a pod runs and is not being deleted.
func running(p *corev1.Pod) bool {
	return p != nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning
}

// nodeTaint finds the taint with key and effect on a node.
func nodeTaint(n *corev1.Node, key string, effect corev1.TaintEffect) (corev1.Taint, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// taintsWritten returns when the API server last recorded a change to the
// node's list of taints, and who made it. The list is atomic, so one
// managedFields entry owns it: the last writer. A taint on the list was
// added at that time or before, so the time is a safe lower bound for
// "how long since the taint": it can only make an interval look shorter.
// kubectl taint sets no timeAdded, which is why the check does not rely on
// it.
func taintsWritten(n *corev1.Node) (time.Time, string, bool) {
	for _, m := range n.ManagedFields {
		if m.FieldsV1 == nil || m.Time == nil {
			continue
		}
		var f struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(m.FieldsV1.Raw, &f) != nil {
			continue
		}
		if _, ok := f.Spec["f:taints"]; ok {
			return m.Time.Time, m.Manager, true
		}
	}
	return time.Time{}, "", false
}

// An eviction is a TaintManagerEviction event for one pod.
type eviction struct {
	at     time.Time
	source string
}

// evictions returns the taint eviction controller's "Marking for deletion"
// events for a pod of the lab, oldest first.
func evictions(ctx context.Context, k kubernetes.Interface, pod string) ([]eviction, error) {
	evs, err := k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "reason=" + evictReason + ",involvedObject.name=" + pod,
	})
	if err != nil {
		return nil, err
	}
	want := "Marking for deletion Pod " + Namespace + "/" + pod
	var out []eviction
	for _, e := range evs.Items {
		if e.Message != want {
			continue
		}
		// The recorder folds a repeated event (same pod, same message) into
		// one object and keeps its first timestamp from earlier runs, even
		// across a namespace deleted and made again: the time of this
		// eviction is the last timestamp.
		at := e.LastTimestamp.Time
		if at.IsZero() {
			at = e.EventTime.Time
		}
		src := e.Source.Component
		if src == "" {
			src = e.ReportingController
		}
		out = append(out, eviction{at: at, source: src})
	}
	slices.SortFunc(out, func(a, b eviction) int { return a.at.Compare(b.at) })
	return out, nil
}

// evictedSince returns the first eviction of a pod at or after since (the
// time the node's taints were recorded), or a message saying why there is
// none: an eviction before since belongs to an earlier experiment.
func evictedSince(ctx context.Context, k kubernetes.Interface, pod string, since, now time.Time) (eviction, string, error) {
	evs, err := evictions(ctx, k, pod)
	if err != nil {
		return eviction{}, "", err
	}
	for _, e := range evs {
		if !e.at.Before(since) {
			return e, "", nil
		}
	}
	if len(evs) > 0 {
		last := evs[len(evs)-1]
		return eviction{}, fmt.Sprintf("%s is gone, but its last %s event (%s) is older than the node's current taints (%s): that eviction was an earlier experiment's, and this time the pod went another way (deleted by hand?)",
			pod, evictReason, hms(last.at), hms(since)), nil
	}
	return eviction{}, goneWithoutEvent(pod, since, now), nil
}

// goneWithoutEvent explains a pod that is gone with no eviction event.
func goneWithoutEvent(pod string, since time.Time, now time.Time) string {
	msg := fmt.Sprintf("%s is gone, but no %s event names it: it was not removed by the taint eviction controller (deleted by hand?)", pod, evictReason)
	if !since.IsZero() && now.Sub(since) > eventTTL {
		msg += fmt.Sprintf("; or the event has expired: events live %v and the taint is %v old, so redo the experiment", eventTTL, now.Sub(since).Round(time.Minute))
	}
	return msg
}

func checkControl(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	p, err := getPod(ctx, c.Kube, "control")
	if err != nil {
		return labcheck.Result{}, err
	}
	if p == nil {
		return labcheck.Failf("there is no pod control in namespace %s: apply the lab's pods first", Namespace), nil
	}
	var r labcheck.Result
	r.Seen("pod control runs on %s, phase %s", p.Spec.NodeName, p.Status.Phase)
	if p.Spec.NodeName != "taints-1" {
		r.Message = fmt.Sprintf("control runs on %q, not on the control node taints-1", p.Spec.NodeName)
		return r, nil
	}
	// What the learner applied, when kubectl apply recorded it.
	var manifest []taints.Toleration
	if last, ok := p.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok {
		var applied corev1.Pod
		if err := json.Unmarshal([]byte(last), &applied); err == nil {
			manifest = apiconv.Tolerations(applied.Spec.Tolerations)
			r.Seen("its manifest (last-applied-configuration) has %d tolerations", len(manifest))
		}
	}
	have := apiconv.Tolerations(p.Spec.Tolerations)
	for _, t := range have {
		r.Seen("toleration %s", t)
	}
	if len(manifest) > 0 {
		r.Message = "control's manifest writes its own tolerations; the control pod must write none, so that what it carries is admission's"
		return r, nil
	}
	want := taints.AdmitDefaults(nil, taints.DefaultTolerationSeconds)
	for _, w := range want {
		if !slices.ContainsFunc(have, func(t taints.Toleration) bool { return sameToleration(t, w) }) {
			r.Message = fmt.Sprintf("control lacks the default toleration %s; was the DefaultTolerationSeconds admission plugin turned off?", w)
			return r, nil
		}
	}
	for _, key := range []string{taints.KeyNotReady, taints.KeyUnreachable} {
		v := taints.Evict([]taints.Taint{{Key: key, Effect: taints.NoExecute}}, have)
		r.Seen("under %s:NoExecute it would leave %s", key, v.Leave)
	}
	r.Pass = true
	r.Message = "control wrote no toleration, yet carries not-ready and unreachable NoExecute tolerations of 300 s: admission added them"
	return r, nil
}

func sameToleration(a, b taints.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		(a.Seconds == nil) == (b.Seconds == nil) && (a.Seconds == nil || *a.Seconds == *b.Seconds)
}

// The scheduler's name and the reason of the event it writes when it binds
// a pod to a node.
const (
	schedulerName   = "default-scheduler"
	scheduledReason = "Scheduled"
)

// scheduledAt returns when the scheduler bound pod p, from its Scheduled
// event ("Successfully assigned taints-lab/p to node"), matched to this pod
// by UID so that an earlier pod of the same name does not count. A pod
// created with spec.nodeName has no such event: nobody bound it.
func scheduledAt(ctx context.Context, k kubernetes.Interface, p *corev1.Pod) (time.Time, bool, error) {
	evs, err := k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "reason=" + scheduledReason + ",involvedObject.name=" + p.Name,
	})
	if err != nil {
		return time.Time{}, false, err
	}
	want := "Successfully assigned " + Namespace + "/" + p.Name + " to " + p.Spec.NodeName
	for _, e := range evs.Items {
		if e.Reason != scheduledReason || e.InvolvedObject.Name != p.Name || e.InvolvedObject.UID != p.UID || e.Message != want {
			continue
		}
		if e.ReportingController != schedulerName && e.Source.Component != schedulerName {
			continue
		}
		// The scheduler writes events.k8s.io events: eventTime is set and
		// the old timestamps may not be.
		for _, at := range []time.Time{e.EventTime.Time, e.FirstTimestamp.Time, e.CreationTimestamp.Time} {
			if !at.IsZero() {
				return at, true, nil
			}
		}
	}
	return time.Time{}, false, nil
}

func checkNoSchedule(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	n, err := c.Kube.CoreV1().Nodes().Get(ctx, "taints-2", metav1.GetOptions{})
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	var ns []taints.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			ns = append(ns, apiconv.Taint(t))
		}
	}
	if len(ns) == 0 {
		r.Message = "taints-2 has no NoSchedule taint yet"
		return r, nil
	}
	for _, t := range ns {
		r.Seen("taints-2 has taint %s", t)
	}
	written, manager, ok := taintsWritten(n)
	if ok {
		r.Seen("its taints were last changed at %s by %s", hms(written), manager)
	}
	pods, err := c.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=taints-2"})
	if err != nil {
		return labcheck.Result{}, err
	}
	var survivors []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if !running(p) || p.Spec.NodeName != "taints-2" {
			continue
		}
		tols := apiconv.Tolerations(p.Spec.Tolerations)
		var untolerated []string
		for _, t := range ns {
			if !slices.ContainsFunc(tols, func(tol taints.Toleration) bool { return tol.Tolerates(t) }) {
				untolerated = append(untolerated, t.String())
			}
		}
		if len(untolerated) == 0 {
			r.Seen("pod %s tolerates every NoSchedule taint of taints-2, so it proves nothing", p.Name)
			continue
		}
		// The scheduler would not place a pod on a node whose NoSchedule
		// taint it does not tolerate, but a pod created with spec.nodeName
		// never meets the scheduler. So the evidence is who bound the pod
		// and when: the scheduler's Scheduled event for this very pod (its
		// UID), at or before the moment the taints were recorded.
		bound, found, err := scheduledAt(ctx, c.Kube, p)
		if err != nil {
			return labcheck.Result{}, err
		}
		if !found {
			msg := fmt.Sprintf("pod %s has no %s event from %s: it was not placed by the scheduler (created with spec.nodeName?), so it proves nothing about NoSchedule", p.Name, scheduledReason, schedulerName)
			if time.Since(p.CreationTimestamp.Time) > eventTTL {
				msg += fmt.Sprintf("; or the event has expired: events live %v and the pod is %v old, so apply the lab's pods again", eventTTL, time.Since(p.CreationTimestamp.Time).Round(time.Minute))
			}
			r.Seen("%s", msg)
			continue
		}
		r.Seen("pod %s was bound to taints-2 by %s at %s", p.Name, schedulerName, hms(bound))
		// managedFields keep whole seconds: compare in whole seconds.
		if !ok || bound.Truncate(time.Second).After(written) {
			r.Seen("pod %s was bound after the taints changed, so it proves nothing about running pods", p.Name)
			continue
		}
		r.Seen("pod %s does not tolerate %s and still runs", p.Name, strings.Join(untolerated, ", "))
		survivors = append(survivors, p.Name)
	}
	if len(survivors) == 0 {
		r.Message = "no pod of taints-lab runs on taints-2 without tolerating its NoSchedule taint; apply the lab's pods before you taint the node"
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("%s kept running on taints-2 under a NoSchedule taint it does not tolerate: NoSchedule only keeps new pods off", strings.Join(survivors, " and "))
	return r, nil
}

func checkTwins(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	n, err := c.Kube.CoreV1().Nodes().Get(ctx, "taints-2", metav1.GetOptions{})
	if err != nil {
		return labcheck.Result{}, err
	}
	var r labcheck.Result
	taint, ok := nodeTaint(n, MaintKey, corev1.TaintEffectNoExecute)
	if !ok {
		r.Message = "taints-2 has no " + MaintKey + " NoExecute taint"
		return r, nil
	}
	r.Seen("taints-2 has taint %s", apiconv.Taint(taint))
	written, _, _ := taintsWritten(n)
	forever, err := getPod(ctx, c.Kube, "twin-forever")
	if err != nil {
		return r, err
	}
	if !running(forever) || forever.Spec.NodeName != "taints-2" {
		r.Message = "twin-forever does not run on taints-2: it tolerates the taint without seconds and should have stayed"
		return r, nil
	}
	r.Seen("twin-forever still runs on taints-2")
	zero, err := getPod(ctx, c.Kube, "twin-0s")
	if err != nil {
		return r, err
	}
	if zero != nil && zero.DeletionTimestamp == nil {
		r.Message = "twin-0s is still there; with tolerationSeconds 0 it should have left at once"
		return r, nil
	}
	e, why, err := evictedSince(ctx, c.Kube, "twin-0s", written, time.Now())
	if err != nil || why != "" {
		r.Message = why
		return r, err
	}
	r.Seen("event %s for twin-0s at %s from %s", evictReason, hms(e.at), e.source)
	r.Pass = true
	r.Message = "the taint eviction controller removed twin-0s (tolerationSeconds 0) and left twin-forever (no tolerationSeconds)"
	return r, nil
}

// linkTaint reads taints-3's link-down taint and when it was recorded.
func linkTaint(ctx context.Context, c *labcheck.Cluster, r *labcheck.Result) (taints.Taint, time.Time, bool, error) {
	n, err := c.Kube.CoreV1().Nodes().Get(ctx, "taints-3", metav1.GetOptions{})
	if err != nil {
		return taints.Taint{}, time.Time{}, false, err
	}
	t, ok := nodeTaint(n, LinkKey, corev1.TaintEffectNoExecute)
	if !ok {
		r.Message = "taints-3 has no " + LinkKey + " NoExecute taint: take its link down with kubectl taint"
		return taints.Taint{}, time.Time{}, false, nil
	}
	written, manager, ok := taintsWritten(n)
	if !ok {
		r.Message = "the API server kept no record of when the taints of taints-3 changed (managedFields), so the timing cannot be read"
		return taints.Taint{}, time.Time{}, false, nil
	}
	taint := apiconv.Taint(t)
	if t.TimeAdded != nil {
		r.Seen("taints-3 has taint %s, timeAdded %s", taint, hms(t.TimeAdded.Time))
	} else {
		r.Seen("taints-3 has taint %s (kubectl taint writes no timeAdded)", taint)
	}
	r.Seen("the API server recorded the taints of taints-3 last changed at %s, by %s: the taint was there by then", hms(written), manager)
	return taint, written, true, nil
}

func checkLink20(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	var r labcheck.Result
	_, written, ok, err := linkTaint(ctx, c, &r)
	if err != nil || !ok {
		return r, err
	}
	now := time.Now()
	p, err := getPod(ctx, c.Kube, "link-20s")
	if err != nil {
		return r, err
	}
	if p != nil && p.DeletionTimestamp == nil {
		r.Message = fmt.Sprintf("link-20s is still there, %s after the taint", secs(now.Sub(written)))
		return r, nil
	}
	e, why, err := evictedSince(ctx, c.Kube, "link-20s", written, now)
	if err != nil || why != "" {
		r.Message = why
		return r, err
	}
	r.Seen("event %s \"Marking for deletion Pod %s/link-20s\" at %s from %s", evictReason, Namespace, hms(e.at), e.source)
	gap := e.at.Sub(written)
	r.Seen("timeline: taint by %s, eviction at %s: %s later (the API's clocks count whole seconds)", hms(written), hms(e.at), secs(gap))
	if gap < 20*time.Second {
		r.Message = fmt.Sprintf("link-20s was evicted %s after the taint, earlier than its 20 s: was its tolerationSeconds changed?", secs(gap))
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("the taint eviction controller removed link-20s %s after the link-down taint, no earlier than its 20 s", secs(gap))
	return r, nil
}

func checkLink3600(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	var r labcheck.Result
	taint, written, ok, err := linkTaint(ctx, c, &r)
	if err != nil || !ok {
		return r, err
	}
	p, err := getPod(ctx, c.Kube, "link-3600s")
	if err != nil {
		return r, err
	}
	age := time.Since(written)
	if !running(p) || p.Spec.NodeName != "taints-3" {
		why := "is gone"
		if p != nil {
			why = fmt.Sprintf("is %s on %q", p.Status.Phase, p.Spec.NodeName)
			if p.DeletionTimestamp != nil {
				why = "is being deleted"
			}
		}
		r.Message = fmt.Sprintf("link-3600s %s, %s after the taint", why, secs(age))
		if age > time.Hour {
			r.Message += ": its hour is over, so redo the experiment"
		}
		return r, nil
	}
	v := taints.Evict([]taints.Taint{taint}, apiconv.Tolerations(p.Spec.Tolerations))
	r.Seen("link-3600s runs on taints-3 %s after the taint; by its tolerations it leaves %s", secs(age), v.Leave)
	if v.Leave.Kind != taints.After || v.Leave.After <= age {
		r.Message = fmt.Sprintf("link-3600s should leave %s, yet %s have passed: is it the lab's pod?", v.Leave, secs(age))
		return r, nil
	}
	r.Pass = true
	r.Message = fmt.Sprintf("link-3600s still runs %s into its 3600 s", secs(age))
	return r, nil
}

func checkDB(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	var r labcheck.Result
	sts, err := c.Kube.AppsV1().StatefulSets(Namespace).Get(ctx, "db", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return labcheck.Failf("there is no StatefulSet db in %s: apply chapters/02-taints/lab/db.yaml", Namespace), nil
	}
	if err != nil {
		return r, err
	}
	reason := strings.TrimSpace(sts.Annotations[ReasonKey])
	if reason == "" {
		r.Message = "db has no " + ReasonKey + " annotation: write down why it has its value"
	} else {
		r.Seen("db says why: %q", reason)
	}
	if sts.Status.UpdateRevision != sts.Status.CurrentRevision || sts.Status.ReadyReplicas < 1 {
		r.Seen("rollout: current %s, update %s, %d ready", sts.Status.CurrentRevision, sts.Status.UpdateRevision, sts.Status.ReadyReplicas)
		if r.Message == "" {
			r.Message = "db's rollout has not finished: its pods do not run its current template yet"
		}
		return r, nil
	}
	p, err := getPod(ctx, c.Kube, "db-0")
	if err != nil {
		return r, err
	}
	if !running(p) {
		if r.Message == "" {
			r.Message = "db-0 does not run"
		}
		return r, nil
	}
	tols := apiconv.Tolerations(p.Spec.Tolerations)
	var short []string
	for _, key := range []string{taints.KeyNotReady, taints.KeyUnreachable} {
		v := taints.Evict([]taints.Taint{{Key: key, Effect: taints.NoExecute}}, tols)
		r.Seen("db-0 on a %s node leaves %s", strings.TrimPrefix(key, "node.kubernetes.io/"), v.Leave)
		if v.Leave.Kind != taints.After || v.Leave.After <= taints.DefaultTolerationSeconds*time.Second {
			short = append(short, fmt.Sprintf("%s: %s", key, v.Leave))
		}
	}
	if len(short) > 0 {
		if r.Message == "" {
			r.Message = fmt.Sprintf("db-0 does not wait longer than the default 300 s (%s): a stateful pod gets a longer, finite value", strings.Join(short, "; "))
		}
		return r, nil
	}
	if r.Message != "" {
		return r, nil
	}
	r.Pass = true
	r.Message = "db's pod waits longer than 300 s on a not-ready or unreachable node, and the StatefulSet says why"
	return r, nil
}
