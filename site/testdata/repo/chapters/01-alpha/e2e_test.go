//go:build e2e

package alpha

import "testing"

func TestEvictOnCluster(t *testing.T) {}
