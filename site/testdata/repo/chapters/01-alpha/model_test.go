package alpha

import "testing"

func TestEvictAllowed(t *testing.T) {
	if !Evict(3, 2) {
		t.Fatal("Evict(3, 2) = false, want true")
	}
}

func TestEvictRefused(t *testing.T) {
	if Evict(2, 2) {
		t.Fatal("Evict(2, 2) = true, want false")
	}
}
