package demo

import (
	"os"
	"testing"
)

func TestAllowed(t *testing.T) {
	for _, tt := range []struct {
		name           string
		healthy, floor int
		want           bool
	}{
		{"at floor", 2, 2, false},
		{"above-floor", 3, 2, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Allowed(tt.healthy, tt.floor); got != tt.want {
				t.Errorf("Allowed(%d, %d) = %v, want %v", tt.healthy, tt.floor, got, tt.want)
			}
		})
	}
}

func TestHealthy(t *testing.T) {
	if got := Healthy([]bool{true, false, true}); got != 2 {
		t.Errorf("Healthy = %d, want 2", got)
	}
}

// TestReadsTestdata reads a file of testdata, so that a change to it is
// a change to the plant's inputs.
func TestReadsTestdata(t *testing.T) {
	if _, err := os.ReadFile("testdata/pods.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestWeak proves nothing: it passes whatever the model does.
func TestWeak(t *testing.T) {
	Allowed(3, 2)
}
