package labcheck

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Report is what grading one student's cluster found: every check's
// outcome with its evidence, who the cluster is, when it was graded, and a
// digest that shows whether the report was edited afterwards.
type Report struct {
	Student  string    `json:"student"`
	GradedAt time.Time `json:"graded_at"`
	Cluster  Identity  `json:"cluster"`
	// Evidence says what the checks judged from: the API server and its
	// audit log, or the API server alone and why.
	Evidence string          `json:"evidence,omitempty"`
	Chapters []ReportChapter `json:"chapters"`
	Checks   []CheckReport   `json:"checks"`
	Score    int             `json:"score"`
	MaxScore int             `json:"max_score"`
	Seconds  float64         `json:"seconds"`
	// Error is set when the cluster could not be graded at all (it is
	// unreachable, or the grader lacks a permission); Checks is then empty.
	Error string `json:"error,omitempty"`
	// Digest is "sha256:HEX" of the report with Digest empty, or
	// "hmac-sha256:HEX" when it was signed with a key.
	Digest string `json:"digest"`
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
	Seconds   float64  `json:"seconds"`
}

// Check statuses in a report.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// NewReport builds a student's report from the outcomes of a run.
func NewReport(student string, id Identity, at time.Time, chapters []Chapter, outcomes []Outcome, took time.Duration) *Report {
	r := &Report{Student: student, GradedAt: at.UTC().Truncate(time.Second), Cluster: id, Seconds: round(took.Seconds())}
	for _, ch := range chapters {
		r.Chapters = append(r.Chapters, ReportChapter{Number: ch.Number, Title: ch.Title})
	}
	n := map[int]int{}
	for _, o := range outcomes {
		n[o.Check.Chapter]++
		c := CheckReport{
			Number:  fmt.Sprintf("%d.%d", o.Check.Chapter, n[o.Check.Chapter]),
			Chapter: o.Check.Chapter, ID: o.Check.ID, Title: o.Check.Title, Claim: o.Check.Claim,
			Points: o.Points(), MaxPoints: o.Check.Points,
			Message: o.Result.Message, Evidence: o.Result.Evidence,
			Seconds: round(o.Duration.Seconds()),
		}
		switch {
		case o.Err != nil:
			c.Status, c.Message = StatusError, "could not check: "+o.Err.Error()
		case o.Result.Pass:
			c.Status = StatusPass
		default:
			c.Status = StatusFail
		}
		r.Checks = append(r.Checks, c)
		r.Score += c.Points
		r.MaxScore += c.MaxPoints
	}
	return r
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
	case strings.HasPrefix(r.Digest, "hmac-sha256:") && len(key) == 0:
		return fmt.Errorf("the report is signed; give the key it was signed with (--sign-key)")
	case strings.HasPrefix(r.Digest, "sha256:") && len(key) > 0:
		return fmt.Errorf("the report is not signed, only digested; verify it without --sign-key")
	case r.Digest == "":
		return fmt.Errorf("the report has no digest")
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
