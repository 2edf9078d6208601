package check

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/gradertest"
)

// The checks run whole here, through Checks(), on a fake clientset that
// holds what the API server holds once lab/solve.sh has run (the pods of
// lab/pods.yaml, db of lab/db.yaml patched with lab/db-patch.yaml), with
// the audit log those steps write and the server's clock, answered from a
// test server, 300 s into the lab. The judges' cases are in judge_test.go;
// these tests show that each check reads what its judge needs.

// The checks' IDs.
const (
	cacheDefaults     = "taints-cache-defaults"
	noScheduleKept    = "taints-noschedule-evicted-nothing"
	queueRemoved      = "taints-maintenance-removed-queue"
	dispatcherEvicted = "taints-dispatcher-evicted"
	sessionStays      = "taints-session-stays"
	dbValueReason     = "taints-db-value-and-reason"
	myTimetableID     = "taints-my-timetable"
)

// A labState is a cluster as the checks read it: the API's objects, the
// audit log's requests (nil: no log) and the API server's clock.
type labState struct {
	objects []runtime.Object
	log     []audit.Event
	now     time.Time
}

// solvedLab is the state lab/solve.sh ends in; its steps, in seconds after t0 (when
// it made namespace taints-lab):
//
//	1     the lab's workloads and db applied; the scheduler binds each
//	3     taints-2 NoSchedule; 3.5 NoExecute; queue evicted at once
//	5     taints-3 link-down; dispatcher evicted 30 s later
//	30    db patched; the StatefulSet controller makes db-0 again
//	40    my-timetable recorded
//	300   the checks run
func solvedLab(t *testing.T) labState {
	t.Helper()
	pods := manifestPods(t)
	st := labState{now: at(300)}
	// The log began with the cluster, before the lab.
	st.log = []audit.Event{req(kwok, "create", "nodes", "taints-1", -3600)}
	var events []runtime.Object
	dep, rs := cacheObjects(t)
	st.log = append(st.log,
		req(learner, "create", "deployments", "cache", 0.9),
		// The ReplicaSet controller names its pods by generateName: its
		// create carries no name.
		req(rsCtl, "create", "pods", "", 1.2),
		req(scheduler, "create", "pods/binding", cacheName, 1.21),
	)
	for i, name := range []string{"agent", "queue", "session", "dispatcher"} {
		sec := 1 + 0.02*float64(i)
		st.log = append(st.log, placedBy(name, sec)...)
		st.log = append(st.log, req(scheduler, "create", "events", name+".sched", sec+0.01))
		p := pods[name]
		// Gone pods' events name no UID the checks could compare.
		uid := p.UID
		if name == "queue" || name == "dispatcher" {
			uid = ""
		}
		ev := scheduledEv(name, p.Spec.NodeName, uid, sec+0.01)
		events = append(events, &ev)
	}
	sts := dbSolved(t)
	db0 := dbPod(sts, 31)
	st.log = append(st.log,
		req(learner, "create", "statefulsets", "db", 1.1),
		req(stsCtl, "create", "pods", "db-0", 1.2),
		req(scheduler, "create", "pods/binding", "db-0", 1.21),
		req(learner, "patch", "nodes", "taints-2", 3),
		req(learner, "patch", "nodes", "taints-2", 3.5),
	)
	st.log = append(st.log, evictedAt("queue", 3.52)...)
	st.log = append(st.log, req(learner, "patch", "nodes", "taints-3", 5))
	st.log = append(st.log, evictedAt("dispatcher", 35.01)...)
	st.log = append(st.log,
		req(learner, "patch", "statefulsets", "db", 30),
		req(stsCtl, "delete", "pods", "db-0", 30.5),
		req(stsCtl, "create", "pods", "db-0", 31),
		req(scheduler, "create", "pods/binding", "db-0", 31.01),
		req(scheduler, "create", "events", "db-0.sched", 31.02),
		req(learner, "create", "configmaps", MyTimetable, 40),
	)
	queue, dispatcher := mark("queue", 3.52), mark("dispatcher", 35.01)
	dbSched := scheduledEv("db-0", "taints-1", db0.UID, 31.02)
	events = append(events, &queue, &dispatcher, &dbSched)

	st.objects = append([]runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, CreationTimestamp: metav1.Time{Time: t0}}},
		node("taints-1", 0),
		node("taints-2", 3.5, maintNS, maintNE),
		node("taints-3", 5, linkDown),
		dep, rs, cachePod(t, rs),
		pods["agent"], pods["session"],
		sts, db0, dbRevision(sts, 30),
		// What lab/mytimetable prints for the pods above: soonest first,
		// ties by name.
		myTimetable("node.kubernetes.io/unreachable:NoExecute", cacheName+" after 300s\nsession after 600s\ndb-0 after 900s\nagent never\n"),
	}, events...)
	return st
}

