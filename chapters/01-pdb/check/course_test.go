package check_test

import (
	"slices"
	"testing"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/chapters/01-pdb/check"
)

// TestChecksAreInTheCourse requires the course's list to give chapter 1
// every check of this package, in order, and no other.
func TestChecksAreInTheCourse(t *testing.T) {
	var want, got []string
	for _, c := range check.Checks() {
		want = append(want, c.ID)
	}
	for _, c := range chapters.Course.Checks(1) {
		got = append(got, c.ID)
		if c.Chapter != 1 {
			t.Errorf("check %s is in the course as chapter %d's, want chapter 1's", c.ID, c.Chapter)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the course's checks of chapter 1 = %v, want %v", got, want)
	}
}
