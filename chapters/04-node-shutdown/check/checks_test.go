package check

import "testing"

// TestChecks: the chapter's four checks, in the order a learner meets them.
func TestChecks(t *testing.T) {
	var ids []string
	for _, c := range Checks() {
		ids = append(ids, c.ID)
	}
	want := []string{"shutdown-db-moved", "shutdown-taint-after-off", "shutdown-podgc-deleted", "shutdown-graceful-config"}
	if len(ids) != len(want) {
		t.Fatalf("Checks() = %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("Checks()[%d] = %s, want %s", i, ids[i], want[i])
		}
	}
}
