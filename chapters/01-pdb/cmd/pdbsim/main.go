// Pdbsim plays a scenario on the model of PodDisruptionBudgets of chapter 1
// and prints its timeline: every eviction asked and its answer, every pod
// created, Ready, crashed or deleted, and how each drain ended.
//
// Usage:
//
//	pdbsim SCENARIO
//
// The scenario language is described in the documentation of package
// github.com/opslab/opslab/chapters/01-pdb/pdbsim.
package main

import "github.com/opslab/opslab/chapters/01-pdb/pdbsim"

func main() { pdbsim.Main() }
