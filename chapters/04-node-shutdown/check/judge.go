package check

import (
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	corev1 "k8s.io/api/core/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/kube"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
)

// What the lab asks of the graceful-shutdown configuration.
const (
	// DatabasePriority is the priority the lab gives the database's pods.
	DatabasePriority int32 = 100000
	// SystemNodeCritical is the priority of system-node-critical pods.
	SystemNodeCritical = shutdown.CriticalPriority + 1000
	wantRegular        = 20 * time.Second
	wantDatabase       = 30 * time.Second
	wantCritical       = 10 * time.Second
)

// nodeLogind is logind's configuration on the lab's nodes: Debian's
// logind.conf with every line commented out, and unattended-upgrades' drop-in.
func nodeLogind() []shutdown.LogindFile {
	return []shutdown.LogindFile{
		{Layer: shutdown.Etc, Name: "logind.conf", Content: "[Login]\n#InhibitDelayMaxSec=5\n"},
		{Layer: shutdown.Lib, Name: "unattended-upgrades-logind-maxdelay.conf", Content: "[Login]\nInhibitDelayMaxSec=30\n"},
	}
}

// judgeConfig validates the kubelet-shutdown ConfigMap's data with the model:
// kubelet.yaml must be accepted, use priorities, give regular pods, the
// database and system-node-critical pods their time in that order, and fit
// logind's delay on the lab's nodes once the learner's drop-ins ("*.conf" keys)
// and masks ("masked", one name per line) are in place.
func judgeConfig(data map[string]string) labcheck.Result {
	raw, ok := data["kubelet.yaml"]
	if !ok {
		return labcheck.Failf("ConfigMap kubelet-shutdown has no key kubelet.yaml")
	}
	var kc kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict([]byte(raw), &kc); err != nil {
		return labcheck.Failf("kubelet.yaml is not a KubeletConfiguration: %v", err)
	}
	if kc.Kind != "KubeletConfiguration" || kc.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		return labcheck.Failf("kubelet.yaml has kind %q, apiVersion %q; want KubeletConfiguration, kubelet.config.k8s.io/v1beta1", kc.Kind, kc.APIVersion)
	}
	cfg, err := kube.Validate(&kc)
	if err != nil {
		return labcheck.Failf("the kubelet refuses kubelet.yaml: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if !cfg.Enabled {
		return labcheck.Failf("kubelet.yaml leaves graceful node shutdown off: both periods are 0 and there is no shutdownGracePeriodByPodPriority")
	}
	if !cfg.ByPriority {
		return labcheck.Failf("kubelet.yaml uses shutdownGracePeriod/shutdownGracePeriodCriticalPods; the lab asks for shutdownGracePeriodByPodPriority so the database ends after the application")
	}
	var r labcheck.Result
	type ask struct {
		who      string
		priority int32
		want     time.Duration
	}
	asks := []ask{{"regular pods", 0, wantRegular}, {"the database", DatabasePriority, wantDatabase}, {"system-node-critical pods", SystemNodeCritical, wantCritical}}
	var groups []shutdown.Group
	for _, a := range asks {
		g, _ := cfg.GroupFor(a.priority)
		got := time.Duration(g.Seconds) * time.Second
		r.Seen("%s (priority %d) join the group of %d with %v", a.who, a.priority, g.Priority, got)
		if got < a.want {
			r.Message = fmt.Sprintf("%s (priority %d) get %v from the group of %d; the lab asks for at least %v", a.who, a.priority, got, g.Priority, a.want)
			return r
		}
		groups = append(groups, g)
	}
	// The database must outlive its clients and stop before the node's own
	// critical pods, so it needs a group of its own.
	if groups[0] == groups[1] {
		r.Message = "the database shares a group with regular pods; give it a group of its own so it ends after them"
		return r
	}
	if groups[1] == groups[2] {
		r.Message = "the database shares a group with system-node-critical pods; give it a group of its own so it ends before them"
		return r
	}
	files := nodeLogind()
	for key, value := range data {
		switch {
		case key == "masked":
			for _, name := range strings.Fields(value) {
				files = append(files, shutdown.LogindFile{Layer: shutdown.Etc, Name: name, Masked: true})
				r.Seen("/etc/systemd/logind.conf.d/%s is a link to /dev/null", name)
			}
		case strings.HasSuffix(key, ".conf"):
			files = append(files, shutdown.LogindFile{Layer: shutdown.Etc, Name: key, Content: value})
			r.Seen("/etc/systemd/logind.conf.d/%s added", key)
		}
	}
	lr := shutdown.CheckLogind(files, cfg.Total())
	r.Seen("the kubelet asks logind for %v; logind allows %v", lr.Requested, lr.After)
	if lr.Conflict {
		r.Message = fmt.Sprintf("logind allows %v, less than the %v the kubelet needs: its shutdown manager would not start (%s)", lr.After.Value, lr.Requested, lr.After.From)
		return r
	}
	r.Pass = true
	r.Message = fmt.Sprintf("the kubelet accepts the configuration, each group gets its time, and logind allows the %v it needs", lr.Requested)
	return r
}

