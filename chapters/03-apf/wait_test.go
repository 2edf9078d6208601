package apf

import "testing"

// TestQueueWaitLimit pins the rule of getRequestWaitContext in
// k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go (v1.37.2):
// wait-limit = min(remaining deadline / 4, 1m), or min(default, 1m)
// without a deadline.
func TestQueueWaitLimit(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		deadline     float64
		hasDeadline  bool
		def, want    float64
	}{
		{"default request timeout", "--request-timeout 60s: a quarter is 15 s", 60, true, 15, 15},
		{"short deadline", "a client's 8 s timeout leaves 2 s of queueing", 8, true, 15, 2},
		{"long deadline", "never more than a minute", 600, true, 15, 60},
		{"no deadline", "the default", 0, false, 15, 15},
		{"no deadline, long default", "capped too", 0, false, 90, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QueueWaitLimit(tc.deadline, tc.hasDeadline, tc.def); got != tc.want {
				t.Errorf("QueueWaitLimit(%v, %v, %v) = %v, want %v (%s)", tc.deadline, tc.hasDeadline, tc.def, got, tc.want, tc.reason)
			}
		})
	}
}
