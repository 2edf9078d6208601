package labcheck

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/opslab/opslab/labcheck/audit"
)

// A Student is one line of a roster: who, and how to reach their cluster.
type Student struct {
	Name       string
	Kubeconfig string // a path; relative paths in a roster file are relative to it
	Context    string // empty: the kubeconfig's current context
	AuditLog   string // empty: found by context, when the cluster is on this machine
}

var studentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseRoster reads a roster: one student a line, "NAME KUBECONFIG
// [CONTEXT [AUDIT-LOG]]" (CONTEXT - for the current one), fields separated by blanks; blank lines and lines starting
// with # are ignored. The error names the file and line that is wrong.
func ParseRoster(name string, r io.Reader) ([]Student, error) {
	var out []Student
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		where := fmt.Sprintf("%s:%d", name, n)
		switch {
		case len(f) < 2:
			return nil, fmt.Errorf("%s: %q has no kubeconfig; write NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]", where, line)
		case len(f) > 4:
			return nil, fmt.Errorf("%s: %d fields, want NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]", where, len(f))
		case !studentName.MatchString(f[0]):
			return nil, fmt.Errorf("%s: student name %q may hold only letters, digits, '.', '_' and '-'", where, f[0])
		case seen[f[0]] > 0:
			return nil, fmt.Errorf("%s: student %q is already on line %d", where, f[0], seen[f[0]])
		}
		seen[f[0]] = n
		s := Student{Name: f[0], Kubeconfig: f[1]}
		if len(f) >= 3 && f[2] != "-" {
			s.Context = f[2]
		}
		if len(f) == 4 {
			s.AuditLog = f[3]
			if !filepath.IsAbs(s.AuditLog) {
				s.AuditLog = filepath.Join(filepath.Dir(name), s.AuditLog)
			}
		}
		if !filepath.IsAbs(s.Kubeconfig) {
			s.Kubeconfig = filepath.Join(filepath.Dir(name), s.Kubeconfig)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no students; write one line per student: NAME KUBECONFIG [CONTEXT [AUDIT-LOG]]", name)
	}
	return out, nil
}

// GradeOptions says what to grade and how.
type GradeOptions struct {
	Chapters []Chapter
	Parallel int           // students graded at once; at least 1
	Timeout  time.Duration // per check
	Connect  time.Duration // to reach a cluster
	Now      func() time.Time
}

// Grade grades every student of a roster, at most opts.Parallel at once,
// and returns their reports in roster order. A student whose cluster cannot
// be reached or read gets a report with Error set; the others are graded
// all the same.
func Grade(ctx context.Context, students []Student, opts GradeOptions) []*Report {
	if opts.Parallel < 1 {
		opts.Parallel = 1
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	reports := make([]*Report, len(students))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, s := range students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i] = GradeOne(ctx, s, opts)
		}()
	}
	wg.Wait()
	return reports
}

// GradeOne grades one student's cluster.
func GradeOne(ctx context.Context, s Student, opts GradeOptions) *Report {
	start := opts.Now()
	var checks []Check
	for _, ch := range opts.Chapters {
		checks = append(checks, ch.Checks...)
	}
	graded := func(r *Report) *Report {
		r.Student, r.GradedAt = s.Name, start.UTC().Truncate(time.Second)
		return r
	}
	fail := func(id Identity, err error) *Report {
		r := graded(NewReport(id, opts.Chapters, nil, opts.Now().Sub(start)))
		r.Error = err.Error()
		return r
	}
	c, err := Connect(ctx, s.Kubeconfig, s.Context, opts.Connect)
	if err != nil {
		return fail(Identity{}, err)
	}
	id, err := Identify(ctx, c)
	if err != nil {
		return fail(id, err)
	}
	if err := Preflight(ctx, c); err != nil {
		return fail(id, err)
	}
	if s.AuditLog != "" {
		l, err := audit.Read(s.AuditLog)
		if err != nil {
			return fail(id, err)
		}
		c.UseAuditLog(l)
	}
	// A log that passes the proof is the live log, read on the grader's
	// own machine: a copy a student sent cannot hold the proof's nonce.
	if err := c.ProveAuditLog(ctx); err != nil {
		return fail(id, err)
	}
	c.Custody = HeldByHost
	outcomes := Run(ctx, c, checks, opts.Timeout)
	r := graded(NewReport(id, opts.Chapters, outcomes, opts.Now().Sub(start)))
	r.Evidence, r.Custody = c.EvidenceSource(), c.CustodySource()
	return r
}