// dbPod names a db-0 for a report: with its UID when that is known (the
// taint eviction controller's event does not carry it).
func dbPod(uid string) string {
	if uid == "" {
		return "db-0"
	}
	return "db-0 (uid " + short(uid) + ")"
}

func short(uid string) string {
	if len(uid) > 8 {
		return uid[:8]
	}
	return uid
}

// clock is a time of day for a learner's report. Times the API server keeps
// have whole seconds; the audit log's have fractions, shown to the
// millisecond because two requests of one second can be in either order.
func clock(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format("15:04:05.999") }

// offProblem says why the off node does not count as powered off, "" when it
// does: it must be NotReady as its own status says, and the node lifecycle
// controller must have acted on that.
func (s *story) offProblem() string {
	o := s.off
	switch {
	case o.Ready:
		return fmt.Sprintf("db-0 is Terminating on %s, which is Ready: power the node off with lab/scripts/power.sh off %s", o.Name, o.Name)
	case o.HandStatus != nil:
		return fmt.Sprintf("%s's status was written at %s by %s, not by the node: power a node off with lab/scripts/power.sh", o.Name, clock(o.HandStatus.Time), o.HandStatus.Who())
	case o.controllerSaw(s.withLog):
	case o.Mark != nil:
		return fmt.Sprintf("%s carries the taint %s:%s dated %s, but no write of the node lifecycle controller's own to %s since then is in the audit log: only the controller's taint shows that it saw the node off", o.Name, o.Mark.Key, o.Mark.Effect, clock(o.Mark.TimeAdded.Time), o.Name)
	case o.Leftover != nil:
		return fmt.Sprintf("%s still carries the taint %s:%s from %s, before it went NotReady at %s: it is left from an earlier power-off, not a mark of this one. Run chapters/04-node-shutdown/lab/reset.sh, which powers the pool on and waits until the node lifecycle controller has taken its taints off, then start again from step 1", o.Name, o.Leftover.Key, o.Leftover.Effect, clock(o.Leftover.TimeAdded.Time), clock(o.NotReady))
	default:
		return fmt.Sprintf("%s is NotReady since %s, but the node lifecycle controller has not marked it yet (no not-ready taint of its own): wait a few seconds", o.Name, clock(o.NotReady))
	}
	return ""
}

// oldProblem says why the old db-0 was not stuck Terminating on the off node
// after it lost power, "" when it was (audit log only).
func (s *story) oldProblem() string {
	o, old := s.off, s.old
	switch {
	case old == nil || old.deleted() == nil:
		return fmt.Sprintf("no db-0 was marked for deletion after %s went NotReady at %s: power off the node db-0 runs on, and wait until db-0 is Terminating", o.Name, clock(o.NotReady))
	case s.oldNode != "" && s.oldNode != o.Name:
		return fmt.Sprintf("the db-0 marked for deletion (uid %s) ran on %s, not on the powered-off %s", short(old.UID), s.oldNode, o.Name)
	case old.deleted().Time.Before(o.NotReady):
		return fmt.Sprintf("db-0 (uid %s) was marked for deletion at %s, before %s went NotReady at %s", short(old.UID), clock(old.deleted().Time), o.Name, clock(o.NotReady))
	case old.removed() != nil && old.removed().FromNodeAgent():
		return fmt.Sprintf("%s finished deleting db-0 (uid %s) itself at %s, as only a node with power does", nodeOr(s.oldNode, o.Name), short(old.UID), clock(old.removed().Time))
	}
	return ""
}

