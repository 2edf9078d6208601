package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateToleration(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		tol    Toleration
		want   []FieldError
	}{
		{"seconds_need_noexecute", "tolerationSeconds with an empty effect would cover every effect: refused",
			Toleration{Operator: Exists, Seconds: Seconds(3600)},
			[]FieldError{{"effect", `Invalid value: "": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`}}},
		{"seconds_with_noschedule", "NoSchedule has no time: seconds on it are refused",
			Toleration{Key: "a", Operator: Exists, Effect: NoSchedule, Seconds: Seconds(5)},
			[]FieldError{{"effect", `Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`}}},
		{"zero_accepted", "nothing bounds the seconds: 0 is accepted, and means at once",
			Toleration{Key: "a", Operator: Exists, Effect: NoExecute, Seconds: Seconds(0)}, nil},
		{"zero_and_negative_accepted", "nothing bounds the seconds: -5 is accepted too",
			Toleration{Key: "a", Operator: Exists, Effect: NoExecute, Seconds: Seconds(-5)}, nil},
		{"empty_key_needs_exists", "an empty key means every key, which only Exists can say",
			Toleration{Operator: Equal, Effect: NoExecute},
			[]FieldError{{"operator", `Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys"`}}},
		{"lt_refused_gate_off", "with the gate off, Lt is refused at creation, before any matching",
			Toleration{Key: "a", Operator: Lt, Value: "5", Effect: NoSchedule},
			[]FieldError{{"operator", `Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`}}},
		{"unknown_operator", "an unknown operator is refused",
			Toleration{Key: "a", Operator: "In", Effect: NoSchedule},
			[]FieldError{{"operator", `Unsupported value: "In": supported values: "Equal", "Exists"`}}},
		{"exists_with_value", "Exists takes no value",
			Toleration{Key: "a", Operator: Exists, Value: "x"},
			[]FieldError{{"operator", `Invalid value: "x": value must be empty when ` + "`operator`" + ` is 'Exists'`}}},
		{"unknown_effect", "only the three effects, or none",
			Toleration{Key: "a", Operator: Exists, Effect: "NoRun"},
			[]FieldError{{"effect", `Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}}},
		{"bad_key", "a key is a label key",
			Toleration{Key: "-a", Operator: Exists},
			[]FieldError{{"key", `Invalid value: "-a": name part ` + regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ValidateToleration(tt.tol)); diff != "" {
				t.Errorf("ValidateToleration(%v) mismatch (%s) (-want +got):\n%s", tt.tol, tt.reason, diff)
			}
		})
	}
}
