package proof

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// SumFile is the name of a chapter's verdict file, in its plants directory.
const SumFile = "verdicts.sum"

// An Entry is one line of a verdict file: a plant, the key of its inputs
// when it was judged, and its verdict.
type Entry struct {
	Plant   string
	Key     string
	Verdict Verdict
}

// Sum is a chapter's verdict file, by plant name.
type Sum map[string]Entry

// ReadSum reads the verdict file at name; a missing file is an empty Sum.
func ReadSum(name string) (Sum, error) {
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return Sum{}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseSum(name, data)
}

// ParseSum parses a verdict file's content: a line per plant, "NAME KEY
// VERDICT".
func ParseSum(name string, data []byte) (Sum, error) {
	s := Sum{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		v := Verdict(f[len(f)-1])
		if len(f) != 3 || !strings.HasPrefix(f[1], "h1:") || !slices.Contains([]Verdict{Killed, Survived, Broken, Stale}, v) {
			return nil, fmt.Errorf("%s:%d: want PLANT h1:HASH VERDICT, got %q", name, n, sc.Text())
		}
		if _, dup := s[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: plant %s has two lines", name, n, f[0])
		}
		s[f[0]] = Entry{f[0], f[1], v}
	}
	return s, nil
}

// Bytes returns the verdict file's content, sorted by plant.
func (s Sum) Bytes() []byte {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(s)) {
		e := s[name]
		fmt.Fprintf(&b, "%s %s %s\n", e.Plant, e.Key, e.Verdict)
	}
	return b.Bytes()
}

// keyVersion changes when what a key covers changes, so that every
// recorded verdict is judged again.
const keyVersion = "proof key 1"

// A Keyer computes plants' keys: the hash of everything that can change
// their verdict.
type Keyer struct {
	Go   string // the go command; "go" when empty
	Root string // the repository: only its files are hashed, by their path in it

	goVersion string
}

// listed is what go list says of a package.
type listed struct {
	ImportPath, Dir, ForTest                  string
	GoFiles, CgoFiles, EmbedFiles             []string
	TestGoFiles, XTestGoFiles, TestEmbedFiles []string
	XTestEmbedFiles, Deps                     []string
	Error                                     *struct{ Err string }
}

// Keys returns the key of each plant, in the order given: a hash of the
// plant file, the Go version, the go.mod and go.sum of the module that
// runs its tests, and the files of the repository's packages that its test
// binary builds (their Go and embedded files, and the tested package's
// test files and testdata). The packages are found with one go list per
// module and set of build tags.
func (k *Keyer) Keys(ctx context.Context, plants []*Plant) ([]string, error) {
	if k.goVersion == "" {
		out, err := exec.CommandContext(ctx, k.goCmd(), "env", "GOVERSION").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOVERSION: %w", err)
		}
		k.goVersion = strings.TrimSpace(string(out))
	}
	root, err := filepath.Abs(k.Root)
	if err != nil {
		return nil, err
	}
	type group struct {
		mod, tags string
		dirs      []string
	}
	groups := map[string]*group{}
	var order []string
	mods := make([]string, len(plants))
	for i, p := range plants {
		mod, err := moduleRoot(p.PkgDir())
		if err != nil {
			return nil, err
		}
		mods[i] = mod
		tags := strings.Join(p.Tags, ",")
		id := mod + "\x00" + tags
		g := groups[id]
		if g == nil {
			g = &group{mod: mod, tags: tags}
			groups[id] = g
			order = append(order, id)
		}
		dir, _ := filepath.Abs(p.PkgDir())
		if !slices.Contains(g.dirs, dir) {
			g.dirs = append(g.dirs, dir)
		}
	}
	lists := map[string][]listed{}
	for _, id := range order {
		g := groups[id]
		l, err := k.list(ctx, g.mod, g.tags, g.dirs)
		if err != nil {
			return nil, err
		}
		lists[id] = l
	}
	keys := make([]string, len(plants))
	for i, p := range plants {
		files := map[string][]byte{
			"+plant": p.Source,
			"+go":    []byte(k.goVersion),
			"+key":   []byte(keyVersion),
			"+tags":  []byte(strings.Join(p.Tags, ",")),
		}
		for _, f := range []string{"go.mod", "go.sum"} {
			files[filepath.Join(mods[i], f)] = nil
		}
		dir, _ := filepath.Abs(p.PkgDir())
		if err := packageFiles(lists[mods[i]+"\x00"+strings.Join(p.Tags, ",")], dir, files); err != nil {
			return nil, fmt.Errorf("plant %s: %w", p.Path(), err)
		}
		key, err := hashFiles(root, files)
		if err != nil {
			return nil, fmt.Errorf("plant %s: %w", p.Path(), err)
		}
		keys[i] = key
	}
	return keys, nil
}

