package pdb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/opslab/opslab/internal/prop"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type scaledCase struct {
	v     IntOrPercent
	total int
}

// TestScaledOracle asks IntOrPercent.Scaled and apimachinery's
// intstr.GetScaledValueFromIntOrPercent with roundUp true, which the
// disruption controller calls for minAvailable and maxUnavailable, about
// generated values and totals, and on a disagreement prints the smallest
// pair it shrinks to.
func TestScaledOracle(t *testing.T) {
	gen := func(r *rand.Rand) scaledCase {
		if r.IntN(2) == 0 {
			return scaledCase{Int(r.IntN(20)), r.IntN(200)}
		}
		return scaledCase{Percent(r.IntN(101)), r.IntN(200)}
	}
	shrink := func(c scaledCase) []scaledCase {
		var out []scaledCase
		if c.total > 0 {
			out = append(out, scaledCase{c.v, 0}, scaledCase{c.v, c.total / 2}, scaledCase{c.v, c.total - 1})
		}
		if c.v.value > 0 {
			w := c.v
			w.value /= 2
			out = append(out, scaledCase{w, c.total})
			w.value = c.v.value - 1
			out = append(out, scaledCase{w, c.total})
		}
		return out
	}
	prop.Check(t, 5000, 1, gen, shrink, func(c scaledCase) string {
		up := intstr.FromInt32(int32(c.v.value))
		if c.v.percent {
			up = intstr.FromString(c.v.String())
		}
		want, err := intstr.GetScaledValueFromIntOrPercent(&up, c.total, true)
		if err != nil {
			return fmt.Sprintf("upstream refuses %s: %v", c.v, err)
		}
		if got := c.v.Scaled(c.total); got != want {
			return fmt.Sprintf("your Scaled says %s of %d pods is %d; Kubernetes says %d", c.v, c.total, got, want)
		}
		return ""
	})
}
