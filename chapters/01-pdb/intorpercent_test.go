package pdb

import "testing"

func TestParseIntOrPercent(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		in      string
		want    string
		wantErr string
	}{
		{name: "int", reason: "a plain number is a number of pods", in: "2", want: "2"},
		{name: "percent", reason: "a trailing % makes a percentage", in: "50%", want: "50%"},
		{name: "hundred-percent", reason: "100% is the largest percentage validation accepts", in: "100%", want: "100%"},
		{name: "over-hundred", reason: "validation refuses more than 100%", in: "101%", wantErr: "101% must not be greater than 100%"},
		{name: "negative", reason: "validation refuses negative values", in: "-1", wantErr: "-1 must not be negative"},
		{name: "word", reason: "anything else is neither form", in: "half", wantErr: `"half" is neither an integer nor a percentage such as 50%`},
		{name: "decimal-percent", reason: "upstream parses the number before % with strconv.Atoi", in: "12.5%", wantErr: `"12.5%" is neither an integer nor a percentage such as 50%`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseIntOrPercent(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseIntOrPercent(%q) error = %v, want %q (%s)", tt.in, err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseIntOrPercent(%q) error = %v (%s)", tt.in, err, tt.reason)
			}
			if got.String() != tt.want {
				t.Errorf("ParseIntOrPercent(%q) = %s, want %s (%s)", tt.in, got, tt.want, tt.reason)
			}
		})
	}
}
