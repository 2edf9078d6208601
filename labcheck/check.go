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
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/opslab/opslab/labcheck/audit"

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

	auditMu sync.Mutex
	audit   *audit.Log
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
	} else if fi, serr := os.Stat(c.AuditPath); serr != nil || fi.Size() != c.audit.Size() {
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
	c.AuditPath, c.NoAudit, c.audit = l.Path, "", l
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
// head of a report.
func (c *Cluster) EvidenceSource() string {
	// A log found by context but never read (no check wanted it) is read
	// now, so the report names it only if it can be read.
	if c.Audit() != nil {
		path := c.AuditPath
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(path, home+string(os.PathSeparator)) {
			path = "~" + path[len(home):]
		}
		return "the API server and its audit log " + path
	}
	if c.NoAudit != "" {
		return "the API server alone (" + c.NoAudit + ")"
	}
	return "the API server alone"
}
