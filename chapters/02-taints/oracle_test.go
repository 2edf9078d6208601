package taints

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/opslab/opslab/internal/prop"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

type tolerationCase struct {
	tol   Toleration
	taint Taint
}

// The values a generated pair draws from, simplest first: a shrink moves a
// field towards the front of its list.
var (
	oracleKeys      = []string{"", "a", "b"}
	oracleValues    = []string{"", "x", "y"}
	oracleOperators = []Operator{"", Exists, Equal, Lt, Gt, "In"}
	oracleEffects   = []Effect{"", NoSchedule, PreferNoSchedule, NoExecute}
)

// TestToleratesOracle asks Toleration.Tolerates and k8s.io/api's
// ToleratesTaint (comparison operators off, the v1.37 default) about
// generated pairs, and on a disagreement prints the smallest pair it can
// shrink to, in the words of a toleration and a taint in a manifest.
func TestToleratesOracle(t *testing.T) {
	gen := func(r *rand.Rand) tolerationCase {
		return tolerationCase{
			tol: Toleration{Key: prop.Pick(r, oracleKeys...), Operator: prop.Pick(r, oracleOperators...),
				Value: prop.Pick(r, oracleValues...), Effect: prop.Pick(r, oracleEffects...)},
			taint: Taint{Key: prop.Pick(r, oracleKeys[1:]...), Value: prop.Pick(r, oracleValues...),
				Effect: prop.Pick(r, oracleEffects[1:]...)},
		}
	}
	shrink := func(c tolerationCase) []tolerationCase {
		var out []tolerationCase
		for _, k := range prop.Simpler(c.tol.Key, oracleKeys...) {
			d := c
			d.tol.Key = k
			out = append(out, d)
		}
		for _, o := range prop.Simpler(c.tol.Operator, oracleOperators...) {
			d := c
			d.tol.Operator = o
			out = append(out, d)
		}
		for _, v := range prop.Simpler(c.tol.Value, oracleValues...) {
			d := c
			d.tol.Value = v
			out = append(out, d)
		}
		for _, e := range prop.Simpler(c.tol.Effect, oracleEffects...) {
			d := c
			d.tol.Effect = e
			out = append(out, d)
		}
		for _, k := range prop.Simpler(c.taint.Key, oracleKeys[1:]...) {
			d := c
			d.taint.Key = k
			out = append(out, d)
		}
		for _, v := range prop.Simpler(c.taint.Value, oracleValues...) {
			d := c
			d.taint.Value = v
			out = append(out, d)
		}
		for _, v := range prop.Simpler(c.taint.Value, oracleValues...) {
			// Both values at once: a case may need them equal.
			d := c
			d.tol.Value, d.taint.Value = v, v
			out = append(out, d)
		}
		for _, e := range prop.Simpler(c.taint.Effect, oracleEffects[1:]...) {
			d := c
			d.taint.Effect = e
			out = append(out, d)
		}
		return out
	}
	prop.Check(t, 5000, 2, gen, shrink, func(c tolerationCase) string {
		up := corev1.Toleration{Key: c.tol.Key, Operator: corev1.TolerationOperator(c.tol.Operator),
			Value: c.tol.Value, Effect: corev1.TaintEffect(c.tol.Effect)}
		want := up.ToleratesTaint(klog.Background(), &corev1.Taint{Key: c.taint.Key, Value: c.taint.Value,
			Effect: corev1.TaintEffect(c.taint.Effect)}, false)
		if got := c.tol.Tolerates(c.taint); got != want {
			return fmt.Sprintf("your Tolerates says %v for toleration %s and taint %s; Kubernetes says %v",
				got, manifestToleration(c.tol), "{"+c.taint.String()+"}", want)
		}
		return ""
	})
}