func nodeOr(node, fallback string) string {
	if node != "" {
		return node
	}
	return fallback
}

// noMarking is the evidence when, without the log, nothing records that db-0
// was marked for deletion.
const noMarking = "no event of the taint eviction controller about db-0 since the lab began (client-go writes at most 25 for one pod name, then one every 5 minutes)"

// judgeOff notes what was seen of the powered-off node and says what is
// wrong with it: none found, or not truly off; "" when it was off.
func (s *story) judgeOff(res *labcheck.Result) string {
	if s.off == nil {
		return s.offMissing()
	}
	s.seeOff(res)
	return s.offProblem()
}

// judgeMoved decides shutdown-db-moved: the db-0 on the powered-off node was
// stuck Terminating there, and a later db-0, placed by the scheduler, runs
// and is Ready on another node that is Ready.
func judgeMoved(r record) labcheck.Result {
	s := tell(r)
	var res labcheck.Result
	res.Seen("%s", s.source())
	pod := r.Pod
	if pod == nil {
		res.Message = "there is no pod db-0: apply lab/db.yaml, or wait for the StatefulSet to create it"
		return res
	}
	if msg := s.judgeOff(&res); msg != "" {
		res.Message = msg
		return res
	}
	o := s.off
	res.Seen("db-0 now: uid %s, node %q, phase %s, ready %v", short(string(pod.UID)), pod.Spec.NodeName, pod.Status.Phase, podReady(pod))
	if s.withLog {
		s.seeLives(&res)
		if msg := s.oldProblem(); msg != "" {
			res.Message = msg
			return res
		}
		if !s.old.Gone {
			res.Message = fmt.Sprintf("db-0 (uid %s) is still Terminating on %s: mark the node out of service", short(s.old.UID), o.Name)
			return res
		}
		cur := s.lives[len(s.lives)-1]
		if cur.Gone || cur.Bound == nil || !cur.Bound.FromScheduler() {
			res.Message = fmt.Sprintf("db-0 (uid %s) was not placed by the scheduler during this lab run: no binding of it is in the audit log", short(string(pod.UID)))
			return res
		}
	} else {
		if pod.DeletionTimestamp != nil {
			res.Message = fmt.Sprintf("db-0 (uid %s) is still Terminating on %s: mark the node out of service", short(string(pod.UID)), pod.Spec.NodeName)
			return res
		}
		if s.apiOldDel.IsZero() {
			res.Seen("%s", noMarking)
			res.Message = fmt.Sprintf("nothing shows a db-0 marked for deletion after %s went NotReady: without the audit log only the taint eviction controller's event can", o.Name)
			return res
		}
		res.Seen("old %s marked for deletion at %s (%s)", dbPod(s.apiOldUID), clock(s.apiOldDel), s.apiOldDelBy)
		res.Seen("db-0 created at %s", clock(pod.CreationTimestamp.Time))
		switch {
		case s.apiOldDel.Before(o.NotReady):
			res.Message = fmt.Sprintf("%s was marked for deletion at %s, before %s went NotReady at %s", dbPod(s.apiOldUID), clock(s.apiOldDel), o.Name, clock(o.NotReady))
			return res
		case pod.CreationTimestamp.Time.Before(s.apiOldDel.Truncate(time.Second)):
			res.Message = fmt.Sprintf("db-0 (uid %s) was created at %s, before the old db-0 was marked for deletion at %s: it never had to move", short(string(pod.UID)), clock(pod.CreationTimestamp.Time), clock(s.apiOldDel))
			return res
		}
	}
	if pod.DeletionTimestamp != nil {
		res.Message = fmt.Sprintf("db-0 (uid %s) on %s is Terminating: check again once the StatefulSet has replaced it", short(string(pod.UID)), pod.Spec.NodeName)
		return res
	}
	switch {
	case pod.Spec.NodeName == "":
		res.Message = "the new db-0 is not scheduled yet"
		return res
	case pod.Spec.NodeName == o.Name:
		res.Message = fmt.Sprintf("db-0 runs on %s again, the node that was powered off", o.Name)
		return res
	case pod.Status.Phase != corev1.PodRunning || !podReady(pod):
		res.Message = fmt.Sprintf("db-0 on %s is not Running and Ready yet", pod.Spec.NodeName)
		return res
	}
	var node *corev1.Node
	for i := range r.Nodes {
		if r.Nodes[i].Name == pod.Spec.NodeName {
			node = &r.Nodes[i]
		}
	}
	if node == nil || !nodeReady(node) {
		res.Message = fmt.Sprintf("db-0 runs on %s, which is not a Ready node of the shutdown pool", pod.Spec.NodeName)
		return res
	}
	res.Seen("node %s: Ready", node.Name)
	res.Pass = true
	res.Message = fmt.Sprintf("db-0 was stuck Terminating on %s after it lost power and now runs on %s, which is Ready", o.Name, node.Name)
	return res
}

