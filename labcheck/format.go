package labcheck

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Formats lists the report formats Write knows, in the order a directory of
// reports holds them.
var Formats = []string{"text", "json", "exercism", "gradescope", "junit"}

// FileName returns the file a report in format takes in an output directory.
func FileName(format string) string {
	switch format {
	case "text":
		return "report.txt"
	case "json":
		return "report.json"
	case "exercism":
		return "exercism-results.json"
	case "gradescope":
		return "gradescope-results.json"
	case "junit":
		return "junit.xml"
	}
	return ""
}

// Write writes r to w in format: text for a terminal (as WriteText writes
// it without hints), json (labcheck's own, of ReportSchema, the one labcheck
// verify reads), exercism (test runner v3 results.json), gradescope
// (results.json) or junit (XML).
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case "text":
		return WriteText(w, r, TextOptions{})
	case "json":
		return writeIndented(w, r)
	case "exercism":
		return writeIndented(w, exercism(r))
	case "gradescope":
		return writeIndented(w, gradescope(r))
	case "junit":
		return writeJUnit(w, r)
	}
	return fmt.Errorf("unknown format %q; use one of %s", format, strings.Join(Formats, ", "))
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// TextOptions says what a text report shows beyond what the checks saw.
type TextOptions struct {
	// Hints shows, under each failure, its hint and, when there are more,
	// the command that gives the next. A learner's run wants them; a
	// grader's report does not: it is read for what was done, by someone
	// who is not about to do it, and the hints are in its JSON for a tool
	// that wants to show them to the student.
	Hints bool
}

