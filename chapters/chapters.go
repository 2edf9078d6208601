// Package chapters is the course's one list of chapters, in order: what
// labcheck checks, what its tests and the site's browser tests walk. A
// chapter is its directory, chapters/NN-name/ (see CONTRIBUTING.md, "A
// chapter's directory"), and one line in Course: its directory and its
// checks. Its number is read from the directory's name and its title from
// the first line of its README.md, so neither is written anywhere else.
package chapters

import (
	"embed"

	pdb "github.com/opslab/opslab/chapters/01-pdb/check"
	taints "github.com/opslab/opslab/chapters/02-taints/check"
	apf "github.com/opslab/opslab/chapters/03-apf/check"
	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown/check"
	"github.com/opslab/opslab/labcheck"
)

//go:embed */README.md
var readmes embed.FS

// Course is every chapter of the course, in order.
var Course = labcheck.MustCourse(readmes,
	labcheck.Chapter{Dir: "01-pdb", Checks: pdb.Checks()},
	labcheck.Chapter{Dir: "02-taints", Checks: taints.Checks()},
	labcheck.Chapter{Dir: "03-apf", Checks: apf.Checks()},
	labcheck.Chapter{Dir: "04-node-shutdown", Checks: shutdown.Checks()},
)