func (k *Keyer) goCmd() string {
	if k.Go == "" {
		return "go"
	}
	return k.Go
}

// list runs go list -deps -test on the packages in dirs of module mod.
func (k *Keyer) list(ctx context.Context, mod, tags string, dirs []string) ([]listed, error) {
	args := []string{"list", "-e", "-deps", "-test", "-json=ImportPath,Dir,ForTest,GoFiles,CgoFiles,EmbedFiles,TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles,Deps,Error"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	for _, d := range dirs {
		rel, err := filepath.Rel(mod, d)
		if err != nil {
			return nil, err
		}
		args = append(args, "./"+filepath.ToSlash(rel))
	}
	cmd := exec.CommandContext(ctx, k.goCmd(), args...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS="+goFlags(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", mod, err, stderr.String())
	}
	var l []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: %v", mod, err)
		}
		l = append(l, p)
	}
	return l, nil
}

// packageFiles adds to files the files of the repository's packages that
// the test binary of the package in dir builds.
func packageFiles(pkgs []listed, dir string, files map[string][]byte) error {
	byPath := map[string]*listed{}
	var tested *listed
	for i := range pkgs {
		p := &pkgs[i]
		byPath[p.ImportPath] = p
		if p.Dir == dir && p.ForTest == "" && !strings.HasSuffix(p.ImportPath, ".test") {
			tested = p
		}
	}
	if tested == nil {
		return fmt.Errorf("go list does not know the package in %s", dir)
	}
	if tested.Error != nil {
		return fmt.Errorf("package %s: %s", tested.ImportPath, tested.Error.Err)
	}
	deps := tested.Deps
	if main := byPath[tested.ImportPath+".test"]; main != nil {
		deps = main.Deps
	}
	add := func(d string, names ...[]string) {
		for _, ns := range names {
			for _, n := range ns {
				files[filepath.Join(d, n)] = nil
			}
		}
	}
	add(tested.Dir, tested.GoFiles, tested.CgoFiles, tested.EmbedFiles, tested.TestGoFiles, tested.XTestGoFiles, tested.TestEmbedFiles, tested.XTestEmbedFiles)
	filepath.WalkDir(filepath.Join(tested.Dir, "testdata"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files[p] = nil
		}
		return nil
	})
	for _, ip := range deps {
		if p := byPath[ip]; p != nil {
			add(p.Dir, p.GoFiles, p.CgoFiles, p.EmbedFiles)
		}
	}
	return nil
}

// hashFiles returns "h1:" and the base64 SHA-256 of a summary of files, as
// go.sum's h1 hashes are made: a line "SHA-256 NAME" per file, sorted by
// name. A file with content nil is read from disk, and counted only when it
// lies in root, by its path in root; the others (names starting with +)
// stand for themselves.
func hashFiles(root string, files map[string][]byte) (string, error) {
	var lines []string
	for name, data := range files {
		id := name
		if data == nil {
			rel, err := filepath.Rel(root, name)
			if err != nil || !filepath.IsLocal(rel) {
				continue // the standard library's, or a module's: the Go version and go.sum stand for them
			}
			id = filepath.ToSlash(rel)
			data, err = os.ReadFile(name)
			if os.IsNotExist(err) {
				data = []byte("\x00missing")
			} else if err != nil {
				return "", err
			}
		}
		lines = append(lines, fmt.Sprintf("%x  %s\n", sha256.Sum256(data), id))
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}
