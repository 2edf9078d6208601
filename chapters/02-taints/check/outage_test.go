package check

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/audit/audittest"
	"github.com/opslab/opslab/labcheck/gradertest"
)

// testdata/outage-audit.jsonl.gz is the scale cluster's audit log of one
// whole run of make outage (the six experiments, 4 minutes), cut down to
// what the outage checks read: the granted writes to the lab's nodes that
// changed a node's Ready condition (that condition alone kept) or carried
// its list of taints (each taint's key and effect kept), the nodes'
// creation, and the deletions of the lab's pods; each line keeps only the
// fields package audit parses. The experiments' times, in seconds after the
// log's first line:
//
//	50.5–72     few: a-01..a-05 down; tainted at 55.7, 57.8, 59.8, 61.9, 64.0
//	86.5–119    large-partial: 54 of zone-a down; tainted at 91.4, 101.5, 111.5
//	132.5–154.5 small-partial: 9 of zone-c down; no NoExecute taint
//	162.5–183   zone: all of zone-c down; 8 tainted from 167.6, 2 s apart
//	198–223     everything: all 150 down from 200.5; no NoExecute taint
//	223–226.5   recovery

// The outage checks' IDs.
const (
	outageNormal    = "outage-normal-rate"
	outageSecondary = "outage-secondary-rate"
	outageSpared    = "outage-small-zone-spared"
	outageDeadZone  = "outage-dead-zone-empties"
	outageAllDown   = "outage-all-zones-down"
	outageRecovered = "outage-recovered"
)

var outageIDs = []string{outageNormal, outageSecondary, outageSpared, outageDeadZone, outageAllDown, outageRecovered}

