package check

import (
	"fmt"
	"slices"
	"strings"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	"github.com/opslab/opslab/chapters/03-apf/kube"
)

// A Changed is one of the server's own FlowSchemas or levels whose spec
// is not the one the server writes (bootstrap's, with the API's defaults
// filled in, compared as the server's ensurer compares them), as the
// checks found it on the cluster.
type Changed struct {
	Kind, Name string
	// AutoUpdate is its annotation apf.kubernetes.io/autoupdate-spec:
	// "false" keeps the edit from the ensurer's next pass.
	AutoUpdate string
	// Diffs say what differs: "priorityLevelConfiguration exempt, where
	// the server writes global-default".
	Diffs []string
	// ToExempt is a schema that, changed, sends its requests to the
	// Exempt level: it changes who is never limited.
	ToExempt bool
	// Wider lists how a level's own seats grew: more shares, less lent, a
	// higher borrowing limit.
	Wider []string
}

func (c Changed) String() string {
	keeps := ""
	if c.AutoUpdate != "" && c.AutoUpdate != "true" {
		keeps = fmt.Sprintf(", and its annotation %s %q keeps the edit", kube.AutoUpdateAnnotation, c.AutoUpdate)
	}
	return fmt.Sprintf("the server's %s %s is changed (%s)%s", c.Kind, c.Name, strings.Join(c.Diffs, "; "), keeps)
}

// changedDefaults compares every FlowSchema and level the server creates
// itself with the cluster's object of that name, and returns those that
// differ. A default that is missing is not listed: the ensurer creates it
// again within a minute, as it was. The exempt level's shares and
// lendable percent are not compared, as the ensurer does not: the API lets
// an administrator set them.
func changedDefaults(objs kube.Objects) []Changed {
	schemas := map[string]*flowcontrol.FlowSchema{}
	for _, fs := range objs.Schemas {
		schemas[fs.Name] = fs
	}
	levels := map[string]*flowcontrol.PriorityLevelConfiguration{}
	for _, pl := range objs.Levels {
		levels[pl.Name] = pl
	}
	var out []Changed
	for _, def := range slices.Concat(bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas) {
		have := schemas[def.Name]
		if have == nil {
			continue
		}
		want := def.DeepCopy()
		kube.SetDefaults([]*flowcontrol.FlowSchema{want}, nil)
		if equality.Semantic.DeepEqual(want.Spec, have.Spec) {
			continue
		}
		c := Changed{Kind: "FlowSchema", Name: def.Name, AutoUpdate: have.Annotations[kube.AutoUpdateAnnotation]}
		w, h := want.Spec, have.Spec
		if w.PriorityLevelConfiguration.Name != h.PriorityLevelConfiguration.Name {
			c.Diffs = append(c.Diffs, fmt.Sprintf("priorityLevelConfiguration %s, where the server writes %s", h.PriorityLevelConfiguration.Name, w.PriorityLevelConfiguration.Name))
		}
		if w.MatchingPrecedence != h.MatchingPrecedence {
			c.Diffs = append(c.Diffs, fmt.Sprintf("matchingPrecedence %d, where the server writes %d", h.MatchingPrecedence, w.MatchingPrecedence))
		}
		if !equality.Semantic.DeepEqual(w.DistinguisherMethod, h.DistinguisherMethod) {
			c.Diffs = append(c.Diffs, "another distinguisherMethod")
		}
		if !equality.Semantic.DeepEqual(w.Rules, h.Rules) {
			c.Diffs = append(c.Diffs, "other rules or subjects")
		}
		if pl := levels[h.PriorityLevelConfiguration.Name]; pl != nil && pl.Spec.Type == flowcontrol.PriorityLevelEnablementExempt {
			c.ToExempt = true
		}
		out = append(out, c)
	}
	for _, def := range slices.Concat(bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations) {
		have := levels[def.Name]
		if have == nil || kube.LevelSpecEqual(def, have) {
			continue
		}
		want := def.DeepCopy()
		kube.SetDefaults(nil, []*flowcontrol.PriorityLevelConfiguration{want})
		c := Changed{Kind: "PriorityLevelConfiguration", Name: def.Name, AutoUpdate: have.Annotations[kube.AutoUpdateAnnotation]}
		w, h := want.Spec.Limited, have.Spec.Limited
		if w == nil || h == nil {
			c.Diffs = append(c.Diffs, fmt.Sprintf("type %s, where the server writes %s", have.Spec.Type, want.Spec.Type))
			out = append(out, c)
			continue
		}
		if a, b := deref(h.NominalConcurrencyShares), deref(w.NominalConcurrencyShares); a != b {
			d := fmt.Sprintf("nominalConcurrencyShares %d, where the server writes %d", a, b)
			c.Diffs = append(c.Diffs, d)
			if a > b {
				c.Wider = append(c.Wider, d)
			}
		}
		if a, b := deref(h.LendablePercent), deref(w.LendablePercent); a != b {
			d := fmt.Sprintf("lendablePercent %d, where the server writes %d", a, b)
			c.Diffs = append(c.Diffs, d)
			if a < b {
				c.Wider = append(c.Wider, d)
			}
		}
		if a, b := h.BorrowingLimitPercent, w.BorrowingLimitPercent; !equality.Semantic.DeepEqual(a, b) {
			d := fmt.Sprintf("borrowingLimitPercent %s, where the server writes %s", percent(a), percent(b))
			c.Diffs = append(c.Diffs, d)
			if b != nil && (a == nil || *a > *b) {
				c.Wider = append(c.Wider, d)
			}
		}
		if !equality.Semantic.DeepEqual(w.LimitResponse, h.LimitResponse) {
			c.Diffs = append(c.Diffs, "another limitResponse")
		}
		out = append(out, c)
	}
	return out
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// percent prints a borrowing limit: unset means no limit.
func percent(p *int32) string {
	if p == nil {
		return "none (no limit)"
	}
	return fmt.Sprint(*p)
}
