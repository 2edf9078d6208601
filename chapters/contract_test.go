package chapters_test

import (
	"bufio"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/internal/proof"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/version"
)

// The chapter contract (CONTRIBUTING.md, "A chapter's directory"), as rules
// a chapter's directory is read against. Each rule has a name, so a broken
// chapter is told which rule it breaks.
const module = "github.com/opslab/opslab"

// A violation is one rule a chapter breaks.
type violation struct{ rule, msg string }

func (v violation) String() string { return v.rule + ": " + v.msg }

// roles are the subdirectories a chapter may have; required ones marked.
var roles = map[string]bool{
	"kube": false, "check": true, "cmd": true, "e2e": true, "demo": true, "upstream": false, "lab": true, "testdata": false,
	"figures": true, "track": true, "plants": false,
}

// sharedSections are the H2 sections every chapter's README has, with these
// very titles, so a reader finds them in the same place in each chapter.
var sharedSections = []string{"The command", "What the model leaves out", "The lab", "What the lab can and cannot show", releasesSection}

// releasesSection says what the pinned release changed in the chapter's
// mechanism, and what differs for someone on the release before; it must
// name the pinned release, so a move to another one (make bump-kubernetes)
// fails here until each chapter says what that release changed.
const releasesSection = "Across Kubernetes releases"

// pinnedMinor is the release the course teaches, as the prose names it:
// v1.37 for v1.37.2.
func pinnedMinor() string {
	v := version.Kubernetes
	return v[:strings.LastIndex(v, ".")]
}

