package model

import "testing"

func TestEvict(t *testing.T) {}

func helper() {}
