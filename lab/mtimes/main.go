// Mtimes dates every file git tracks, and every directory that holds one,
// by its content, so that go test's cache holds from one checkout to the
// next. go test reuses a package's result only when every file its tests
// opened has the size and modification time it had when the result was
// recorded; a clone writes every file anew, so each fresh clone (each CI
// run) ran every test again. make test runs it before go test, and runs go
// test from one path for every checkout (lab/scripts/test.sh, go_root),
// for go test also hashes the absolute path of each file opened.
//
// A file's time comes from the hash git keeps of its content in the index,
// a directory's from the hashes of the tracked files beneath it: a change
// of content is a change of time. A file whose content differs from the
// index (an edit not yet added) keeps its own time, so go test sees the
// edit; symbolic links, submodules and files with merge conflicts are left
// alone. Every time falls in 2001-2009, long past, as go test wants (it
// caches nothing that read a file changed in the last two seconds). An
// editor that has a clean tracked file open may see its time change.
//
// Usage, from the repository's root:
//
//	go run ./lab/mtimes
//
// It prints how many files and directories it dated. Outside a git
// checkout it dates nothing, says so, and exits 0; it exits 1 when a time
// cannot be set.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path"
	"strings"
	"time"
)

// base is the earliest time given; a hash adds up to 2^28 s (8.5 years).
var base = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	log.SetPrefix("mtimes: ")
	log.SetFlags(0)
	index, err := exec.Command("git", "ls-files", "-s", "-z").Output()
	if err != nil {
		fmt.Println("mtimes: not a git checkout (git ls-files failed): nothing dated, so go test reruns what a new checkout's times hide")
		return
	}
	edited, err := exec.Command("git", "ls-files", "-m", "-z").Output()
	if err != nil {
		log.Fatalf("git ls-files -m: %v", err)
	}
	files, dirs, err := date(split(index), split(edited))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("mtimes: %d tracked files and %d directories dated by their content, for go test's cache\n", files, dirs)
}

// date dates the files of index, git ls-files -s's lines, but those of
// edited and those git does not keep as plain files, and every directory
// that holds one.
func date(index, edited []string) (files, dirs int, err error) {
	skip := map[string]bool{}
	for _, p := range edited {
		skip[p] = true
	}
	seen := map[string]bool{}
	under := map[string]*bytes.Buffer{}
	for _, line := range index {
		// MODE HASH STAGE\tPATH
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return 0, 0, fmt.Errorf("git ls-files -s printed %q, not MODE HASH STAGE\\tPATH", line)
		}
		if seen[p] || f[2] != "0" {
			skip[p] = true // a merge conflict: stages 1 to 3
		}
		seen[p] = true
		for d := path.Dir(p); ; d = path.Dir(d) {
			if under[d] == nil {
				under[d] = &bytes.Buffer{}
			}
			fmt.Fprintf(under[d], "%s %s %s\n", f[0], f[1], p)
			if d == "." {
				break
			}
		}
		if f[0] != "100644" && f[0] != "100755" {
			skip[p] = true
		}
	}
	for _, line := range index {
		meta, p, _ := strings.Cut(line, "\t")
		if skip[p] {
			continue
		}
		sum, err := hex.DecodeString(strings.Fields(meta)[1])
		if err != nil || len(sum) < 4 {
			return 0, 0, fmt.Errorf("git ls-files -s gave %s the hash %q", p, strings.Fields(meta)[1])
		}
		if err := setTime(p, sum); err != nil {
			return 0, 0, err
		}
		files++
	}
	for d, b := range under {
		sum := sha256.Sum256(b.Bytes())
		if err := setTime(d, sum[:]); err != nil {
			return 0, 0, err
		}
		dirs++
	}
	return files, dirs, nil
}

// setTime sets a path's access and modification times from a hash; a path
// the index lists but the tree lacks (deleted, not yet staged) is skipped.
func setTime(p string, sum []byte) error {
	t := base.Add(time.Duration(binary.BigEndian.Uint32(sum)%(1<<28)) * time.Second)
	if err := os.Chtimes(p, t, t); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("cannot date %s: %v", p, err)
	}
	return nil
}

func split(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
