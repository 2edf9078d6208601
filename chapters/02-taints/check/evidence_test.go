package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opslab/opslab/labcheck/audit"
)

func TestWho(t *testing.T) {
	cases := []struct {
		name, reason              string
		a                         actor
		person, sched, evictionOK bool
	}{
		{"learner", "kubectl as the admin", learner, true, false, false},
		{"scheduler", "the scheduler acts under its own certificate's user", scheduler, false, true, false},
		{"kwok", "kwok finishes deletions under its own certificate's user", kwok, false, false, false},
		{"controller", "the taint eviction controller under its own account", taintCtl, false, false, true},
		{"as_controller", "kubectl --as the controller is a person", asCtl, true, false, false},
		{"token", "the controller's token, which the learner asked for, is the learner's", withCtlToken, true, false, false},
		{"learner_in_schedulers_agent", "the admin's client claiming the scheduler's agent is the learner", claiming(scheduler), true, false, false},
		{"learner_in_kwoks_agent", "the admin's client claiming kwok's agent is the learner", claiming(kwok), true, false, false},
		{"as_scheduler_agent", "a person impersonating, whatever the agent says", actor{User: "kwok-admin", As: "someone", Agent: scheduler.Agent}, true, false, false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			e := req(tt.a, "delete", "pods", "x", 1)
			if got := [3]bool{byPerson(e), byScheduler(e), byTaintEviction(e)}; got != [3]bool{tt.person, tt.sched, tt.evictionOK} {
				t.Errorf("byPerson, byScheduler, byTaintEviction = %v, want %v (%s)", got, [3]bool{tt.person, tt.sched, tt.evictionOK}, tt.reason)
			}
		})
	}
}

func TestLifeOf(t *testing.T) {
	log := cat(
		placedBy("web", 1), []audit.Event{req(learner, "delete", "pods", "web", 2), req(kwok, "delete", "pods", "web", 2.1)},
		[]audit.Event{req(learner, "create", "pods", "web", 3)}, // the pod that has the name now: pinned
		[]audit.Event{req(learner, "patch", "pods", "web", 4), req(kwok, "patch", "pods/status", "web", 4.1)},
		[]audit.Event{req(learner, "create", "pods/eviction", "web", 5)},
	)
	refused := req(learner, "delete", "pods", "web", 6)
	refused.Code = 404
	dry := req(learner, "delete", "pods", "web", 6.5)
	dry.DryRun = true
	l := lifeOf(logLab(append(log, refused, dry, req(taintCtl, "delete", "pods", "web", 7))...).log, "web")
	if l.created == nil || l.created.Received != at(3) {
		t.Fatalf("created = %v, want the create at 3 s", l.created)
	}
	if l.bound != nil {
		t.Errorf("bound = %v, want none: the binding was the earlier pod's", l.bound)
	}
	if l.deleted == nil || l.deleted.User != audit.TaintEviction {
		t.Errorf("deleted = %v, want the controller's at 7 s: refused and dry-run requests change nothing", l.deleted)
	}
	if len(l.edits) != 1 || l.edits[0].Received != at(4) {
		t.Errorf("edits = %v, want the learner's patch at 4 s only", l.edits)
	}
	if ok, why := l.placed(); ok || !strings.Contains(why, "placed by hand") {
		t.Errorf("placed() = %v %q, want placed by hand", ok, why)
	}
}

// A busy API server may complete a create's response after the scheduler
// has bound the pod: the binding still belongs to the pod the create made,
// which the scheduler placed.
func TestLifeOfBindingCompletedFirst(t *testing.T) {
	create := req(learner, "create", "pods", "session", 1)
	create.Time = at(1.2)
	bind := req(scheduler, "create", "pods/binding", "session", 1.05) // complete at 1.055
	l := lifeOf(logLab(create, bind).log, "session")
	if l.created == nil || l.created.Received != at(1) {
		t.Fatalf("created = %v, want the create received at 1 s", l.created)
	}
	if l.bound == nil || l.bound.Received != at(1.05) {
		t.Fatalf("bound = %v, want the scheduler's binding received at 1.05 s", l.bound)
	}
	if ok, why := l.placed(); !ok {
		t.Errorf("placed() = %v %q, want placed by the scheduler", ok, why)
	}
}

