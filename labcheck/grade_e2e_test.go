//go:build solved

// These tests grade a cluster on which every chapter's reference solution
// has run; make test runs them last, with -tags solved, on its private
// cluster ($KUBECONFIG, $OPSLAB_CONTEXT).

package labcheck_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/lab/labenv"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
)

func admin(t testing.TB) (*rest.Config, kubernetes.Interface) {
	t.Helper()
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: labenv.Kubeconfig()}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: labenv.Context()}).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.WarningHandler = rest.NoWarnings{} // listing everything meets deprecated kinds
	return cfg, kubernetes.NewForConfigOrDie(cfg)
}

// graderKubeconfig applies labcheck/rbac/grader.yaml and returns a
// kubeconfig file for a service account bound only to the given role.
func graderKubeconfig(t testing.TB, sa, role string) string {
	t.Helper()
	cfg, k := admin(t)
	kubectl(t, "apply", "-f", "rbac/grader.yaml")
	ctx := context.Background()
	k.CoreV1().ServiceAccounts("opslab-grader").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	if sa != "grader" {
		k.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "opslab-test-" + sa},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: "opslab-grader"}},
		}, metav1.CreateOptions{})
		t.Cleanup(func() {
			k.RbacV1().ClusterRoleBindings().Delete(context.Background(), "opslab-test-"+sa, metav1.DeleteOptions{})
		})
	}
	token := strings.TrimSpace(kubectl(t, "-n", "opslab-grader", "create", "token", sa, "--duration=1h"))
	kc := clientcmdapi.NewConfig()
	kc.Clusters["lab"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts[sa] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: sa}
	kc.CurrentContext = sa
	file := filepath.Join(t.TempDir(), sa+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, file); err != nil {
		t.Fatal(err)
	}
	return file
}

