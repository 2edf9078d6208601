// Shutdown-plan prints the timeline of a node's graceful shutdown under a
// kubelet configuration, or refuses the configuration with the reason. See
// package shutdownplan for its usage.
package main

import "github.com/opslab/opslab/chapters/04-node-shutdown/shutdownplan"

func main() { shutdownplan.Main() }