// checkChapter reads the chapter in dir (repo/chapters/NN-name) against the
// contract; title is its title in the course's list.
func checkChapter(repo, dir, title string) []violation {
	var out []violation
	bad := func(rule, format string, args ...any) {
		out = append(out, violation{rule, fmt.Sprintf(format, args...)})
	}
	name := filepath.Base(dir)
	num, _ := strconv.Atoi(name[:2])
	words := strings.Split(name[3:], "-")
	pkg := words[len(words)-1]

	// title: the README's first line is "# N. TITLE", TITLE the registered one.
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		bad("layout", "no README.md")
	} else {
		first, _, _ := strings.Cut(string(readme), "\n")
		if want := fmt.Sprintf("# %d. %s", num, title); first != want {
			bad("title", "README.md starts %q, want %q", first, want)
		}
		h2 := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(string(readme)))
		fence := false
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if !fence && strings.HasPrefix(l, "## ") {
				h2[strings.TrimSpace(l[3:])] = true
			}
		}
		for _, s := range sharedSections {
			if !h2[s] {
				bad("sections", "README.md has no section \"## %s\"", s)
			}
		}
		if h2[releasesSection] {
			_, after, _ := strings.Cut(string(readme), "\n## "+releasesSection+"\n")
			body, _, _ := strings.Cut(after, "\n## ")
			if minor := pinnedMinor(); !strings.Contains(body, minor) {
				bad("sections", "\"## %s\" does not name %s, the release the course teaches (labcheck/version/pins.env): say what it changed in this chapter's mechanism, or that it changed nothing, and how", releasesSection, minor)
			}
		}
	}

	// layout: only the roles' directories, and each required one.
	entries, _ := os.ReadDir(dir)
	have := map[string]bool{}
	for _, e := range entries {
		switch {
		case e.IsDir():
			if _, ok := roles[e.Name()]; !ok {
				bad("layout", "%s/ is not a role of the contract (%s)", e.Name(), strings.Join(roleNames(), ", "))
			}
			have[e.Name()] = true
		case strings.HasSuffix(e.Name(), ".md"), strings.HasSuffix(e.Name(), ".go"):
			// README.md is the path; EVIDENCE.md and deep dives sit beside it.
		default:
			bad("layout", "%s: a chapter's root holds its Markdown pages (README.md, EVIDENCE.md) and the model's Go files only", e.Name())
		}
	}
	for r, required := range roles {
		if required && !have[r] {
			bad("layout", "no %s/", r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
		bad("layout", "no doc.go: the model's package doc says what it models")
	}

	// names: each role's package name.
	wantPkg := map[string]string{".": pkg, "kube": "kube", "check": "check", "e2e": "e2e", "demo": "main", "track": "track"}
	for sub, want := range wantPkg {
		if got := packageNames(filepath.Join(dir, sub)); len(got) > 0 && !slices.Equal(got, []string{want}) && !slices.Equal(got, []string{want, want + "_test"}) {
			bad("names", "%s is package %s, want %s", rel(dir, sub), strings.Join(got, " and "), want)
		}
	}
	tools, _ := os.ReadDir(filepath.Join(dir, "cmd"))
	for _, t := range tools {
		tdir := filepath.Join(dir, "cmd", t.Name())
		if got := packageNames(tdir); !slices.Equal(got, []string{"main"}) {
			bad("names", "cmd/%s is package %s, want main", t.Name(), strings.Join(got, " and "))
		}
		scripts, _ := filepath.Glob(filepath.Join(tdir, "testdata", "*.txtar"))
		if len(scripts) > 0 && !declares(tdir, "TestScript", "testscript.Main") {
			bad("commands", "cmd/%s has scenarios but no TestScript running them through testscript.Main", t.Name())
		}
	}

	// pure: the model and the demo import the standard library and the
	// course's own plain packages only, directly or through another package
	// of the course.
	for _, p := range []struct{ sub, goos, goarch string }{{".", "", ""}, {"demo", "js", "wasm"}} {
		if k := kubeImport(repo, filepath.Join(dir, p.sub), p.goos, p.goarch, map[string]bool{}); k != "" {
			bad("pure", "%s imports %s: the model and the demo import only the standard library", rel(dir, p.sub), k)
		}
	}

	// figures: pictures the model draws, each placed in the prose, all
	// drawn again by a test that fails when one is stale.
	figs, _ := os.ReadDir(filepath.Join(dir, "figures"))
	svgs := 0
	for _, f := range figs {
		if f.IsDir() || !strings.HasSuffix(f.Name(), ".svg") {
			bad("figures", "figures/%s is not an SVG: figures/ holds the figures the model draws", f.Name())
			continue
		}
		svgs++
		if !regexp.MustCompile(`(?m)^<!--\s*figure\s+figures/` + regexp.QuoteMeta(f.Name()) + `\s*-->$`).Match(readme) {
			bad("figures", "figures/%s is shown nowhere: place it in README.md next to the claim it illustrates, <!-- figure figures/%s --> above its image", f.Name(), f.Name())
		}
	}
	if svgs < 2 {
		bad("figures", "figures/ has %d figures; a chapter shows at least two, drawn by its model", svgs)
	}
	if !declaresBelow(dir, "TestFiguresAreCurrent") {
		bad("figures", "no package of the chapter has a TestFiguresAreCurrent that draws figures/ again (see package figuretest)")
	}

	// solve: the reference solution runs as a program.
	if fi, err := os.Stat(filepath.Join(dir, "lab", "solve.sh")); err != nil || fi.Mode()&0o111 == 0 {
		bad("solve", "lab/solve.sh is missing or not executable")
	}
	// A part of the solution that make test runs after every lane,
	// lab/later.sh, names the checks it is judged by, which the lane
	// leaves out (labcheck --skip), and solve.sh still runs it.
	if later, err := os.ReadFile(filepath.Join(dir, "lab", "later.sh")); err == nil {
		m := regexp.MustCompile(`(?m)^# Its checks: (.+)$`).FindSubmatch(later)
		solve, _ := os.ReadFile(filepath.Join(dir, "lab", "solve.sh"))
		switch {
		case m == nil:
			bad("solve", "lab/later.sh has no line \"# Its checks: PATTERNS\" naming the checks it is judged by")
		case !strings.Contains(string(solve), "later.sh"):
			bad("solve", "lab/solve.sh does not run lab/later.sh, the rest of the reference solution")
		default:
			if _, err := labcheck.Select(chapters.Course.Checks(num), strings.Split(string(m[1]), ","), nil); err != nil {
				bad("solve", "lab/later.sh's checks: %v among chapter %d's", err, num)
			}
		}
	}

	// check-unit: the checks are tested without a cluster, on a fake clientset.
	if !testImports(filepath.Join(dir, "check"), "k8s.io/client-go/kubernetes/fake", false) {
		bad("check-unit", "check/ has no test without build tags that uses k8s.io/client-go/kubernetes/fake")
	}

	// claims: every claim marker of the path has its definition and a
	// plant, and every plant parses and applies (package proof; make test
	// runs them with cmd/proofs).
	for _, msg := range proof.CheckChapter(dir) {
		bad("claims", "%s", msg)
	}

	// e2e: a suite against the real control plane, behind the e2e tag.
	files, _ := filepath.Glob(filepath.Join(dir, "e2e", "*.go"))
	if len(files) == 0 || !declares(filepath.Join(dir, "e2e"), "TestMain", "") {
		bad("e2e", "e2e/ has no suite (a TestMain and its tests)")
	}
	for _, f := range files {
		if !hasTag(f, "e2e") {
			bad("e2e", "%s lacks //go:build e2e", rel(dir, filepath.Join("e2e", filepath.Base(f))))
		}
	}
	return out
}

func roleNames() []string {
	var n []string
	for r := range roles {
		n = append(n, r+"/")
	}
	slices.Sort(n)
	return n
}

func rel(dir, sub string) string {
	if sub == "." {
		return "the chapter's root"
	}
	return sub + "/"
}

// packageNames returns the package clauses of dir's Go files, sorted and
// without repeats.
func packageNames(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var names []string
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err == nil && !slices.Contains(names, af.Name.Name) {
			names = append(names, af.Name.Name)
		}
	}
	slices.Sort(names)
	return names
}

