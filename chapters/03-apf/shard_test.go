package apf

import (
	"testing"
)

func TestDealDistinctCards(t *testing.T) {
	d, err := NewDealer(64, 8)
	if err != nil {
		t.Fatal(err)
	}
	for h := uint64(0); h < 5000; h++ {
		seen := map[int]bool{}
		for _, c := range d.Deal(h * 0x9e3779b97f4a7c15) {
			if c < 0 || c >= 64 || seen[c] {
				t.Fatalf("Deal(%d) = %v: cards must be distinct and in 0..63", h, d.Deal(h))
			}
			seen[c] = true
		}
	}
}

func TestChooseQueue(t *testing.T) {
	hand := []int{7, 3, 9, 1}
	for _, tc := range []struct {
		name, reason string
		placed       uint64
		waiting      map[int]float64
		want         int
	}{
		{"least waiting", "queue 9 has the least work", 0, map[int]float64{7: 3, 3: 2, 9: 1, 1: 5}, 9},
		{"tie from offset 0", "all empty: the first visited, hand[0]", 0, nil, 7},
		{"tie from offset 2", "6 placed, 6 mod 4 = 2: the walk starts at hand[2]", 6, nil, 9},
		{"tie after wrap", "3 placed: the walk starts at hand[3]", 3, map[int]float64{7: 0, 3: 0, 9: 0, 1: 0}, 1},
		{"least beats offset", "offset 1 visits 3 first, but 7 has less work", 1, map[int]float64{7: 0, 3: 2, 9: 2, 1: 2}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ChooseQueue(hand, tc.placed, func(q int) float64 { return tc.waiting[q] })
			if got != tc.want {
				t.Errorf("ChooseQueue(placed %d) = %d, want %d (%s)", tc.placed, got, tc.want, tc.reason)
			}
		})
	}
}
