// Package alpha is a model the test course quotes.
package alpha

// Evict removes a pod unless the budget refuses.
func Evict(pods int, floor int) bool {
	return pods-1 >= floor
}
