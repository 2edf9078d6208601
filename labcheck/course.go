package labcheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Chapter is one chapter of the course as labcheck knows it: its number,
// its title and its lab's checks. A chapter states only its directory and its
// checks (see NewCourse); the number comes from the directory's name and the
// title from its README's first heading, so neither is written twice.
type Chapter struct {
	Dir    string // the chapter's directory under chapters/, e.g. "01-pdb"
	Number int    // 1 for "01-pdb"
	Title  string // the H1 of the chapter's README.md, without its "N. "
	Checks []Check
}

// A Course is the chapters compiled into a program, in order. It is built
// once, by package chapters (the course's one list), and handed to labcheck's
// command, its tests and the site's tests.
type Course struct {
	chapters []Chapter
	byID     map[string]Check
}

var chapterDir = regexp.MustCompile(`^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*$`)

// NewCourse returns the course of the given chapters, in the order given.
// readmes holds each chapter's README.md as DIR/README.md. Each chapter's
// number is read from its directory ("02-taints" is chapter 2) and its title
// from its README's first line, "# 2. TITLE". NewCourse fills in each check's
// Chapter. It refuses, naming the chapter or check: a directory that is not
// NN-name, numbers that are not 1, 2, 3… in order, a README whose first
// line is not # N. TITLE,
// a check without ID or Run, with more than three hints, or whose ID another
// check has.
func NewCourse(readmes fs.FS, chapters ...Chapter) (*Course, error) {
	c := &Course{byID: map[string]Check{}}
	for i, ch := range chapters {
		m := chapterDir.FindStringSubmatch(ch.Dir)
		if m == nil {
			return nil, fmt.Errorf("chapter directory %q: want NN-name, e.g. 05-quotas", ch.Dir)
		}
		ch.Number, _ = strconv.Atoi(m[1])
		if ch.Number != i+1 {
			return nil, fmt.Errorf("chapter directory %q is listed as chapter %d: list the chapters in order, from 01", ch.Dir, i+1)
		}
		readme, err := fs.ReadFile(readmes, path.Join(ch.Dir, "README.md"))
		if err != nil {
			return nil, fmt.Errorf("chapter %s: %v", ch.Dir, err)
		}
		prefix := strconv.Itoa(ch.Number) + ". "
		h1 := Title(readme)
		if !strings.HasPrefix(h1, prefix) || len(h1) == len(prefix) {
			return nil, fmt.Errorf("chapter %s: its README.md must start with its title line, # %sTITLE", ch.Dir, prefix)
		}
		ch.Title = h1[len(prefix):]
		checks := make([]Check, len(ch.Checks))
		for j, k := range ch.Checks {
			switch {
			case k.ID == "":
				return nil, fmt.Errorf("chapter %s: check %d has no ID", ch.Dir, j+1)
			case k.Run == nil:
				return nil, fmt.Errorf("chapter %s: check %s has no Run", ch.Dir, k.ID)
			case len(k.Hints) > 3:
				return nil, fmt.Errorf("chapter %s: check %s has %d hints, at most 3", ch.Dir, k.ID, len(k.Hints))
			}
			if _, dup := c.byID[k.ID]; dup {
				return nil, fmt.Errorf("chapter %s: check ID %s is used twice", ch.Dir, k.ID)
			}
			k.Chapter = ch.Number
			c.byID[k.ID] = k
			checks[j] = k
		}
		ch.Checks = checks
		c.chapters = append(c.chapters, ch)
	}
	return c, nil
}

// MustCourse is NewCourse for the course's own list, where a mistake is the
// course author's and stops every program that would use it.
func MustCourse(readmes fs.FS, chapters ...Chapter) *Course {
	c, err := NewCourse(readmes, chapters...)
	if err != nil {
		panic("labcheck: " + err.Error())
	}
	return c
}

// Title returns the text of a Markdown document's first line when it is an
// H1 ("# TITLE"), and "" otherwise.
func Title(markdown []byte) string {
	line, _, _ := bufio.NewReader(bytes.NewReader(markdown)).ReadLine()
	s := string(line)
	if !strings.HasPrefix(s, "# ") {
		return ""
	}
	return strings.TrimSpace(s[2:])
}

// Chapters returns the course's chapters, in order.
func (c *Course) Chapters() []Chapter { return c.chapters }

// Chapter returns chapter n.
func (c *Course) Chapter(n int) (Chapter, bool) {
	if n < 1 || n > len(c.chapters) {
		return Chapter{}, false
	}
	return c.chapters[n-1], true
}

// Title returns chapter n's title, or "" when there is no chapter n.
func (c *Course) Title(n int) string {
	ch, _ := c.Chapter(n)
	return ch.Title
}

// Span says which chapter numbers exist, for messages: "1 to N".
func (c *Course) Span() string {
	switch len(c.chapters) {
	case 0:
		return "none"
	case 1:
		return "1"
	}
	return fmt.Sprintf("1 to %d", len(c.chapters))
}

// Checks returns the checks of chapter n (0 means every chapter), in chapter
// order and, within a chapter, in the order the chapter lists them.
func (c *Course) Checks(n int) []Check {
	var out []Check
	for _, ch := range c.chapters {
		if n == 0 || ch.Number == n {
			out = append(out, ch.Checks...)
		}
	}
	return out
}

// Select returns the checks whose IDs match a pattern of only (every check
// when only is empty) and no pattern of skip, in their order. A pattern is
// a check's ID or a glob of path.Match, such as "outage-*". A pattern that
// matches none of checks is an error, so a misspelt one is not quietly
// ignored, and so is a selection that leaves nothing.
func Select(checks []Check, only, skip []string) ([]Check, error) {
	matches := func(pattern string, c Check) bool {
		ok, _ := path.Match(pattern, c.ID)
		return ok
	}
	matchesAny := func(patterns []string, c Check) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, c) })
	}
	for _, set := range []struct {
		flag     string
		patterns []string
	}{{"--only", only}, {"--skip", skip}} {
		for _, p := range set.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%s %q is not a check ID or a pattern such as outage-*", set.flag, p)
			}
			if !slices.ContainsFunc(checks, func(c Check) bool { return matches(p, c) }) {
				return nil, fmt.Errorf("%s %q matches no check", set.flag, p)
			}
		}
	}
	var out []Check
	for _, c := range checks {
		if (len(only) == 0 || matchesAny(only, c)) && !matchesAny(skip, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--only and --skip leave no check to run")
	}
	return out, nil
}

// Lookup returns the check with the given ID.
func (c *Course) Lookup(id string) (Check, bool) {
	k, ok := c.byID[id]
	return k, ok
}