// manifestPods reads lab/pods.yaml as the API server stores its pods once
// the scheduler has bound them to the nodes their nodeSelectors name, 1 s
// into the lab: kubectl owns the fields it sent, and admission has added
// the 300 s tolerations to a pod that has none for not-ready or
// unreachable.
func manifestPods(t *testing.T) map[string]*corev1.Pod {
	t.Helper()
	out := map[string]*corev1.Pod{}
	for _, doc := range strings.Split(readLabFile(t, "pods.yaml"), "\n---\n") {
		if strings.Contains(doc, "\nkind: Deployment\n") {
			continue // cacheObjects
		}
		var m corev1.Pod
		if err := yaml.UnmarshalStrict([]byte(doc), &m); err != nil {
			t.Fatalf("lab/pods.yaml: %v", err)
		}
		p := pod(m.Name, m.Spec.NodeSelector["kubernetes.io/hostname"], 1, m.Spec.Tolerations...)
		admitDefaults(p)
		out[m.Name] = p
	}
	return out
}

// cacheObjects reads Deployment cache of lab/pods.yaml as the API server
// stores it, with the ReplicaSet its controller makes for it.
func cacheObjects(t *testing.T) (*appsv1.Deployment, *appsv1.ReplicaSet) {
	t.Helper()
	for _, doc := range strings.Split(readLabFile(t, "pods.yaml"), "\n---\n") {
		if !strings.Contains(doc, "\nkind: Deployment\n") {
			continue
		}
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict([]byte(doc), &d); err != nil {
			t.Fatalf("lab/pods.yaml: %v", err)
		}
		d.UID = "uid-cache"
		d.CreationTimestamp = metav1.Time{Time: at(0.9).Truncate(time.Second)}
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "cache-85d9c566bf", Namespace: Namespace, UID: "uid-cache-rs",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: new(true)}}},
			Spec: appsv1.ReplicaSetSpec{Template: d.Spec.Template},
		}
		return &d, rs
	}
	t.Fatal("lab/pods.yaml has no Deployment")
	return nil, nil
}

// cachePod is the pod the ReplicaSet rs makes at 1.2 s, bound to the node
// its nodeSelector names: the controller owns the fields it sent, and
// admission has added the 300 s tolerations.
func cachePod(t *testing.T, rs *appsv1.ReplicaSet) *corev1.Pod {
	t.Helper()
	tmpl := rs.Spec.Template
	p := pod(cacheName, tmpl.Spec.NodeSelector["kubernetes.io/hostname"], 1.2, tmpl.Spec.Tolerations...)
	admitDefaults(p)
	p.Labels = tmpl.Labels
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: new(true)}}
	p.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, 1.2, `{"f:metadata":{"f:labels":{}},"f:spec":{"f:containers":{},"f:nodeSelector":{}`+tolerationFields(tmpl.Spec.Tolerations)+`}}`)}
	return p
}

// admitDefaults adds what the DefaultTolerationSeconds admission plugin
// adds: a 300 s NoExecute toleration of not-ready and of unreachable,
// each unless the pod already tolerates that key.
func admitDefaults(p *corev1.Pod) {
	for _, d := range []corev1.Toleration{notReady, unreach} {
		if !slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool {
			return (t.Key == d.Key || t.Key == "" && t.Operator == corev1.TolerationOpExists) &&
				(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute)
		}) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, d)
		}
	}
}

