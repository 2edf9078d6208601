package chapters

import (
	pdb "github.com/opslab/opslab/chapters/01-pdb/track"
	taints "github.com/opslab/opslab/chapters/02-taints/track"
	"github.com/opslab/opslab/internal/learn"
)

// Tracks is every chapter's build-along track (chapters/NN-name/track), in
// the course's order: what cmd/learn runs and the site lists.
var Tracks = []learn.Track{
	pdb.Track,
	taints.Track,
}
