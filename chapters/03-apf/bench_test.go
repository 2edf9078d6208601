package apf

import (
	"testing"
)

// BenchmarkSimulate runs 1,000,000 requests (a runaway and five mice) through
// one queuing level.
func BenchmarkSimulate(b *testing.B) {
	level := SimLevel{Schema: "service-accounts", Seats: 10, Queuing: queuing(64, 8, 50)}
	flows := runawayFlows(1, 0)
	flows[0].Count = 1_000_000 - 5*5000
	for i := range flows[1:] {
		flows[1+i].Count = 5000
	}
	total := 0
	for _, f := range flows {
		total += f.Count
	}
	if total != 1_000_000 {
		b.Fatalf("flows send %d requests, want 1,000,000", total)
	}
	for b.Loop() {
		if _, err := Simulate(level, flows); err != nil {
			b.Fatal(err)
		}
	}
}
