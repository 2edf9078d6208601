package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/opslab/opslab/labcheck"
)

// list prints every check with its chapter, points, the claim it proves and
// what it reads. It runs nothing.
func list(course *labcheck.Course, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labcheck list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	chapter := fs.String("chapter", "all", "the chapter to list: "+course.Span()+", or all")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n, err := chapterArg(course, *chapter)
	if err != nil {
		fmt.Fprintf(stderr, "labcheck: %v\n", err)
		return 2
	}
	last := 0
	for _, c := range course.Checks(n) {
		if c.Chapter != last {
			last = c.Chapter
			fmt.Fprintf(stdout, "Chapter %d: %s\n", last, course.Title(last))
		}
		fmt.Fprintf(stdout, "  %s (%s, %s)\n    %s\n    claim: %s\n    reads: %s\n", c.ID, plural(c.Points, "point"), plural(len(c.Hints), "hint"), c.Title, c.Claim, c.Reads)
	}
	return 0
}

// hint prints the next hint of a check: each call gives one more, up to the
// check's last. It remembers how many were given in the user's cache
// directory ($OPSLAB_HINTS_FILE overrides the file).
func hint(course *labcheck.Course, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labcheck hint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reset := fs.Bool("reset", false, "forget the hints given for CHECK and start again")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: labcheck hint [--reset] CHECK  (labcheck list shows the checks)") }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	id := fs.Arg(0)
	c, ok := course.Lookup(id)
	if !ok {
		fmt.Fprintf(stderr, "labcheck: no check %q; labcheck list shows the checks\n", id)
		return 2
	}
	if len(c.Hints) == 0 {
		fmt.Fprintf(stderr, "labcheck: check %s has no hints\n", id)
		return 1
	}
	file := os.Getenv("OPSLAB_HINTS_FILE")
	if file == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			fmt.Fprintf(stderr, "labcheck: no cache directory to remember hints in: %v; set OPSLAB_HINTS_FILE\n", err)
			return 1
		}
		file = filepath.Join(dir, "opslab", "hints.json")
	}
	given := map[string]int{}
	if b, err := os.ReadFile(file); err == nil {
		json.Unmarshal(b, &given) // a damaged file only forgets which hints were given
	}
	if *reset {
		delete(given, id)
	} else {
		given[id] = min(given[id]+1, len(c.Hints))
		n := given[id]
		fmt.Fprintf(stdout, "hint %d of %d for %s: %s\n", n, len(c.Hints), id, c.Hints[n-1])
		if n == len(c.Hints) {
			fmt.Fprintln(stdout, "(that was the last hint; make solve-chapter-"+strconv.Itoa(c.Chapter)+" shows the reference solution)")
		}
	}
	b, _ := json.MarshalIndent(given, "", "  ")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err == nil {
		os.WriteFile(file, b, 0o644)
	}
	return 0
}