func kubectl(t testing.TB, args ...string) string {
	t.Helper()
	args = append([]string{"--kubeconfig", labenv.Kubeconfig(), "--context", labenv.Context()}, args...)
	out, err := exec.Command("kubectl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// versions returns the resourceVersion of every object the cluster lists,
// except Events and Leases, which the control plane writes on its own.
func versions(t *testing.T, cfg *rest.Config) map[string]string {
	t.Helper()
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || r.Name == "events" || r.Name == "leases" || !contains(r.Verbs, "list") {
				continue
			}
			items, err := dyn.Resource(gv.WithResource(r.Name)).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list %s: %v", r.Name, err)
			}
			for _, it := range items.Items {
				out[fmt.Sprintf("%s %s/%s", r.Name, it.GetNamespace(), it.GetName())] = it.GetResourceVersion()
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func grade(t testing.TB, students ...labcheck.Student) []*labcheck.Report {
	t.Helper()
	return labcheck.Grade(context.Background(), students, labcheck.GradeOptions{
		Chapters: solved(t), Parallel: len(students), Timeout: 20 * time.Second, Connect: 5 * time.Second,
	})
}

// solved returns the chapters whose reference solutions ran on the cluster
// under test. make test gives each chapter that switches nodes off a
// cluster of its own and names the chapters a cluster holds in
// OPSLAB_SOLVED_CHAPTERS ("1,2,3"); unset, it means every chapter.
func solved(t testing.TB) []labcheck.Chapter {
	t.Helper()
	list := os.Getenv("OPSLAB_SOLVED_CHAPTERS")
	if list == "" {
		return chapters.Course.Chapters()
	}
	var out []labcheck.Chapter
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		c, ok := chapters.Course.Chapter(n)
		if err != nil || !ok {
			t.Fatalf("OPSLAB_SOLVED_CHAPTERS=%q: %q is not a chapter's number", list, f)
		}
		out = append(out, c)
	}
	return out
}

func TestGradingASolvedClusterAsTheGraderChangesNothing(t *testing.T) {
	cfg, _ := admin(t)
	file := graderKubeconfig(t, "grader", "opslab-grader")
	// The grader's kubeconfig names no kwokctl context, so the audit log is
	// given as a roster line would give it.
	log, err := audit.Locate(labenv.Context())
	if err != nil {
		t.Fatalf("the test cluster keeps no audit log: %v", err)
	}
	start := time.Now()
	before := versions(t, cfg)
	reports := grade(t,
		labcheck.Student{Name: "alice", Kubeconfig: file, AuditLog: log},
		labcheck.Student{Name: "bob", Kubeconfig: writeUnreachable(t)},
	)
	after := versions(t, cfg)

	alice, bob := reports[0], reports[1]
	if alice.Error != "" {
		t.Fatalf("alice, graded with only the opslab-grader role: %s", alice.Error)
	}
	// Chapter 2's outage checks read the learner's second cluster, which a
	// roster does not reach: the grader's kubeconfig names the lab cluster
	// only, so they fail, saying so, and nothing else may.
	outOfReach := 0
	for _, c := range alice.Checks {
		switch {
		case strings.HasPrefix(c.ID, "outage-"):
			if c.Status == labcheck.StatusPass || !strings.Contains(c.Message, "is not running") {
				t.Errorf("%s: %s: %s; want a failure that says the outage lab's cluster is out of reach", c.ID, c.Status, c.Message)
			}
			outOfReach += c.MaxPoints
		case c.Status != labcheck.StatusPass:
			t.Errorf("%s: %s: %s", c.ID, c.Status, c.Message)
		}
	}
	if alice.Score != alice.MaxScore-outOfReach {
		t.Fatalf("alice scored %d/%d on a solved cluster, %d of them out of reach", alice.Score, alice.MaxScore, outOfReach)
	}
	if !strings.Contains(alice.Evidence, "its audit log") {
		t.Errorf("alice's report says the checks judged from %q, want the audit log %s", alice.Evidence, log)
	}
	if alice.Cluster.KubeSystemUID == "" || alice.Cluster.Version != version.Kubernetes {
		t.Errorf("alice's report identifies the cluster as %+v", alice.Cluster)
	}
	if len(alice.Warnings) > 0 {
		t.Errorf("alice's report warns %q about the course's own cluster", alice.Warnings)
	}
	if !strings.HasPrefix(bob.Error, "cannot reach the cluster at https://127.0.0.1:1") {
		t.Errorf("bob's unreachable cluster: error %q", bob.Error)
	}
	// The cluster does not stand still while it is graded: kwok writes a
	// node's status every ten to twenty minutes. The audit log says who
	// wrote: a change is the grader's unless someone else's write explains
	// it, and no write of the grader's may have been stored.
	const grader = "system:serviceaccount:opslab-grader:grader"
	l, err := audit.Read(log)
	if err != nil {
		t.Fatal(err)
	}
	writes := map[string][]audit.Event{}
	for _, e := range l.Since(start) {
		switch e.Verb {
		case "create", "update", "patch", "delete", "deletecollection":
		default:
			continue
		}
		if e.User == grader || e.Actor() == grader {
			// A dry run or a refused request (the checks' probes of the
			// API server's classification are refused) stores nothing.
			if e.OK() {
				t.Errorf("the grader wrote: %s", e)
			}
			continue
		}
		if e.OK() {
			k := fmt.Sprintf("%s %s/%s", e.Resource, e.Namespace, e.Name)
			writes[k] = append(writes[k], e)
		}
	}
	for k, v := range before {
		if after[k] == v {
			continue
		}
		if w := writes[k]; len(w) > 0 {
			t.Logf("%s changed while grading, written by %s, not by the grader", k, w[len(w)-1].Who())
			continue
		}
		t.Errorf("grading changed %s: resourceVersion %s → %s, and the audit log shows no one else's write to it", k, v, after[k])
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("grading created %s", k)
		}
	}
	t.Logf("compared the resourceVersions of %d objects", len(before))
}

func TestGraderMayOnlyDryRunEvictions(t *testing.T) {
	_, k := admin(t)
	file := graderKubeconfig(t, "grader", "opslab-grader")
	ctx := context.Background()
	ns := "opslab-grader"
	if _, err := k.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "eviction-probe"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/c:1"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer k.CoreV1().Pods(ns).Delete(ctx, "eviction-probe", metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	gcfg, err := clientcmd.BuildConfigFromFlags("", file)
	if err != nil {
		t.Fatal(err)
	}
	g := kubernetes.NewForConfigOrDie(gcfg)
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "eviction-probe", Namespace: ns}}
	// The policy takes a moment to be enforced after it is created.
	deadline := time.Now().Add(20 * time.Second)
	for {
		err = g.PolicyV1().Evictions(ns).Evict(ctx, ev)
		if err != nil || time.Now().After(deadline) {
			break
		}
		t.Fatal("the grader evicted a pod for real") // the probe is gone: nothing to retry
	}
	if err == nil || !strings.Contains(err.Error(), "the opslab grader may only dry-run evictions") {
		t.Fatalf("a real eviction by the grader: err = %v, want the policy's refusal", err)
	}
	ev.DeleteOptions = &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	if err := g.PolicyV1().Evictions(ns).Evict(ctx, ev); err != nil {
		t.Fatalf("a dry-run eviction by the grader: %v", err)
	}
}

