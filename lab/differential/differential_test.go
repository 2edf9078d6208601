package differential

import "testing"

// TestParams: unset variables give the defaults, a number is taken as it
// is, and "random" gives a seed short enough to type back.
func TestParams(t *testing.T) {
	tests := []struct {
		name, seed, cases string
		wantSeed          uint64
		wantCases         int
	}{
		{"defaults", "", "", 7, 3},
		{"given", "123456789012", "40", 123456789012, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPSLAB_DIFF_SEED", tt.seed)
			t.Setenv("OPSLAB_DIFF_CASES", tt.cases)
			seed, cases := Params(t, 7, 3)
			if seed != tt.wantSeed || cases != tt.wantCases {
				t.Errorf("Params = %d, %d, want %d, %d", seed, cases, tt.wantSeed, tt.wantCases)
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		t.Setenv("OPSLAB_DIFF_SEED", "random")
		t.Setenv("OPSLAB_DIFF_CASES", "")
		if seed, _ := Params(t, 7, 3); seed >= 1_000_000_000 {
			t.Errorf("random seed %d has more than nine digits", seed)
		}
	})
}
