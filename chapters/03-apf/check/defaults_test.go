package check

import (
	"strconv"
	"strings"
	"testing"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	"github.com/opslab/opslab/chapters/03-apf/kube"
)

// withDefaults returns the server's own objects, those named in docs
// replaced by the documents' version, and the documents' other objects.
func withDefaults(t *testing.T, docs ...string) kube.Objects {
	t.Helper()
	objs := readDocs(t, docs...)
	named := map[string]bool{}
	for _, fs := range objs.Schemas {
		named["fs/"+fs.Name] = true
	}
	for _, pl := range objs.Levels {
		named["pl/"+pl.Name] = true
	}
	for _, list := range [][]*flowcontrol.FlowSchema{bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas} {
		for _, fs := range list {
			if !named["fs/"+fs.Name] {
				objs.Schemas = append(objs.Schemas, fs.DeepCopy())
			}
		}
	}
	for _, list := range [][]*flowcontrol.PriorityLevelConfiguration{bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations} {
		for _, pl := range list {
			if !named["pl/"+pl.Name] {
				objs.Levels = append(objs.Levels, pl.DeepCopy())
			}
		}
	}
	return objs
}

// globalDefaultExemptDoc is the server's schema global-default pointed at
// exempt, with the annotation that keeps the edit.
var globalDefaultExemptDoc = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: global-default
  annotations: {apf.kubernetes.io/autoupdate-spec: "false"}
spec:
  matchingPrecedence: 9900
  priorityLevelConfiguration: {name: exempt}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects:
    - {kind: Group, group: {name: system:unauthenticated}}
    - {kind: Group, group: {name: system:authenticated}}
    resourceRules:
    - {verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}
    nonResourceRules:
    - {verbs: ["*"], nonResourceURLs: ["*"]}
`

// workloadLow is the level workload-low with the given shares,
// lendable percent and borrowing line, kept by the annotation.
func workloadLow(shares, lendable int, borrowing string) string {
	return `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: workload-low
  annotations: {apf.kubernetes.io/autoupdate-spec: "false"}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: ` + strconv.Itoa(shares) + `
    lendablePercent: ` + strconv.Itoa(lendable) + borrowing + `
    limitResponse:
      type: Queue
      queuing: {queues: 128, handSize: 6, queueLengthLimit: 50}
`
}

// TestChangedDefaults: every default is compared with the server's own,
// as the ensurer compares them, and what widens exemption or a level's
// seats is told apart from what does not.
func TestChangedDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		docs         []string
		want         string // the changes, one per line, "" for none
		toExempt     bool
		wider        bool
	}{
		{"untouched", "a new cluster's objects are the defaults", nil, "", false, false},
		{"the lab's", "objects of your own are not defaults", []string{"runaway-level.yaml", "runaway-schema.yaml", "tie.yaml"}, "", false, false},
		{"global-default to exempt", "the cheat: the catch-most schema sent to exempt, kept by the annotation",
			[]string{globalDefaultExemptDoc},
			`the server's FlowSchema global-default is changed (priorityLevelConfiguration exempt, where the server writes global-default), and its annotation apf.kubernetes.io/autoupdate-spec "false" keeps the edit`, true, false},
		{"workload-low as step 8 leaves it", "90 shares: fewer seats of its own",
			[]string{workloadLow(90, 90, "")},
			`the server's PriorityLevelConfiguration workload-low is changed (nominalConcurrencyShares 90, where the server writes 100), and its annotation apf.kubernetes.io/autoupdate-spec "false" keeps the edit`, false, false},
		{"workload-low widened", "more shares and nothing lent",
			[]string{workloadLow(1000, 0, "")},
			`the server's PriorityLevelConfiguration workload-low is changed (nominalConcurrencyShares 1000, where the server writes 100; lendablePercent 0, where the server writes 90), and its annotation apf.kubernetes.io/autoupdate-spec "false" keeps the edit`, false, true},
		{"workload-low with a borrowing limit", "a limit where the server writes none narrows it",
			[]string{workloadLow(100, 90, "\n    borrowingLimitPercent: 10")},
			`the server's PriorityLevelConfiguration workload-low is changed (borrowingLimitPercent 10, where the server writes none (no limit)), and its annotation apf.kubernetes.io/autoupdate-spec "false" keeps the edit`, false, false},
		{"exempt's shares", "the API lets an administrator set the exempt level's shares, and the ensurer keeps them",
			[]string{"apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: exempt\nspec:\n  type: Exempt\n  exempt: {nominalConcurrencyShares: 10, lendablePercent: 50}\n"},
			"", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			toExempt, wider := false, false
			for _, c := range changedDefaults(withDefaults(t, tc.docs...)) {
				got = append(got, c.String())
				toExempt = toExempt || c.ToExempt
				wider = wider || len(c.Wider) > 0
			}
			if g := strings.Join(got, "\n"); g != tc.want || toExempt != tc.toExempt || wider != tc.wider {
				t.Errorf("got %q, to exempt %v, wider %v; want %q, %v, %v (%s)", g, toExempt, wider, tc.want, tc.toExempt, tc.wider, tc.reason)
			}
		})
	}
}
