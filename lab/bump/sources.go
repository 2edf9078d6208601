package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// sources finds upstream's files of two releases in the Go module cache.
type sources struct {
	from, to string
	dirs     map[string]string // module@version → directory
	unread   []string
}

func newSources(from, to string) *sources {
	return &sources{from: from, to: to, dirs: map[string]string{}}
}

// locate returns the local path of upstream's file or directory p at
// release: p as Kubernetes' repository names it (pkg/..., staging/src/...),
// or as a staging module's import path (k8s.io/apiserver/pkg/...).
func (s *sources) locate(p, release string) (string, error) {
	mod, ver, rest := "k8s.io/kubernetes", release, p
	switch {
	case strings.HasPrefix(p, "staging/src/"):
		p = strings.TrimPrefix(p, "staging/src/")
		fallthrough
	case strings.HasPrefix(p, "k8s.io/"):
		parts := strings.SplitN(p, "/", 3)
		if len(parts) < 3 {
			return "", fmt.Errorf("%s names no file of a module", p)
		}
		mod, rest = parts[0]+"/"+parts[1], parts[2]
		if mod != "k8s.io/kubernetes" {
			ver = stagingVersion(release)
		}
	}
	key := mod + "@" + ver
	dir, ok := s.dirs[key]
	if !ok {
		m, err := download(mod, ver)
		if err != nil {
			s.unread = append(s.unread, err.Error())
		}
		dir = m.Dir
		s.dirs[key] = dir
	}
	if dir == "" {
		return "", fmt.Errorf("%s is not in the module cache", key)
	}
	return filepath.Join(dir, rest), nil
}

// compare says how p changed from one release to the other.
func (s *sources) compare(p string) string {
	op, oerr := s.locate(p, s.from)
	np, nerr := s.locate(p, s.to)
	if oerr != nil || nerr != nil {
		return "could not be read"
	}
	oi, oerr := os.Stat(op)
	ni, nerr := os.Stat(np)
	switch {
	case oerr != nil && nerr != nil:
		return "**not found at either release**: check the citation"
	case nerr != nil:
		return "**gone at " + s.to + "**"
	case oerr != nil:
		return "new at " + s.to + " (not at " + s.from + ")"
	case oi.IsDir() != ni.IsDir():
		return "**a file at one release and a directory at the other**"
	case ni.IsDir():
		return compareDirs(op, np)
	}
	ob, _ := os.ReadFile(op)
	nb, _ := os.ReadFile(np)
	if bytes.Equal(ob, nb) {
		return "unchanged"
	}
	add, del := lineChanges(ob, nb)
	return fmt.Sprintf("**changed**: %d lines only at %s, %d only at %s", del, s.from, add, s.to)
}

// compareDirs compares the Go files (tests left out) of two directories.
func compareDirs(a, b string) string {
	list := func(dir string) map[string][]byte {
		files := map[string][]byte{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				files[n], _ = os.ReadFile(filepath.Join(dir, n))
			}
		}
		return files
	}
	old, cur := list(a), list(b)
	var changed, added, removed []string
	add, del := 0, 0
	for n, ob := range old {
		nb, ok := cur[n]
		switch {
		case !ok:
			removed = append(removed, n)
		case !bytes.Equal(ob, nb):
			changed = append(changed, n)
			x, y := lineChanges(ob, nb)
			add, del = add+x, del+y
		}
	}
	for n := range cur {
		if _, ok := old[n]; !ok {
			added = append(added, n)
		}
	}
	if len(changed)+len(added)+len(removed) == 0 {
		return fmt.Sprintf("unchanged (%d Go files, tests aside)", len(old))
	}
	sort.Strings(changed)
	sort.Strings(added)
	sort.Strings(removed)
	var parts []string
	if len(changed) > 0 {
		parts = append(parts, fmt.Sprintf("changed %s (%d lines only at the old release, %d only at the new)", strings.Join(changed, ", "), del, add))
	}
	if len(added) > 0 {
		parts = append(parts, "new "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "gone "+strings.Join(removed, ", "))
	}
	return "**" + strings.Join(parts, "; ") + "**"
}

// lineChanges counts the lines only in b (added) and only in a (deleted),
// as multisets: a moved line counts as neither.
func lineChanges(a, b []byte) (added, deleted int) {
	count := map[string]int{}
	for _, l := range strings.Split(string(a), "\n") {
		count[l]++
	}
	for _, l := range strings.Split(string(b), "\n") {
		count[l]--
	}
	for _, n := range count {
		if n > 0 {
			deleted += n
		} else {
			added -= n
		}
	}
	return added, deleted
}

// compareLine says where the line that was line n of file at the old
// release is at the new one.
func (s *sources) compareLine(file string, n int) string {
	if !strings.Contains(file, "/") || !(strings.HasPrefix(file, "pkg/") || strings.HasPrefix(file, "k8s.io/") || strings.HasPrefix(file, "staging/") || strings.HasPrefix(file, "cmd/") || strings.HasPrefix(file, "plugin/")) {
		return "by hand: the citation names the file without its full path"
	}
	op, err1 := s.locate(file, s.from)
	np, err2 := s.locate(file, s.to)
	ob, err3 := os.ReadFile(op)
	nb, err4 := os.ReadFile(np)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return "**the file could not be read at both releases**"
	}
	ol, nl := strings.Split(string(ob), "\n"), strings.Split(string(nb), "\n")
	if n < 1 || n > len(ol) {
		return fmt.Sprintf("**%s has no line %d at %s**: check the citation", file, n, s.from)
	}
	want := strings.TrimSpace(ol[n-1])
	if n <= len(nl) && strings.TrimSpace(nl[n-1]) == want {
		return "same line at " + s.to
	}
	var at []string
	for i, l := range nl {
		if strings.TrimSpace(l) == want {
			at = append(at, fmt.Sprint(i+1))
		}
	}
	switch len(at) {
	case 0:
		return fmt.Sprintf("**its text (%q) is gone at %s**", clip(want, 60), s.to)
	case 1:
		return "**moved to line " + at[0] + "**"
	}
	return "**moved: its text is at lines " + strings.Join(at, ", ") + "**"
}

// clip shortens s to n characters, the last an ellipsis.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// showLine says what line n of file is at the new release, for a citation
// written for that release.
func (s *sources) showLine(file string, n int) string {
	p, err := s.locate(file, s.to)
	if err != nil {
		return "**the file could not be read**"
	}
	b, err := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	if err != nil || n < 1 || n > len(lines) {
		return fmt.Sprintf("**%s has no line %d at %s**: check the citation", file, n, s.to)
	}
	return fmt.Sprintf("cites %s, where it is `%s`", s.to, clip(strings.TrimSpace(lines[n-1]), 70))
}