// Identify reads who the cluster is: its server, version and the UID of its
// kube-system namespace, which a new cluster never shares with an old one.
func Identify(ctx context.Context, c *Cluster) (Identity, error) {
	id := Identity{Server: c.Config.Host}
	v, err := c.Kube.Discovery().ServerVersion()
	if err != nil {
		return id, fmt.Errorf("reading the server version: %v", err)
	}
	id.Version = v.GitVersion
	ns, err := c.Kube.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil {
		return id, permissionError(err, "reading namespace kube-system")
	}
	id.KubeSystemUID = string(ns.UID)
	return id, nil
}

//go:embed rbac/grader.yaml
var graderManifest []byte

// GraderRules returns the rules of the opslab-grader ClusterRole that the
// repository ships (labcheck/rbac/grader.yaml).
func GraderRules() []rbacv1.PolicyRule {
	for _, doc := range bytes.Split(graderManifest, []byte("\n---\n")) {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &role); err == nil && role.Kind == "ClusterRole" {
			return role.Rules
		}
	}
	panic("labcheck: rbac/grader.yaml has no ClusterRole")
}

// Preflight asks the server, rule by rule of the opslab-grader role, whether
// the caller may do what the checks do, and names the first verb and
// resource it may not. The questions are asked at once: they are many and
// small, and a class is graded faster when they do not wait on each other.
func Preflight(ctx context.Context, c *Cluster) error {
	var attrs []authv1.SelfSubjectAccessReviewSpec
	for _, rule := range GraderRules() {
		for _, verb := range rule.Verbs {
			for _, url := range rule.NonResourceURLs {
				attrs = append(attrs, authv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authv1.NonResourceAttributes{Path: url, Verb: verb}})
			}
			for _, group := range rule.APIGroups {
				for _, res := range rule.Resources {
					resource, sub, _ := strings.Cut(res, "/")
					names := rule.ResourceNames
					if len(names) == 0 {
						names = []string{""}
					}
					for _, name := range names {
						attrs = append(attrs, authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
							Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name,
						}})
					}
				}
			}
		}
	}
	errs := make([]error, len(attrs))
	var wg sync.WaitGroup
	for i, a := range attrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			review, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{Spec: a}, metav1.CreateOptions{})
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("asking the server what the grader may do: %v", err)
			case !review.Status.Allowed:
				errs[i] = fmt.Errorf("the grader may not %s; bind it to the opslab-grader ClusterRole (labcheck/rbac/grader.yaml)", describe(a))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func describe(a authv1.SelfSubjectAccessReviewSpec) string {
	if n := a.NonResourceAttributes; n != nil {
		return fmt.Sprintf("%s %s", n.Verb, n.Path)
	}
	r := a.ResourceAttributes
	res := r.Resource
	if r.Subresource != "" {
		res += "/" + r.Subresource
	}
	if r.Group != "" {
		res += "." + r.Group
	}
	if r.Name != "" {
		res += " " + r.Name
	}
	return fmt.Sprintf("%s %s", r.Verb, res)
}

var forbidden = regexp.MustCompile(`cannot (\S+) resource "([^"]+)"(?: in API group "([^"]*)")?`)

