// Package check holds the lab checks of chapter 2 (taints,
// tolerations and NoExecute). They read what happened in namespace
// taints-lab on nodes taints-1..3 since the namespace was made, from the
// API server's audit log when it can be read: who deleted each pod and
// when (the taint eviction controller under its own name, so many seconds
// after a person changed the node's taints), who bound each pod (the
// scheduler, or nobody: a pod created with spec.nodeName), who wrote each
// event, and who changed a pod after creating it. Without the log they
// judge from the best the API keeps, and say so in their evidence: events
// counted only when the server recorded their writer as the component they
// name and no date of theirs is in the future, times the server stamped
// itself (managedFields), and which client sent which field of a pod. They
// never change the cluster and never wait for an experiment to happen
// again.
//
// The judging is done by pure functions of what was read (judge.go,
// evidence.go, reason.go), so that every case can be tested without a
// cluster; the cheat tests (cheat_e2e_test.go) build on the real cluster
// the final picture of each check without its behaviour, and see it fail.
//
// The zone-outage lab's checks (outage.go) read another cluster, the scale
// cluster beside the learner's (its context is the learner's with
// "-scale"): from its audit log, which keeps the request of every node
// write, the lab nodes' Ready timeline and the NoExecute taints the node
// lifecycle controller put on and took off under its own name, judged
// against the controller's settings read from the cluster's configuration
// (outage_evidence.go, outage_judge.go).
//
// Checks returns them; the course's list of chapters, package chapters,
// gives them to labcheck.
package check

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

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

// Checks returns the chapter's checks, in the order a learner meets them:
// the lab's steps, the timetable the learner wrote, then the zone-outage
// lab on its own cluster (outage.go).
func Checks() []labcheck.Check {
	return slices.Concat(labChecks(), timetableChecks(), outageChecks())
}

