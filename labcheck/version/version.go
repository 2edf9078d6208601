// Package version says which release of the course a program belongs to and
// which Kubernetes release the course teaches: labcheck --version prints
// both, every report labcheck writes records them, and the site's footer
// says them. It imports only the standard library, so the site can say them
// without linking a Kubernetes client.
package version

import (
	_ "embed"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
)

// Course is the course's version, and the one place it is written. A
// release sets it and tags its commit with it.
const Course = "v0.1.0"

// pins is pins.env, the one place the course writes the releases it
// teaches and runs; lab/scripts/versions.sh sources the same file.
//
//go:embed pins.env
var pins string

// Kubernetes is the Kubernetes release the course teaches (KUBE_VERSION in
// pins.env): the lab cluster's binaries are built from it, and the API the
// course's Go code is built against is its k8s.io/api v0.X.Y in go.mod.
// TestKubernetesIsThePinnedRelease fails when go.mod says another.
var Kubernetes = Pin("KUBE_VERSION")

// Etcd and Kwok are the releases of etcd and kwok the lab cluster runs
// (ETCD_VERSION and KWOK_VERSION in pins.env).
var (
	Etcd = Pin("ETCD_VERSION")
	Kwok = Pin("KWOK_VERSION")
)

// Pins returns every pin of pins.env by name.
func Pins() map[string]string {
	return map[string]string{"KUBE_VERSION": Kubernetes, "ETCD_VERSION": Etcd, "KWOK_VERSION": Kwok}
}

// Pin returns the version pins.env gives name (KUBE_VERSION, ETCD_VERSION,
// KWOK_VERSION). It panics for a name the file does not set: that is a
// broken checkout, which every test of the package reports first.
func Pin(name string) string {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `=(v\S+)$`).FindStringSubmatch(pins)
	if m == nil {
		panic("labcheck/version/pins.env sets no " + name)
	}
	return m[1]
}

// module is the course's module path, as a go install names it.
const module = "github.com/opslab/opslab"

// A Build is what a binary knows of where it came from.
type Build struct {
	Course     string // Course
	Kubernetes string // Kubernetes
	// Module is the module version of a go install'ed binary
	// (github.com/opslab/opslab/cmd/labcheck@v0.1.0); empty when the
	// binary was built in a checkout, whose version is its commit.
	Module string
	// Revision is the commit a binary built in a Git checkout was built
	// from, and Modified says the checkout had changes not committed.
	Revision string
	Modified bool
}

// Read returns the running binary's Build.
func Read() Build {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(bi)
}

// FromBuildInfo returns the Build that bi describes; bi may be nil (a binary
// built without module support says only Course and Kubernetes).
func FromBuildInfo(bi *debug.BuildInfo) Build {
	b := Build{Course: Course, Kubernetes: Kubernetes}
	if bi == nil {
		return b
	}
	// A binary built in a checkout has a pseudo-version made from its
	// commit, or (devel): the revision says more, and says it plainly.
	if v := bi.Main.Version; bi.Main.Path == module && v != "" && v != "(devel)" && !isPseudo(v) {
		b.Module = strings.TrimSuffix(v, "+dirty")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	// go install module@commit records no VCS settings, only the
	// pseudo-version it made from the commit; its last part is the commit.
	if v := bi.Main.Version; b.Revision == "" && bi.Main.Path == module && isPseudo(v) {
		v, dirty := strings.CutSuffix(v, "+dirty")
		b.Revision = v[strings.LastIndex(v, "-")+1:]
		b.Modified = dirty
	}
	return b
}

// isPseudo reports whether v is a pseudo-version, such as
// v0.0.0-20261201195656-7d893b5abcde: one the go command made up from a
// commit rather than a tag.
func isPseudo(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndex(v, "-")
	if i < 0 || len(v)-i-1 != 12 {
		return false
	}
	stamp := v[:i]
	j := strings.LastIndexAny(stamp, "-.")
	return j >= 0 && len(stamp)-j-1 == 14
}

// From says where the binary came from: "commit 7d893b5abcde" (", with
// local changes" when the checkout had some), "module version v0.1.0", or ""
// when the binary does not know.
func (b Build) From() string {
	switch {
	case b.Revision != "":
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.Modified {
			return "commit " + rev + ", with local changes"
		}
		return "commit " + rev
	case b.Module != "":
		return "module version " + b.Module
	}
	return ""
}

// String is the line labcheck --version prints:
//
//	opslab v0.1.0 (teaches Kubernetes v1.36.3; built from commit 7d893b5abcde)
func (b Build) String() string {
	s := fmt.Sprintf("opslab %s (teaches Kubernetes %s", b.Course, b.Kubernetes)
	if from := b.From(); from != "" {
		s += "; built from " + from
	}
	return s + ")"
}

// Short is the version a report records: "v0.1.0 (commit 7d893b5abcde)",
// or the course's version alone when the binary does not know its source.
func (b Build) Short() string {
	if from := b.From(); from != "" {
		return b.Course + " (" + from + ")"
	}
	return b.Course
}
