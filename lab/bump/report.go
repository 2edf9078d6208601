package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/opslab/opslab/internal/prose"
)

// A report is what a move from one Kubernetes release to another changed
// for the course.
type report struct {
	From, To, Etcd, Kwok, Date string

	Failing []failure   // proofs whose test failed
	Other   []failure   // failed tests that no sentence cites
	Files   []citedFile // upstream files and directories the prose cites
	Lines   []citedLine // "FILE, line N" citations
	Flags   []flagRow
	Gates   []gateRow
	Names   []mention // sentences and comments that name another release
	Unread  []string  // what the report could not read, and why

	ResultFiles []string // the go test -json files read, by base name
}

type failure struct {
	Test, Package string
	Sentence      string // "" for a test no sentence cites
	Where         string // README.md:LINE of the proof
	Output        string
}

type citedFile struct {
	Path   string // as upstream's repository names it
	Where  string // first README.md:LINE that cites it
	Status string // unchanged, changed (+a −b lines), gone, new release only
}

type citedLine struct {
	Where, File string
	Line        int
	Status      string
}

type flagRow struct {
	Component, Flag, Course, From, To, Where string
	Differs                                  bool
}

type gateRow struct {
	Gate, From, To, Where string
}

type mention struct{ Where, Text string }

// makeReport compares the course with upstream at the pinned release, from
// the release it moved from.
func makeReport(root, from, to, resultFiles, bin, date string, log io.Writer) (*report, error) {
	pins, err := readPins(root)
	if err != nil {
		return nil, err
	}
	r := &report{From: from, To: pins["KUBE_VERSION"], Etcd: pins["ETCD_VERSION"], Kwok: pins["KWOK_VERSION"], Date: date}
	if to != "" && to != r.To {
		r.To = to
		bin = "-"
	}
	files, err := tracked(root)
	if err != nil {
		return nil, err
	}
	var docs []string
	for _, f := range files {
		if strings.HasSuffix(f, "README.md") && (f == "README.md" || strings.HasPrefix(f, "chapters/")) && !strings.Contains(f, "/testdata/") {
			docs = append(docs, f)
		}
	}
	progress := func(step string) { fmt.Fprintf(log, "bump: report: %s\n", step) }

	progress("the proofs' test results")
	if err := r.readFailures(root, docs, resultFiles); err != nil {
		return nil, err
	}
	progress("the cited upstream files, at " + from + " and " + r.To)
	src := newSources(from, r.To)
	r.readCitations(root, docs, files, src)
	progress("the lab binaries' defaults")
	r.readFlags(root, bin, from)
	progress("the feature gates the chapters name")
	r.readGates(root, files, src)
	progress("the sentences that name a release")
	r.readMentions(root, files)
	r.Unread = append(r.Unread, src.unread...)
	return r, nil
}

// --- proofs ---------------------------------------------------------------

const modulePath = "github.com/opslab/opslab"

func (r *report) readFailures(root string, docs []string, resultFiles string) error {
	var names []string
	if resultFiles != "" {
		names = strings.Split(resultFiles, ",")
	} else {
		names, _ = filepath.Glob(filepath.Join(root, ".artifacts", "*-results.json"))
	}
	if len(names) == 0 {
		r.Unread = append(r.Unread, "no test results (.artifacts/*-results.json): run the tests before the report")
		return nil
	}
	failed := map[string]*failure{}
	var order []string
	for _, name := range names {
		if err := readFailed(strings.TrimSpace(name), failed, &order); err != nil {
			return err
		}
		r.ResultFiles = append(r.ResultFiles, filepath.Base(strings.TrimSpace(name)))
	}
	cited := map[string]bool{}
	for _, doc := range docs {
		d, err := prose.Parse(filepath.Join(root, doc))
		if err != nil {
			return err
		}
		lines := strings.Split(string(d.Source), "\n")
		for _, p := range d.Proofs {
			pkg := modulePath
			if dir := path.Join(path.Dir(doc), p.Dir); dir != "." {
				pkg += "/" + dir
			}
			var f *failure
			for _, key := range []string{pkg + " " + p.Test, pkg + " " + p.Func(), pkg + " "} {
				if f = failed[key]; f != nil {
					cited[key] = true
					break
				}
			}
			if f == nil {
				continue
			}
			c := *f
			if strings.HasPrefix(c.Test, "(") { // its package failed
				c.Test = p.Test + " " + c.Test
			}
			c.Sentence = clip(sentence(paragraph(lines, p.Line), p.Target), 400)
			c.Where = fmt.Sprintf("%s:%d", doc, p.Line)
			r.Failing = append(r.Failing, c)
		}
	}
	for _, k := range order {
		if f := failed[k]; !cited[k] && !strings.Contains(f.Test, "/") {
			r.Other = append(r.Other, *f)
		}
	}
	return nil
}