// declares reports whether a test file of dir declares func fn and, if call
// is not empty, contains call.
func declares(dir, fn, call string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if regexp.MustCompile(`(?m)^func `+fn+`\(`).Match(b) && strings.Contains(string(b), call) {
			return true
		}
	}
	return false
}

// declaresBelow reports whether a test file of dir or of a directory under
// it declares function fn.
func declaresBelow(dir, fn string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && !found && declares(p, fn, "") {
			found = true
		}
		return err
	})
	return found
}

var buildLine = regexp.MustCompile(`(?m)^//go:build (.+)$`)

func hasTag(file, tag string) bool {
	b, _ := os.ReadFile(file)
	m := buildLine.FindSubmatch(b)
	return m != nil && strings.Contains(string(m[1]), tag)
}

// testImports reports whether a test file of dir imports path; untagged
// asks for a file without a build constraint.
func testImports(dir, path string, tagged bool) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		if !tagged && buildLine.MatchString(readFile(f)) {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, im := range af.Imports {
			if strings.Trim(im.Path.Value, `"`) == path {
				return true
			}
		}
	}
	return false
}

func readFile(f string) string { b, _ := os.ReadFile(f); return string(b) }

// kubeImport returns the first package outside the standard library and
// the course's own module that the non-test files of dir import, following
// the course's own packages. The demo is the model compiled to WebAssembly:
// the API types of k8s.io/api alone would make it about 11 MB larger.
func kubeImport(repo, dir, goos, goarch string, seen map[string]bool) string {
	if seen[dir] {
		return ""
	}
	seen[dir] = true
	ctx := build.Default
	if goos != "" {
		ctx.GOOS, ctx.GOARCH = goos, goarch
	}
	p, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return ""
	}
	for _, im := range p.Imports {
		first, _, _ := strings.Cut(im, "/")
		if strings.Contains(first, ".") && !strings.HasPrefix(im, module+"/") {
			return im
		}
		if strings.HasPrefix(im, module+"/") {
			if k := kubeImport(repo, filepath.Join(repo, strings.TrimPrefix(im, module+"/")), goos, goarch, seen); k != "" {
				return k + " (through " + im + ")"
			}
		}
	}
	return ""
}

