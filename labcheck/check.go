// Package labcheck verifies a learner's lab from what happened on their
// cluster. Each chapter lists its checks in the course (see NewCourse); a check reads
// behaviour and evidence from the API server — dry-run evictions, status that
// controllers computed, events that controllers wrote, headers the server
// returned — never an object a learner could write by hand, and it never
// changes the cluster.
//
// The same checks run three ways: from the labcheck command (cmd/labcheck),
// as e2e-framework features under go test (see labcheck_test.go), and from the
// end-to-end suite, which shows every check failing on an untouched cluster
// and passing after the chapter's reference solution.
package labcheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/opslab/opslab/labcheck/audit"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// A Check verifies one claim of a chapter's lab.
type Check struct {
	Chapter int    // the chapter whose lab it checks; set by NewCourse
	ID      string // unique across the course, e.g. "pdb-drain-finished"
	Title   string // what a learner sees next to ✓ or ✗
	Points  int
	Claim   string   // the claim of the chapter it verifies
	Reads   string   // what it reads from the cluster
	Hints   []string // up to three, each more explicit than the last

	// Run reads the cluster and reports what it saw. It must not change
	// anything: a question that needs the server's answer is asked with
	// dry-run. It returns an error only when it could not look (the server
	// refused, a timeout); a lab that is not done yet is a failed Result.
	Run func(ctx context.Context, c *Cluster) (Result, error)
}

// A Result is what a check saw.
type Result struct {
	Pass bool
	// Message says in one sentence why the check passed or failed.
	Message string
	// Evidence lists what was read and what was seen, e.g. "event
	// TaintManagerEviction for pod web-20s at 12:03:41, 21.4 s after the taint".
	Evidence []string
	// Hint, when set, is the hint for this particular failure, shown in
	// place of the check's first staged hint (a check that fails for
	// several reasons knows which one it saw).
	Hint string
}

// Passf returns a passing Result with the given message.
func Passf(format string, args ...any) Result {
	return Result{Pass: true, Message: fmt.Sprintf(format, args...)}
}

// FirstHint returns the hint to show for a failed outcome: the failure's own,
// or else the check's first staged hint.
func (o Outcome) FirstHint() string {
	if o.Result.Hint != "" {
		return o.Result.Hint
	}
	if len(o.Check.Hints) > 0 {
		return o.Check.Hints[0]
	}
	return ""
}

// Failf returns a failing Result with the given message.
func Failf(format string, args ...any) Result {
	return Result{Message: fmt.Sprintf(format, args...)}
}

// Seen appends a line of evidence to the Result, so a check can collect
// evidence as it reads.
func (r *Result) Seen(format string, args ...any) {
	r.Evidence = append(r.Evidence, fmt.Sprintf(format, args...))
}

// A Cluster is the learner's cluster as checks see it.
type Cluster struct {
	Config *rest.Config
	Kube   kubernetes.Interface
	// Context is the kubeconfig context it was reached by, "" if unknown.
	Context string
	// kubeconfig is the file Connect read ("" for kubectl's defaults), so
	// that Sibling reaches another context of it.
	kubeconfig string

	// AuditPath is the API server's audit log when the checks can read it;
	// otherwise NoAudit says in one sentence why not, and the checks judge
	// from the API alone (see Audit).
	AuditPath string
	NoAudit   string

	// Custody says who held the evidence: the learner's own disk, or the
	// host that grades. The caller sets it (see ProveAuditLog).
	Custody Custody

	auditMu sync.Mutex
	audit   *audit.Log
	given   bool      // the log was named by the caller (UseAuditLog)
	proof   string    // the name of labcheck's own request found in the log
	created time.Time // when the cluster's kube-system namespace was made
}

// Custody says where the evidence a report judged from was kept, and so
// what the report is worth.
type Custody string

const (
	// SelfAssessed: the audit log is on the learner's own disk, where
	// the learner could have edited it; the report is a self-assessment.
	SelfAssessed Custody = "on your own disk: self-assessment (whoever runs the cluster can edit its audit log)"
	// HeldByHost: the grader read the live log on its own machine: a log
	// the student's laptop holds cannot pass the proof there.
	HeldByHost Custody = "held by the host: the grader read the cluster's live log on its own machine"
	// APIOnly: no audit log; what the API shows, anyone allowed to write
	// it could have written.
	APIOnly Custody = "the cluster's API alone: anyone allowed to write its objects could have written what it shows"
)

// A NotThisLogError says that the audit log the checks were to read is not
// the live log of the cluster they reach.
type NotThisLogError struct {
	Path, Server, Request string
}

func (e *NotThisLogError) Error() string {
	return fmt.Sprintf("%s is not this cluster's log: labcheck's request %s to %s is not in it", e.Path, e.Request, e.Server)
}

// proofWait is how long ProveAuditLog looks for its request in the log.
var proofWait = 5 * time.Second

