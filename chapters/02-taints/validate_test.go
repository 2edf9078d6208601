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

func TestValidatePod(t *testing.T) {
	noEffect := Toleration{Key: "k", Operator: Exists, Seconds: Seconds(20)}
	emptyKeyEqual := Toleration{Operator: Equal, Effect: NoExecute}
	good := Toleration{Key: "k", Operator: Exists, Effect: NoExecute, Seconds: Seconds(20)}
	tests := []struct {
		name   string
		reason string
		tols   []Toleration
		want   string
	}{
		{"accepted", "valid tolerations: no error", []Toleration{good}, ""},
		{"one_cause", "one cause is the message as it is, under its index",
			[]Toleration{good, noEffect},
			`Pod "web" is invalid: spec.tolerations[1].effect: Invalid value: "": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`},
		{"two_causes", "several causes are joined in brackets, in order",
			[]Toleration{noEffect, emptyKeyEqual},
			`Pod "web" is invalid: [spec.tolerations[0].effect: Invalid value: "": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set, ` +
				`spec.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := ValidatePod("web", tt.tols); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ValidatePod(web, %v) = %q, want %q (%s)", tt.tols, got, tt.want, tt.reason)
			}
		})
	}
}

// TestEvictPodRefusesWhatTheServerRefuses: a toleration with seconds and no
// effect would tolerate the taint for 20 s, but the API server refuses the
// pod, so EvictPod answers with the refusal, not a time.
func TestEvictPodRefusesWhatTheServerRefuses(t *testing.T) {
	p := Pod{Name: "web", Node: "n1", Tolerations: []Toleration{{Key: "k", Operator: Exists, Seconds: Seconds(20)}}}
	taint := []Taint{{Key: "k", Value: "v1", Effect: NoExecute}}
	if v := Evict(taint, p.Tolerations); v.Leave != after(20) {
		t.Fatalf("Evict = %v, want after 20s: the refused toleration would decide", v.Leave)
	}
	if v, err := EvictPod(p, taint); err == nil {
		t.Errorf("EvictPod(%v) = %v, nil; want the server's refusal", p, v.Leave)
	}
	p.Tolerations[0].Effect = NoExecute
	if v, err := EvictPod(p, taint); err != nil || v.Leave != after(20) {
		t.Errorf("EvictPod(%v) = %v, %v; want after 20s", p, v.Leave, err)
	}
}
