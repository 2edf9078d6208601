// Labcheck checks a learner's lab on their kwok cluster and prints what it
// saw, check by check, with hints and a score.
//
// Usage:
//
//	labcheck [--chapter N|all] [--kubeconfig FILE] [--context NAME] [--audit-log FILE] [--timeout D] [-o text|json] [--expect pass|fail]
//	labcheck list|hint|grade|verify|version ...
//
// See package github.com/opslab/opslab/labcheck/cli for the details.
package main

import (
	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/labcheck/cli"
)

func main() { cli.Main(chapters.Course) }
