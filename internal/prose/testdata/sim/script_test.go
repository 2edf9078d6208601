package sim

import "testing"

func TestScript(t *testing.T) {}