func labChecks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID: "taints-cache-defaults", Points: 1,
			Title: "the cache's pod, whose template writes no toleration, carries the tolerations admission added",
			Claim: "admission adds not-ready and unreachable NoExecute tolerations of 300 s to every pod that lacks them",
			Reads: "Deployment taints-lab/cache and its template; its pods, their owner, node and tolerations, and which fields each client sent (managedFields); the audit log: who created each pod and any later change by a person",
			Hints: []string{
				"Apply the lab's namespace, wait for its default service account, then the workloads: the three commands are at the top of the lab's steps.",
				"cache must run on taints-1 as pods.yaml writes it, with no toleration in its template, and its pod must be the one its ReplicaSet made, left alone: the check reads which client sent which field.",
			},
			Run: checkCache,
		},
		{
			ID: "taints-noschedule-evicted-nothing", Points: 1,
			Title: "a NoSchedule taint on taints-2 removed none of its running pods",
			Claim: "NoSchedule only stops new placements; running pods stay",
			Reads: "node taints-2's taints; the pods of taints-lab on taints-2 and who bound each (the audit log's bindings, or without it the scheduler's Scheduled events and who wrote spec.nodeName)",
			Hints: []string{
				"Announce the maintenance of taints-2 with a NoSchedule taint: kubectl taint node taints-2 opslab.dev/maintenance=firmware:NoSchedule",
				"queue tolerates opslab.dev/maintenance only for NoExecute, so the NoSchedule taint is not tolerated: watch it keep running.",
				"The pods must be placed by the scheduler before the taint (pods.yaml's nodeSelector), not created with spec.nodeName.",
			},
			Run: checkNoSchedule,
		},
		{
			ID: "taints-maintenance-removed-queue", Points: 1,
			Title: "the firmware maintenance of taints-2 removed queue and kept agent",
			Claim: "a NoExecute taint no toleration of the pod matches removes it at once; a NoExecute toleration with no key and no seconds keeps it for good",
			Reads: "node taints-2's NoExecute taint; pod agent; the audit log: who deleted queue and how long after the last change to taints-2, and who bound the two pods (without it, the taint eviction controller's and the scheduler's events and the times the server recorded)",
			Hints: []string{
				"Start the maintenance: kubectl taint node taints-2 opslab.dev/maintenance=firmware:NoExecute",
				"queue tolerates opslab.dev/maintenance=kernel only, so a firmware maintenance removes it; a kernel one would not. Do not delete the pods yourself: the check looks for the taint eviction controller's own deletion.",
			},
			Run: checkMaintenance,
		},
		{
			ID: "taints-dispatcher-evicted", Points: 2,
			Title: "the switch reboot removed dispatcher, by the controller, 30 s after the taint",
			Claim: "with tolerationSeconds 30 a pod leaves 30 s after the taint eviction controller sees the NoExecute taint",
			Reads: "node taints-3's opslab.dev/link-down taint; the audit log: who bound and who deleted dispatcher, and how long after the last change to taints-3 (without it, the controller's and the scheduler's events and the times the server recorded for them and for the node's taints)",
			Hints: []string{
				"Reboot the switch of taints-3: kubectl taint node taints-3 opslab.dev/link-down=rack-switch:NoExecute",
				"Then wait, and change nothing on taints-3 meanwhile: dispatcher leaves by itself about 30 s later. A pod you delete yourself does not count.",
				"To start the experiment again: remove the taint (kubectl taint node taints-3 opslab.dev/link-down-), re-apply pods.yaml, and taint again.",
			},
			Run: checkDispatcher,
		},
		{
			ID: "taints-session-stays", Points: 1,
			Title: "session rides out the switch reboot on taints-3 for its 600 s",
			Claim: "a pod that tolerates a NoExecute taint for 600 s stays until then",
			Reads: "node taints-3's opslab.dev/link-down taint and when it last changed; pod session and who bound it; once it is gone, who deleted it and when (as for dispatcher)",
			Hints: []string{
				"The link-down taint must be on taints-3 (see the previous check) and session, placed there by the scheduler, must still run there, or have been removed by the controller 600 s after the taint.",
				"It shows something once it has outlasted dispatcher: check again when dispatcher has gone.",
			},
			Run: checkSession,
		},
		{
			ID: "taints-db-value-and-reason", Points: 2,
			Title: "the stateful workload db runs with its own tolerationSeconds and says why",
			Claim: "stateful workloads choose a longer value than the 300 s default, and the choice is written down",
			Reads: "StatefulSet taints-lab/db: its template's tolerations, its annotation " + ReasonKey + " (shown for a person to read; a program checks only that it names the value), its rollout and the ControllerRevision of its current template; pod db-0: its owner, revision, tolerations and age, and who made and changed it (the audit log, or its managedFields)",
			Hints: []string{
				"db is the StatefulSet of chapters/02-taints/lab/db.yaml: give its pod template not-ready and unreachable NoExecute tolerations with tolerationSeconds above 300, then wait for db-0 to be made again: kubectl -n taints-lab rollout status statefulset/db",
				"Write the reason on the StatefulSet, with the value it explains: kubectl -n taints-lab annotate --overwrite statefulset db opslab.dev/toleration-reason='what a move costs db, or what the wait rides out; so it waits N s'",
				"chapters/02-taints/lab/db-patch.yaml is one answer: kubectl -n taints-lab patch statefulset db --patch-file chapters/02-taints/lab/db-patch.yaml",
			},
			Run: checkDB,
		},
	}
}

// readLab reads when the lab began and the audit log since then. found is
// false when there is no lab namespace.
func readLab(ctx context.Context, c *labcheck.Cluster) (l lab, found bool, err error) {
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return lab{}, false, nil
	}
	if err != nil {
		return lab{}, false, err
	}
	l.start = ns.CreationTimestamp.Time
	l.now = serverNow(ctx, c)
	log := c.Audit()
	l.advice = c.AuditAdvice()
	switch {
	case log == nil:
		l.noLog = c.NoAudit
		if l.noLog == "" {
			l.noLog = "none was named"
		}
	case !log.Covers(l.start):
		l.noLog = fmt.Sprintf("the audit log %s begins after namespace %s was made at %s", log.Path, Namespace, hms(l.start))
	default:
		l.hasLog = true
		l.log = labEvents(log, l.start)
	}
	return l, true, nil
}

// noLab is the failure of every check when the lab's namespace is missing.
func noLab() labcheck.Result {
	return labcheck.Failf("there is no namespace %s: apply the lab's namespace and pods first", Namespace)
}

// serverNow reads the API server's clock from the Date of an answer, so
// that a date set on the learner's machine is judged against the server's.
// Without a connection (tests) it is this machine's clock.
func serverNow(ctx context.Context, c *labcheck.Cluster) time.Time {
	if c.Config == nil {
		return time.Now()
	}
	hc, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		return time.Now()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.Config.Host, "/")+"/version", nil)
	if err != nil {
		return time.Now()
	}
	resp, err := hc.Do(req)
	if err != nil {
		return time.Now()
	}
	resp.Body.Close()
	t, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return time.Now()
	}
	return t
}