var recorded = sync.OnceValues(func() ([]byte, error) {
	f, err := os.Open(filepath.Join("testdata", "outage-audit.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
})

// recordedRun returns the events of the recorded run.
func recordedRun(t *testing.T) []audit.Event {
	t.Helper()
	data, err := recorded()
	if err != nil {
		t.Fatal(err)
	}
	events, err := audit.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// labKwokYAML is the part of a kwokctl cluster's kwok.yaml that
// kube.Settings reads, made from the lab's profile (lab/outage/kwokctl.yaml)
// as kwokctl makes it: the controller manager's extra arguments as flags.
func labKwokYAML(t *testing.T) []byte {
	t.Helper()
	var profile struct {
		ComponentsPatches []struct {
			Name      string `json:"name"`
			ExtraArgs []struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			} `json:"extraArgs"`
		} `json:"componentsPatches"`
	}
	if err := yaml.Unmarshal([]byte(readLabFile(t, "outage/kwokctl.yaml")), &profile); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, p := range profile.ComponentsPatches {
		if p.Name == "kube-controller-manager" {
			for _, a := range p.ExtraArgs {
				args = append(args, "--"+a.Key+"="+a.Value)
			}
		}
	}
	b, err := json.Marshal(map[string]any{"components": []any{map[string]any{"name": "kube-controller-manager", "args": args}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func labSettings(t *testing.T) kube.Controller {
	t.Helper()
	s, err := kube.Settings(labKwokYAML(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// healthyNow is the lab's nodes as the API shows them after the recovery:
// all Ready, none tainted.
func healthyNow() []nodeNow {
	var out []nodeNow
	for _, n := range taints.OutageLayout.Nodes() {
		out = append(out, nodeNow{name: n.Name, ready: true})
	}
	return out
}

// judgeOutage runs every outage judge.
func judgeOutage(c outageCase, now []nodeNow) map[string]labcheck.Result {
	return map[string]labcheck.Result{
		outageNormal:    judgeNormalRate(c),
		outageSecondary: judgeSecondaryRate(c),
		outageSpared:    judgeSmallZoneSpared(c),
		outageDeadZone:  judgeDeadZoneEmpties(c),
		outageAllDown:   judgeAllZonesDown(c),
		outageRecovered: judgeRecovered(c, now),
	}
}

// relabel returns events with the node writes for which pick is true sent
// by a instead.
func relabel(events []audit.Event, a audittest.Actor, pick func(audit.Event) bool) []audit.Event {
	out := slices.Clone(events)
	for i, e := range out {
		if pick(e) {
			out[i] = a.Sends(e)
		}
	}
	return out
}

// controllerTaintWrite reports whether e is the controller's write of a
// node's taints.
func controllerTaintWrite(e audit.Event) bool {
	return byNodeController(e) && e.Resource == "nodes" && e.Subresource == ""
}

// secondsIn is the time s seconds after the recorded log's first request.
func secondsIn(events []audit.Event, s float64) time.Time {
	return events[0].Received.Add(time.Duration(s * float64(time.Second)))
}

// taintWrite is the controller's write at s of a node's whole list of
// taints.
func taintWrite(events []audit.Event, a audittest.Actor, node string, s float64, list string) audit.Event {
	at := secondsIn(events, s)
	return a.Sends(audit.Event{Received: at, Time: at.Add(10 * time.Millisecond), Verb: "patch", Resource: "nodes", Name: node, Code: 200,
		Request: json.RawMessage(`{"spec":{"taints":` + list + `}}`)})
}

// What the checks say of taints written with kubectl --as the controller,
// and with a token minted for its account.
const (
	asWritten    = "the only ones were written by kwok-admin as system:serviceaccount:kube-system:node-controller (kubectl)"
	tokenWritten = "the only ones were written by system:serviceaccount:kube-system:node-controller (kubectl)"
)

const notReadyBoth = `[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"},{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}]`

// TestOutageJudges runs every outage judge on the recorded run, where each
// passes, and on what an untouched cluster, a cheat or a controller that
// broke its rule would leave in the log: the judges named fail with a
// message that says so, and the others still pass, since what they judge
// did happen.
func TestOutageJudges(t *testing.T) {
	ctl := audittest.Controller("node-controller")
	for _, tc := range []struct {
		name, reason string
		change       func(events []audit.Event) []audit.Event
		now          func([]nodeNow) []nodeNow
		fail         map[string]string // check → a phrase of its message
	}{
		{name: "recorded run", reason: "make outage's six experiments, as the scale cluster's log kept them"},
		{name: "no log lines", reason: "a cluster that never ran: nothing to judge",
			change: func([]audit.Event) []audit.Event { return nil },
			fail: map[string]string{
				outageNormal: "no experiment has run", outageSecondary: "no zone larger than 50 nodes",
				outageSpared: "no zone of 50 nodes or fewer", outageDeadZone: "no zone was ever wholly not Ready",
				outageAllDown: "were never all not Ready", outageRecovered: "nothing to recover from",
			}},
		{name: "untouched", reason: "the cluster populated, every node Ready, no experiment run",
			change: func(events []audit.Event) []audit.Event {
				return slices.DeleteFunc(events, func(e audit.Event) bool { return e.Received.After(secondsIn(events, 50)) })
			},
			fail: map[string]string{
				outageNormal: "no experiment has run", outageSecondary: "no zone larger than 50 nodes",
				outageSpared: "no zone of 50 nodes or fewer", outageDeadZone: "no zone was ever wholly not Ready",
				outageAllDown: "were never all not Ready", outageRecovered: "nothing to recover from",
			}},
		{name: "taints written with kubectl", reason: "the learner switched the nodes and wrote every change of their taints with kubectl, the controller's lists at its times",
			change: func(events []audit.Event) []audit.Event { return relabel(events, learner, controllerTaintWrite) },
			fail: map[string]string{
				outageNormal: "the only ones were written by kwok-admin (kubectl)", outageSecondary: "the only ones were written by kwok-admin (kubectl)",
				outageSpared: "nothing shows it was watching", outageDeadZone: "the only ones were written by kwok-admin (kubectl)",
				outageAllDown: "nothing shows it was watching", outageRecovered: "nothing to recover from",
			}},
		{name: "taints written as the controller", reason: "the same with kubectl --as system:serviceaccount:kube-system:node-controller",
			change: func(events []audit.Event) []audit.Event { return relabel(events, asCtl, controllerTaintWrite) },
			fail: map[string]string{
				outageNormal: asWritten, outageSecondary: asWritten,
				outageSpared: "nothing shows it was watching", outageDeadZone: asWritten,
				outageAllDown: "nothing shows it was watching", outageRecovered: "nothing to recover from",
			}},
		{name: "taints written with the controller's token", reason: "the same with a token minted for node-controller's account, from kubectl",
			change: func(events []audit.Event) []audit.Event { return relabel(events, withCtlToken, controllerTaintWrite) },
			fail: map[string]string{
				outageNormal: tokenWritten, outageSecondary: tokenWritten,
				outageSpared: "nothing shows it was watching", outageDeadZone: tokenWritten,
				outageAllDown: "nothing shows it was watching", outageRecovered: "nothing to recover from",
			}},
		{name: "nodes switched off, NoExecute taints by hand", reason: "the learner wrote each NoExecute taint with kubectl at the controller's time; the controller only wrote its NoSchedule taints. What the other checks judge, the controller's silence, did happen",
			change: func(events []audit.Event) []audit.Event {
				byHand := map[time.Time]bool{}
				for _, m := range readOutage(events, taints.OutageLayout).noExecute(func(m taintMark) bool { return m.ctl }) {
					byHand[m.by.Received] = true
				}
				return relabel(events, learner, func(e audit.Event) bool { return controllerTaintWrite(e) && byHand[e.Received] })
			},
			fail: map[string]string{
				outageNormal: "the only ones were written by kwok-admin (kubectl)", outageSecondary: "the only ones were written by kwok-admin (kubectl)",
				outageDeadZone: "the only ones were written by kwok-admin (kubectl)",
			}},
		{name: "status flipped, no controller", reason: "the nodes' Ready conditions written, but kube-controller-manager stopped: no write of the controller at all",
			change: func(events []audit.Event) []audit.Event {
				return slices.DeleteFunc(events, func(e audit.Event) bool { return e.User == audit.NodeController })
			},
			fail: map[string]string{
				outageNormal: "no experiment has run", outageSecondary: "no experiment has run",
				outageSpared: "nothing shows it was watching", outageDeadZone: "no experiment has run",
				outageAllDown: "nothing shows it was watching", outageRecovered: "nothing to recover from",
			}},
		{name: "a small zone tainted at the normal rate", reason: "a controller that forgot the small zone's rule: c-01 tainted 8 s into small-partial",
			change: func(events []audit.Event) []audit.Event {
				return append(events, taintWrite(events, ctl, "c-01", 141, notReadyBoth))
			},
			fail: map[string]string{outageSpared: "went on tainting a small zone"}},
		{name: "every zone down, a taint after the first pass", reason: "a controller that went on tainting with every zone down: a-90 tainted 10 s in",
			change: func(events []audit.Event) []audit.Event {
				return append(events, taintWrite(events, ctl, "a-90", 210.5, notReadyBoth))
			},
			fail: map[string]string{outageAllDown: "went on tainting", outageRecovered: "nothing to recover from"}},
		{name: "the large zone at the normal rate", reason: "a controller that kept the normal rate in a large zone partly down: its taints 2 s apart",
			change: func(events []audit.Event) []audit.Event {
				var out []audit.Event
				for _, e := range events {
					if !(controllerTaintWrite(e) && e.Received.After(secondsIn(events, 100)) && e.Received.Before(secondsIn(events, 115))) {
						out = append(out, e)
					}
				}
				return append(out, taintWrite(events, ctl, "a-50", 93.4, notReadyBoth), taintWrite(events, ctl, "a-15", 95.4, notReadyBoth))
			},
			fail: map[string]string{outageSecondary: "never came 10 s apart"}},
		{name: "a large zone tainted faster once", reason: "a controller that tainted a-20 3.5 s after a-50, well after its first health pass in large-partial",
			change: func(events []audit.Event) []audit.Event {
				return append(events, taintWrite(events, ctl, "a-20", 105, notReadyBoth))
			},
			fail: map[string]string{outageSecondary: "never came 10 s apart"}},
		{name: "not recovered", reason: "the checks ran before the recovery experiment: every node still down",
			change: func(events []audit.Event) []audit.Event {
				return slices.DeleteFunc(events, func(e audit.Event) bool { return e.Received.After(secondsIn(events, 222)) })
			},
			fail: map[string]string{outageRecovered: "every lab node is still not Ready"}},
		{name: "a node still down now", reason: "a node switched off again after the recovery",
			now:  func(ns []nodeNow) []nodeNow { ns[3].ready = false; return ns },
			fail: map[string]string{outageRecovered: "1 lab nodes are not Ready now (a-04)"}},
		{name: "a taint left now", reason: "a NoExecute taint on a Ready node, put there after the log was read",
			now:  func(ns []nodeNow) []nodeNow { ns[100].tainted = []string{taints.KeyNotReady}; return ns },
			fail: map[string]string{outageRecovered: "1 lab nodes still carry a NoExecute taint (b-11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := recordedRun(t)
			if tc.change != nil {
				events = tc.change(events)
				slices.SortStableFunc(events, func(a, b audit.Event) int { return a.Time.Compare(b.Time) })
			}
			now := healthyNow()
			if tc.now != nil {
				now = tc.now(now)
			}
			c := outageCase{rec: readOutage(events, taints.OutageLayout), settings: labSettings(t)}
			results := judgeOutage(c, now)
			for _, id := range outageIDs {
				res := results[id]
				phrase, mustFail := tc.fail[id]
				ev := strings.Join(res.Evidence, "\n  ")
				t.Logf("%s %v: %s", id, res.Pass, res.Message)
				switch {
				case !mustFail && !res.Pass:
					t.Errorf("%s failed with %q, want a pass (%s)\nevidence:\n  %s", id, res.Message, tc.reason, ev)
				case mustFail && res.Pass:
					t.Errorf("%s passed with %q, want a failure that says %q (%s)\nevidence:\n  %s", id, res.Message, phrase, tc.reason, ev)
				case mustFail && !strings.Contains(res.Message, phrase):
					t.Errorf("%s failed with %q, want it to say %q (%s)\nevidence:\n  %s", id, res.Message, phrase, tc.reason, ev)
				}
			}
		})
	}
}

// TestOutageRecordedEvidence: on the recorded run, each check's evidence
// names what the controller did, with the times the log gives.
func TestOutageRecordedEvidence(t *testing.T) {
	c := outageCase{rec: readOutage(recordedRun(t), taints.OutageLayout), settings: labSettings(t)}
	results := judgeOutage(c, healthyNow())
	for id, want := range map[string][]string{
		outageNormal:    {"tainted 5 nodes of zone-a (a-03, a-04, a-05, a-01, a-02) one every 2.0 s", "system:serviceaccount:kube-system:node-controller (kube-controller-manager) put node.kubernetes.io/not-ready:NoExecute on a-03", "5 by the taint eviction controller"},
		outageSecondary: {"tainted 3 of its nodes 10 s apart", "of its 90 nodes not Ready, at least the 55 % threshold"},
		outageSpared:    {"9 of zone-c's 15 nodes were not Ready", "NoSchedule taint on 9 of them"},
		outageDeadZone:  {"tainted 8 of its nodes one every 2.0 s", "all 15 nodes not Ready"},
		outageAllDown:   {"every one of the 150 nodes was not Ready", "NoSchedule taint on 150 of them", "deletions of lab pods meanwhile: 0 by the taint eviction controller"},
		outageRecovered: {"all 150 are Ready again", "the controller saw them back: it took its NoSchedule taint off"},
	} {
		all := results[id].Message + "\n" + strings.Join(results[id].Evidence, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: message and evidence lack %q:\n%s", id, w, all)
			}
		}
	}
}

// TestOutageChecksOnFakeCluster runs the outage checks whole, through
// Checks(), on a fake clientset that holds the lab's 150 nodes as the
// recovery leaves them, reached by the scale cluster's context, its audit
// log the recorded run's and its settings the lab's profile, from
// $KWOK_WORKDIR as kwokctl keeps them: each passes. Reached by the
// learner's context with no scale cluster beside it, each fails and says
// how to start it.
func TestOutageChecksOnFakeCluster(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KWOK_WORKDIR", dir)
	cluster := filepath.Join(dir, "clusters", "opslab-scale")
	if err := os.MkdirAll(cluster, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cluster, "kwok.yaml"), labKwokYAML(t), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := recorded()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(logPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, n := range taints.OutageLayout.Nodes() {
		node := kube.OutageNode(n)
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		objs = append(objs, node)
	}
	log, err := audit.Read(logPath)
	if err != nil {
		t.Fatal(err)
	}
	scaleKube := fake.NewClientset(objs...)
	gradertest.Guard(t, scaleKube)
	scale := &labcheck.Cluster{Kube: scaleKube, Context: "kwok-opslab-scale"}
	scale.UseAuditLog(log)
	learnerOnly := &labcheck.Cluster{Kube: fake.NewClientset(), Context: "kwok-opslab"}
	// labcheck reads the learner's cluster through its admin's context: the
	// scale cluster is still the one named after the learner's.
	adminOnly := &labcheck.Cluster{Kube: fake.NewClientset(), Context: "kwok-opslab-admin"}
	for _, id := range outageIDs {
		chk := checkNamed(t, id)
		if chk.Claim == "" || chk.Reads == "" || len(chk.Hints) == 0 || len(chk.Hints) > 3 || chk.Points == 0 {
			t.Errorf("%s lacks a claim, what it reads, one to three hints or points", id)
		}
		res, err := chk.Run(context.Background(), scale)
		if err != nil || !res.Pass {
			t.Errorf("%s on the scale cluster = %v %q, %v; want a pass\nevidence:\n  %s", id, res.Pass, res.Message, err, strings.Join(res.Evidence, "\n  "))
		}
		for _, c := range []*labcheck.Cluster{learnerOnly, adminOnly} {
			res, err = chk.Run(context.Background(), c)
			if err != nil || res.Pass || !strings.Contains(res.Message, "the outage lab's cluster (context kwok-opslab-scale) is not running") || !strings.Contains(res.Hint, "make outage-up") {
				t.Errorf("%s from %s without a scale cluster = %v %q (hint %q), %v; want a failure that names the cluster and make outage-up", id, c.Context, res.Pass, res.Message, res.Hint, err)
			}
		}
	}
	// The lab's nodes as the checks find them now: one still down. The
	// change goes to the fake's store, past the grader's guard: it is the
	// test's, not a check's.
	if err := scaleKube.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, &corev1.Node{
		ObjectMeta: objs[0].(*corev1.Node).ObjectMeta,
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}},
	}, ""); err != nil {
		t.Fatal(err)
	}
	if res, _ := checkNamed(t, outageRecovered).Run(context.Background(), scale); res.Pass || !strings.Contains(res.Message, "a-01") {
		t.Errorf("%s with a-01 down now = %v %q, want a failure that names a-01", outageRecovered, res.Pass, res.Message)
	}
}

// TestReadOutageUnreadWrites: a write to a node's taints that the log does
// not spell out (a JSON patch) leaves the node's taints unknown, so the
// controller's next write there counts as no change of its own, and the
// evidence names the write; the controller's later changes count again.
func TestReadOutageUnreadWrites(t *testing.T) {
	events := recordedRun(t)
	at := secondsIn(events, 55)
	patch := learner.Sends(audit.Event{Received: at, Time: at.Add(5 * time.Millisecond), Verb: "patch", Resource: "nodes", Name: "a-03", Code: 200,
		Request: json.RawMessage(`[{"op":"add","path":"/spec/taints/-","value":{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}}]`)})
	events = append(events, patch)
	slices.SortStableFunc(events, func(a, b audit.Event) int { return a.Time.Compare(b.Time) })
	rec := readOutage(events, taints.OutageLayout)
	if len(rec.unread) != 1 || !strings.Contains(rec.unread[0], "a JSON patch of its spec") {
		t.Errorf("unread = %q, want the JSON patch of a-03", rec.unread)
	}
	var a03 []string
	for _, m := range rec.noExecute(func(m taintMark) bool { return m.node == "a-03" && m.ctl }) {
		a03 = append(a03, fmt.Sprintf("%v@%.0f", m.added, m.at.Sub(events[0].Received).Seconds()))
	}
	// The controller's taint at 55.7 s is not its own change (a-03's
	// taints were unknown); its removal at 75.8 s is.
	if want := []string{"false@76"}; !slices.Equal(a03, want) {
		t.Errorf("the controller's NoExecute changes on a-03 = %v, want %v", a03, want)
	}
	if r := judgeNormalRate(outageCase{rec: rec, settings: labSettings(t)}); !r.Pass || !strings.Contains(r.Message, "4 nodes of zone-a (a-04, a-05, a-01, a-02)") {
		t.Errorf("judgeNormalRate = %v %q, want a pass on the four other taints", r.Pass, r.Message)
	}
}
