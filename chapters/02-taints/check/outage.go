package check

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/labcheck"
)

// The zone-outage lab's checks read its own cluster, the scale cluster
// beside the learner's (make outage-up): its audit log, where the node
// lifecycle controller's writes carry each node's new list of taints and
// the status writes each node's Ready condition, and the controller's
// settings from the cluster's configuration. They judge what the controller
// did under its own name while the lab's nodes were down, which no person
// can write: a taint put on with kubectl or with --as is a person's.

// scaleSuffix turns the learner's context into the scale cluster's:
// kwok-opslab, kwok-opslab-scale.
const scaleSuffix = "-scale"

// adminSuffix ends the admin's context of a lab cluster (lab/scripts/lab-up.sh):
// kwok-opslab-admin is the admin's, kwok-opslab the learner's.
const adminSuffix = "-admin"

// outageStartHint is the first hint of every outage check.
const outageStartHint = "Start the outage lab's cluster with make outage-up, then run its experiments with make outage: the checks read what that cluster's node lifecycle controller did, from its audit log."

func outageChecks() []labcheck.Check {
	return []labcheck.Check{
		{
			ID: "outage-normal-rate", Points: 1,
			Title: "a few nodes of a zone down: the controller taints them at --node-eviction-rate",
			Claim: "in a zone under the unhealthy threshold the controller puts the NoExecute taint on one not-Ready node every 1/--node-eviction-rate seconds",
			Reads: "the scale cluster's audit log: the lab nodes' Ready conditions (status writes, by anyone) and the taints the node lifecycle controller wrote under its own name; the controller's settings from the cluster's kwok.yaml",
			Hints: []string{
				outageStartHint,
				"The experiment few switches 5 nodes of zone-a off: outage run few (make outage runs it first). Then watch the taints come one every 1/--node-eviction-rate seconds.",
				notOursHint,
			},
			Run: outageCheck(judgeNormalRate),
		},
		{
			ID: "outage-secondary-rate", Points: 2,
			Title: "most of a large zone down: the controller slows to --secondary-node-eviction-rate",
			Claim: "in a zone of more than --large-cluster-size-threshold nodes, at least --unhealthy-zone-threshold of them not Ready, the controller taints one node every 1/--secondary-node-eviction-rate seconds",
			Reads: "the scale cluster's audit log: the Ready conditions of zone-a's nodes and the controller's taints on them while the threshold was reached; the controller's settings",
			Hints: []string{
				outageStartHint,
				"The experiment large-partial switches 60 % of zone-a off and watches long enough for two taints at the secondary rate: outage run large-partial.",
				notOursHint,
			},
			Run: outageCheck(judgeSecondaryRate),
		},
		{
			ID: "outage-small-zone-spared", Points: 2,
			Title: "most of a small zone down: the controller taints none of it",
			Claim: "in a zone of --large-cluster-size-threshold nodes or fewer, partly disrupted, the controller stops tainting",
			Reads: "the scale cluster's audit log: a stretch of 10 s or more in which the threshold but not all of a small zone was not Ready, the controller's NoSchedule taints there (it saw them) and its NoExecute taints after its first health pass (none)",
			Hints: []string{
				outageStartHint,
				"The experiment small-partial switches 60 % of zone-c off: outage run small-partial. Leave it so for more than 10 s.",
				notOursHint,
			},
			Run: outageCheck(judgeSmallZoneSpared),
		},
		{
			ID: "outage-dead-zone-empties", Points: 2,
			Title: "a whole zone down while others run: the controller empties it at the normal rate",
			Claim: "a fully disrupted zone is tainted at --node-eviction-rate while some other zone still has a Ready node",
			Reads: "the scale cluster's audit log: a zone with no Ready node while another had some, and the controller's taints on that zone's nodes then",
			Hints: []string{
				outageStartHint,
				"The experiment zone switches every node of zone-c off and nothing else: outage run zone.",
				notOursHint,
			},
			Run: outageCheck(judgeDeadZoneEmpties),
		},
		{
			ID: "outage-all-zones-down", Points: 2,
			Title: "every node down: the controller stops and takes its taints off",
			Claim: "when every zone is fully disrupted the controller taints nothing more and removes the NoExecute taints it put on",
			Reads: "the scale cluster's audit log: a stretch of 10 s or more with every lab node not Ready, the controller's NoSchedule taints then (it saw them), and the NoExecute taints it put on and took off",
			Hints: []string{
				outageStartHint,
				"The experiment everything switches all 150 nodes off at once: outage run everything. Leave them so for more than 10 s.",
				notOursHint,
			},
			Run: outageCheck(judgeAllZonesDown),
		},
		{
			ID: "outage-recovered", Points: 1,
			Title: "after the whole cluster was down, every node is Ready and untainted again",
			Claim: "when the nodes come back the controller takes its NoExecute taints off and the zones are Normal again",
			Reads: "the scale cluster's audit log (the last stretch with every lab node not Ready, and who took taints off after it); the lab nodes now: their Ready condition and NoExecute taints",
			Hints: []string{
				outageStartHint,
				"The experiment recovery switches every node back on after everything: outage run everything recovery.",
				"Do not take the taints off by hand: the controller does it once the nodes are Ready.",
			},
			Run: checkRecovered,
		},
	}
}