// permissionError turns a Forbidden answer into one line naming the verb and
// resource that is missing.
func permissionError(err error, doing string) error {
	if !apierrors.IsForbidden(err) {
		return fmt.Errorf("%s: %v", doing, err)
	}
	if m := forbidden.FindStringSubmatch(err.Error()); m != nil {
		res := m[2]
		if m[3] != "" {
			res += "." + m[3]
		}
		return fmt.Errorf("the grader may not %s %s; bind it to the opslab-grader ClusterRole (labcheck/rbac/grader.yaml)", m[1], res)
	}
	return fmt.Errorf("%s: %v", doing, err)
}

// WriteReports writes each report in each format into dir/STUDENT/, and the
// class summary into dir/summary.txt and dir/summary.csv. Files are written
// under a temporary name and renamed, so a report is never half-written.
func WriteReports(dir string, reports []*Report, formats []string) error {
	for _, r := range reports {
		sd := filepath.Join(dir, r.Student)
		if err := os.MkdirAll(sd, 0o755); err != nil {
			return err
		}
		for _, f := range formats {
			var b bytes.Buffer
			if err := Write(&b, r, f); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(sd, FileName(f)), b.Bytes()); err != nil {
				return err
			}
		}
	}
	var txt, csv bytes.Buffer
	WriteSummary(&txt, reports)
	writeSummaryCSV(&csv, reports)
	if err := writeFile(filepath.Join(dir, "summary.txt"), txt.Bytes()); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "summary.csv"), csv.Bytes())
}

func writeFile(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// WriteSummary writes the class summary: per student, points per chapter and
// in total, or the error that kept them from being graded.
func WriteSummary(w io.Writer, reports []*Report) {
	if len(reports) == 0 {
		return
	}
	chapters := reports[0].Chapters
	fmt.Fprintf(w, "%-16s", "student")
	for _, ch := range chapters {
		fmt.Fprintf(w, " %9s", fmt.Sprintf("ch%d", ch.Number))
	}
	fmt.Fprintf(w, " %9s\n", "total")
	for _, r := range reports {
		fmt.Fprintf(w, "%-16s", r.Student)
		if r.Error != "" {
			fmt.Fprintf(w, " ERROR: %s\n", r.Error)
			continue
		}
		for _, ch := range chapters {
			got, max := r.ChapterScore(ch.Number)
			fmt.Fprintf(w, " %9s", fmt.Sprintf("%d/%d", got, max))
		}
		fmt.Fprintf(w, " %9s\n", fmt.Sprintf("%d/%d", r.Score, r.MaxScore))
	}
	// Points per check across the class: which claims the class has proven,
	// counted over the students who could be graded.
	var first *Report
	for _, r := range reports {
		if r.Error == "" {
			first = r
			break
		}
	}
	if first == nil || len(first.Checks) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncheck                                      passed")
	for i, c := range first.Checks {
		passed, graded := 0, 0
		for _, r := range reports {
			if r.Error == "" && i < len(r.Checks) {
				graded++
				if r.Checks[i].Status == StatusPass {
					passed++
				}
			}
		}
		fmt.Fprintf(w, "%-4s %-37s %d/%d\n", c.Number, c.ID, passed, graded)
	}
}

func writeSummaryCSV(w io.Writer, reports []*Report) {
	if len(reports) == 0 {
		return
	}
	fmt.Fprint(w, "student")
	for _, ch := range reports[0].Chapters {
		fmt.Fprintf(w, ",chapter_%d,chapter_%d_max", ch.Number, ch.Number)
	}
	fmt.Fprintln(w, ",total,max,error,digest")
	for _, r := range reports {
		fmt.Fprint(w, r.Student)
		for _, ch := range r.Chapters {
			got, max := r.ChapterScore(ch.Number)
			fmt.Fprintf(w, ",%d,%d", got, max)
		}
		fmt.Fprintf(w, ",%d,%d,%q,%s\n", r.Score, r.MaxScore, r.Error, r.Digest)
	}
}
