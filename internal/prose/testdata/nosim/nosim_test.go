package nosim

import "testing"

func TestOther(t *testing.T) {}
