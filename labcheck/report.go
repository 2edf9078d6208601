package labcheck

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/opslab/opslab/labcheck/version"
)

// ReportSchema names the shape of a Report's JSON, which a report carries in
// its schema field: labcheck -o json and a grader's report.json are both of
// it (package cli documents it field by field). A change that a reader of
// the JSON would trip on gives it a new version.
const ReportSchema = "opslab.labcheck/v1"

// A Report is what one run of the checks on one cluster found: every
// check's outcome with its evidence, and which cluster it was. A learner's
// run is a Report as NewReport builds it; a grader's also names the student
// and the time of grading, and carries a digest that shows whether it was
// edited afterwards (see Seal).
type Report struct {
	Schema   string    `json:"schema"`             // ReportSchema
	Labcheck string    `json:"labcheck,omitempty"` // the labcheck that made it: version.Build.Short
	Student  string    `json:"student,omitempty"`  // empty in a learner's run
	GradedAt time.Time `json:"graded_at,omitzero"` // zero in a learner's run
	Cluster  Identity  `json:"cluster"`
	// Evidence says what the checks judged from: the API server and its
	// audit log, or the API server alone and why.
	Evidence string `json:"evidence,omitempty"`
	// Custody says where that evidence was kept: on the learner's own
	// disk (a self-assessment), held by the host that graded, or the API
	// alone.
	Custody Custody `json:"custody,omitempty"`
	// Warnings are what a reader of the report should know that is not
	// any check's outcome and changes no score, one line each: the
	// cluster runs another Kubernetes version than the course teaches.
	Warnings []string        `json:"warnings,omitempty"`
	Chapters []ReportChapter `json:"chapters"`
	Checks   []CheckReport   `json:"checks"`
	Score    int             `json:"score"`
	MaxScore int             `json:"max_score"`
	Seconds  float64         `json:"seconds"`
	// Error is set when the cluster could not be graded at all (it is
	// unreachable, or the grader lacks a permission); Checks is then empty.
	Error string `json:"error,omitempty"`
	// Digest is "sha256:HEX" of the report with Digest empty, or
	// "hmac-sha256:HEX" when it was signed with a key; empty in a
	// learner's run, which nobody needs to trust.
	Digest string `json:"digest,omitempty"`
}

// Identity names the cluster a report was made on, so that a report cannot
// be passed off as another cluster's.
type Identity struct {
	Server        string `json:"server"`
	Version       string `json:"version,omitempty"`
	KubeSystemUID string `json:"kube_system_uid,omitempty"`
}

// A ReportChapter names a chapter a report covers.
type ReportChapter struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// A CheckReport is one check's outcome in a Report.
type CheckReport struct {
	Number    string   `json:"number"` // "1.2": chapter 1, second check
	Chapter   int      `json:"chapter"`
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Claim     string   `json:"claim"`
	Status    string   `json:"status"` // pass, fail or error
	Points    int      `json:"points"`
	MaxPoints int      `json:"max_points"`
	Message   string   `json:"message"`
	Evidence  []string `json:"evidence,omitempty"`
	// Hint is, for a failure, the hint to show first: the failure's own
	// or the check's first staged hint. MoreHints says that labcheck hint
	// ID has a hint that Hint is not.
	Hint      string  `json:"hint,omitempty"`
	MoreHints bool    `json:"more_hints,omitempty"`
	Seconds   float64 `json:"seconds"`
}