func TestMissingPermissionIsNamed(t *testing.T) {
	_, k := admin(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "opslab-test-no-pdbs"}}
	for _, r := range labcheck.GraderRules() {
		if contains(r.Resources, "poddisruptionbudgets") {
			continue
		}
		role.Rules = append(role.Rules, r)
	}
	k.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	if _, err := k.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer k.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	file := graderKubeconfig(t, "no-pdbs", role.Name)
	r := grade(t, labcheck.Student{Name: "carol", Kubeconfig: file})[0]
	want := "the grader may not get poddisruptionbudgets.policy; bind it to the opslab-grader ClusterRole (labcheck/rbac/grader.yaml)"
	if r.Error != want {
		t.Errorf("grading without PDB access: error %q, want %q", r.Error, want)
	}
}

func writeUnreachable(t testing.TB) string {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["gone"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "x"}
	kc.Contexts["gone"] = &clientcmdapi.Context{Cluster: "gone", AuthInfo: "u"}
	kc.CurrentContext = "gone"
	file := filepath.Join(t.TempDir(), "gone.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, file); err != nil {
		t.Fatal(err)
	}
	return file
}

// The grading benchmarks compare one student with three graded at once
// (--parallel 3), on the same solved cluster:
//
//	go test -tags solved -run '^$' -bench Grade -count 5 ./labcheck/
func BenchmarkGrade1(b *testing.B)         { benchmarkGrade(b, 1) }
func BenchmarkGrade3Parallel(b *testing.B) { benchmarkGrade(b, 3) }

func benchmarkGrade(b *testing.B, n int) {
	file := graderKubeconfig(b, "grader", "opslab-grader")
	var students []labcheck.Student
	for i := range n {
		students = append(students, labcheck.Student{Name: fmt.Sprintf("s%d", i), Kubeconfig: file})
	}
	for b.Loop() {
		for _, r := range grade(b, students...) {
			outOfReach := 0 // chapter 2's outage checks: see TestGradingASolvedClusterAsTheGraderChangesNothing
			for _, c := range r.Checks {
				if strings.HasPrefix(c.ID, "outage-") {
					outOfReach += c.MaxPoints
				}
			}
			if r.Error != "" || r.Score != r.MaxScore-outOfReach {
				b.Fatalf("%s: %d/%d %s", r.Student, r.Score, r.MaxScore, r.Error)
			}
		}
	}
}

// BenchmarkChapter runs one chapter's checks on the solved cluster, as
// labcheck --chapter N does after connecting.
func BenchmarkChapter(b *testing.B) {
	file := graderKubeconfig(b, "grader", "opslab-grader")
	c, err := labcheck.Connect(context.Background(), file, "", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	for _, chapter := range chapters.Course.Chapters() {
		ch := chapter.Number
		b.Run(fmt.Sprintf("%d", ch), func(b *testing.B) {
			for b.Loop() {
				for _, o := range labcheck.Run(context.Background(), c, chapter.Checks, 20*time.Second) {
					if !o.Passed() {
						b.Fatalf("%s did not pass: %v %s", o.Check.ID, o.Err, o.Result.Message)
					}
				}
			}
		})
	}
}
