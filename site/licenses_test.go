package site

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// copyrightRE finds a copyright line with a year: the mark of a file from
// elsewhere, as the course's own files carry none.
var copyrightRE = regexp.MustCompile(`(?i)copyright (?:\(c\) |© )?\d{4}`)

// unnoticed returns the files of the site built at out that the course did
// not write and that notice does not name on a line of its own: every file
// matching an entry of foreign (named in NOTICE by that entry), and any
// other file with a copyright line (named by its path; a source page by the
// source file's). The licences page and the licence files' own pages
// quote the licences and are not counted.
func unnoticed(t *testing.T, out, notice string) []string {
	t.Helper()
	skip := map[string]bool{licensesOut: true}
	for _, f := range licenseFiles {
		skip[f.Name+".html"] = true
	}
	var missing []string
	err := filepath.WalkDir(out, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, name)
		rel = filepath.ToSlash(rel)
		if skip[rel] {
			return nil
		}
		entry := ""
		for _, pat := range foreign {
			if ok, _ := path.Match(pat, rel); ok {
				entry = pat
			}
		}
		if entry == "" {
			data, err := os.ReadFile(name)
			if err != nil {
				return err
			}
			if !copyrightRE.Match(data) {
				return nil
			}
			entry = rel
			if src := strings.TrimSuffix(rel, ".html"); src != rel && path.Ext(src) != "" {
				entry = src // a source page: NOTICE names the file it shows
			}
		}
		if !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(entry)+`[ \t]*$`).MatchString(notice) && !slices.Contains(missing, entry) {
			missing = append(missing, entry)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return missing
}

// TestNotices builds the course and requires NOTICE to name every file the
// site ships from elsewhere, and the licences page, linked from every
// page's footer, to show NOTICE and both licences.
func TestNotices(t *testing.T) {
	out := build(t, *courseRoot, "")
	notice := read(t, filepath.Join(*courseRoot, "NOTICE"))
	if missing := unnoticed(t, out, notice); len(missing) > 0 {
		t.Errorf("the site ships files from elsewhere that NOTICE does not name on a line of their own: %s", strings.Join(missing, ", "))
	}
	shipped := 0
	for _, pat := range foreign {
		m, _ := filepath.Glob(filepath.Join(out, filepath.FromSlash(pat)))
		shipped += len(m)
	}
	if shipped == 0 {
		t.Errorf("the site ships none of the files it lists as from elsewhere (%s): is the list out of date?", strings.Join(foreign, ", "))
	}
	page := read(t, filepath.Join(out, filepath.FromSlash(licensesOut)))
	for _, f := range licenseFiles {
		text := read(t, filepath.Join(*courseRoot, f.Name))
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		if !strings.Contains(page, first) {
			t.Errorf("%s does not show %s (no %q)", licensesOut, f.Name, first)
		}
	}
	filepath.WalkDir(out, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".html") {
			return err
		}
		rel, _ := filepath.Rel(out, name)
		rel = filepath.ToSlash(rel)
		if want := `href="` + relURL(rel, licensesOut) + `">licences and notices</a>`; !strings.Contains(read(t, name), want) {
			t.Errorf("%s: the footer has no %s", rel, want)
		}
		return nil
	})
}

// TestUnnoticed shows what the check counts: a file of the site's list of
// files from elsewhere, and a copied figure with someone else's copyright
// line, each until NOTICE names it.
func TestUnnoticed(t *testing.T) {
	repo := copyRepo(t)
	addDemo(t, repo)
	figure := `<svg xmlns="http://www.w3.org/2000/svg"><!-- Copyright 2021 Someone Else --></svg>`
	if err := os.WriteFile(filepath.Join(repo, "chapters/02-beta/figure.svg"), []byte(figure), 0o644); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(repo, "chapters/02-beta/README.md"), "\n![A figure](figure.svg)\n")
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(Config{Root: repo, Out: out, DemoCache: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, notice string
		want         []string
	}{
		{"no NOTICE", "", []string{"_assets/wasm_exec.js", "_demos/*.wasm", "chapters/02-beta/figure.svg"}},
		{"named in passing, not as an entry", "see _assets/wasm_exec.js\n", []string{"_assets/wasm_exec.js", "_demos/*.wasm", "chapters/02-beta/figure.svg"}},
		{"every one named", "_assets/wasm_exec.js\n    Origin: Go\n_demos/*.wasm\nchapters/02-beta/figure.svg\n", nil},
	} {
		got := unnoticed(t, out, tt.notice)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: unnoticed = %q, want %q", tt.name, got, tt.want)
		}
	}
}
