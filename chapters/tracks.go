package chapters

import "github.com/opslab/opslab/internal/tracks"

// Tracks is every chapter's build-along track (chapters/NN-name/track), in
// the course's order: what cmd/learn runs and the site lists. The list is
// package tracks', which the site imports without the chapters' checks.
var Tracks = tracks.All
