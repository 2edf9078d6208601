package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// MyTimetable is the ConfigMap of taints-lab where the learner records the
// output of the timetable they wrote: data "taint" (key[=value]:Effect),
// optional "node", and "out", one "POD LEAVES" line per pod.
const MyTimetable = "my-timetable"

func timetableChecks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID: "taints-my-timetable", Points: 2,
			Title: "your own timetable agrees with the chapter's",
			Claim: "the rule of the taint eviction controller fits in a small program: first matching toleration, then its seconds",
			Reads: "ConfigMap taints-lab/" + MyTimetable + " (taint, node, out): the output, not who wrote the program that printed it; the pods of taints-lab, their tolerations, and who placed them (the audit log's bindings, or without it who wrote spec.nodeName); the audit log's deletions by the taint eviction controller since the ConfigMap was written, whose pods' lines are not compared",
			Hints: []string{
				"Write a program that lists the pods of taints-lab and prints, for a NoExecute taint, one line per pod on a node: POD now, POD after Ns or POD never, soonest first, ties by name.",
				"Record a run: kubectl -n taints-lab create configmap " + MyTimetable + " --from-literal=taint=node.kubernetes.io/unreachable:NoExecute --from-file=out=<(your-program node.kubernetes.io/unreachable:NoExecute)",
				"Pods change as the lab goes on: run your program again and replace the ConfigMap: kubectl -n taints-lab create configmap " + MyTimetable + " --from-literal=taint=node.kubernetes.io/unreachable:NoExecute --from-file=out=<(your-program node.kubernetes.io/unreachable:NoExecute) --dry-run=client -o yaml | kubectl replace -f -",
			},
			Run: checkMyTimetable,
		},
	}
}

// TimetableLines writes a timetable as the lab's exercise asks: one
// "POD LEAVES" line per row, in the timetable's order.
func TimetableLines(rows []taints.Row) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s %s\n", r.Pod.Name, r.Verdict.Leave)
	}
	return b.String()
}

func checkMyTimetable(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	l, found, err := readLab(ctx, c)
	if err != nil || !found {
		return noLab(), err
	}
	cm, err := c.Kube.CoreV1().ConfigMaps(Namespace).Get(ctx, MyTimetable, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = nil, nil
	}
	if err != nil {
		return labcheck.Result{}, err
	}
	list, err := c.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return labcheck.Result{}, err
	}
	return judgeMyTimetable(l, cm, list.Items), nil
}

// leftSince returns, by the audit log, the pods of taints-lab the taint
// eviction controller deleted after the learner last wrote ConfigMap
// my-timetable, and when. Such a pod was rightly in the recorded
// timetable and has left since on the controller's own clock (session, 600
// s after the link-down taint of step 5, may go after step 7 is recorded).
// Without a log nobody can say who removed a pod: none.
func leftSince(l lab) map[string]time.Time {
	if !l.hasLog {
		return nil
	}
	var recorded time.Time
	for _, e := range l.log {
		if e.Namespace == Namespace && e.Name == MyTimetable && e.OK() && (e.Is("create", "configmaps") || e.Resource == "configmaps" && isWrite(e)) {
			recorded = e.Received
		}
	}
	if recorded.IsZero() {
		return nil
	}
	left := map[string]time.Time{}
	for _, e := range l.log {
		if e.Is("delete", "pods") && e.Namespace == Namespace && e.OK() && byTaintEviction(e) && e.Received.After(recorded) {
			left[e.Name] = e.Received
		}
	}
	return left
}