// WriteText writes r for a terminal: a line for each thing the report
// knows of the run (the student, time of grading and labcheck version, what
// the checks judged from, the cluster, each warning), then each check under
// its chapter with ✓ (passed), ✗ (failed) or ! (could not check), its
// message and its evidence, then the score, and the digest of a sealed
// report. A learner's run has neither
// student nor digest, so its first line says what the checks judged from.
func WriteText(w io.Writer, r *Report, opts TextOptions) error {
	var b strings.Builder
	if r.Student != "" {
		fmt.Fprintf(&b, "Student %s, graded %s", r.Student, r.GradedAt.Format("2006-01-02 15:04:05 MST"))
		if r.Labcheck != "" {
			fmt.Fprintf(&b, " by labcheck %s", r.Labcheck)
		}
		b.WriteString("\n")
	}
	if r.Evidence != "" {
		fmt.Fprintf(&b, "Evidence: %s\n", r.Evidence)
	}
	if r.Custody != "" {
		fmt.Fprintf(&b, "Custody: %s\n", r.Custody)
	}
	if id := r.Cluster; id.Server != "" {
		fmt.Fprintf(&b, "Cluster %s", id.Server)
		if id.Version != "" {
			fmt.Fprintf(&b, ", Kubernetes %s", id.Version)
		}
		if id.KubeSystemUID != "" {
			fmt.Fprintf(&b, ", kube-system UID %s", id.KubeSystemUID)
		}
		b.WriteString("\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "ERROR: %s\n", r.Error)
	}
	chapter := 0
	for _, c := range r.Checks {
		if c.Chapter != chapter {
			chapter = c.Chapter
			fmt.Fprintf(&b, "Chapter %d: %s\n", chapter, r.ChapterTitle(chapter))
		}
		mark := map[string]string{StatusPass: "✓", StatusFail: "✗", StatusError: "!"}[c.Status]
		fmt.Fprintf(&b, "  %s %s %s (%d/%d) [%s]\n", mark, c.Number, c.Title, c.Points, c.MaxPoints, c.ID)
		if c.Message != "" {
			fmt.Fprintf(&b, "      %s\n", c.Message)
		}
		for _, e := range c.Evidence {
			fmt.Fprintf(&b, "      · %s\n", e)
		}
		if opts.Hints && c.Hint != "" {
			fmt.Fprintf(&b, "      hint: %s\n", c.Hint)
			if c.MoreHints {
				fmt.Fprintf(&b, "      next hint: go run ./cmd/labcheck hint %s\n", c.ID)
			}
		}
	}
	// With one chapter, its score is the total.
	if len(r.Chapters) > 1 {
		for _, ch := range r.Chapters {
			got, max := r.ChapterScore(ch.Number)
			fmt.Fprintf(&b, "Chapter %d: %d/%d\n", ch.Number, got, max)
		}
	}
	fmt.Fprintf(&b, "Score: %d/%d\n", r.Score, r.MaxScore)
	if r.Digest != "" {
		fmt.Fprintf(&b, "Digest: %s\n", r.Digest)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ChapterTitle returns the title of one of the report's chapters.
func (r *Report) ChapterTitle(n int) string {
	for _, ch := range r.Chapters {
		if ch.Number == n {
			return ch.Title
		}
	}
	return ""
}

// ChapterScore returns the points earned and available in one chapter.
func (r *Report) ChapterScore(chapter int) (got, max int) {
	for _, c := range r.Checks {
		if c.Chapter == chapter {
			got += c.Points
			max += c.MaxPoints
		}
	}
	return got, max
}

// output joins a check's message and evidence, as graders' "output" fields
// want them.
func (c CheckReport) output(limit int) string {
	s := c.Message
	for _, e := range c.Evidence {
		s += "\n· " + e
	}
	if limit > 0 && len([]rune(s)) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

type exercismResults struct {
	Version  int            `json:"version"`
	Status   string         `json:"status"`
	Message  string         `json:"message,omitempty"`
	Score    int            `json:"score"`
	MaxScore int            `json:"max_score"`
	Tests    []exercismTest `json:"tests"`
}

type exercismTest struct {
	Name     string   `json:"name"`
	Status   string   `json:"status"`
	Message  string   `json:"message,omitempty"`
	Output   string   `json:"output,omitempty"`
	TestCode string   `json:"test_code"`
	TaskID   int      `json:"task_id"`
	Score    int      `json:"score"`
	MaxScore int      `json:"max_score"`
	Tags     []string `json:"tags"`
}

// exercism renders r as an Exercism test runner v3 results.json, with
// score, max_score and tags added; one task per chapter.
func exercism(r *Report) exercismResults {
	out := exercismResults{Version: 3, Status: StatusPass, Score: r.Score, MaxScore: r.MaxScore, Tests: []exercismTest{}}
	if r.Error != "" {
		out.Status, out.Message = StatusError, r.Error
	}
	for _, c := range r.Checks {
		t := exercismTest{
			Name: c.Title, Status: c.Status, Output: c.output(500),
			TestCode: "labcheck " + c.ID + ": " + c.Claim,
			TaskID:   c.Chapter, Score: c.Points, MaxScore: c.MaxPoints,
			Tags: []string{fmt.Sprintf("chapter-%d", c.Chapter), c.ID},
		}
		if c.Status != StatusPass {
			t.Message = c.Message
			if out.Status == StatusPass {
				out.Status = StatusFail
			}
		}
		out.Tests = append(out.Tests, t)
	}
	return out
}

type gradescopeResults struct {
	Score         int              `json:"score"`
	MaxScore      int              `json:"max_score"`
	ExecutionTime float64          `json:"execution_time"`
	Output        string           `json:"output"`
	Visibility    string           `json:"visibility"`
	Tests         []gradescopeTest `json:"tests"`
}

type gradescopeTest struct {
	Score      int      `json:"score"`
	MaxScore   int      `json:"max_score"`
	Status     string   `json:"status"`
	Name       string   `json:"name"`
	Number     string   `json:"number"`
	Output     string   `json:"output"`
	Tags       []string `json:"tags"`
	Visibility string   `json:"visibility"`
}

func gradescope(r *Report) gradescopeResults {
	out := gradescopeResults{
		Score: r.Score, MaxScore: r.MaxScore, ExecutionTime: r.Seconds, Visibility: "visible",
		Output: fmt.Sprintf("Graded %s on %s (Kubernetes %s, kube-system UID %s). Digest %s",
			r.GradedAt.Format("2006-01-02 15:04:05 MST"), r.Cluster.Server, r.Cluster.Version, r.Cluster.KubeSystemUID, r.Digest),
		Tests: []gradescopeTest{},
	}
	if r.Error != "" {
		out.Output = "ERROR: " + r.Error + "\n" + out.Output
	}
	for _, c := range r.Checks {
		status := "failed"
		if c.Status == StatusPass {
			status = "passed"
		}
		out.Tests = append(out.Tests, gradescopeTest{
			Score: c.Points, MaxScore: c.MaxPoints, Status: status,
			Name: c.Title, Number: c.Number, Output: c.output(0),
			Tags: []string{fmt.Sprintf("chapter-%d", c.Chapter), c.ID}, Visibility: "visible",
		})
	}
	return out
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       float64         `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one testsuite per chapter and one testcase per check.
func writeJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "labcheck " + r.Student, Time: r.Seconds}
	byChapter := map[int]*junitSuite{}
	var order []int
	for _, c := range r.Checks {
		s := byChapter[c.Chapter]
		if s == nil {
			s = &junitSuite{
				Name:      fmt.Sprintf("chapter %d: %s", c.Chapter, r.ChapterTitle(c.Chapter)),
				Timestamp: r.GradedAt.Format("2006-01-02T15:04:05Z"),
				Properties: []junitProperty{
					{"student", r.Student}, {"server", r.Cluster.Server}, {"kubernetes", r.Cluster.Version},
					{"kube-system-uid", r.Cluster.KubeSystemUID}, {"digest", r.Digest},
				},
			}
			byChapter[c.Chapter] = s
			order = append(order, c.Chapter)
		}
		tc := junitCase{ClassName: fmt.Sprintf("opslab.chapter%d", c.Chapter), Name: c.ID + ": " + c.Title, Time: c.Seconds, SystemOut: c.output(0)}
		switch c.Status {
		case StatusFail:
			tc.Failure = &junitFailure{Message: c.Message, Type: "CheckFailed", Text: c.output(0)}
			s.Failures++
			out.Failures++
		case StatusError:
			tc.Error = &junitFailure{Message: c.Message, Type: "CheckError", Text: c.output(0)}
			s.Errors++
			out.Errors++
		}
		s.Tests++
		s.Time += c.Seconds
		s.Cases = append(s.Cases, tc)
		out.Tests++
	}
	sort.Ints(order)
	for _, ch := range order {
		out.Suites = append(out.Suites, *byChapter[ch])
	}
	if r.Error != "" {
		out.Errors++
		out.Suites = append(out.Suites, junitSuite{Name: "cluster", Tests: 1, Errors: 1, Cases: []junitCase{{
			ClassName: "opslab.cluster", Name: "the cluster can be graded",
			Error: &junitFailure{Message: r.Error, Type: "ClusterError"},
		}}})
		out.Tests++
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
