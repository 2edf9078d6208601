// Package demo is a budget in two functions, for the plants' tests.
package demo

// Allowed reports whether one more pod may go: only while the healthy
// pods are above the floor.
func Allowed(healthy, floor int) bool {
	return healthy > floor
}

// Healthy counts the pods that are ready.
func Healthy(ready []bool) int {
	n := 0
	for _, r := range ready {
		if r {
			n++
		}
	}
	return n
}
