package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/opslab/opslab/internal/cmdshell"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// pinsFile is the one place the pins are written.
const pinsFile = "labcheck/version/pins.env"

// readPins returns pins.env's KEY=value lines.
func readPins(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, pinsFile))
	if err != nil {
		return nil, fmt.Errorf("reading the pins: %v; run bump from the repository's root", err)
	}
	pins := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z_]+)=(\S+)$`).FindAllSubmatch(b, -1) {
		pins[string(m[1])] = string(m[2])
	}
	for _, k := range []string{"KUBE_VERSION", "ETCD_VERSION", "KWOK_VERSION"} {
		if pins[k] == "" {
			return nil, fmt.Errorf("%s sets no %s; restore it from git", pinsFile, k)
		}
	}
	return pins, nil
}

// setPins rewrites the KEY=value lines of src that pins names.
func setPins(src []byte, pins map[string]string) []byte {
	return regexp.MustCompile(`(?m)^([A-Z_]+)=(\S+)$`).ReplaceAllFunc(src, func(line []byte) []byte {
		k, _, _ := bytes.Cut(line, []byte("="))
		if v, ok := pins[string(k)]; ok {
			return []byte(string(k) + "=" + v)
		}
		return line
	})
}

// stagingVersion is the version of the staging modules (k8s.io/api and
// friends) published with Kubernetes release kube: v0.X.Y for v1.X.Y.
func stagingVersion(kube string) string { return strings.Replace(kube, "v1.", "v0.", 1) }

// module is a module's download, as go mod download -json reports it.
type module struct {
	Path, Version, Dir, GoMod, Error string
}

// download fetches path@version into the module cache and says where it is.
func download(path, version string) (module, error) {
	out, err := exec.Command("go", "mod", "download", "-json", path+"@"+version).Output()
	var m module
	if jerr := json.Unmarshal(out, &m); jerr != nil {
		return m, fmt.Errorf("go mod download %s@%s: %v; check that the Go module proxy is reachable", path, version, err)
	}
	if m.Error != "" {
		return m, fmt.Errorf("go mod download %s@%s: %s", path, version, m.Error)
	}
	return m, nil
}

// movePins moves every pin to the new releases: pins.env, the go.mod files
// (then go mod tidy in each), and the versioned links to upstream in the
// prose. It prints one line per step.
func movePins(root, to, etcd, kwok string, w io.Writer) error {
	old, err := readPins(root)
	if err != nil {
		return err
	}
	from := old["KUBE_VERSION"]
	k8s, err := download("k8s.io/kubernetes", to)
	if err != nil {
		return err
	}
	kmod, err := parseModFile(k8s.GoMod)
	if err != nil {
		return err
	}
	if etcd == "" {
		etcd = old["ETCD_VERSION"]
		for _, r := range kmod.Require {
			if r.Mod.Path == "go.etcd.io/etcd/server/v3" && semver.Compare(r.Mod.Version, etcd) > 0 {
				fmt.Fprintf(w, "bump: Kubernetes %s requires etcd %s, newer than the pinned %s: etcd moves too (-etcd chooses another)\n", to, r.Mod.Version, etcd)
				etcd = r.Mod.Version
			}
		}
	}
	if kwok == "" {
		kwok = old["KWOK_VERSION"]
	}
	for flag, v := range map[string]string{"-etcd": etcd, "-kwok": kwok} {
		if !isRelease(v) {
			return cmdshell.Usagef("%s %q is not a release vX.Y.Z", flag, v)
		}
	}
	// The staging modules Kubernetes replaces by its own tree: a module that
	// builds k8s.io/kubernetes must replace each by the same release.
	var staging []string
	for _, r := range kmod.Replace {
		if strings.HasPrefix(r.New.Path, "./staging/") {
			staging = append(staging, r.Old.Path)
		}
	}
	sort.Strings(staging)

	pins := map[string]string{"KUBE_VERSION": to, "ETCD_VERSION": etcd, "KWOK_VERSION": kwok}
	fmt.Fprintf(w, "bump: Kubernetes %s → %s, etcd %s → %s, kwok %s → %s\n", from, to, old["ETCD_VERSION"], etcd, old["KWOK_VERSION"], kwok)
	src, err := os.ReadFile(filepath.Join(root, pinsFile))
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(root, pinsFile), setPins(src, pins)); err != nil {
		return err
	}
	fmt.Fprintf(w, "bump: [1/3] %s\n", pinsFile)

	files, err := tracked(root)
	if err != nil {
		return err
	}
	var mods []string
	for _, f := range files {
		if filepath.Base(f) == "go.mod" && !strings.Contains("/"+f, "/testdata/") {
			mods = append(mods, f)
		}
	}
	for i, f := range mods {
		if err := moveModule(filepath.Join(root, f), to, etcd, kwok, staging); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		fmt.Fprintf(w, "bump: [2/3] %s (%d of %d go.mod files, tidied)\n", f, i+1, len(mods))
	}

	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") && !strings.HasSuffix(f, ".txtar") && !strings.HasSuffix(f, ".go") {
			continue
		}
		p := filepath.Join(root, f)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if nb := moveLinks(b, from, to); !bytes.Equal(nb, b) {
			if err := writeFileAtomic(p, nb); err != nil {
				return err
			}
			n++
		}
	}
	fmt.Fprintf(w, "bump: [3/3] the links to upstream's %s source now name %s, in %d files\n", from, to, n)
	return nil
}

// moveModule rewrites one go.mod to the new releases and tidies it: the
// staging modules it requires or replaces, k8s.io/kubernetes, etcd's server
// and kwok. A module that requires k8s.io/kubernetes gets a replacement for
// every staging module, as Kubernetes' own go.mod has.
func moveModule(path, to, etcd, kwok string, staging []string) error {
	f, err := parseModFile(path)
	if err != nil {
		return err
	}
	sv := stagingVersion(to)
	isStaging := map[string]bool{}
	for _, s := range staging {
		isStaging[s] = true
	}
	var edits []string
	buildsKubernetes := false
	for _, r := range f.Require {
		switch p := r.Mod.Path; {
		case p == "k8s.io/kubernetes":
			buildsKubernetes = true
			edits = append(edits, "-require="+p+"@"+to)
		case p == "go.etcd.io/etcd/server/v3":
			edits = append(edits, "-require="+p+"@"+etcd)
		case p == "sigs.k8s.io/kwok":
			edits = append(edits, "-require="+p+"@"+kwok)
		case isStaging[p] && r.Mod.Version != "v0.0.0":
			edits = append(edits, "-require="+p+"@"+sv)
		}
	}
	for _, r := range f.Replace {
		if isStaging[r.Old.Path] && r.New.Version != "" {
			edits = append(edits, "-replace="+r.Old.Path+"="+r.New.Path+"@"+sv)
		}
	}
	if buildsKubernetes {
		for _, s := range staging {
			edits = append(edits, "-replace="+s+"="+s+"@"+sv)
		}
	}
	dir := filepath.Dir(path)
	if len(edits) > 0 {
		edit := exec.Command("go", append([]string{"mod", "edit"}, append(edits, "go.mod")...)...)
		edit.Dir = dir
		if out, err := edit.CombinedOutput(); err != nil {
			return fmt.Errorf("go mod edit: %v: %s", err, strings.TrimSpace(string(out)))
		}
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod tidy: %v: %s", err, lastLines(string(out), 5))
	}
	return nil
}

func parseModFile(path string) (*modfile.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(path, b, nil)
}

// upstreamLink matches a link into a release of upstream's source:
// Kubernetes' own (v1.X.Y) or a staging module's repository (v0.X.Y).
var upstreamLink = regexp.MustCompile(`https://github\.com/kubernetes/([a-z0-9-]+)/(blob|tree)/(v[01]\.\d+\.\d+)/`)

// moveLinks rewrites the links into upstream's from release to name to.
func moveLinks(b []byte, from, to string) []byte {
	return upstreamLink.ReplaceAllFunc(b, func(m []byte) []byte {
		s := string(m)
		switch {
		case strings.Contains(s, "/"+from+"/"):
			return []byte(strings.Replace(s, "/"+from+"/", "/"+to+"/", 1))
		case strings.Contains(s, "/"+stagingVersion(from)+"/"):
			return []byte(strings.Replace(s, "/"+stagingVersion(from)+"/", "/"+stagingVersion(to)+"/", 1))
		}
		return m
	})
}

// tracked lists the repository's tracked files, slash-separated.
func tracked(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v; bump works in a git checkout", err)
	}
	return strings.Fields(string(out)), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