// grade grades a class: every student of a roster, in every format asked.
func grade(ctx context.Context, course *labcheck.Course, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labcheck grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	roster := fs.String("roster", "", "the roster: one line per student, NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]")
	chapter := fs.String("chapter", "all", "the chapter to grade: "+course.Span()+", or all")
	parallel := fs.Int("parallel", 4, "how many students to grade at once")
	formats := fs.String("format", "text", "comma-separated formats: "+strings.Join(labcheck.Formats, ", "))
	out := fs.String("out", "", "write each student's reports and the class summary into this directory")
	timeout := fs.Duration("timeout", 20*time.Second, "how long one check may take")
	signKey := fs.String("sign-key", "", "a file holding a key: sign each report's digest with HMAC-SHA-256")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: labcheck grade --roster FILE [--chapter N|all] [--parallel N] [--format text,json,exercism,gradescope,junit] [--out DIR] [--sign-key FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "labcheck: "+format+"\n", a...)
		return 2
	}
	if *roster == "" {
		return fail("grade needs --roster FILE (one line per student: NAME KUBECONFIG [CONTEXT [AUDIT-LOG]])")
	}
	n, err := chapterArg(course, *chapter)
	if err != nil {
		return fail("%v", err)
	}
	if *parallel < 1 {
		return fail("--parallel %d: grade at least 1 student at once", *parallel)
	}
	fmts := strings.Split(*formats, ",")
	for _, f := range fmts {
		if labcheck.FileName(f) == "" {
			return fail("--format %q: use one or more of %s", f, strings.Join(labcheck.Formats, ", "))
		}
	}
	if len(fmts) > 1 && *out == "" {
		return fail("several formats need --out DIR to write them to")
	}
	key, err := readKey(*signKey)
	if err != nil {
		return fail("%v", err)
	}
	f, err := os.Open(*roster)
	if err != nil {
		return fail("cannot read the roster: %v", err)
	}
	students, err := labcheck.ParseRoster(*roster, f)
	f.Close()
	if err != nil {
		return fail("%v", err)
	}
	reports := labcheck.Grade(ctx, students, labcheck.GradeOptions{
		Chapters: chaptersOf(course, n), Parallel: *parallel, Timeout: *timeout, Connect: 5 * time.Second,
	})
	for _, r := range reports {
		r.Seal(key)
	}
	if *out != "" {
		if err := labcheck.WriteReports(*out, reports, fmts); err != nil {
			return fail("writing the reports: %v", err)
		}
		labcheck.WriteSummary(stdout, reports)
		fmt.Fprintf(stdout, "\nreports for %s in %s\n", plural(len(reports), "student"), *out)
	} else {
		for _, r := range reports {
			labcheck.Write(stdout, r, fmts[0])
		}
		if fmts[0] == "text" && len(reports) > 1 {
			fmt.Fprintln(stdout)
			labcheck.WriteSummary(stdout, reports)
		}
	}
	ungraded := 0
	for _, r := range reports {
		if r.Error != "" {
			ungraded++
			fmt.Fprintf(stderr, "labcheck: %s could not be graded: %s\n", r.Student, r.Error)
		}
	}
	if ungraded > 0 {
		fmt.Fprintf(stderr, "labcheck: %d of %d students could not be graded; fix their roster lines or clusters and grade them again\n", ungraded, len(reports))
		return 1
	}
	return 0
}

// verify tells whether a report (labcheck's report.json) was edited after
// grading.
func verify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("labcheck verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	signKey := fs.String("sign-key", "", "the key file the report was signed with")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: labcheck verify [--sign-key FILE] REPORT.json") }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	key, err := readKey(*signKey)
	if err != nil {
		fmt.Fprintf(stderr, "labcheck: %v\n", err)
		return 2
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "labcheck: %v\n", err)
		return 2
	}
	var r labcheck.Report
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		fmt.Fprintf(stderr, "labcheck: %s is not a labcheck report (report.json): %v\n", fs.Arg(0), err)
		return 2
	}
	switch err := r.Verify(key); {
	case errors.Is(err, labcheck.ErrEdited):
		fmt.Fprintf(stderr, "labcheck: %s: %v (its digest does not match its content)\n", fs.Arg(0), err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "labcheck: %s: %v\n", fs.Arg(0), err)
		return 2
	}
	fmt.Fprintf(stdout, "%s: unchanged since grading: %s, %d/%d, graded %s on cluster %s\n", fs.Arg(0), r.Student, r.Score, r.MaxScore, r.GradedAt.Format(time.RFC3339), r.Cluster.KubeSystemUID)
	return 0
}

func readKey(file string) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read the signing key: %v", err)
	}
	key := []byte(strings.TrimSpace(string(b)))
	if len(key) < 16 {
		return nil, errors.New("the signing key is shorter than 16 bytes; use a long random key, e.g. head -c 32 /dev/urandom | base64")
	}
	return key, nil
}

func chapterArg(course *labcheck.Course, s string) (int, error) {
	if s == "all" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if _, ok := course.Chapter(n); err != nil || !ok {
		return 0, fmt.Errorf("--chapter %q is not a chapter; use %s, or all", s, course.Span())
	}
	return n, nil
}

// plural returns "1 point", "2 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
