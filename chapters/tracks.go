package chapters

import (
	pdb "github.com/opslab/opslab/chapters/01-pdb/track"
	taints "github.com/opslab/opslab/chapters/02-taints/track"
	apf "github.com/opslab/opslab/chapters/03-apf/track"
	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown/track"
	"github.com/opslab/opslab/internal/learn"
)

// Tracks is every chapter's build-along track (chapters/NN-name/track), in
// the course's order: what cmd/learn runs and the site lists.
var Tracks = []learn.Track{
	pdb.Track,
	taints.Track,
	apf.Track,
	shutdown.Track,
}
