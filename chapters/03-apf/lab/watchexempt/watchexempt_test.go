package watchexempt

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/internal/prop"
)

// A change is one event the fake server sends: a schema of the lab's
// (lab-1 to lab-3) or of a new cluster's created, pointed at a level, or
// deleted. The mandatory schema exempt is left alone: the server puts it
// back as it was, and the model supplies it when it is missing.
type change struct {
	kind  watch.EventType // Added, Modified or Deleted
	name  string
	level string
}

func (c change) String() string {
	if c.kind == watch.Deleted {
		return "delete " + c.name
	}
	return fmt.Sprintf("%s %s -> %s", strings.ToLower(string(c.kind)), c.name, c.level)
}

// A history is what the watcher sees: a new cluster's schemas, then the
// changes.
type history []change

func (h history) String() string {
	if len(h) == 0 {
		return "a new cluster's schemas, no change"
	}
	var s []string
	for _, c := range h {
		s = append(s, c.String())
	}
	return "a new cluster's schemas, then: " + strings.Join(s, "; ")
}

var levels = []string{"exempt", "workload-low", "global-default"}

func genHistory(r *rand.Rand) history {
	names := []string{"lab-1", "lab-2", "lab-3", "probes", "global-default"}
	var h history
	for range r.IntN(8) {
		kind := prop.Pick(r, watch.Added, watch.Modified, watch.Modified, watch.Deleted)
		h = append(h, change{kind: kind, name: prop.Pick(r, names...), level: prop.Pick(r, levels...)})
	}
	return h
}

func shrinkHistory(h history) []history {
	var out []history
	for i := range h {
		out = append(out, slices.Delete(slices.Clone(h), i, i+1))
	}
	for i, c := range h {
		for _, l := range prop.Simpler(c.level, levels...) {
			s := slices.Clone(h)
			s[i].level = l
			out = append(out, s)
		}
	}
	return out
}

func newSchema(name, level string) *flowcontrol.FlowSchema {
	return &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         500,
		},
	}
}

// modelExempt is the model's exempt list for the schemas: the names
// kube.Config.Exempt returns, which apfctl exempt prints.
func modelExempt(t *testing.T, schemas map[string]*flowcontrol.FlowSchema) map[string]bool {
	var fss []*flowcontrol.FlowSchema
	for _, fs := range schemas {
		fss = append(fss, fs)
	}
	var pls []*flowcontrol.PriorityLevelConfiguration
	pls = append(pls, bootstrap.MandatoryPriorityLevelConfigurations...)
	pls = append(pls, bootstrap.SuggestedPriorityLevelConfigurations...)
	c, err := kube.NewConfig(fss, pls)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, fs := range c.Exempt() {
		out[fs.Name] = true
	}
	return out
}

// TestWatcherMatchesModel holds the lab's watcher to the chapter's model
// on a fake API server: on 300 generated histories of schemas created,
// pointed at a level and deleted, it first prints the exempt list of the
// new cluster's schemas as the model computes it (kube.Config.Exempt,
// what apfctl exempt prints), sorted, then after each change exactly the
// line that the model's list before and after it calls for. A difference
// is shown for the shortest history that still has one.
func TestWatcherMatchesModel(t *testing.T) {
	prop.Check(t, 300, 3, genHistory, shrinkHistory, func(h history) string {
		schemas := map[string]*flowcontrol.FlowSchema{}
		var objects []runtime.Object
		for _, fs := range slices.Concat(bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas) {
			schemas[fs.Name] = fs
			objects = append(objects, fs.DeepCopy())
		}
		var want strings.Builder
		before := modelExempt(t, schemas)
		for _, n := range sortedKeys(before) {
			fmt.Fprintf(&want, "exempt %s\n", n)
		}
		events := watch.NewFakeWithChanSize(len(h)+1, false)
		client := fake.NewClientset(objects...)
		client.PrependWatchReactor("flowschemas", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, events, nil
		})
		for _, c := range h {
			fs := newSchema(c.name, c.level)
			switch c.kind {
			case watch.Deleted:
				if old, ok := schemas[c.name]; ok {
					fs = old
				}
				delete(schemas, c.name)
				events.Delete(fs)
			default:
				schemas[c.name] = fs
				events.Action(c.kind, fs)
			}
			after := modelExempt(t, schemas)
			for _, n := range sortedKeys(before) {
				if !after[n] {
					fmt.Fprintf(&want, "- %s\n", n)
				}
			}
			for _, n := range sortedKeys(after) {
				if !before[n] {
					fmt.Fprintf(&want, "+ %s\n", n)
				}
			}
			before = after
		}
		events.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var got bytes.Buffer
		if _, err := Watch(ctx, client, &got); err != nil {
			return fmt.Sprintf("for %s\nyour watcher failed: %v", h, err)
		}
		if got.String() != want.String() {
			return fmt.Sprintf("for %s\nyour watcher printed\n%sthe model's exempt list calls for\n%s", h, orNothing(got.String()), orNothing(want.String()))
		}
		return ""
	})
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func orNothing(s string) string {
	if s == "" {
		return "  (nothing)\n"
	}
	return s
}