// readFailed adds the failed tests of a go test -json file to failed, with
// the first lines of their output.
func readFailed(name string, failed map[string]*failure, order *[]string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("reading test results: %v", err)
	}
	defer f.Close()
	output := map[string][]string{}
	testFailed := map[string]bool{} // packages with a failed test
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, ImportPath, Test, Output, FailedBuild string }
		if len(sc.Bytes()) == 0 || sc.Bytes()[0] != '{' || json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Action == "build-output" {
			pkg, _, _ := strings.Cut(ev.ImportPath, " ")
			if t := strings.TrimSpace(ev.Output); t != "" && !strings.HasPrefix(t, "#") && len(output[pkg+" "]) < 6 {
				output[pkg+" "] = append(output[pkg+" "], t)
			}
			continue
		}
		if ev.Test == "" {
			// A package that failed with no test failed: it did not build,
			// or its tests crashed. Every proof in it is unproven.
			if ev.Action == "fail" && !testFailed[ev.Package] {
				key := ev.Package + " "
				if failed[key] == nil {
					*order = append(*order, key)
				}
				what := "(the package: its tests crashed)"
				if ev.FailedBuild != "" {
					what = "(the package: it did not build)"
				}
				failed[key] = &failure{Test: what, Package: ev.Package, Output: strings.Join(output[key], "\n")}
			} else if ev.Action == "output" && len(output[ev.Package+" "]) < 6 {
				if t := strings.TrimSpace(ev.Output); t != "" && !strings.HasPrefix(t, "FAIL") && !strings.HasPrefix(t, "ok ") {
					output[ev.Package+" "] = append(output[ev.Package+" "], t)
				}
			}
			continue
		}
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "output":
			line := strings.TrimRight(ev.Output, "\n")
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") && len(output[key]) < 6 {
				output[key] = append(output[key], t)
			}
		case "fail":
			testFailed[ev.Package] = true
			if failed[key] == nil {
				*order = append(*order, key)
			}
			failed[key] = &failure{Test: ev.Test, Package: ev.Package, Output: strings.Join(output[key], "\n")}
		}
	}
	return sc.Err()
}

// sentence returns the sentence of para that holds the link to target:
// from the end of the sentence before to the end of its own.
func sentence(para, target string) string {
	i := strings.Index(para, "]("+target+")")
	if i < 0 {
		return para
	}
	start := 0
	if j := strings.LastIndex(para[:i], ". "); j >= 0 {
		start = j + 2
	}
	end := len(para)
	if j := strings.Index(para[i:], ". "); j >= 0 {
		end = i + j + 1
	}
	return para[start:end]
}

// paragraph returns the paragraph of lines around line n (1-based), on one
// line.
func paragraph(lines []string, n int) string {
	// A list item is a paragraph of its own.
	item := func(l string) bool {
		t := strings.TrimSpace(l)
		return strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")
	}
	i, j := n-1, n-1
	for i > 0 && !item(lines[i]) && strings.TrimSpace(lines[i-1]) != "" {
		i--
	}
	for j < len(lines)-1 && strings.TrimSpace(lines[j+1]) != "" && !item(lines[j+1]) {
		j++
	}
	return strings.Join(strings.Fields(strings.Join(lines[i:j+1], " ")), " ")
}