// judgeTaint decides shutdown-taint-after-off: the out-of-service taint was
// written after the node went NotReady, after the node lifecycle controller
// marked it, and while db-0 was stuck Terminating there.
func judgeTaint(r record) labcheck.Result {
	s := tell(r)
	var res labcheck.Result
	res.Seen("%s", s.source())
	if msg := s.judgeOff(&res); msg != "" {
		res.Message = msg
		return res
	}
	o := s.off
	gcRemoved := s.old != nil && s.old.removed() != nil && byPodGC(*s.old.removed())
	switch {
	case o.TaintAt.IsZero() && !o.OutOfService:
		res.Message = fmt.Sprintf("%s has no %s taint", o.Name, OutOfService)
		return res
	case o.TaintAt.IsZero() && s.withLog:
		res.Message = fmt.Sprintf("%s carries the out-of-service taint, but no write of it during this lab run is in the audit log: it was there before db-0 was created (start over with lab/reset.sh)", o.Name)
		return res
	case o.TaintAt.IsZero():
		res.Message = fmt.Sprintf("%s carries the out-of-service taint, but nothing shows when it was added", o.Name)
		return res
	case !o.OutOfService && !gcRemoved:
		res.Message = fmt.Sprintf("%s has no %s taint now", o.Name, OutOfService)
		return res
	}
	res.Seen("out-of-service taint written at %s (%s)", clock(o.TaintAt), o.TaintBy)
	if o.TaintAt.Before(o.NotReady) {
		res.Message = fmt.Sprintf("the out-of-service taint came at %s, before %s went NotReady at %s: it must follow the power-off", clock(o.TaintAt), o.Name, clock(o.NotReady))
		return res
	}
	if m := o.markedAt(); m.After(o.TaintAt) {
		res.Message = fmt.Sprintf("the out-of-service taint came at %s, before the node lifecycle controller marked %s NotReady at %s: confirm the node is off first", clock(o.TaintAt), o.Name, clock(m))
		return res
	}
	var from time.Time
	if s.withLog {
		s.seeLives(&res)
		if msg := s.oldProblem(); msg != "" {
			res.Message = msg
			return res
		}
		old := s.old
		from = old.deleted().Time
		switch {
		case !from.Before(o.TaintAt):
			res.Message = fmt.Sprintf("db-0 (uid %s) was marked for deletion at %s, after the out-of-service taint at %s: the taint is for a pod already stuck Terminating", short(old.UID), clock(from), clock(o.TaintAt))
			return res
		case !old.terminatingAt(o.TaintAt):
			res.Message = fmt.Sprintf("db-0 (uid %s) was gone at %s, before the out-of-service taint at %s: nothing was stuck on %s", short(old.UID), clock(old.removed().Time), clock(o.TaintAt), o.Name)
			return res
		}
	} else {
		if s.apiOldDel.IsZero() {
			res.Seen("%s", noMarking)
			res.Message = fmt.Sprintf("nothing shows db-0 Terminating on %s before the taint: without the audit log only the taint eviction controller's event can", o.Name)
			return res
		}
		from = s.apiOldDel
		res.Seen("old %s marked for deletion at %s (%s)", dbPod(s.apiOldUID), clock(from), s.apiOldDelBy)
		if from.After(o.TaintAt) {
			res.Message = fmt.Sprintf("db-0 was marked for deletion at %s, after the out-of-service taint at %s: the taint is for a pod already stuck Terminating", clock(from), clock(o.TaintAt))
			return res
		}
	}
	res.Pass = true
	res.Message = fmt.Sprintf("%s went NotReady at %s, the node lifecycle controller marked it at %s, db-0 was Terminating from %s, and the out-of-service taint came at %s", o.Name, clock(o.NotReady), clock(o.markedAt()), clock(from), clock(o.TaintAt))
	return res
}

