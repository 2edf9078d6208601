package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Module is the course's module path.
const Module = "github.com/opslab/opslab"

// A Workspace is a learner's copy of one chapter's model, with holes.
type Workspace struct {
	Root  string // the course's module root
	Base  string // the workspaces' directory, relative to Root: "_learn"
	Track Track
}

// Dir is the workspace's directory, relative to Root: _learn/chapter-2.
func (w Workspace) Dir() string {
	return path.Join(w.Base, fmt.Sprintf("chapter-%d", w.Track.Number()))
}

// ModelDir is the chapter's directory, relative to Root.
func (w Workspace) ModelDir() string { return path.Join("chapters", w.Track.Dir) }

// README is the chapter's README, relative to Root.
func (w Workspace) README() string { return path.Join(w.ModelDir(), "README.md") }

func (w Workspace) abs(p string) string { return filepath.Join(w.Root, filepath.FromSlash(p)) }

// Exists reports whether the workspace has been created.
func (w Workspace) Exists() bool { return exists(w.abs(w.Dir())) }

// Create writes the workspace, every step's functions blanked, unless it
// exists: a learner's work is never overwritten. It reports whether it
// created it.
func (w Workspace) Create() (bool, error) {
	if w.Exists() {
		return false, nil
	}
	if err := Generate(w.abs(w.ModelDir()), w.abs(w.Dir()), w.Track, 0,
		Module+"/"+w.ModelDir(), Module+"/"+w.Dir()); err != nil {
		os.RemoveAll(w.abs(w.Dir()))
		return false, err
	}
	return true, w.Save(State{})
}

// Refresh brings an existing workspace's tests up to the chapter's: each
// test file and testdata file of the model that the workspace lacks, or
// holds in another version, is written, and a version it replaces is kept
// beside it as NAME.old. The learner's code is never touched. It returns
// the files it wrote, relative to the workspace, sorted, and which of them
// replaced a version the workspace had.
func (w Workspace) Refresh() (wrote []string, replaced map[string]bool, err error) {
	tmp, err := os.MkdirTemp(w.abs(w.Base), ".refresh-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	if err := Generate(w.abs(w.ModelDir()), tmp, w.Track, 0,
		Module+"/"+w.ModelDir(), Module+"/"+w.Dir()); err != nil {
		return nil, nil, err
	}
	replaced = map[string]bool{}
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		rel = filepath.ToSlash(rel)
		if !chapterOwned(rel) {
			return nil
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := w.abs(path.Join(w.Dir(), rel))
		have, err := os.ReadFile(dst)
		switch {
		case err == nil && bytes.Equal(have, want):
			return nil
		case err == nil:
			if err := os.WriteFile(dst+".old", have, 0o644); err != nil {
				return err
			}
			replaced[rel] = true
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		wrote = append(wrote, rel)
		return os.WriteFile(dst, want, 0o644)
	})
	return wrote, replaced, err
}

// ForGrading returns a copy of the workspace to grade, under a directory of
// its own in Base, and a function that removes it. The copy holds the
// learner's code as it is, every Go file of theirs that is not a test, and
// the chapter's tests and testdata in place of the workspace's: a test
// the learner edited, deleted or added changes nothing, and a file of the
// model the learner deleted stays deleted. Imports of the workspace's
// package become imports of the copy's. Errors and test output name the
// copy's directory; Workspace.Dir of the original is what to show.
func (w Workspace) ForGrading() (Workspace, func(), error) {
	if err := os.MkdirAll(w.abs(w.Base), 0o755); err != nil {
		return Workspace{}, nil, err
	}
	tmp, err := os.MkdirTemp(w.abs(w.Base), "grading-")
	if err != nil {
		return Workspace{}, nil, err
	}
	done := func() { os.RemoveAll(tmp) }
	g := Workspace{Root: w.Root, Base: path.Join(w.Base, filepath.Base(tmp)), Track: w.Track}
	err = w.sealInto(g)
	if err != nil {
		done()
		return Workspace{}, nil, err
	}
	return g, done, nil
}

// sealInto writes the grading copy g of w: the chapter's tests and
// testdata, then the learner's code.
func (w Workspace) sealInto(g Workspace) error {
	dst := g.abs(g.Dir())
	if err := Generate(w.abs(w.ModelDir()), dst, w.Track, len(w.Track.Steps),
		Module+"/"+w.ModelDir(), Module+"/"+g.Dir()); err != nil {
		return err
	}
	code := func(rel string) bool { return strings.HasSuffix(rel, ".go") && !chapterOwned(rel) }
	// The chapter's own code goes: the copy's code is the learner's alone.
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		if code(filepath.ToSlash(rel)) {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The workspace's import path, alone or before a subpackage's.
	from, to := Module+"/"+w.Dir(), Module+"/"+g.Dir()
	imports := strings.NewReplacer(`"`+from+`"`, `"`+to+`"`, `"`+from+`/`, `"`+to+`/`)
	return filepath.WalkDir(w.abs(w.Dir()), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.abs(w.Dir()), p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || !code(rel) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(imports.Replace(string(src))), 0o644)
	})
}

// chapterOwned reports whether a workspace's file, a slash path relative to
// it, belongs to the chapter rather than to the learner: a test file, or a
// file under a testdata directory.
func chapterOwned(rel string) bool {
	return strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

// State is a learner's progress in a workspace.
type State struct {
	Done  int            `json:"done"`  // steps passed, in order: the current step is Steps[Done]
	Hints map[string]int `json:"hints"` // hints shown, by step id
}

const stateFile = "track.json"

// Load reads the workspace's progress; a workspace that does not exist has
// none.
func (w Workspace) Load() (State, error) {
	var s State
	b, err := os.ReadFile(filepath.Join(w.abs(w.Dir()), stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w (delete it to start the steps' count again)", path.Join(w.Dir(), stateFile), err)
	}
	s.Done = min(max(s.Done, 0), len(w.Track.Steps))
	return s, nil
}

// Save writes the workspace's progress.
func (w Workspace) Save(s State) error {
	b, _ := json.MarshalIndent(s, "", "  ")
	return os.WriteFile(filepath.Join(w.abs(w.Dir()), stateFile), append(b, '\n'), 0o644)
}

// RunStaged runs one step's tests as the watch loop does (see RunStaged):
// first hears the tests that need no Kubernetes code before the rest end.
func (w Workspace) RunStaged(ctx context.Context, step int, first func(Run)) Run {
	st := w.Track.Steps[step]
	return RunStaged(ctx, w.Root, path.Join(w.Dir(), st.Package()), st.AllTests(), first)
}

// FindRoot returns the course's module root: dir or its closest parent
// whose go.mod declares the course's module.
func FindRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+Module+"\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside the course's repository; run the command from your clone", dir)
		}
	}
}

// Mtime is the latest modification time of the workspace's Go files, its
// lab programs' included, in nanoseconds: what the watch mode polls.
func (w Workspace) Mtime() int64 {
	var latest int64
	filepath.WalkDir(w.abs(w.Dir()), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().UnixNano() > latest {
			latest = info.ModTime().UnixNano()
		}
		return nil
	})
	return latest
}
