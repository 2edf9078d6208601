package cli

// The chapters' checks register themselves with labcheck when imported.
import (
	_ "github.com/opslab/opslab/chapters/01-pdb/pdbcheck"
	_ "github.com/opslab/opslab/chapters/02-taints/taintcheck"
	_ "github.com/opslab/opslab/chapters/03-apf/apfcheck"
	_ "github.com/opslab/opslab/chapters/04-node-shutdown/shutdowncheck"
)