// --- citations ------------------------------------------------------------

var (
	citedLink   = regexp.MustCompile(`https://github\.com/kubernetes/([a-z0-9-]+)/(?:blob|tree)/v[01]\.\d+\.\d+/([^)\s#>"]+)`)
	citedSpan   = regexp.MustCompile("`((?:pkg|cmd|plugin)/[A-Za-z0-9_./-]+|staging/src/k8s\\.io/[a-z0-9-]+/[A-Za-z0-9_./-]+|k8s\\.io/[a-z0-9-]+/(?:pkg|controllers|config)/[A-Za-z0-9_./-]+)`")
	citedLineRE = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.go)`,? lines? (\\d+)")
)

func (r *report) readCitations(root string, docs, files []string, src *sources) {
	seen := map[string]bool{}
	var texts []string
	for _, f := range files {
		if strings.HasSuffix(f, ".txtar") {
			texts = append(texts, f)
		}
	}
	for _, doc := range append(append([]string{}, docs...), texts...) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			r.Unread = append(r.Unread, err.Error())
			continue
		}
		lines := strings.Split(string(b), "\n")
		for n, line := range lines {
			where := fmt.Sprintf("%s:%d", doc, n+1)
			next := ""
			if n+1 < len(lines) {
				next = lines[n+1]
			}
			var paths []string
			for _, m := range citedLink.FindAllStringSubmatch(line, -1) {
				p := m[2]
				if m[1] != "kubernetes" {
					p = "k8s.io/" + m[1] + "/" + p
				}
				paths = append(paths, p)
			}
			for _, m := range citedSpan.FindAllStringSubmatch(line, -1) {
				// The course's own paths (cmd/timetable/...) are the
				// prose checker's to check, not upstream's.
				if exists(filepath.Join(root, path.Dir(doc), m[1])) || exists(filepath.Join(root, m[1])) {
					continue
				}
				paths = append(paths, m[1])
			}
			for _, p := range paths {
				p = strings.TrimSuffix(p, "/")
				if seen[p] {
					continue
				}
				seen[p] = true
				r.Files = append(r.Files, citedFile{Path: p, Where: where, Status: src.compare(p)})
			}
			for _, m := range citedLineRE.FindAllStringSubmatch(line, -1) {
				n, _ := strconv.Atoi(m[2])
				status := src.compareLine(m[1], n)
				if strings.Contains(line+" "+next, src.to) && !strings.HasPrefix(status, "by hand") {
					// Written for the new release: show what it cites.
					status = src.showLine(m[1], n)
				}
				r.Lines = append(r.Lines, citedLine{Where: where, File: m[1], Line: n, Status: status})
			}
		}
	}
}

// --- flags ----------------------------------------------------------------

func (r *report) readFlags(root, bin, from string) {
	if bin == "-" {
		r.Unread = append(r.Unread, "the defaults at "+r.To+": the report compared with a release the lab's binaries are not built from")
	}
	if bin == "" {
		bin = filepath.Join(root, ".cache", "lab", fmt.Sprintf("kube-%s-etcd-%s-kwok-%s", r.To, r.Etcd, r.Kwok))
	}
	olds, _ := filepath.Glob(filepath.Join(root, ".cache", "lab", "kube-"+from+"-etcd-*"))
	help := map[string]map[string]string{}
	oldHelp := map[string]map[string]string{}
	for _, row := range statedDefaults() {
		c := row.Component
		if help[c] == nil {
			h, err := helpDefaults(filepath.Join(bin, c))
			if err != nil {
				r.Unread = append(r.Unread, fmt.Sprintf("%v: build the lab binaries first (make lab-binaries)", err))
				h = map[string]string{}
			}
			help[c] = h
			oldHelp[c] = map[string]string{}
			if len(olds) > 0 {
				if h, err := helpDefaults(filepath.Join(olds[0], c)); err == nil {
					oldHelp[c] = h
				}
			}
		}
		to := sum(help[c], row.Flags)
		fr := sum(oldHelp[c], row.Flags)
		r.Flags = append(r.Flags, flagRow{
			Component: c, Flag: "--" + strings.Join(row.Flags, " + --"), Course: row.Course,
			From: fr, To: to, Where: row.Where,
			Differs: to == "" || !sameValue(to, row.Course),
		})
	}
}

// --- feature gates ----------------------------------------------------------

var gateFiles = []string{"pkg/features/kube_features.go", "k8s.io/apiserver/pkg/features/kube_features.go"}

func (r *report) readGates(root string, files []string, src *sources) {
	old, cur := map[string][]gateSpec{}, map[string][]gateSpec{}
	for _, gf := range gateFiles {
		for _, side := range []struct {
			release string
			into    map[string][]gateSpec
		}{{src.from, old}, {src.to, cur}} {
			p, err := src.locate(gf, side.release)
			if err != nil {
				continue
			}
			g, err := readGates(p)
			if err != nil {
				r.Unread = append(r.Unread, err.Error())
				continue
			}
			for k, v := range g {
				side.into[k] = v
			}
		}
	}
	all := map[string]bool{}
	for k := range old {
		all[k] = true
	}
	for k := range cur {
		all[k] = true
	}
	where := map[string]string{}
	word := regexp.MustCompile(`[A-Z][A-Za-z0-9]+`)
	for _, f := range files {
		if !strings.HasPrefix(f, "chapters/") || !(strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".go")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, w := range word.FindAllString(line, -1) {
				if all[w] && where[w] == "" {
					where[w] = fmt.Sprintf("%s:%d", f, n+1)
				}
			}
		}
	}
	var names []string
	for g := range where {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		r.Gates = append(r.Gates, gateRow{Gate: g, From: stageAt(old[g], minorOf(src.from)), To: stageAt(cur[g], minorOf(src.to)), Where: where[g]})
	}
}

// --- mentions ---------------------------------------------------------------

var releaseRE = regexp.MustCompile(`\b(?:v1\.\d+(?:\.\d+)?|Kubernetes 1\.\d+|v0\.\d+\.\d+)\b`)

// readMentions lists the prose and the comments that name a release other
// than the pinned one: each was true of that release, and may not be of this.
func (r *report) readMentions(root string, files []string) {
	pinned := "v1." + strconv.Itoa(minorOf(r.To))
	for _, f := range files {
		isProse := strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".txtar")
		if !(isProse || strings.HasSuffix(f, ".go")) || !(strings.HasPrefix(f, "chapters/") || f == "README.md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		for n, line := range strings.Split(string(b), "\n") {
			text := line
			if !isProse {
				i := strings.Index(line, "//")
				if i < 0 {
					continue
				}
				text = line[i:]
			}
			bare := upstreamLink.ReplaceAllString(text, "") // a link is rewritten, not read again
			if strings.Contains(bare, pinned) {
				continue // it compares the releases ("in v1.37 as in v1.36")
			}
			for _, m := range releaseRE.FindAllString(bare, -1) {
				m = strings.Replace(strings.Replace(m, "Kubernetes 1.", "v1.", 1), "v0.", "v1.", 1)
				// Older releases are history ("beta since v1.34"); the
				// release moved from, and any between, may be stale.
				if m == r.To || m == pinned || minorOf(m) < minorOf(r.From) {
					continue
				}
				t := strings.Join(strings.Fields(text), " ")
				if len(t) > 200 {
					t = t[:197] + "…"
				}
				r.Names = append(r.Names, mention{Where: fmt.Sprintf("%s:%d", f, n+1), Text: t})
				break
			}
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