// dbSolved is StatefulSet db of lab/db.yaml patched with lab/db-patch.yaml,
// as kubectl patch does, its rollout finished.
func dbSolved(t *testing.T) *appsv1.StatefulSet {
	t.Helper()
	var sts appsv1.StatefulSet
	if err := yaml.UnmarshalStrict([]byte(readLabFile(t, "db.yaml")), &sts); err != nil {
		t.Fatalf("lab/db.yaml: %v", err)
	}
	orig, err := json.Marshal(&sts)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := yaml.YAMLToJSON([]byte(readLabFile(t, "db-patch.yaml")))
	if err != nil {
		t.Fatalf("lab/db-patch.yaml: %v", err)
	}
	patched, err := strategicpatch.StrategicMergePatch(orig, patch, appsv1.StatefulSet{})
	if err != nil {
		t.Fatalf("lab/db-patch.yaml: %v", err)
	}
	sts = appsv1.StatefulSet{}
	if err := json.Unmarshal(patched, &sts); err != nil {
		t.Fatal(err)
	}
	sts.UID, sts.Generation = "uid-db", 2
	sts.CreationTimestamp = metav1.Time{Time: at(1.1).Truncate(time.Second)}
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1,
		CurrentRevision: "db-2", UpdateRevision: "db-2"}
	return &sts
}

// dbRevision is the ControllerRevision of sts's update revision, as the
// StatefulSet controller makes it when it sees the template change at s.
func dbRevision(sts *appsv1.StatefulSet, s float64) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: sts.Status.UpdateRevision, Namespace: Namespace, CreationTimestamp: metav1.Time{Time: at(s).Truncate(time.Second)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: sts.Name, UID: sts.UID, Controller: new(true)}}},
		Revision: 2,
	}
}

// dbPod is db-0 as the StatefulSet controller makes it from sts's template
// at s, bound to taints-1.
func dbPod(sts *appsv1.StatefulSet, s float64) *corev1.Pod {
	p := pod("db-0", "taints-1", s, sts.Spec.Template.Spec.Tolerations...)
	admitDefaults(p)
	p.Labels = map[string]string{"app": "db", "controller-revision-hash": sts.Status.UpdateRevision}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: sts.Name, UID: sts.UID, Controller: new(true)}}
	p.ManagedFields = []metav1.ManagedFieldsEntry{managed(controllerAgent, s, `{"f:spec":{"f:containers":{},"f:tolerations":{}}}`)}
	return p
}

func readLabFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "lab", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replace puts objs in place of the stored objects of the same kind and
// name.
func (st *labState) replace(objs ...runtime.Object) {
	for _, o := range objs {
		i := slices.IndexFunc(st.objects, func(have runtime.Object) bool { return sameObject(have, o) })
		if i < 0 {
			panic("no object to replace")
		}
		st.objects[i] = o
	}
}

// remove deletes the stored objects for which gone is true.
func (st *labState) remove(gone func(runtime.Object) bool) {
	st.objects = slices.DeleteFunc(st.objects, gone)
}

func sameObject(a, b runtime.Object) bool {
	ma, oka := a.(metav1.Object)
	mb, okb := b.(metav1.Object)
	return oka && okb && ma.GetName() == mb.GetName() && reflect.TypeOf(a) == reflect.TypeOf(b)
}

// fakeCluster is st as a labcheck.Cluster: a fake clientset that filters
// pods by spec.nodeName as the real server does, the audit log written to
// a file and read as labcheck --audit-log reads it, and a server that
// answers /version with st's clock in its Date header.
func (st labState) fakeCluster(t *testing.T) *labcheck.Cluster {
	t.Helper()
	kube := fake.NewClientset(st.objects...)
	kube.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		want, ok := a.(k8stesting.ListAction).GetListRestrictions().Fields.RequiresExactMatch("spec.nodeName")
		if !ok {
			return false, nil, nil
		}
		obj, err := kube.Tracker().List(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		list := obj.(*corev1.PodList)
		list.Items = slices.DeleteFunc(list.Items, func(p corev1.Pod) bool { return p.Spec.NodeName != want })
		return true, list, nil
	})
	gradertest.Guard(t, kube)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", st.now.UTC().Format(http.TimeFormat))
	}))
	t.Cleanup(srv.Close)
	c := &labcheck.Cluster{Config: &rest.Config{Host: srv.URL}, Kube: kube, NoAudit: "none in this test"}
	if st.log != nil {
		l, err := audit.Read(writeAuditLog(t, st.log))
		if err != nil {
			t.Fatal(err)
		}
		c.UseAuditLog(l)
	}
	return c
}

