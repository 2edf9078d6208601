package alphasim

import "testing"

func TestScript(t *testing.T) {}