// judgePodGC decides shutdown-podgc-deleted: the request that removed the
// stuck db-0 came from the pod garbage collector itself. Only the audit log
// shows who sent a delete: the pod GC leaves no event, and its delete looks
// like anyone's kubectl delete --force --grace-period=0.
func judgePodGC(r record) labcheck.Result {
	s := tell(r)
	var res labcheck.Result
	res.Seen("%s", s.source())
	if !s.withLog {
		res.Message = "only the API server's audit log shows whether the pod GC or a hand removed the old db-0"
		res.Hint = r.advice
		return res
	}
	if s.off != nil {
		s.seeOff(&res)
	}
	s.seeLives(&res)
	old := s.old
	if old == nil {
		if s.off == nil {
			res.Message = s.offMissing()
		} else {
			res.Message = fmt.Sprintf("no db-0 was marked for deletion after %s went NotReady at %s, so the pod GC had nothing to remove", s.off.Name, clock(s.off.NotReady))
		}
		return res
	}
	where := "its node"
	if s.off != nil {
		where = s.off.Name
	}
	where = nodeOr(s.oldNode, where)
	if !old.Gone {
		res.Message = fmt.Sprintf("db-0 (uid %s) is still Terminating on %s: the pod GC removes it within %v once the node is NotReady and tainted out-of-service", short(old.UID), where, shutdown.PodGCPeriod)
		return res
	}
	end := old.removed()
	if end == nil {
		res.Message = fmt.Sprintf("db-0 (uid %s) is gone, but no request that removed it is in the audit log", short(old.UID))
		return res
	}
	res.Seen("db-0 uid %s removed: %s", short(old.UID), end)
	switch {
	case byPodGC(*end):
	case end.Impersonated != "":
		res.Message = fmt.Sprintf("db-0 (uid %s) on %s was force-deleted at %s by %s: acting as the pod GC's account is not the pod GC", short(old.UID), where, clock(end.Time), end.Who())
		return res
	case end.User == audit.PodGC:
		res.Message = fmt.Sprintf("db-0 (uid %s) on %s was force-deleted at %s with the pod GC's token from %s, not by the pod GC in the controller manager", short(old.UID), where, clock(end.Time), end.Who())
		return res
	case end.FromNodeAgent():
		res.Message = fmt.Sprintf("%s finished deleting db-0 (uid %s) itself at %s, as only a node with power does: the pod GC had nothing to remove", where, short(old.UID), clock(end.Time))
		return res
	default:
		res.Message = fmt.Sprintf("db-0 (uid %s) on %s was removed at %s by %s, not by the pod GC: a hand's delete skips the pod GC's test that the node is really off", short(old.UID), where, clock(end.Time), end.Who())
		return res
	}
	if len(s.tokens) > 0 {
		t := s.tokens[0]
		res.Message = fmt.Sprintf("a token of the pod GC's service account was made at %s by %s, so its deletes cannot be told from a hand's", clock(t.Time), t.Who())
		return res
	}
	for _, e := range r.Log {
		if e.Is("delete", "nodes") && e.OK() && e.Name == where && e.Time.Before(end.Time) && !e.Time.Before(old.Created.Time) {
			res.Message = fmt.Sprintf("the Node %s was deleted at %s, so the pod GC removed db-0 as an orphan, not for the out-of-service taint", where, clock(e.Time))
			return res
		}
	}
	res.Pass = true
	if s.off != nil && where == s.off.Name && !s.off.TaintAt.IsZero() && !end.Time.Before(s.off.TaintAt) {
		res.Message = fmt.Sprintf("the pod GC force-deleted db-0 (uid %s) from %s at %s, %v after the out-of-service taint", short(old.UID), where, clock(end.Time), end.Time.Sub(s.off.TaintAt).Truncate(time.Second))
	} else {
		res.Message = fmt.Sprintf("the pod GC force-deleted db-0 (uid %s) from %s at %s", short(old.UID), where, clock(end.Time))
	}
	return res
}
