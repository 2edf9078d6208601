package shutdowncheck

import (
	"testing"

	"github.com/opslab/opslab/labcheck"
)

// TestRegistered: the chapter's four checks are in the course's registry.
func TestRegistered(t *testing.T) {
	var ids []string
	for _, c := range labcheck.Checks(4) {
		ids = append(ids, c.ID)
	}
	want := []string{"shutdown-db-moved", "shutdown-taint-after-off", "shutdown-podgc-deleted", "shutdown-graceful-config"}
	if len(ids) != len(want) {
		t.Fatalf("Checks(4) = %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("Checks(4)[%d] = %s, want %s", i, ids[i], want[i])
		}
	}
}