// Check statuses in a report.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// NewReport builds the report of a run on the cluster id names, from its
// outcomes, for the given chapters. It is a learner's run as it stands; a
// grader names the student and the time of grading (see GradeOne) and then
// seals it.
func NewReport(id Identity, chapters []Chapter, outcomes []Outcome, took time.Duration) *Report {
	r := &Report{
		Schema: ReportSchema, Labcheck: version.Read().Short(), Cluster: id, Seconds: round(took.Seconds()),
		// Empty, not null, in the JSON: a reader ranges over them.
		Chapters: []ReportChapter{}, Checks: []CheckReport{},
	}
	if w := VersionWarning(id.Version); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	for _, ch := range chapters {
		r.Chapters = append(r.Chapters, ReportChapter{Number: ch.Number, Title: ch.Title})
	}
	// A check's number is its place in its chapter's list, whether or not
	// every check of the chapter ran.
	place := map[string]int{}
	for _, ch := range chapters {
		for i, k := range ch.Checks {
			place[k.ID] = i + 1
		}
	}
	n := map[int]int{}
	for _, o := range outcomes {
		n[o.Check.Chapter]++
		c := CheckReport{
			Number:  fmt.Sprintf("%d.%d", o.Check.Chapter, cmp.Or(place[o.Check.ID], n[o.Check.Chapter])),
			Chapter: o.Check.Chapter, ID: o.Check.ID, Title: o.Check.Title, Claim: o.Check.Claim,
			Points: o.Points(), MaxPoints: o.Check.Points,
			Message: o.Result.Message, Evidence: o.Result.Evidence,
			Seconds: round(o.Duration.Seconds()),
		}
		switch {
		case o.Err != nil:
			// No hint: the check did not see the lab, so it cannot
			// say what the lab lacks.
			c.Status, c.Message = StatusError, "could not check: "+o.Err.Error()
		case o.Result.Pass:
			c.Status = StatusPass
		default:
			c.Status = StatusFail
			c.Hint = o.FirstHint()
			shown := 0 // of the check's staged hints
			if o.Result.Hint == "" && c.Hint != "" {
				shown = 1
			}
			c.MoreHints = len(o.Check.Hints) > shown
		}
		r.Checks = append(r.Checks, c)
		r.Score += c.Points
		r.MaxScore += c.MaxPoints
	}
	return r
}

// VersionWarning returns the warning a report carries when the cluster's
// server runs another Kubernetes version (its gitVersion, as /version gives
// it) than the one the course teaches, or "" when it runs that one or its
// version is unknown. It is a warning, not a failure: the checks may still
// pass, but a lab written for one release may meet another's behaviour.
func VersionWarning(server string) string {
	// Build metadata (v1.36.3+k3s1) names who built the release, not
	// another release.
	core, _, _ := strings.Cut(server, "+")
	if server == "" || core == version.Kubernetes {
		return ""
	}
	return fmt.Sprintf("the cluster runs Kubernetes %s, not %s, which this labcheck teaches: it was built from other pins; make lab-reset rebuilds the lab cluster from the checkout's", server, version.Kubernetes)
}

func round(s float64) float64 { return float64(int64(s*1000+0.5)) / 1000 }

// Seal computes the report's digest: a SHA-256 of its canonical JSON, or an
// HMAC-SHA-256 when key is not empty.
func (r *Report) Seal(key []byte) {
	r.Digest = r.digest(key)
}

// ErrEdited is what Verify returns when a report's digest does not match
// its content.
var ErrEdited = errors.New("the report was edited after grading")

// Verify returns nil when the report's digest matches its content, and
// ErrEdited when it does not: the report was edited after grading (or, for a
// signed report, key is not the key it was signed with). Any other error
// says why it cannot tell.
func (r *Report) Verify(key []byte) error {
	switch {
	case r.Schema == "":
		return errors.New("the report has no schema field: an older labcheck wrote it, and this one cannot recompute its digest; verify it with that labcheck, or grade again")
	case r.Schema != ReportSchema:
		return fmt.Errorf("the report is of schema %s, and this labcheck knows only %s", r.Schema, ReportSchema)
	case r.Digest == "":
		return errors.New("the report has no digest: a learner's run (labcheck -o json) is not sealed; labcheck grade seals reports")
	case strings.HasPrefix(r.Digest, "hmac-sha256:") && len(key) == 0:
		return errors.New("the report is signed; give the key it was signed with (--sign-key)")
	case strings.HasPrefix(r.Digest, "sha256:") && len(key) > 0:
		return errors.New("the report is not signed, only digested; verify it without --sign-key")
	}
	if !hmac.Equal([]byte(r.Digest), []byte(r.digest(key))) {
		return ErrEdited
	}
	return nil
}

func (r *Report) digest(key []byte) string {
	c := *r
	c.Digest = ""
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // a Report always marshals
	}
	if len(key) == 0 {
		sum := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}
