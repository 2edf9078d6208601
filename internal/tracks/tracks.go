// Package tracks is the course's list of build-along tracks, one per
// chapter (chapters/NN-name/track), in the course's order. It is apart from
// package chapters, which also compiles every chapter's lab checks and with
// them the Kubernetes client: the site needs only the tracks, so a first
// make start compiles the site from a few hundred packages fewer and the
// course answers sooner.
package tracks

import (
	pdb "github.com/opslab/opslab/chapters/01-pdb/track"
	taints "github.com/opslab/opslab/chapters/02-taints/track"
	apf "github.com/opslab/opslab/chapters/03-apf/track"
	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown/track"
	"github.com/opslab/opslab/internal/learn"
)

// All is every chapter's track, in the course's order.
var All = []learn.Track{
	pdb.Track,
	taints.Track,
	apf.Track,
	shutdown.Track,
}
