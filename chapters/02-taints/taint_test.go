package taints

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTolerates(t *testing.T) {
	linkDown := Taint{Key: "opslab.dev/link-down", Value: "switch-4", Effect: NoExecute}
	tests := []struct {
		name   string
		reason string
		tol    Toleration
		taint  Taint
		want   bool
	}{
		{"exists_any_value", "Exists accepts whatever value the taint has",
			Toleration{Key: "opslab.dev/link-down", Operator: Exists, Effect: NoExecute}, linkDown, true},
		{"equal_same_value", "Equal wants the same value",
			Toleration{Key: "opslab.dev/link-down", Operator: Equal, Value: "switch-4", Effect: NoExecute}, linkDown, true},
		{"equal_other_value", "Equal with another value does not match",
			Toleration{Key: "opslab.dev/link-down", Operator: Equal, Value: "switch-5", Effect: NoExecute}, linkDown, false},
		{"empty_operator_is_equal", "no operator means Equal, so an empty value misses a taint with a value",
			Toleration{Key: "opslab.dev/link-down", Effect: NoExecute}, linkDown, false},
		{"empty_operator_empty_values", "no operator, both values empty: Equal holds",
			Toleration{Key: KeyNotReady, Effect: NoExecute}, Taint{Key: KeyNotReady, Effect: NoExecute}, true},
		{"empty_effect_any_effect", "an empty effect matches every effect",
			Toleration{Key: "opslab.dev/link-down", Operator: Exists}, linkDown, true},
		{"other_effect", "a NoSchedule toleration does not tolerate a NoExecute taint",
			Toleration{Key: "opslab.dev/link-down", Operator: Exists, Effect: NoSchedule}, linkDown, false},
		{"empty_key_exists_everything", "empty key with Exists tolerates every taint",
			Toleration{Operator: Exists}, linkDown, true},
		{"empty_key_equal", "empty key with Equal compares values only (the API refuses it, matching does not)",
			Toleration{Operator: Equal, Value: "switch-4"}, linkDown, true},
		{"other_key", "the key must match",
			Toleration{Key: KeyUnreachable, Operator: Exists, Effect: NoExecute}, linkDown, false},
		{"lt_off", "Lt needs the alpha gate TaintTolerationComparisonOperators, off by default",
			Toleration{Key: "size", Operator: Lt, Value: "10"}, Taint{Key: "size", Value: "5", Effect: NoSchedule}, false},
		{"gt_off", "Gt needs the same gate",
			Toleration{Key: "size", Operator: Gt, Value: "1"}, Taint{Key: "size", Value: "5", Effect: NoSchedule}, false},
		{"unknown_operator", "an unknown operator tolerates nothing",
			Toleration{Key: "size", Operator: "In"}, Taint{Key: "size", Effect: NoSchedule}, false},
	}
	// One failing case is shown, in words, and the rest wait until it
	// passes: a learner writing Tolerates fixes one rule at a time.
	for _, tt := range tests {
		passed := t.Run(tt.name, func(t *testing.T) {
			if got := tt.tol.Tolerates(tt.taint); got != tt.want {
				t.Errorf("toleration %s and taint {%s}: your Tolerates says %v, it should say %v, because %s",
					manifestToleration(tt.tol), tt.taint, got, tt.want, tt.reason)
			}
		})
		if !passed {
			t.Logf("the cases after %s run once it passes", tt.name)
			break
		}
	}
}

func TestParseTaint(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		in      string
		want    Taint
		wantErr string
	}{
		{"key_effect", "the value is optional", "opslab.dev/link-down:NoExecute",
			Taint{Key: "opslab.dev/link-down", Effect: NoExecute}, ""},
		{"key_value_effect", "key=value:Effect", "dedicated=db:NoSchedule",
			Taint{Key: "dedicated", Value: "db", Effect: NoSchedule}, ""},
		{"no_effect", "kubectl's form always ends in :Effect", "dedicated=db",
			Taint{}, `taint "dedicated=db" has no effect: write key[=value]:Effect`},
		{"bad_effect", "effects are case-sensitive", "dedicated:noexecute",
			Taint{}, `taint "dedicated:noexecute" has effect "noexecute": want NoSchedule, PreferNoSchedule or NoExecute`},
		{"only_effect", "a colon first leaves the key empty, not the effect", ":NoExecute",
			Taint{}, `taint ":NoExecute" has invalid key "": name part must be non-empty`},
		{"empty_key", "a taint needs a key", "=x:NoExecute",
			Taint{}, `taint "=x:NoExecute" has invalid key "": name part must be non-empty`},
		{"bad_value", "values follow label value rules", "k=a b:NoExecute",
			Taint{}, `taint "k=a b:NoExecute" has invalid value "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTaint(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("ParseTaint(%q) error = %q, want %q (%s)", tt.in, gotErr, tt.wantErr, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTaint(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if err == nil && got.String() != tt.in {
				t.Errorf("ParseTaint(%q).String() = %q, want the input back", tt.in, got.String())
			}
		})
	}
}

// manifestToleration writes a toleration as a pod's manifest does, its
// empty fields left out: {key: a, operator: Exists, effect: NoSchedule}.
func manifestToleration(t Toleration) string {
	var f []string
	for _, kv := range [][2]string{{"key", t.Key}, {"operator", string(t.Operator)}, {"value", t.Value}, {"effect", string(t.Effect)}} {
		if kv[1] != "" {
			f = append(f, kv[0]+": "+kv[1])
		}
	}
	return "{" + strings.Join(f, ", ") + "}"
}