// checkCourse reads the course's chapter directories against its list
// (directory → title) and its README's table: it returns, per directory,
// the title to read it with, and the chapters that break "registered".
func checkCourse(repo string, listed map[string]string) (map[string]string, []string) {
	listed = maps.Clone(listed)
	found := map[string]string{}
	var bad []string
	dirs, _ := filepath.Glob(filepath.Join(repo, "chapters", "[0-9][0-9]-*"))
	readme := readFile(filepath.Join(repo, "README.md"))
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(dir)
		title, ok := listed[name]
		if !ok {
			bad = append(bad, fmt.Sprintf("chapters/%s: registered: it is not in chapters.Course (chapters/chapters.go); add its line", name))
			continue
		}
		delete(listed, name)
		found[dir] = title
		if !strings.Contains(readme, "(chapters/"+name+"/README.md)") {
			bad = append(bad, fmt.Sprintf("chapters/%s: registered: the course's README.md has no row linking chapters/%s/README.md in its table of chapters", name, name))
		}
	}
	for name := range listed {
		bad = append(bad, fmt.Sprintf("chapters/%s: registered: chapters.Course lists it, but there is no such directory", name))
	}
	slices.Sort(bad)
	return found, bad
}

func courseList() map[string]string {
	listed := map[string]string{}
	for _, ch := range chapters.Course.Chapters() {
		listed[ch.Dir] = ch.Title
	}
	return listed
}

// TestContract reads every chapter's directory against the contract, and
// the course's list against the directories: every chapters/NN-name/ is in
// chapters.Course and in the table of the course's README, and every
// chapter listed there has its directory.
func TestContract(t *testing.T) {
	repo, _ := filepath.Abs("..")
	found, bad := checkCourse(repo, courseList())
	for _, b := range bad {
		t.Error(b)
	}
	for dir, title := range found {
		for _, v := range checkChapter(repo, dir, title) {
			t.Errorf("chapters/%s: %s", filepath.Base(dir), v)
		}
	}
}

// TestContractCatchesUnregistered: a chapter directory missing from the
// list, one listed without its directory, and one missing from the README's
// table are each named.
func TestContractCatchesUnregistered(t *testing.T) {
	root := t.TempDir()
	mkdir(t, filepath.Join(root, "chapters", "01-one"))
	mkdir(t, filepath.Join(root, "chapters", "02-two"))
	write(t, filepath.Join(root, "README.md"), "| [1. One](chapters/01-one/README.md) | |\n")
	_, bad := checkCourse(root, map[string]string{"01-one": "One", "03-three": "Three"})
	want := []string{
		"chapters/02-two: registered: it is not in chapters.Course (chapters/chapters.go); add its line",
		"chapters/03-three: registered: chapters.Course lists it, but there is no such directory",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("checkCourse = %q, want %q", bad, want)
	}
	_, bad = checkCourse(root, map[string]string{"01-one": "One", "02-two": "Two"})
	if len(bad) != 1 || !strings.Contains(bad[0], "chapters/02-two: registered: the course's README.md has no row") {
		t.Errorf("checkCourse = %q, want chapter 2's missing row", bad)
	}
}