// ProveAuditLog proves that the audit log the checks will read is the live
// log of the cluster they reach, before anything is judged from it: it
// sends a request of its own, named with a fresh nonce (a dry-run create of
// a pod in default: every policy of the course's clusters records pod
// writes, whether or not the caller may make them), and looks for it in the
// log. A log that does
// not get the request within a few seconds (a copy, an old file, another
// cluster's) is refused with a NotThisLogError. Without a log it does
// nothing.
func (c *Cluster) ProveAuditLog(ctx context.Context) error {
	if c.AuditPath == "" {
		return nil
	}
	if ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{}); err == nil {
		c.created = ns.CreationTimestamp.Time
	}
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	name := "labcheck-proof-" + hex.EncodeToString(nonce[:])
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "proof", Image: "labcheck.invalid/proof"}}},
	}
	_, err := c.Kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: name})
	if err != nil && !apierrors.IsForbidden(err) && !apierrors.IsAlreadyExists(err) && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
		return fmt.Errorf("cannot send the request that proves the audit log is this cluster's: %s", oneLine(err))
	}
	path := c.AuditPath
	deadline := time.Now().Add(proofWait)
	for {
		l := c.Audit()
		if l == nil {
			return errors.New(c.NoAudit)
		}
		for i := len(l.Events) - 1; i >= 0; i-- {
			if strings.Contains(l.Events[i].URI, name) {
				c.proof = name
				return nil
			}
		}
		if time.Now().After(deadline) {
			return &NotThisLogError{Path: path, Server: c.Config.Host, Request: name}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// NewCluster returns a Cluster that talks to the server of cfg.
func NewCluster(cfg *rest.Config) (*Cluster, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Config: cfg, Kube: kube}, nil
}

// Audit returns the cluster's audit log, read again whenever it has grown
// since the last call, or nil when there is none to read. A check that gets
// nil judges from the API alone and says so in its evidence: the audit log
// is the only record of who did what that a learner cannot write.
func (c *Cluster) Audit() *audit.Log {
	c.auditMu.Lock()
	defer c.auditMu.Unlock()
	if c.AuditPath == "" {
		return nil
	}
	var err error
	if c.audit == nil {
		c.audit, err = audit.Read(c.AuditPath)
	} else {
		err = c.audit.Refresh()
	}
	if err != nil {
		c.NoAudit, c.AuditPath, c.audit = err.Error(), "", nil
		return nil
	}
	return c.audit
}

// UseAuditLog makes the checks read l, a log the caller has read already
// (a path named on the command line or in a roster, checked before any
// cluster is reached), in place of the one found by context.
func (c *Cluster) UseAuditLog(l *audit.Log) {
	c.auditMu.Lock()
	defer c.auditMu.Unlock()
	c.AuditPath, c.NoAudit, c.audit, c.given = l.Path, "", l, true
}

// findAuditLog points the checks at the log kwokctl keeps for the cluster
// of c.Context, or says in NoAudit why there is none. The log is read on
// the first call of Audit, by the first check that wants it.
func (c *Cluster) findAuditLog() {
	p, err := audit.Locate(c.Context)
	if err != nil {
		c.AuditPath, c.NoAudit = "", err.Error()
		return
	}
	c.AuditPath = p
}

// EvidenceSource says in a few words what the checks judge from, for the
// head of a report: the log, its rotated segments, the span of its
// requests, whether it is empty or begins after the cluster did, and
// whether labcheck proved it live.
func (c *Cluster) EvidenceSource() string {
	// A log found by context but never read (no check wanted it) is read
	// now, so the report names it only if it can be read.
	if l := c.Audit(); l != nil {
		path := c.AuditPath
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(path, home+string(os.PathSeparator)) {
			path = "~" + path[len(home):]
		}
		s := "the API server and its audit log " + path
		if n := len(l.Segments); n > 0 {
			s += fmt.Sprintf(" (and %d rotated segment%s before it)", n, plural(n))
		}
		first, last := l.Span()
		switch {
		case len(l.Events) == 0:
			s += ", which is empty: it holds no request at all"
		default:
			s += fmt.Sprintf(", %d requests from %s to %s", len(l.Events), first.UTC().Format("15:04:05"), last.UTC().Format("15:04:05"))
			if !c.created.IsZero() && first.After(c.created.Add(time.Minute)) {
				s += fmt.Sprintf("; partial: it begins %s after the cluster was made (%s), so what happened before is not in it", first.Sub(c.created).Round(time.Second), c.created.UTC().Format("15:04:05"))
			}
		}
		if c.proof != "" {
			s += "; proven this cluster's live log by labcheck's own request " + c.proof
		} else {
			s += "; not proven this cluster's live log"
		}
		return s
	}
	if c.NoAudit != "" {
		return "the API server alone (" + c.NoAudit + ")"
	}
	return "the API server alone"
}

// AuditAdvice says what to do for checks that could not judge from an
// audit log: name one with --audit-log when the checks had none, and never
// when they had one (it was given, or found by the context) that does not
// reach back far enough: then only a cluster whose log covers the whole lab
// helps.
func (c *Cluster) AuditAdvice() string {
	if c.Audit() != nil {
		return "the cluster's audit log does not reach back to the lab's start: make lab-reset makes a cluster whose log covers the whole lab; then do the lab again"
	}
	if c.given {
		return "the audit log named with --audit-log could not be read (" + strings.TrimSuffix(c.NoAudit, ".") + "): name the cluster's live log, or run labcheck on the machine that runs it"
	}
	return "run labcheck on the machine that runs the lab cluster (it finds the audit log by the context), or name the log with --audit-log FILE"
}

// CustodySource says where the evidence of EvidenceSource was kept.
func (c *Cluster) CustodySource() Custody {
	if c.Audit() == nil {
		return APIOnly
	}
	if c.Custody == "" {
		return SelfAssessed
	}
	return c.Custody
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
