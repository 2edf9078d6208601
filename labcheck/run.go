package labcheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
)

// An Outcome is the result of running one check.
type Outcome struct {
	Check    Check
	Result   Result
	Err      error // the check could not look: the cluster refused, a timeout
	Duration time.Duration
}

// Passed reports whether the check ran and passed.
func (o Outcome) Passed() bool { return o.Err == nil && o.Result.Pass }

// Points returns the points the outcome earns.
func (o Outcome) Points() int {
	if o.Passed() {
		return o.Check.Points
	}
	return 0
}

// Run runs each check against c, one after another, each within timeout. A
// check that runs out of time fails with that reason; the others still run.
func Run(ctx context.Context, c *Cluster, checks []Check, timeout time.Duration) []Outcome {
	out := make([]Outcome, 0, len(checks))
	for _, chk := range checks {
		out = append(out, runOne(ctx, c, chk, timeout))
	}
	return out
}

func runOne(ctx context.Context, c *Cluster, chk Check, timeout time.Duration) (o Outcome) {
	o.Check = chk
	start := time.Now()
	defer func() { o.Duration = time.Since(start) }()
	defer func() {
		// A check that panics is a bug in the course, not in the learner's
		// lab; report it as an error of that check and go on with the rest.
		if r := recover(); r != nil {
			o.Err = fmt.Errorf("check %s panicked: %v", chk.ID, r)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := chk.Run(cctx, c)
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() == nil:
		err = fmt.Errorf("timed out after %v", timeout)
	case err != nil:
		err = permissionError(err, "reading the cluster")
	}
	o.Result, o.Err = res, err
	return o
}

// Connect returns the cluster of the given kubeconfig file and context (both
// optional, as kubectl has them) once its API server has answered within
// timeout. The error is one sentence that names the server and says what to
// do.
func Connect(ctx context.Context, kubeconfig, kubeContext string, timeout time.Duration) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	cfg, err := cc.ClientConfig()
	if err != nil {
		// A file named on the command line or in a roster: say what is
		// wrong with it, without a fix (the learner's command and the
		// grader's roster each add their own).
		if kubeconfig != "" {
			if kerr := readableKubeconfig(kubeconfig); kerr != nil {
				return nil, kerr
			}
			if clientcmd.IsEmptyConfig(err) {
				return nil, &KubeconfigError{kubeconfig, "the kubeconfig " + kubeconfig + " names no cluster"}
			}
		}
		if clientcmd.IsEmptyConfig(err) {
			return nil, errors.New("no cluster is configured (no kubeconfig found); start the lab cluster with make lab-up")
		}
		if kubeContext != "" && strings.Contains(err.Error(), "does not exist") && strings.Contains(err.Error(), "context") {
			return nil, fmt.Errorf("the kubeconfig has no context %q; start the lab cluster with make lab-up, or name another with --context", kubeContext)
		}
		return nil, fmt.Errorf("cannot read the kubeconfig: %s; check --kubeconfig and --context", oneLine(err))
	}
	cfg.Timeout = timeout
	// The checks make a few dozen small requests at most; client-go's own
	// rate limiter (5 per second by default) would only make them wait.
	cfg.QPS = -1
	// Protobuf costs the API server less than JSON to encode: grading a
	// class shares one machine's CPU with the servers it grades.
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot talk to %s: %s", cfg.Host, oneLine(err))
	}
	if _, err := dc.ServerVersion(); err != nil {
		where := cfg.Host
		if kubeContext != "" {
			where += " (context " + kubeContext + ")"
		}
		return nil, fmt.Errorf("cannot reach the cluster at %s: %s; start it with make lab-up", where, reason(err))
	}
	c, err := NewCluster(cfg)
	if err != nil {
		return nil, err
	}
	c.Context, c.kubeconfig = kubeContext, kubeconfig
	if c.Context == "" {
		if raw, err := cc.RawConfig(); err == nil {
			c.Context = raw.CurrentContext
		}
	}
	// The audit log of a kwokctl cluster on this machine is found by its
	// context; anywhere else, the checks say they judged from the API.
	c.findAuditLog()
	return c, nil
}

// A KubeconfigError says why a kubeconfig file named on the command line or
// in a roster cannot be used, without saying what to do: that depends on
// who named it.
type KubeconfigError struct {
	Path    string
	Problem string // a sentence that names Path
}

func (e *KubeconfigError) Error() string { return e.Problem }

// readableKubeconfig says in one sentence why the file at path cannot be a
// kubeconfig: it is missing, a directory, or not a kubeconfig at all.
// clientcmd's own errors for these name Go types and schemes, which tell a
// learner nothing.
func readableKubeconfig(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &KubeconfigError{path, "the kubeconfig " + path + " does not exist"}
	case err != nil:
		return &KubeconfigError{path, "cannot read the kubeconfig " + path + ": " + oneLine(errors.Unwrap(err))}
	case fi.IsDir():
		return &KubeconfigError{path, "the kubeconfig " + path + " is a directory, not a file"}
	}
	if _, err := clientcmd.LoadFromFile(path); err != nil {
		return &KubeconfigError{path, path + " is not a kubeconfig (a YAML file of kind Config): " + kubeconfigReason(err)}
	}
	return nil
}

// kubeconfigReason keeps what a person can act on from a load error: the
// YAML line that is wrong, or the kind the file declares instead of Config.
func kubeconfigReason(err error) string {
	s := oneLine(err)
	if i := strings.Index(s, "yaml: "); i >= 0 {
		return s[i:]
	}
	if i := strings.Index(s, `no kind "`); i >= 0 {
		kind := s[i+len(`no kind "`):]
		if j := strings.Index(kind, `"`); j >= 0 {
			return "it declares kind " + kind[:j]
		}
	}
	if strings.Contains(s, "cannot unmarshal") || strings.Contains(s, "couldn't get version/kind") {
		return "it has no apiVersion and kind"
	}
	return "it cannot be parsed"
}

// reason shortens a client error to its cause: "connection refused" rather
// than the whole URL chain.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := oneLine(err)
	for _, cause := range []string{"connection refused", "no such host", "i/o timeout", "deadline exceeded", "certificate"} {
		if strings.Contains(s, cause) {
			return cause
		}
	}
	return s
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Sibling reaches the cluster of another context of the kubeconfig c was
// reached through, with c's timeout, and finds its audit log as Connect
// does: a lab that runs a cluster of its own beside the learner's (chapter
// 2's scale cluster) is checked there. The error is Connect's.
func (c *Cluster) Sibling(ctx context.Context, kubeContext string) (*Cluster, error) {
	if c.Config == nil {
		return nil, fmt.Errorf("cluster %s was not reached through a kubeconfig, so context %s cannot be", c.Context, kubeContext)
	}
	sib, err := Connect(ctx, c.kubeconfig, kubeContext, c.Config.Timeout)
	if err != nil {
		return nil, err
	}
	// Its log is proven as the first cluster's was; one that fails the
	// proof is not read, and the checks say why.
	if err := sib.ProveAuditLog(ctx); err != nil {
		sib.AuditPath, sib.NoAudit, sib.audit = "", err.Error(), nil
	}
	sib.Custody = c.Custody
	return sib, nil
}