func TestWeigh(t *testing.T) {
	withLog := logLab(req(taintCtl, "create", "events", "web.ev", 10), req(asCtl, "create", "events", "web.as", 11), req(learner, "create", "events", "web.cheat", 12))
	future := mark("web", 10)
	future.LastTimestamp = metav1.Time{Time: at(3600)}
	old := mark("web", 10)
	old.ManagedFields[0].Time = &metav1.Time{Time: t0.Add(-time.Hour)}
	old.CreationTimestamp = metav1.Time{Time: t0.Add(-time.Hour)}
	old.FirstTimestamp, old.LastTimestamp = old.CreationTimestamp, old.CreationTimestamp
	cases := []struct {
		name, reason string
		lab          lab
		ev           corev1.Event
		why          string // "" when counted
	}{
		{"controller_in_log", "the log shows the controller wrote it", withLog, mark("web", 10), ""},
		{"as_in_log", "written with --as the controller", withLog, event("web.as", "web", evictReason, markMessage+"taints-lab/web", taintEvictionName, controllerAgent, 11), "written by kwok-admin as system:serviceaccount:kube-system:node-controller (kubectl)"},
		{"not_in_log", "the log has no write of it in this run", withLog, event("web.old", "web", evictReason, markMessage+"taints-lab/web", taintEvictionName, controllerAgent, 11), "no write of it in this run"},
		{"other_component", "it names someone else", withLog, event("web.cheat", "web", evictReason, markMessage+"taints-lab/web", "kubectl", "kubectl-create", 12), `names "kubectl"`},
		{"api_manager", "no log: the server recorded the controller's program", apiLab(), mark("web", 10), ""},
		{"api_forged_manager", "no log: kubectl create", apiLab(), event("x", "web", evictReason, "m", taintEvictionName, "kubectl-create", 10), "written by kubectl-create"},
		{"api_no_manager", "no log: managedFields cleared", apiLab(), func() corev1.Event { e := mark("web", 10); e.ManagedFields = nil; return e }(), "no record of who wrote it"},
		{"api_future", "no log: dated an hour ahead", apiLab(), future, "later than the server's clock"},
		{"api_before_lab", "no log: stored before the namespace was made", apiLab(), old, "before this run of the lab began"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := weigh(tt.ev, taintEvictionWriter, tt.lab)
			if r.counted != (tt.why == "") || !strings.Contains(r.why, tt.why) {
				t.Errorf("weigh = counted %v %q, want %q (%s)", r.counted, r.why, tt.why, tt.reason)
			}
		})
	}
}

func TestDurationsIn(t *testing.T) {
	cases := []struct {
		name, text string
		want       []time.Duration
	}{
		{"seconds", "waits 900 s", []time.Duration{900 * time.Second}},
		{"bare", "tolerationSeconds 900 on both", []time.Duration{900 * time.Second}},
		{"minutes", "100 minutes", []time.Duration{100 * time.Minute}},
		{"hours", "2 h", []time.Duration{2 * time.Hour}},
		{"go", "1h40m", []time.Duration{time.Hour, 40 * time.Minute, 100 * time.Minute}},
		{"thousands", "1,200 seconds", []time.Duration{1200 * time.Second}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Compact(slices.Sorted(slices.Values(durationsIn(tt.text))))
			want := slices.Sorted(slices.Values(tt.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("durationsIn(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestPlacedByHand(t *testing.T) {
	if m, ok := placedByHand(pod("a", "taints-1", 1)); ok {
		t.Errorf("placedByHand(scheduled pod) = %s, want nobody: a binding records no owner", m)
	}
	if m, ok := placedByHand(byHand(pod("a", "taints-1", 1))); !ok || m != "kubectl-create" {
		t.Errorf("placedByHand(pinned pod) = %q %v, want kubectl-create", m, ok)
	}
}