// writeAuditLog writes events as the API server's audit log, one
// audit.k8s.io/v1 Event a line.
func writeAuditLog(t *testing.T, events []audit.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := audit.WriteFile(path, events...); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkNamed returns the chapter's check with the given ID.
func checkNamed(t *testing.T, id string) labcheck.Check {
	t.Helper()
	for _, c := range Checks() {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("Checks() has no check %s", id)
	return labcheck.Check{}
}

// TestChecksOnFakeCluster runs every check of the chapter on the state
// solve.sh leaves, with the audit log and without it: each passes. Then on
// the same state with one thing done the way a learner gets it wrong: the
// check that judges it fails, with a message that names the mistake, and
// the others still pass.
func TestChecksOnFakeCluster(t *testing.T) {
	all := []string{cacheDefaults, noScheduleKept, queueRemoved, dispatcherEvicted, sessionStays, dbValueReason, myTimetableID}
	// The outage lab's checks read a cluster of their own: outage_test.go.
	if got := len(Checks()) - len(outageChecks()); got != len(all) {
		t.Fatalf("Checks() has %d checks, this test knows %d: add the new one's cases", got, len(all))
	}
	for _, tc := range []struct {
		name, reason string
		change       func(t *testing.T, st *labState)
		// fail maps a check to a phrase its failure must contain; the
		// other checks must pass.
		fail map[string]string
	}{
		{name: "solved", reason: "the state solve.sh leaves, with the log it writes"},
		{name: "solved without the audit log", reason: "the API's events and managedFields tell the same story",
			change: func(t *testing.T, st *labState) { st.log = nil }},
		{name: "untouched", reason: "the lab's namespace was never applied",
			change: func(t *testing.T, st *labState) {
				st.remove(func(o runtime.Object) bool { _, isNode := o.(*corev1.Node); return !isNode })
			},
			fail: map[string]string{
				cacheDefaults: "there is no namespace taints-lab", noScheduleKept: "there is no namespace taints-lab",
				queueRemoved: "there is no namespace taints-lab", dispatcherEvicted: "there is no namespace taints-lab",
				sessionStays: "there is no namespace taints-lab", dbValueReason: "there is no namespace taints-lab",
				myTimetableID: "there is no namespace taints-lab",
			}},
		{name: "cache writes the defaults", reason: "the learner wrote the two 300 s tolerations into cache's template: admission added nothing",
			change: func(t *testing.T, st *labState) {
				dep, rs := cacheObjects(t)
				dep.Spec.Template.Spec.Tolerations = []corev1.Toleration{notReady, unreach}
				rs.Spec.Template = dep.Spec.Template
				st.replace(dep, rs, cachePod(t, rs))
			},
			fail: map[string]string{cacheDefaults: "cache's template writes the toleration"}},
		{name: "cache's pod written without the log", reason: "a pod of cache's name and labels, made by the learner with the tolerations written out, judged from managedFields",
			change: func(t *testing.T, st *labState) {
				st.log = nil
				_, rs := cacheObjects(t)
				p := cachePod(t, rs)
				p.ManagedFields = []metav1.ManagedFieldsEntry{managed("kubectl-create", 1.2, `{"f:spec":{"f:tolerations":{}}}`)}
				st.replace(p)
			},
			fail: map[string]string{cacheDefaults: "tolerations were sent by kubectl-create"}},
		{name: "dispatcher deleted by hand", reason: "the learner did not wait and deleted dispatcher 10 s after the taint",
			change: func(t *testing.T, st *labState) {
				st.log = slices.DeleteFunc(st.log, func(e audit.Event) bool {
					return e.Name == "dispatcher" && e.Received.After(at(6)) || e.Name == "dispatcher.ev"
				})
				st.log = append(st.log, req(learner, "delete", "pods", "dispatcher", 15), req(kwok, "delete", "pods", "dispatcher", 15.1))
				st.remove(func(o runtime.Object) bool { e, ok := o.(*corev1.Event); return ok && e.Name == "dispatcher.ev" })
			},
			fail: map[string]string{dispatcherEvicted: "dispatcher was deleted by kwok-admin (kubectl), not by the taint eviction controller"}},
		{name: "session put back by hand", reason: "the learner deleted session and made it again with spec.nodeName: the scheduler never judged it against the taint",
			change: func(t *testing.T, st *labState) {
				st.log = append(st.log, req(learner, "delete", "pods", "session", 60), req(kwok, "delete", "pods", "session", 60.1),
					req(learner, "create", "pods", "session", 61))
				st.replace(byHand(pod("session", "taints-3", 61, tol(LinkKey, s(600)))))
			},
			fail: map[string]string{sessionStays: "session was placed by hand: nobody bound it to a node",
				myTimetableID: "session was placed by hand"}},
		{name: "session checked too soon", reason: "the checks ran 10 s after the link went down, before dispatcher's time was up",
			change: func(t *testing.T, st *labState) {
				st.now = at(15)
				st.log = slices.DeleteFunc(st.log, func(e audit.Event) bool { return e.Received.After(st.now) })
				st.remove(func(o runtime.Object) bool {
					e, ok := o.(*corev1.Event)
					return ok && e.CreationTimestamp.After(st.now)
				})
				st.objects = append(st.objects, manifestPods(t)["dispatcher"])
				// db is not patched yet.
				db := dbSolved(t)
				db.Spec.Template.Spec.Tolerations, db.Annotations, db.Generation = nil, nil, 1
				db.Status.ObservedGeneration, db.Status.CurrentRevision, db.Status.UpdateRevision = 1, "db-1", "db-1"
				st.replace(db, dbPod(db, 1.2))
				st.remove(func(o runtime.Object) bool { m, ok := o.(metav1.Object); return ok && m.GetName() == MyTimetable })
			},
			fail: map[string]string{dispatcherEvicted: "dispatcher is still there, 10 s after the taints of taints-3 were last written",
				sessionStays:  "session has been under the taint for only 10 s",
				dbValueReason: "db's pod template does not wait longer than the default 300 s",
				myTimetableID: "there is no ConfigMap my-timetable"}},
		{name: "db without a reason", reason: "the learner raised db's tolerationSeconds but wrote no reason on the StatefulSet",
			change: func(t *testing.T, st *labState) {
				db := dbSolved(t)
				db.Annotations = nil
				st.replace(db)
			},
			fail: map[string]string{dbValueReason: "db has no opslab.dev/toleration-reason annotation"}},
		{name: "db checked during its rollout", reason: "the checks ran before the StatefulSet made db-0 again from the patched template",
			change: func(t *testing.T, st *labState) {
				db := dbSolved(t)
				db.Status.CurrentRevision = "db-1"
				st.replace(db)
			},
			fail: map[string]string{dbValueReason: "db's rollout has not finished"}},
		{name: "db-0 patched instead of the template", reason: "the learner gave db-0 its 900 s with kubectl patch pod: db's template still says nothing",
			change: func(t *testing.T, st *labState) {
				db := dbSolved(t)
				db.Spec.Template.Spec.Tolerations = nil
				st.replace(db)
				st.log = append(st.log, req(learner, "patch", "pods", "db-0", 50))
			},
			fail: map[string]string{dbValueReason: "db's pod template does not wait longer than the default 300 s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := solvedLab(t)
			if tc.change != nil {
				tc.change(t, &st)
			}
			c := st.fakeCluster(t)
			for _, id := range all {
				res, err := checkNamed(t, id).Run(context.Background(), c)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				t.Logf("%s %v: %s", id, res.Pass, res.Message)
				phrase, mustFail := tc.fail[id]
				ev := strings.Join(res.Evidence, "\n  ")
				// A passing check says what it judged from: the log the
				// fake cluster holds, or the API alone.
				if fromAPI := slices.ContainsFunc(res.Evidence, func(e string) bool { return strings.HasPrefix(e, "no audit log") }); res.Pass && fromAPI != (st.log == nil) {
					t.Errorf("%s judged from the API alone = %v, want %v\nevidence:\n  %s", id, fromAPI, st.log == nil, ev)
				}
				switch {
				case !mustFail && !res.Pass:
					t.Errorf("%s failed with %q, want a pass (%s)\nevidence:\n  %s", id, res.Message, tc.reason, ev)
				case mustFail && res.Pass:
					t.Errorf("%s passed with %q, want a failure that says %q (%s)", id, res.Message, phrase, tc.reason)
				case mustFail && !strings.Contains(res.Message, phrase):
					t.Errorf("%s failed with %q, want it to say %q (%s)\nevidence:\n  %s", id, res.Message, phrase, tc.reason, ev)
				}
			}
		})
	}
}