// A scaleReach is the outcome of reaching the scale cluster, kept for the
// checks that follow the first.
type scaleReach struct {
	cluster *labcheck.Cluster
	failed  *labcheck.Result
}

var scaleClusters sync.Map // *labcheck.Cluster → scaleReach

// scaleCluster returns the outage lab's cluster beside c (c itself when it
// was reached by the scale cluster's context), or the failed Result that
// says it is not there.
func scaleCluster(ctx context.Context, c *labcheck.Cluster) (*labcheck.Cluster, *labcheck.Result) {
	if strings.HasSuffix(c.Context, scaleSuffix) {
		return c, nil
	}
	if s, ok := scaleClusters.Load(c); ok {
		return s.(scaleReach).cluster, s.(scaleReach).failed
	}
	var s scaleReach
	if c.Context == "" {
		s.failed = &labcheck.Result{
			Message: "the kubeconfig names no context, so the outage lab's cluster beside it cannot be found",
			Hint:    "Run labcheck --context kwok-opslab" + scaleSuffix + " to check the outage lab's cluster.",
		}
	} else {
		// The scale cluster is named after the learner's; labcheck may
		// read the learner's cluster through its admin's context.
		name := strings.TrimSuffix(c.Context, adminSuffix) + scaleSuffix
		sib, err := c.Sibling(ctx, name)
		if err != nil {
			s.failed = &labcheck.Result{
				Message: fmt.Sprintf("the outage lab's cluster (context %s) is not running", name),
				// Connect's fix names the learner's cluster: keep its finding.
				Evidence: []string{strings.SplitN(err.Error(), "; ", 2)[0]},
				Hint:     "Start it with make outage-up, then run the lab's experiments with make outage.",
			}
		} else {
			s.cluster = sib
		}
	}
	scaleClusters.Store(c, s)
	return s.cluster, s.failed
}

// A caseRead is the outage case read once for a scale cluster, which every
// outage check judges: the audit log is gone through and the settings read
// by the first check, not by each.
type caseRead struct {
	once   sync.Once
	oc     outageCase
	failed *labcheck.Result
}

var outageCases sync.Map // the scale cluster's *labcheck.Cluster → *caseRead

// readOutageCase reads the outage lab's record and the controller's
// settings from the scale cluster, once for all the checks.
func readOutageCase(ctx context.Context, c *labcheck.Cluster) (*labcheck.Cluster, outageCase, *labcheck.Result) {
	scale, failed := scaleCluster(ctx, c)
	if failed != nil {
		return nil, outageCase{}, failed
	}
	v, _ := outageCases.LoadOrStore(scale, &caseRead{})
	r := v.(*caseRead)
	r.once.Do(func() { r.oc, r.failed = outageCaseOf(scale) })
	if r.failed != nil {
		return nil, outageCase{}, r.failed
	}
	return scale, r.oc, nil
}

// outageCaseOf reads the outage lab's record from the scale cluster's
// audit log and the controller's settings from its configuration.
func outageCaseOf(scale *labcheck.Cluster) (outageCase, *labcheck.Result) {
	log := scale.Audit()
	if log == nil {
		return outageCase{}, &labcheck.Result{
			Message: fmt.Sprintf("the outage lab's cluster (context %s) has no audit log to read (%s): the controller's taints can be judged only from it", scale.Context, strings.TrimSuffix(cmpOr(scale.NoAudit, "none was found"), ".")),
			Hint:    scale.AuditAdvice(),
		}
	}
	settings, err := kube.SettingsOf(scale.Context)
	if err != nil {
		return outageCase{}, &labcheck.Result{
			Message: fmt.Sprintf("cannot read the controller's settings of the outage lab's cluster: %v", err),
			Hint:    "Start it with make outage-up, then run the lab's experiments with make outage.",
		}
	}
	return outageCase{rec: readOutage(log.Window(time.Time{}), taints.OutageLayout), settings: settings}, nil
}

// outageCheck runs a judge of the audit log alone.
func outageCheck(judge func(outageCase) labcheck.Result) func(context.Context, *labcheck.Cluster) (labcheck.Result, error) {
	return func(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
		_, oc, failed := readOutageCase(ctx, c)
		if failed != nil {
			return *failed, nil
		}
		return judge(oc), nil
	}
}

func checkRecovered(ctx context.Context, c *labcheck.Cluster) (labcheck.Result, error) {
	scale, oc, failed := readOutageCase(ctx, c)
	if failed != nil {
		return *failed, nil
	}
	list, err := scale.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: kube.ProfileLabel + "=outage"})
	if err != nil {
		return labcheck.Result{}, err
	}
	var nodes []nodeNow
	for _, n := range list.Items {
		now := nodeNow{name: n.Name}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				now.ready = cond.Status == corev1.ConditionTrue
			}
		}
		for _, t := range n.Spec.Taints {
			if t.Effect == corev1.TaintEffectNoExecute && (t.Key == taints.KeyNotReady || t.Key == taints.KeyUnreachable) {
				now.tainted = append(now.tainted, t.Key)
			}
		}
		nodes = append(nodes, now)
	}
	return judgeRecovered(oc, nodes), nil
}