// getPod returns a pod, or nil when it does not exist.
func getPod(ctx context.Context, k kubernetes.Interface, name string) (*corev1.Pod, error) {
	p, err := k.CoreV1().Pods(Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return p, err
}

func getNode(ctx context.Context, k kubernetes.Interface, name string) (*corev1.Node, error) {
	return k.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}

// labEventsAPI lists the lab's Event objects.
func labEventsAPI(ctx context.Context, k kubernetes.Interface) ([]corev1.Event, error) {
	evs, err := k.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return evs.Items, nil
}

func checkCache(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	in := cacheInput{owners: map[string]*appsv1.ReplicaSet{}}
	switch d, err := c.Kube.AppsV1().Deployments(Namespace).Get(ctx, "cache", metav1.GetOptions{}); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return labcheck.Result{}, err
	default:
		in.deployment = d
	}
	pods, err := c.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=cache"})
	if err != nil {
		return labcheck.Result{}, err
	}
	in.pods = pods.Items
	for _, p := range pods.Items {
		ref := metav1.GetControllerOf(&p)
		if ref == nil || ref.Kind != "ReplicaSet" || in.owners[ref.Name] != nil {
			continue
		}
		switch rs, err := c.Kube.AppsV1().ReplicaSets(Namespace).Get(ctx, ref.Name, metav1.GetOptions{}); {
		case apierrors.IsNotFound(err):
		case err != nil:
			return labcheck.Result{}, err
		default:
			in.owners[ref.Name] = rs
		}
	}
	return judgeCache(l, in), nil
}

func checkNoSchedule(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	n, err := getNode(ctx, c.Kube, "taints-2")
	if err != nil {
		return labcheck.Result{}, err
	}
	pods, err := c.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=taints-2"})
	if err != nil {
		return labcheck.Result{}, err
	}
	evs, err := labEventsAPI(ctx, c.Kube)
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgeNoSchedule(l, noScheduleInput{node: n, pods: pods.Items, events: evs}), nil
}

func checkMaintenance(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	in := maintenanceInput{}
	if in.node, err = getNode(ctx, c.Kube, "taints-2"); err != nil {
		return labcheck.Result{}, err
	}
	if in.agent, err = getPod(ctx, c.Kube, "agent"); err != nil {
		return labcheck.Result{}, err
	}
	if in.queue, err = getPod(ctx, c.Kube, "queue"); err != nil {
		return labcheck.Result{}, err
	}
	if in.events, err = labEventsAPI(ctx, c.Kube); err != nil {
		return labcheck.Result{}, err
	}
	return judgeMaintenance(l, in), nil
}

func readLink(ctx context.Context, c *labcheck.Cluster, pod string) (linkInput, error) {
	var in linkInput
	var err error
	if in.node, err = getNode(ctx, c.Kube, "taints-3"); err != nil {
		return in, err
	}
	if in.pod, err = getPod(ctx, c.Kube, pod); err != nil {
		return in, err
	}
	in.events, err = labEventsAPI(ctx, c.Kube)
	return in, err
}

func checkDispatcher(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	in, err := readLink(ctx, c, "dispatcher")
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgeDispatcher(l, in), nil
}

func checkSession(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	in, err := readLink(ctx, c, "session")
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgeSession(l, in), nil
}

func checkDB(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	var sts *appsv1.StatefulSet
	switch s, err := c.Kube.AppsV1().StatefulSets(Namespace).Get(ctx, "db", metav1.GetOptions{}); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return labcheck.Result{}, err
	default:
		sts = s
	}
	p, err := getPod(ctx, c.Kube, "db-0")
	if err != nil {
		return labcheck.Result{}, err
	}
	var rev *appsv1.ControllerRevision
	if sts != nil && sts.Status.UpdateRevision != "" {
		switch cr, err := c.Kube.AppsV1().ControllerRevisions(Namespace).Get(ctx, sts.Status.UpdateRevision, metav1.GetOptions{}); {
		case apierrors.IsNotFound(err):
		case err != nil:
			return labcheck.Result{}, err
		default:
			rev = cr
		}
	}
	return judgeDB(l, sts, p, rev), nil
}
