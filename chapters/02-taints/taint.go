package taints

import (
	"fmt"
	"strings"
	"time"
)

// An Effect says what a taint does to pods that do not tolerate it.
type Effect string

// The three effects. NoSchedule keeps new pods off the node,
// PreferNoSchedule asks the scheduler to avoid it, and only NoExecute
// removes pods that already run there.
const (
	NoSchedule       Effect = "NoSchedule"
	PreferNoSchedule Effect = "PreferNoSchedule"
	NoExecute        Effect = "NoExecute"
)

// Taint keys that Kubernetes itself writes.
const (
	KeyNotReady           = "node.kubernetes.io/not-ready"
	KeyUnreachable        = "node.kubernetes.io/unreachable"
	KeyMemoryPressure     = "node.kubernetes.io/memory-pressure"
	KeyDiskPressure       = "node.kubernetes.io/disk-pressure"
	KeyPIDPressure        = "node.kubernetes.io/pid-pressure"
	KeyNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	KeyUnschedulable      = "node.kubernetes.io/unschedulable"
)

// A Taint is a mark on a node that repels pods that do not tolerate it.
// TimeAdded is the taint's timeAdded as the API server stores it (zero
// when nobody wrote one). Nothing in the model reads it to decide when a
// pod leaves: the taint eviction controller counts from the moment it
// sees the taint (see Timer).
type Taint struct {
	Key       string
	Value     string
	Effect    Effect
	TimeAdded time.Time
}

// String returns the taint the way kubectl taint writes it:
// key[=value]:Effect.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// An Operator says how a toleration compares its value with a taint's.
type Operator string

// The operators. An empty operator means Equal. Lt and Gt are alpha in
// v1.37 (feature gate TaintTolerationComparisonOperators, off by default).
const (
	Equal  Operator = "Equal"
	Exists Operator = "Exists"
	Lt     Operator = "Lt"
	Gt     Operator = "Gt"
)

// A Toleration lets a pod stay on, or be placed on, a node with a matching
// taint. Seconds, when set, bounds how long the pod stays once a matching
// NoExecute taint is on its node; nil means for good.
type Toleration struct {
	Key      string
	Operator Operator
	Value    string
	Effect   Effect
	Seconds  *int64
}

// Tolerates reports whether t tolerates taint, with the rules of
// Toleration.ToleratesTaint in k8s.io/api/core/v1 and the comparison
// operators switched off, as they are by default.
func (t Toleration) Tolerates(taint Taint) bool {
	// An empty effect or key is a wildcard: it is how one toleration
	// covers every effect, or every taint on the node.
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", Equal:
		return t.Value == taint.Value
	case Exists:
		return true
	default:
		// Lt and Gt need the alpha feature gate; any other operator is
		// unknown. Neither tolerates anything.
		return false
	}
}

// String returns the toleration in a compact form, e.g.
// "opslab.dev/link-down:NoExecute for 20s", "*:NoExecute forever" or
// "app=db:NoSchedule".
func (t Toleration) String() string {
	var b strings.Builder
	if t.Key == "" {
		b.WriteString("*")
	} else {
		b.WriteString(t.Key)
	}
	switch t.Operator {
	case "", Equal:
		b.WriteString("=" + t.Value)
	case Exists:
	default:
		fmt.Fprintf(&b, " %s %s", t.Operator, t.Value)
	}
	if t.Effect == "" {
		b.WriteString(":*")
	} else {
		b.WriteString(":" + string(t.Effect))
	}
	if t.Effect == "" || t.Effect == NoExecute {
		if t.Seconds == nil {
			b.WriteString(" forever")
		} else {
			fmt.Fprintf(&b, " for %ds", *t.Seconds)
		}
	}
	return b.String()
}

// Seconds returns a pointer to n, for Toleration.Seconds.
func Seconds(n int64) *int64 { return &n }

// ParseTaint reads a taint written as key[=value]:Effect, the form kubectl
// taint uses.
func ParseTaint(s string) (Taint, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return Taint{}, fmt.Errorf("taint %q has no effect: write key[=value]:Effect", s)
	}
	kv, effect := s[:i], Effect(s[i+1:])
	switch effect {
	case NoSchedule, PreferNoSchedule, NoExecute:
	default:
		return Taint{}, fmt.Errorf("taint %q has effect %q: want NoSchedule, PreferNoSchedule or NoExecute", s, effect)
	}
	key, value, _ := strings.Cut(kv, "=")
	if errs := isQualifiedName(key); len(errs) > 0 {
		return Taint{}, fmt.Errorf("taint %q has invalid key %q: %s", s, key, errs[0])
	}
	if errs := isLabelValue(value); len(errs) > 0 {
		return Taint{}, fmt.Errorf("taint %q has invalid value %q: %s", s, value, errs[0])
	}
	return Taint{Key: key, Value: value, Effect: effect}, nil
}