// TestContractCatches breaks a copy of chapter 2 once for each rule and
// expects that rule, and only that rule, to name it. An unbroken copy
// passes.
func TestContractCatches(t *testing.T) {
	repo, _ := filepath.Abs("..")
	const name = "02-taints"
	title := chapters.Course.Title(2)
	for _, tc := range []struct {
		rule    string
		breakIt func(t *testing.T, dir string)
	}{
		{"", func(*testing.T, string) {}},
		{"title", func(t *testing.T, dir string) { edit(t, dir, "README.md", "# 2. ", "# Two: ") }},
		{"sections", func(t *testing.T, dir string) {
			edit(t, dir, "README.md", "## What the model leaves out", "## What we left out")
		}},
		{"sections", func(t *testing.T, dir string) {
			// A move to a release the chapter does not yet speak of.
			p := filepath.Join(dir, "README.md")
			write(t, p, strings.ReplaceAll(readFile(p), pinnedMinor(), "v1.99"))
		}},
		{"layout", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "timetable")) }},
		{"layout", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "demo")) }},
		{"layout", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "notes.txt"), "") }},
		{"names", func(t *testing.T, dir string) { renamePackage(t, filepath.Join(dir, "check"), "check", "taintcheck") }},
		{"names", func(t *testing.T, dir string) { renamePackage(t, filepath.Join(dir, "track"), "track", "steps") }},
		{"layout", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "track")) }},
		{"commands", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, "cmd", "*", "main_test.go"))
			for _, f := range files {
				os.Remove(f)
			}
		}},
		{"pure", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "kubetypes.go"), "package taints\n\nimport _ \"k8s.io/api/core/v1\"\n")
		}},
		{"pure", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "demo", "kube.go"), "package main\n\nimport _ \""+module+"/chapters/02-taints/kube\"\n")
		}},
		{"figures", func(t *testing.T, dir string) { edit(t, dir, "README.md", "<!-- figure figures/timetable.svg -->", "") }},
		{"figures", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "figures", "notes.txt"), "") }},
		{"figures", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "cmd", "timetable", "figures_test.go")) }},
		{"solve", func(t *testing.T, dir string) { os.Chmod(filepath.Join(dir, "lab", "solve.sh"), 0o644) }},
		{"solve", func(t *testing.T, dir string) {
			edit(t, dir, "lab/later.sh", "# Its checks: outage-*", "# Its checks: outgae-*")
		}},
		{"solve", func(t *testing.T, dir string) { edit(t, dir, "lab/later.sh", "# Its checks:", "# Checks:") }},
		{"check-unit", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, "check", "*_test.go"))
			for _, f := range files {
				if !buildLine.MatchString(readFile(f)) {
					os.Remove(f)
				}
			}
		}},
		{"claims", func(t *testing.T, dir string) {
			edit(t, dir, "README.md", "\n## The command", " A claim without a plant.[^no-plant]\n\n[^no-plant]: [How we know](README.md)\n\n## The command")
		}},
		{"claims", func(t *testing.T, dir string) {
			mkdir(t, filepath.Join(dir, "plants"))
			write(t, filepath.Join(dir, "plants", "gone.plant"), "claim: gone\nif: x\nfile: taint.go\ntests: TestX\nupstream: https://example.com/\n-- old --\nno such text\n-- new --\nx\n")
		}},
		{"e2e", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, "e2e", "*.go"))
			b := readFile(files[0])
			write(t, files[0], buildLine.ReplaceAllString(b, ""))
		}},
	} {
		t.Run(cmpName(tc.rule), func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "chapters", name)
			copyDir(t, filepath.Join(repo, "chapters", name), dir)
			// The demo and the model may import the course's other packages.
			copyDir(t, filepath.Join(repo, "internal"), filepath.Join(root, "internal"))
			tc.breakIt(t, dir)
			var rules []string
			for _, v := range checkChapter(root, dir, title) {
				rules = append(rules, v.rule)
				if v.rule != tc.rule {
					t.Errorf("unexpected %s", v)
				}
			}
			if tc.rule != "" && !slices.Contains(rules, tc.rule) {
				t.Errorf("the contract did not notice a chapter that breaks %s", tc.rule)
			}
		})
	}
}

func cmpName(rule string) string {
	if rule == "" {
		return "unbroken"
	}
	return rule
}

func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	f := filepath.Join(dir, file)
	b := readFile(f)
	if !strings.Contains(b, old) {
		t.Fatalf("%s has no %q to break", file, old)
	}
	write(t, f, strings.Replace(b, old, new, 1))
}

func renamePackage(t *testing.T, dir, old, new string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		write(t, f, strings.Replace(readFile(f), "package "+old, "package "+new, 1))
	}
}

func write(t *testing.T, f, s string) {
	t.Helper()
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(to, strings.TrimPrefix(p, from))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTracksRegistered: every chapter's track is in chapters.Tracks, in the
// course's order, so that cmd/learn and the site find it.
func TestTracksRegistered(t *testing.T) {
	var want, got []string
	for _, ch := range chapters.Course.Chapters() {
		want = append(want, ch.Dir)
	}
	for _, tr := range chapters.Tracks {
		got = append(got, tr.Dir)
	}
	if !slices.Equal(got, want) {
		t.Errorf("chapters.Tracks lists %v, want every chapter of the course in order: %v", got, want)
	}
}