// judgeMyTimetable compares the learner's recorded timetable with the
// chapter's for the same taint on the lab's pods as they are now, less a
// recorded line for a pod the taint eviction controller has removed since
// the recording (leftSince): the lab went on, not the learner. The pods
// must be the lab's, placed by the scheduler: a namespace of pods put on
// nodes by hand is a timetable of the learner's own making. It judges
// output, not authorship: what the course's own lab/mytimetable prints
// passes as well as the learner's program, and the report says so.
func judgeMyTimetable(l lab, cm *corev1.ConfigMap, list []corev1.Pod) labcheck.Result {
	if cm == nil {
		return labcheck.Failf("there is no ConfigMap %s in %s: record your program's output there", MyTimetable, Namespace)
	}
	var r labcheck.Result
	taint, err := taints.ParseTaint(strings.TrimSpace(cm.Data["taint"]))
	if err != nil {
		r.Message = fmt.Sprintf("%s's taint: %v", MyTimetable, err)
		return r
	}
	if taint.Effect != taints.NoExecute {
		r.Message = fmt.Sprintf("%s's taint %s is not NoExecute: nobody leaves, so there is nothing to time", MyTimetable, taint)
		return r
	}
	node := strings.TrimSpace(cm.Data["node"])
	r.Seen("%s: taint %s, node %q", MyTimetable, taint, node)
	if !l.hasLog {
		r.Seen("%s", l.withoutLog("the pods' managedFields (who wrote spec.nodeName)"))
	}
	var pods []taints.Pod
	for i := range list {
		p := &list[i]
		if p.DeletionTimestamp != nil || p.Spec.NodeName == "" || (node != "" && p.Spec.NodeName != node) {
			continue
		}
		if why := placedByScheduler(l, p); why != "" {
			r.Message = why + "; time the lab's own pods, which the scheduler placed"
			return r
		}
		pods = append(pods, kube.Pod(p))
	}
	rows := taints.Timetable(pods, []taints.Taint{taint})
	kinds := map[taints.Kind]bool{}
	for _, row := range rows {
		kinds[row.Verdict.Leave.Kind] = true
	}
	if len(kinds) < 2 {
		r.Message = fmt.Sprintf("under %s every pod of %s leaves the same way; pick a taint that tells them apart (node.kubernetes.io/unreachable:NoExecute does)", taint, Namespace)
		return r
	}
	want := strings.Split(strings.TrimSuffix(TimetableLines(rows), "\n"), "\n")
	got := strings.Split(strings.TrimSpace(strings.ReplaceAll(cm.Data["out"], "\r\n", "\n")), "\n")
	here := map[string]bool{}
	for _, p := range pods {
		here[p.Name] = true
	}
	left := leftSince(l)
	got = slices.DeleteFunc(got, func(line string) bool {
		f := strings.Fields(line)
		if len(f) == 0 || here[f[0]] {
			return false
		}
		at, ok := left[f[0]]
		if ok {
			r.Seen("%q: %s has left since you recorded it, deleted by the taint eviction controller at %s; not compared", strings.Join(f, " "), f[0], hms(at))
		}
		return ok
	})
	for i := range max(len(want), len(got)) {
		w, g := "(nothing)", "(nothing)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = strings.Join(strings.Fields(got[i]), " ")
		}
		if w != g {
			r.Message = fmt.Sprintf("line %d of your timetable is %q; the chapter's timetable says %q", i+1, g, w)
			return r
		}
	}
	r.Seen("%d lines agree, from %q to %q", len(want), want[0], want[len(want)-1])
	r.Seen("what was judged: the output recorded in %s, not who wrote the program that printed it", MyTimetable)
	r.Pass = true
	r.Message = fmt.Sprintf("the timetable recorded in %s for %s agrees with the chapter's, line for line (%d pods); this judges the output, not its authorship: the course's own lab/mytimetable prints the same", MyTimetable, taint, len(want))
	return r
}

// placedByScheduler says why a pod on a node was not placed by the
// scheduler, or "" when it was: the audit log's binding, or without it
// no client wrote its spec.nodeName. (The Scheduled event is not asked for
// here: it lives an hour, and the exercise may come later.)
func placedByScheduler(l lab, p *corev1.Pod) string {
	if l.hasLog {
		life := lifeOf(l.log, p.Name)
		if life.created == nil && metav1.GetControllerOf(p) != nil {
			// A controller's pod: its create has no name in the log
			// (generateName), its binding has.
			life.created = &audit.Event{}
			life.bound = boundOf(l.log, p.Name)
		}
		_, why := life.placed()
		return why
	}
	if m, ok := placedByHand(p); ok {
		return fmt.Sprintf("%s was placed by hand: its spec.nodeName was written by %s", p.Name, m)
	}
	return ""
}
