// Package model is a source the tests of package prose quote from.
package model

// Cluster holds pods.
type Cluster struct {
	Pods []string
}

// Evict removes a pod.
//
// It refuses nothing yet.
func (c *Cluster) Evict(name string) error {
	return nil
}

// Phases of a pod.
const (
	Pending = "Pending"
	Running = "Running"
)

var limit = 3 // why three

func init() {}

func init() {}

type Set[T comparable] map[T]bool

func (s Set[T]) Add(v T) { s[v] = true }
