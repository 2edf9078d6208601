package taints

import (
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// TestToleratesMatchesUpstream compares Toleration.Tolerates with
// Toleration.ToleratesTaint of k8s.io/api/core/v1 (comparison operators off,
// the v1.37 default) on generated pairs. The seed is fixed, so a failure
// repeats; the test also fails if the generator stops covering an operator,
// an empty key or an empty effect.
func TestToleratesMatchesUpstream(t *testing.T) {
	const pairs = 20000
	keys := []string{"", "opslab.dev/link-down", KeyNotReady, KeyUnreachable}
	values := []string{"", "x", "y", "5", "10", "-3", "007"}
	operators := []Operator{"", Equal, Exists, Lt, Gt, "In"}
	tolEffects := []Effect{"", NoSchedule, PreferNoSchedule, NoExecute}
	taintEffects := []Effect{NoSchedule, PreferNoSchedule, NoExecute}
	seconds := []*int64{nil, Seconds(0), Seconds(20)}

	r := rand.New(rand.NewPCG(2, 36))
	pick := func(n int) int { return r.IntN(n) }
	seen := map[string]int{}
	agree := map[bool]int{}
	for range pairs {
		tol := Toleration{
			Key:      keys[pick(len(keys))],
			Operator: operators[pick(len(operators))],
			Value:    values[pick(len(values))],
			Effect:   tolEffects[pick(len(tolEffects))],
			Seconds:  seconds[pick(len(seconds))],
		}
		taint := Taint{
			Key:    keys[1+pick(len(keys)-1)], // a taint always has a key
			Value:  values[pick(len(values))],
			Effect: taintEffects[pick(len(taintEffects))],
		}
		up := corev1.Toleration{
			Key:               tol.Key,
			Operator:          corev1.TolerationOperator(tol.Operator),
			Value:             tol.Value,
			Effect:            corev1.TaintEffect(tol.Effect),
			TolerationSeconds: tol.Seconds,
		}
		upTaint := corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)}
		want := up.ToleratesTaint(klog.Background(), &upTaint, false)
		got := tol.Tolerates(taint)
		if got != want {
			t.Fatalf("toleration %s and taint {%s}: your Tolerates says %v; Kubernetes (ToleratesTaint in k8s.io/api) says %v",
				manifestToleration(tol), taint, got, want)
		}
		agree[got]++
		seen["operator "+string(tol.Operator)]++
		if tol.Key == "" {
			seen["empty key"]++
		}
		if tol.Effect == "" {
			seen["empty effect"]++
		}
		if tol.Value != "" {
			seen["value"]++
		}
	}
	for _, what := range []string{"operator ", "operator Equal", "operator Exists", "operator Lt", "operator Gt", "operator In", "empty key", "empty effect", "value"} {
		if seen[what] == 0 {
			t.Errorf("no generated pair had %s", what)
		}
	}
	if agree[true] == 0 || agree[false] == 0 {
		t.Errorf("generated pairs all gave the same answer: %v", agree)
	}
	t.Logf("%d pairs agree with upstream: %d tolerated, %d not", pairs, agree[true], agree[false])
}

// TestMinTolerationTimeUpstream replays the cases of TestGetMinTolerationTime
// in k8s.io/kubernetes v1.37.2,
// pkg/controller/tainteviction/taint_eviction_test.go, where upstream writes
// -1 for "forever" and 0 for "at once".
func TestMinTolerationTimeUpstream(t *testing.T) {
	tests := []struct {
		name string
		used []Toleration
		want Leave
	}{
		{"empty", []Toleration{}, Leave{Kind: AtOnce}},                                        // expected: 0
		{"nil_seconds", []Toleration{{Seconds: nil}}, Leave{Kind: Never}},                     // expected: -1
		{"one_and_two", []Toleration{{Seconds: Seconds(1)}, {Seconds: Seconds(2)}}, after(1)}, // expected: oneSec
		{"one_and_nil", []Toleration{{Seconds: Seconds(1)}, {Seconds: nil}}, after(1)},        // expected: oneSec
		{"nil_and_one", []Toleration{{Seconds: nil}, {Seconds: Seconds(1)}}, after(1)},        // expected: oneSec
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MinTolerationTime(tt.used); got != tt.want {
				t.Errorf("MinTolerationTime(%v) = %v, want %v", tt.used, got, tt.want)
			}
		})
	}
}

// TestEvictUpstreamCases replays the pod/taint cases of TestCreatePod and
// TestUpdateNodeWithMultipleTaints in the same file. Upstream's taints are
// testTaintN=testN:NoExecute and its tolerations use the Equal operator
// with the same value (addToleration).
func TestEvictUpstreamCases(t *testing.T) {
	taint := func(i int) Taint {
		return Taint{Key: "testTaint" + string(rune('0'+i)), Value: "test" + string(rune('0'+i)), Effect: NoExecute}
	}
	tol := func(i int, seconds *int64) Toleration {
		return Toleration{Key: taint(i).Key, Value: taint(i).Value, Effect: NoExecute, Seconds: seconds}
	}
	exists := func(i int, seconds *int64) Toleration {
		return Toleration{Key: taint(i).Key, Operator: Exists, Effect: NoExecute, Seconds: seconds}
	}
	minute := Seconds(60)
	tests := []struct {
		name   string
		taints []Taint
		tols   []Toleration
		want   Leave
	}{
		// TestCreatePod
		{"scheduled_on_untainted_node", nil, nil, Leave{Kind: Never}},
		{"schedule_on_tainted_node", []Taint{taint(1)}, nil, Leave{Kind: AtOnce}},
		{"finite_toleration", []Taint{taint(1)}, []Toleration{tol(1, Seconds(100))}, after(100)},
		{"infinite_toleration", []Taint{taint(1)}, []Toleration{tol(1, nil)}, Leave{Kind: Never}},
		{"infinite_invalid_toleration", []Taint{taint(1)}, []Toleration{tol(2, nil)}, Leave{Kind: AtOnce}},
		// TestUpdateNodeWithMultipleTaints
		{"infinitely_tolerated_taint", []Taint{taint(1)}, []Toleration{exists(1, nil), exists(2, minute)}, Leave{Kind: Never}},
		{"temporarily_tolerated_taint", []Taint{taint(1), taint(2)}, []Toleration{exists(1, nil), exists(2, minute)}, Leave{Kind: After, After: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Evict(tt.taints, tt.tols).Leave; got != tt.want {
				t.Errorf("Evict(%v, %v) = %v, want %v", tt.taints, tt.tols, got, tt.want)
			}
		})
	}
}
