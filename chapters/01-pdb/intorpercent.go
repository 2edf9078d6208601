package pdb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// An IntOrPercent is the value of minAvailable or maxUnavailable: a number
// of pods, or a percentage of the pods the budget expects.
type IntOrPercent struct {
	value   int
	percent bool
}

// Int returns the IntOrPercent for n pods.
func Int(n int) IntOrPercent { return IntOrPercent{value: n} }

// Percent returns the IntOrPercent for p percent.
func Percent(p int) IntOrPercent { return IntOrPercent{value: p, percent: true} }

// ParseIntOrPercent reads "2" or "50%", and refuses what the API server's
// validation refuses: negative numbers and percentages above 100.
func ParseIntOrPercent(s string) (IntOrPercent, error) {
	num, percent := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(num)
	if err != nil {
		return IntOrPercent{}, fmt.Errorf("%q is neither an integer nor a percentage such as 50%%", s)
	}
	v := IntOrPercent{value: n, percent: percent}
	if err := v.validate(); err != nil {
		return IntOrPercent{}, err
	}
	return v, nil
}

func (v IntOrPercent) validate() error {
	switch {
	case v.value < 0:
		return fmt.Errorf("%s must not be negative", v)
	case v.percent && v.value > 100:
		return fmt.Errorf("%s must not be greater than 100%%", v)
	}
	return nil
}

// IsPercent reports whether v is a percentage.
func (v IntOrPercent) IsPercent() bool { return v.percent }

// String returns v as it is written in a manifest: "2" or "50%".
func (v IntOrPercent) String() string {
	if v.percent {
		return strconv.Itoa(v.value) + "%"
	}
	return strconv.Itoa(v.value)
}

// Scaled returns the number of pods v stands for out of total. The
// disruption controller rounds percentages up for both fields (it calls
// intstr.GetScaledValueFromIntOrPercent with roundUp true), so a percentage
// of minAvailable protects more pods and one of maxUnavailable allows more
// disruptions than the exact fraction.
func (v IntOrPercent) Scaled(total int) int {
	if !v.percent {
		return v.value
	}
	// Computed in floating point as upstream does, so that the model rounds
	// exactly where the controller rounds.
	return int(math.Ceil(float64(v.value) * float64(total) / 100))
}
