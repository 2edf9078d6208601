package proof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// A Plant is a claim's counterfactual: a change to the model that makes the
// claim false, and the tests that must then fail.
type Plant struct {
	Name     string   // the file's name without .plant
	Chapter  string   // the chapter's directory
	Claim    string   // the footnote id of the claim
	If       string   // the counterfactual in words: "if ..., the tests fail"
	File     string   // the changed file, relative to the chapter, slash-separated
	Tests    []string // TestX or TestX/sub, as go test reports them
	Upstream string   // the upstream source the claim follows
	Pkg      string   // the tests' package directory, relative to the chapter ("." for the chapter's own)
	Tags     []string // build tags
	Old, New []byte

	Source []byte // the plant file as read
}

// Path returns the plant file's path.
func (p *Plant) Path() string {
	return filepath.Join(p.Chapter, "plants", p.Name+".plant")
}

// Target returns the path of the file the plant changes.
func (p *Plant) Target() string { return filepath.Join(p.Chapter, filepath.FromSlash(p.File)) }

// PkgDir returns the directory of the package whose tests the plant runs.
func (p *Plant) PkgDir() string { return filepath.Join(p.Chapter, filepath.FromSlash(p.Pkg)) }

// NeedsCluster reports whether the plant's tests run against a cluster
// (build tag e2e).
func (p *Plant) NeedsCluster() bool { return slices.Contains(p.Tags, "e2e") }

var (
	idRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	testRE = regexp.MustCompile(`^Test[\p{L}\p{N}_]*(/[^/\s]+)*$`)
	tagRE  = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)
)

// Load parses every plant of the chapter in dir, plants/*.plant, in order
// of name. A plant that does not parse is an error, joined with the others'.
func Load(dir string) ([]*Plant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "plants", "*.plant"))
	if err != nil {
		return nil, err
	}
	var plants []*Plant
	var errs []error
	for _, f := range files {
		p, err := ParseFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		plants = append(plants, p)
	}
	return plants, errors.Join(errs...)
}

// ParseFile reads and parses the plant file at name, which lies in a
// chapter's plants directory.
func ParseFile(name string) (*Plant, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(filepath.Dir(filepath.Dir(name)), strings.TrimSuffix(filepath.Base(name), ".plant"), data)
}

// Parse parses the plant NAME of the chapter in directory chapter from
// data. Errors name the plant file and say what is wrong.
func Parse(chapter, name string, data []byte) (*Plant, error) {
	p := &Plant{Name: name, Chapter: chapter, Pkg: ".", Source: data}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("plant %s: %s", p.Path(), fmt.Sprintf(format, args...))
	}
	if !idRE.MatchString(name) {
		return nil, bad("its name must be lower-case letters, digits and dashes")
	}
	a := txtar.Parse(data)
	seen := map[string]bool{}
	pkg := ""
	for i, line := range strings.Split(string(a.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			return nil, bad("line %d: want KEY: VALUE, got %q", i+1, line)
		}
		if seen[key] {
			return nil, bad("line %d: %s is given twice", i+1, key)
		}
		seen[key] = true
		switch key {
		case "claim":
			p.Claim = value
		case "if":
			p.If = value
		case "file":
			p.File = value
		case "tests":
			p.Tests = strings.Fields(value)
		case "upstream":
			p.Upstream = value
		case "pkg":
			pkg = value
		case "tags":
			p.Tags = strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' })
		default:
			return nil, bad("line %d: unknown key %q (claim, if, file, tests, upstream, pkg, tags)", i+1, key)
		}
	}
	for _, k := range []string{"claim", "if", "file", "tests", "upstream"} {
		if !seen[k] {
			return nil, bad("no %s: line", k)
		}
	}
	if !idRE.MatchString(p.Claim) {
		return nil, bad("claim %q is not a footnote id: lower-case letters, digits and dashes", p.Claim)
	}
	if err := local(p.File); err != nil || !strings.HasSuffix(p.File, ".go") {
		return nil, bad("file %q must be a Go file of the chapter, relative to it", p.File)
	}
	if pkg == "" {
		pkg = path.Dir(p.File)
	}
	if err := local(pkg); err != nil {
		return nil, bad("pkg %q must be a directory of the chapter, relative to it", pkg)
	}
	p.Pkg = path.Clean(pkg)
	for _, t := range p.Tests {
		if !testRE.MatchString(t) {
			return nil, bad("tests: %q is not a test name (TestX or TestX/subtest)", t)
		}
	}
	for _, t := range p.Tags {
		if !tagRE.MatchString(t) {
			return nil, bad("tags: %q is not a build tag", t)
		}
	}
	if !strings.HasPrefix(p.Upstream, "https://") {
		return nil, bad("upstream %q is not a https:// link to the source the claim follows", p.Upstream)
	}
	for _, f := range a.Files {
		switch f.Name {
		case "old", "new":
			if seen["-- "+f.Name] {
				return nil, bad("two %s sections", f.Name)
			}
			seen["-- "+f.Name] = true
			text := bytes.TrimSuffix(f.Data, []byte("\n"))
			if f.Name == "old" {
				p.Old = text
			} else {
				p.New = text
			}
		default:
			return nil, bad("section %q: a plant has two, old and new", f.Name)
		}
	}
	switch {
	case !seen["-- old"] || !seen["-- new"]:
		return nil, bad("want two sections, -- old -- and -- new --")
	case len(bytes.TrimSpace(p.Old)) == 0:
		return nil, bad("old is empty: it is the text the plant replaces")
	case bytes.Equal(p.Old, p.New):
		return nil, bad("old and new are the same: the plant changes nothing")
	}
	return p, nil
}

// local checks that a slash-separated path stays in the chapter.
func local(p string) error {
	if p == "" || path.IsAbs(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("%q leaves the chapter", p)
	}
	return nil
}

// A StaleError says why a plant no longer applies to its file.
type StaleError struct {
	Plant  *Plant
	Reason string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("plant %s is stale: %s; make it change the model as it is now", e.Plant.Path(), e.Reason)
}

// Apply returns the content of the plant's file with old replaced by new.
// When old does not occur in the file exactly once, the error is a
// *StaleError that says so.
func (p *Plant) Apply() ([]byte, error) {
	src, err := os.ReadFile(p.Target())
	if errors.Is(err, os.ErrNotExist) {
		return nil, &StaleError{p, fmt.Sprintf("%s does not exist", p.File)}
	}
	if err != nil {
		return nil, err
	}
	return p.ApplyTo(src)
}

// ApplyTo is Apply on src, the file's content.
func (p *Plant) ApplyTo(src []byte) ([]byte, error) {
	switch n := bytes.Count(src, p.Old); n {
	case 1:
		return bytes.Replace(src, p.Old, p.New, 1), nil
	case 0:
		return nil, &StaleError{p, fmt.Sprintf("its old text, %s, is not in %s", firstLine(p.Old), p.File)}
	default:
		return nil, &StaleError{p, fmt.Sprintf("its old text, %s, occurs %d times in %s: add lines around it until it occurs once", firstLine(p.Old), n, p.File)}
	}
}

// firstLine quotes the first line of b, marking that more follows.
func firstLine(b []byte) string {
	l, rest, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if rest != "" {
		return fmt.Sprintf("%q (and %d more lines)", l, strings.Count(rest, "\n")+1)
	}
	return fmt.Sprintf("%q", l)
}
