// Apfctl prints how a cluster's API Priority and Fairness classifies a
// request, which schemas skip every limit or dangle, and each priority
// level's seats. See package apfctl for the usage.
//
// Usage:
//
//	apfctl classify|exempt|seats [flags]
package main

import "github.com/opslab/opslab/chapters/03-apf/apfctl"

func main() { apfctl.Main() }
