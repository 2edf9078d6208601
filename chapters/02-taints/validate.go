package taints

import (
	"fmt"
	"strconv"
	"strings"
)

// A FieldError is one reason the API server refuses a toleration, as one
// cause of its 422 answer: the field, relative to the toleration ("key",
// "operator", "effect"), and the message.
type FieldError struct {
	Field   string
	Message string
}

// ValidateToleration returns the errors the API server gives one toleration
// of a pod it is asked to create (ValidateTolerations in
// pkg/apis/core/validation, v1.37.2, with the comparison operators' feature
// gate off), in upstream's order and with upstream's messages. Nil means the
// toleration is accepted.
//
// Three of its rules decide what a toleration can mean:
//   - tolerationSeconds needs effect NoExecute: a toleration with seconds and
//     an empty effect (which would cover every effect) is refused;
//   - an empty key needs operator Exists;
//   - Lt and Gt are refused at creation while the gate is off, so a pod
//     written with them never reaches the scheduler.
//
// Nothing limits the seconds themselves: zero and negative values are
// accepted, and mean "at once" to the taint eviction controller.
func ValidateToleration(t Toleration) []FieldError {
	var errs []FieldError
	invalid := func(field, value, detail string) {
		errs = append(errs, FieldError{field, "Invalid value: " + strconv.Quote(value) + ": " + detail})
	}
	if t.Key != "" {
		for _, msg := range isQualifiedName(t.Key) {
			invalid("key", t.Key, msg)
		}
	}
	if t.Key == "" && t.Operator != Exists {
		invalid("operator", string(t.Operator), `operator must be Exists when `+"`key`"+` is empty, which means "match all values and all keys"`)
	}
	if t.Seconds != nil && t.Effect != NoExecute {
		invalid("effect", string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set")
	}
	switch t.Operator {
	case "", Equal:
		// Upstream reports a bad value under the field "operator".
		if msgs := isLabelValue(t.Value); len(msgs) > 0 {
			invalid("operator", t.Value, strings.Join(msgs, ";"))
		}
	case Exists:
		if t.Value != "" {
			invalid("operator", t.Value, "value must be empty when `operator` is 'Exists'")
		}
	case Lt, Gt:
		errs = append(errs, notSupported("operator", string(t.Operator), Equal, Exists, Lt, Gt))
	default:
		errs = append(errs, notSupported("operator", string(t.Operator), Equal, Exists))
	}
	switch t.Effect {
	case "", NoSchedule, PreferNoSchedule, NoExecute:
	default:
		errs = append(errs, notSupported("effect", string(t.Effect), NoSchedule, PreferNoSchedule, NoExecute))
	}
	return errs
}

// notSupported builds field.NotSupported's message.
func notSupported[T ~string](field, value string, supported ...T) FieldError {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = strconv.Quote(string(s))
	}
	return FieldError{field, fmt.Sprintf("Unsupported value: %q: supported values: %s", value, strings.Join(quoted, ", "))}
}

// ValidatePod returns the API server's refusal of a pod named name with
// tolerations tols, as its answer to a create says it (the Status message
// of its 422), or nil when it accepts them: the causes ValidateToleration
// gives for each toleration in order, each under its field
// spec.tolerations[i], one cause as it is and several in brackets, as
// apimachinery's NewInvalid joins them.
func ValidatePod(name string, tols []Toleration) error {
	var causes []string
	seen := map[string]bool{}
	for i, t := range tols {
		for _, e := range ValidateToleration(t) {
			c := fmt.Sprintf("spec.tolerations[%d].%s: %s", i, e.Field, e.Message)
			// The aggregate keeps one of each message.
			if !seen[c] {
				seen[c] = true
				causes = append(causes, c)
			}
		}
	}
	switch len(causes) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("Pod %q is invalid: %s", name, causes[0])
	default:
		return fmt.Errorf("Pod %q is invalid: [%s]", name, strings.Join(causes, ", "))
	}
}
