//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrol "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient/wait"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/watchexempt"
	"github.com/opslab/opslab/lab/labenv"
)

// fixtureName returns a fresh name for a test's objects: apf-e2e-XXXXX.
func fixtureName() string { return "apf-e2e-" + rand.String(5) }

// level creates a Limited level and deletes it when the test ends.
func level(ctx context.Context, t *testing.T, client kubernetes.Interface, name string, shares, lendable int32, borrowing *int32, q *flowcontrol.QueuingConfiguration) *flowcontrol.PriorityLevelConfiguration {
	t.Helper()
	resp := flowcontrol.LimitResponse{Type: flowcontrol.LimitResponseTypeReject}
	if q != nil {
		resp = flowcontrol.LimitResponse{Type: flowcontrol.LimitResponseTypeQueue, Queuing: q}
	}
	pl, err := client.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrol.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.PriorityLevelConfigurationSpec{
			Type: flowcontrol.PriorityLevelEnablementLimited,
			Limited: &flowcontrol.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: &shares, LendablePercent: &lendable, BorrowingLimitPercent: borrowing, LimitResponse: resp,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.FlowcontrolV1().PriorityLevelConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return pl
}

// userSchema creates a schema at precedence 300 that sends every request
// of the one user to the level, and deletes it when the test ends.
func userSchema(ctx context.Context, t *testing.T, client kubernetes.Interface, name, user, level string) *flowcontrol.FlowSchema {
	t.Helper()
	fs, err := client.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         300,
			Rules: []flowcontrol.PolicyRulesWithSubjects{{
				Subjects:         []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: user}}},
				ResourceRules:    []flowcontrol.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}},
				NonResourceRules: []flowcontrol.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.FlowcontrolV1().FlowSchemas().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return fs
}

// waitClassified sends r until the server classifies it into schema.
func waitClassified(ctx context.Context, t *testing.T, cfg *rest.Config, r kube.Request, schema *flowcontrol.FlowSchema) {
	t.Helper()
	labenv.Poll(ctx, t, 20*time.Second, fmt.Sprintf("requests of %s classified into %s", r.User, schema.Name), func(ctx context.Context) (bool, error) {
		p, err := kube.Send(ctx, cfg, r)
		return err == nil && p.FlowSchemaUID == string(schema.UID), nil
	})
}

// TestEnsurerPutsDefaultsBack edits the cluster's defaults the way a
// learner would and times the API server's ensurer, which runs once a
// minute: a deleted suggested schema comes back, an edit to a suggested
// schema annotated apf.kubernetes.io/autoupdate-spec "true" is undone, an
// edit with the annotation "false" stays, and a schema of our own that
// carries "true" is deleted. Each outcome is what kube.Ensure predicts. The
// edits only move precedences by one where no other schema sits, so the
// rest of the cluster classifies as before; everything is put back.
func TestEnsurerPutsDefaultsBack(t *testing.T) {
	ctx := context.Background()
	_, client := cluster(t)
	fcs := client.FlowcontrolV1().FlowSchemas()
	const (
		deleted  = "kube-scheduler"               // bootstrap order: processed before the two below
		edited   = "kube-system-service-accounts" // 900 → 901, annotation left "true"
		kept     = "global-default"               // 9900 → 9899, annotation "false"
		original = "original"
	)
	saved := map[string]*flowcontrol.FlowSchema{}
	for _, name := range []string{deleted, edited, kept} {
		fs, err := fcs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		saved[name] = fs
	}
	t.Cleanup(func() {
		bg := context.Background()
		for name, fs := range saved {
			cur, err := fcs.Get(bg, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				fresh := &flowcontrol.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: fs.Annotations}, Spec: fs.Spec}
				if _, err := fcs.Create(bg, fresh, metav1.CreateOptions{}); err != nil {
					t.Errorf("putting back %s: %v", name, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("putting back %s: %v", name, err)
				continue
			}
			cur.Spec, cur.Annotations = fs.Spec, fs.Annotations
			if _, err := fcs.Update(bg, cur, metav1.UpdateOptions{}); err != nil {
				t.Errorf("putting back %s: %v", name, err)
			}
		}
	})
	change := func(name string, f func(*flowcontrol.FlowSchema)) *flowcontrol.FlowSchema {
		fs, err := fcs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f(fs)
		fs, err = fcs.Update(ctx, fs, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	k := change(kept, func(fs *flowcontrol.FlowSchema) {
		fs.Spec.MatchingPrecedence--
		fs.Annotations[kube.AutoUpdateAnnotation] = "false"
	})
	e := change(edited, func(fs *flowcontrol.FlowSchema) { fs.Spec.MatchingPrecedence++ })
	stale := fixtureName() + "-stale"
	mine, err := fcs.Create(ctx, &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: stale, Annotations: map[string]string{kube.AutoUpdateAnnotation: "true"}},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: "global-default"},
			MatchingPrecedence:         300,
			Rules: []flowcontrol.PolicyRulesWithSubjects{{
				Subjects:         []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: stale}}},
				NonResourceRules: []flowcontrol.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fcs.Delete(context.Background(), stale, metav1.DeleteOptions{}) })
	// What the model predicts, from the objects as they now are.
	predict := map[string]kube.EnsureAction{
		kept:    kube.Ensure(kube.Suggested, true, k.Annotations, k.Generation, false),
		edited:  kube.Ensure(kube.Suggested, true, e.Annotations, e.Generation, false),
		stale:   kube.Ensure(kube.Yours, true, mine.Annotations, mine.Generation, false),
		deleted: kube.Ensure(kube.Suggested, false, nil, 0, false),
	}
	want := map[string]kube.EnsureAction{kept: kube.Keep, edited: kube.RestoreSpec, stale: kube.Delete, deleted: kube.Create}
	for name, a := range want {
		if predict[name] != a {
			t.Errorf("kube.Ensure for %s = %s, want %s", name, predict[name], a)
		}
	}
	if err := fcs.Delete(ctx, deleted, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var back, restored, gone time.Duration
	labenv.Poll(ctx, t, 80*time.Second, "the ensurer's pass: "+deleted+" re-created, "+edited+" restored, "+stale+" deleted", func(ctx context.Context) (bool, error) {
		if back == 0 {
			if _, err := fcs.Get(ctx, deleted, metav1.GetOptions{}); err == nil {
				back = time.Since(start)
			}
		}
		if restored == 0 {
			if fs, err := fcs.Get(ctx, edited, metav1.GetOptions{}); err == nil && fs.Spec.MatchingPrecedence == saved[edited].Spec.MatchingPrecedence {
				restored = time.Since(start)
			}
		}
		if gone == 0 {
			if _, err := fcs.Get(ctx, stale, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				gone = time.Since(start)
			}
		}
		return back > 0 && restored > 0 && gone > 0, nil
	})
	t.Logf("after the deletion: %s back in %v, %s restored in %v, %s deleted in %v", deleted, back.Round(100*time.Millisecond), edited, restored.Round(100*time.Millisecond), stale, gone.Round(100*time.Millisecond))
	// The pass that re-created kube-scheduler went on to global-default
	// after our edit, and left it alone.
	fs, err := fcs.Get(ctx, kept, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fs.Spec.MatchingPrecedence != saved[kept].Spec.MatchingPrecedence-1 {
		t.Errorf("%s annotated false: precedence %d, want our edit %d kept", kept, fs.Spec.MatchingPrecedence, saved[kept].Spec.MatchingPrecedence-1)
	}
}

// listSeatsCase is a LIST and the cache flags the estimator reads from it.
type listSeatsCase struct {
	name  string
	query string
	list  apf.List
}

// TestWorkEstimatesAgainstServer measures the seats the server's work
// estimator gives LISTs and writes, from
// apiserver_flowcontrol_work_estimated_seats, against apf.ListSeats and
// apf.MutatingSeats fed the server's own inputs: the object count and
// size of configmaps it exports, the watch count it records for a write,
// and each level's max seats from its nominal seats. Two levels: one
// shaped like the lab's (queues, hand of 4: max seats 2), one that
// rejects (no max seats of its own). The test stores about 1.2 MB of
// configmaps so that a LIST costs more than 10 seats.
func TestWorkEstimatesAgainstServer(t *testing.T) {
	ctx := context.Background()
	cfg, client := cluster(t)
	ns := labenv.TestNamespace(ctx, t, cfg, "apf-e2e-")
	base := fixtureName()
	narrow, wide := base+"-narrow", base+"-wide"
	level(ctx, t, client, narrow, 5, 0, ptr(int32(0)), &flowcontrol.QueuingConfiguration{Queues: 16, HandSize: 4, QueueLengthLimit: 20})
	level(ctx, t, client, wide, 5, 0, ptr(int32(0)), nil)
	schemas := map[string]*flowcontrol.FlowSchema{
		narrow: userSchema(ctx, t, client, narrow, narrow, narrow),
		wide:   userSchema(ctx, t, client, wide, wide, wide),
	}
	data := strings.Repeat("x", 95_000)
	for i := range 13 {
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bulk-%d", i)}, Data: map[string]string{"x": data}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, fs := range schemas {
		waitClassified(ctx, t, cfg, kube.Request{User: name, Verb: "get", Path: "/version"}, fs)
	}
	// The server measures a resource about once a minute.
	var stats apf.ResourceStats
	labenv.Poll(ctx, t, 200*time.Second, "the server's size estimate of configmaps above 1.2 MB", func(ctx context.Context) (bool, error) {
		m := readMetrics(ctx, t, client)
		stats = statsOf(m)
		return stats.Objects*stats.AverageSize > 1_200_000, nil
	})
	nominal := nominalSeats(ctx, t, client)
	maxSeats := map[string]int{
		narrow: apf.MaxSeats(nominal[narrow], &apf.Queuing{Queues: 16, HandSize: 4, QueueLengthLimit: 20}),
		wide:   apf.MaxSeats(nominal[wide], nil),
	}
	t.Logf("configmaps: %d objects, %d bytes on average; level %s: %d nominal seats, max seats %d; level %s: max seats %d (none of its own)",
		stats.Objects, stats.AverageSize, narrow, nominal[narrow], maxSeats[narrow], wide, maxSeats[wide])
	if maxSeats[narrow] != 2 {
		t.Errorf("the lab-shaped level's max seats = %d, want 2 (its nominal seats %d)", maxSeats[narrow], nominal[narrow])
	}
	lists := []listSeatsCase{
		{"plain list, served from the cache", "", apf.List{FromCache: true}},
		{"from etcd, resourceVersionMatch=Exact", "resourceVersion=1&resourceVersionMatch=Exact", apf.List{}},
		{"from etcd, limit 3", "resourceVersion=1&limit=3", apf.List{Limit: 3}},
		{"from the cache, resourceVersion 0 and a selector", "resourceVersion=0&labelSelector=a%3Db", apf.List{FromCache: true, Selector: true}},
	}
	seen := map[int]bool{}
	for _, user := range []string{wide, narrow} {
		for _, lc := range lists {
			t.Run(user[len(base)+1:]+"/"+lc.name, func(t *testing.T) {
				for attempt := 0; ; attempt++ {
					before := readMetrics(ctx, t, client)
					st := statsOf(before)
					p := sendRaw(ctx, t, cfg, user, nil, "GET", "/api/v1/namespaces/"+ns+"/configmaps?"+lc.query, nil)
					after := readMetrics(ctx, t, client)
					if statsOf(after) != st && attempt < 3 {
						continue // the server measured configmaps again in between
					}
					labels := map[string]string{"flow_schema": user, "priority_level": user}
					got := after.value("apiserver_flowcontrol_work_estimated_seats_sum", labels) - before.value("apiserver_flowcontrol_work_estimated_seats_sum", labels)
					n := after.value("apiserver_flowcontrol_work_estimated_seats_count", labels) - before.value("apiserver_flowcontrol_work_estimated_seats_count", labels)
					want := apf.ListSeats(&st, lc.list, maxSeats[user])
					if n != 1 || int(got) != want {
						t.Errorf("LIST ?%s as %s (HTTP %d): the server estimated %v seats over %v requests, apf.ListSeats %d (%d objects of %d bytes, level max %d)", lc.query, user, p.StatusCode, got, n, want, st.Objects, st.AverageSize, maxSeats[user])
					}
					seen[int(got)] = true
					t.Logf("%v seats", got)
					return
				}
			})
		}
	}
	if !seen[2] || !seen[10] {
		t.Errorf("the LISTs cost %v seats; want the lab level's cap of 2 and the cache's 10 among them", seen)
	}
	t.Run("writes with watchers", func(t *testing.T) {
		// 25 watchers of configmaps in the namespace, besides the
		// cluster's own.
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for range 25 {
			w, err := client.CoreV1().ConfigMaps(ns).Watch(wctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
		}
		time.Sleep(time.Second)
		for _, user := range []string{wide, narrow} {
			labels := map[string]string{"flow_schema": user, "priority_level": user}
			before := readMetrics(ctx, t, client)
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w"}}`
			p := sendRaw(ctx, t, cfg, user, nil, "POST", "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All", strings.NewReader(body))
			after := readMetrics(ctx, t, client)
			watchers := after.value("apiserver_flowcontrol_watch_count_samples_sum", labels) - before.value("apiserver_flowcontrol_watch_count_samples_sum", labels)
			got := after.value("apiserver_flowcontrol_work_estimated_seats_sum", labels) - before.value("apiserver_flowcontrol_work_estimated_seats_sum", labels)
			want := apf.MutatingSeats(int(watchers), maxSeats[user])
			t.Logf("create as %s (HTTP %d): %v watchers, %v seats; model %+v", user, p.StatusCode, watchers, got, want)
			if watchers < 25 || int(got) != want.Seats() {
				t.Errorf("create as %s: the server saw %v watchers and estimated %v seats; apf.MutatingSeats says %d", user, watchers, got, want.Seats())
			}
		}
	})
}

// statsOf reads the server's last measurement of configmaps.
func statsOf(m metrics) apf.ResourceStats {
	labels := map[string]string{"group": "", "resource": "configmaps"}
	n := int64(m.value("apiserver_resource_objects", labels))
	size := int64(m.value("apiserver_resource_size_estimate_bytes", labels))
	if n == 0 {
		return apf.ResourceStats{}
	}
	return apf.ResourceStats{Objects: n, AverageSize: size / n}
}

func nominalSeats(ctx context.Context, t *testing.T, client kubernetes.Interface) map[string]int {
	t.Helper()
	s, err := kube.NominalSeats(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sendRaw sends one request as user (and groups, if any) and returns the
// response, its body read and closed.
func sendRaw(ctx context.Context, t testing.TB, cfg *rest.Config, user string, groups []string, method, path string, body io.Reader) *http.Response {
	t.Helper()
	resp, err := rawRequest(ctx, cfg, user, groups, method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// rawRequest is sendRaw for a goroutine other than the test's, which may not
// call t.Fatal: it returns the error instead (and a nil response).
func rawRequest(ctx context.Context, cfg *rest.Config, user string, groups []string, method, path string, body io.Reader) (*http.Response, error) {
	c := rest.CopyConfig(cfg)
	if user != "" {
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	}
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.Host, "/")+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// TestRequestsAPFNeverSees sends requests that never reach APF, and shows
// that their answers carry no classification headers: a long-running
// request other than a watch (a pod's log, and exec, attach, port-forward
// and proxy alike), and a request refused at authentication. A watch is
// classified like anything else.
func TestRequestsAPFNeverSees(t *testing.T) {
	ctx := context.Background()
	cfg, _ := cluster(t)
	ns := labenv.TestNamespace(ctx, t, cfg, "apf-e2e-")
	for _, tc := range []struct {
		name, path string
		classified bool
	}{
		{"a pod's log is long-running", "/api/v1/namespaces/" + ns + "/pods/none/log", false},
		{"a proxy is long-running", "/api/v1/namespaces/" + ns + "/services/none/proxy/", false},
		{"a watch is classified", "/api/v1/namespaces/" + ns + "/pods?watch=true&timeoutSeconds=1", true},
		{"a get is classified", "/api/v1/namespaces/" + ns + "/pods/none", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := sendRaw(ctx, t, cfg, "apf-e2e-someone", nil, "GET", tc.path, nil)
			got := kube.ProbeOf(resp).FlowSchemaUID != ""
			if got != tc.classified {
				t.Errorf("GET %s: HTTP %d, classification headers %v, want %v", tc.path, resp.StatusCode, got, tc.classified)
			}
		})
	}
	t.Run("a bad token is refused before APF", func(t *testing.T) {
		anon := rest.AnonymousClientConfig(cfg)
		anon.BearerToken = "not-a-token"
		resp := sendRaw(ctx, t, anon, "", nil, "GET", "/api/v1/namespaces", nil)
		if p := kube.ProbeOf(resp); p.Status != http.StatusUnauthorized || p.FlowSchemaUID != "" {
			t.Errorf("bad token: HTTP %d with FlowSchema UID %q, want 401 and none", p.Status, p.FlowSchemaUID)
		}
	})
}

// TestRejectedWithRetryAfter makes the lab's server answer 429: a level
// that rejects, with no seats of its own and no borrowing (0 shares,
// borrowingLimitPercent 0), serves one request at a time only because
// upstream lets a request run when nothing else does. A create whose body
// arrives slowly holds that one seat; a second request meanwhile is
// refused with 429, Retry-After and the classification headers, and
// apiserver_flowcontrol_rejected_requests_total counts it as
// concurrency-limit.
func TestRejectedWithRetryAfter(t *testing.T) {
	ctx := context.Background()
	cfg, client := cluster(t)
	ns := labenv.TestNamespace(ctx, t, cfg, "apf-e2e-")
	name := fixtureName() + "-none"
	pl := level(ctx, t, client, name, 0, 0, ptr(int32(0)), nil)
	fs := userSchema(ctx, t, client, name, name, name)
	// The user may create configmaps in the namespace, so the slow
	// create reaches its handler and reads its body.
	if _, err := client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "create"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "create"}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "create"}, Subjects: []rbacv1.Subject{{Kind: "User", Name: name}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitClassified(ctx, t, cfg, kube.Request{User: name, Verb: "get", Path: "/version"}, fs)
	// The authorizer learns of the binding within moments.
	labenv.Poll(ctx, t, 20*time.Second, name+" may create configmaps", func(ctx context.Context) (bool, error) {
		body := strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"}}`)
		return sendRaw(ctx, t, cfg, name, nil, "POST", "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All", body).StatusCode == http.StatusCreated, nil
	})
	before := readMetrics(ctx, t, client)
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	var slow *http.Response
	go func() {
		defer wg.Done()
		slow, _ = rawRequest(ctx, cfg, name, nil, "POST", "/api/v1/namespaces/"+ns+"/configmaps?dryRun=All", pr)
	}()
	time.Sleep(time.Second) // the create holds the seat, waiting for its body
	var refused *http.Response
	wait.For(func(context.Context) (bool, error) {
		refused = sendRaw(ctx, t, cfg, name, nil, "GET", "/version", nil)
		return refused.StatusCode == http.StatusTooManyRequests, nil
	}, wait.WithContext(ctx), wait.WithTimeout(4*time.Second), wait.WithInterval(100*time.Millisecond), wait.WithImmediate())
	pw.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"slow"}}`))
	pw.Close()
	wg.Wait()
	if slow == nil || slow.StatusCode != http.StatusCreated {
		t.Errorf("the slow create: %v, want 201", slow)
	}
	if refused.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("GET /version beside the slow create: HTTP %d, want 429", refused.StatusCode)
	}
	p := kube.ProbeOf(refused)
	t.Logf("429 with Retry-After: %s", p.RetryAfter)
	if p.RetryAfter == "" || p.LevelUID != string(pl.UID) {
		t.Errorf("429 headers: Retry-After %q, PriorityLevel UID %q; want a Retry-After and %s's UID %s", p.RetryAfter, p.LevelUID, name, pl.UID)
	}
	after := readMetrics(ctx, t, client)
	labels := map[string]string{"priority_level": name, "flow_schema": name, "reason": "concurrency-limit"}
	if d := after.value("apiserver_flowcontrol_rejected_requests_total", labels) - before.value("apiserver_flowcontrol_rejected_requests_total", labels); d < 1 {
		t.Errorf("apiserver_flowcontrol_rejected_requests_total{reason=concurrency-limit} grew by %v, want at least 1", d)
	}
}

// TestNodeImpersonationDependsOnHistory shows what v1.37's constrained
// impersonation does to --as system:node:X without groups: the server
// first tries the mode that last worked for the requester, and the modes
// disagree. The test impersonates as a new service account bound to
// cluster-admin, so that its history starts empty. Its first node without
// groups goes through the arbitrary-node mode, which gives it
// system:nodes (schema system-nodes); once it has impersonated a node with
// an explicit group, which only the legacy mode accepts, the legacy mode
// is tried first and succeeds, and the same request gets no system:nodes
// (schema global-default).
func TestNodeImpersonationDependsOnHistory(t *testing.T) {
	ctx := context.Background()
	cfg, client := cluster(t)
	ns := labenv.TestNamespace(ctx, t, cfg, "apf-e2e-")
	sa, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "impersonator"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	binding := ns + "-impersonator"
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: binding},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa.Name}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding, metav1.DeleteOptions{})
	})
	tok, err := client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	as := rest.AnonymousClientConfig(cfg)
	as.BearerToken = tok.Status.Token
	objs, err := kube.Load(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	byUID, _ := objs.ByUID()
	node := "system:node:apf-e2e-nowhere"
	path := "/api/v1/namespaces/" + ns + "/pods/none"
	// The binding reaches the authorizer within moments: wait until the
	// account may read pods, which needs no impersonation.
	labenv.Poll(ctx, t, 20*time.Second, "the impersonator's binding", func(ctx context.Context) (bool, error) {
		return sendRaw(ctx, t, as, "", nil, "GET", path, nil).StatusCode == http.StatusNotFound, nil
	})
	schemaOf := func(groups []string) string {
		r := sendRaw(ctx, t, as, node, groups, "GET", path, nil)
		return byUID[r.Header.Get("X-Kubernetes-PF-FlowSchema-UID")]
	}
	first := schemaOf(nil)
	schemaOf([]string{"system:nodes"})
	after := schemaOf(nil)
	t.Logf("node without groups: first %s, after a node with groups %s", first, after)
	if first != "system-nodes" || after != "global-default" {
		t.Errorf("node without groups classified %s at first and %s after a node with groups; want system-nodes, then global-default", first, after)
	}
}

// TestServerRefusesWildcardAmongOthers: the API refuses "*" beside other
// verbs, so no server holds the list kube.ValidateFlowSchema refuses.
func TestServerRefusesWildcardAmongOthers(t *testing.T) {
	ctx := context.Background()
	_, client := cluster(t)
	name := fixtureName() + "-wild"
	_, err := client.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrol.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrol.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: "global-default"},
			MatchingPrecedence:         300,
			Rules: []flowcontrol.PolicyRulesWithSubjects{{
				Subjects:      []flowcontrol.Subject{{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: name}}},
				ResourceRules: []flowcontrol.ResourcePolicyRule{{Verbs: []string{"get", "*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true}},
			}},
		},
	}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "if '*' is present, must not specify other verbs") {
		t.Errorf("creating a schema with verbs [get *]: %v, want Invalid: if '*' is present, must not specify other verbs", err)
	}
}

// TestBorrowingBounds reads, for every level, the server's current limit
// next to its nominal seats: apiserver_flowcontrol_current_limit_seats
// moves as idle levels lend and busy ones borrow, always between
// apiserver_flowcontrol_lower_limit_seats and upper_limit_seats, which are
// the model's Min (nominal − lendable) and Max (nominal + borrowing).
func TestBorrowingBounds(t *testing.T) {
	ctx := context.Background()
	_, client := cluster(t)
	_, cfg := loadModel(ctx, t, client)
	m := readMetrics(ctx, t, client)
	moved := 0
	for _, s := range cfg.Seats(apf.DefaultServerSeats) {
		l := map[string]string{"priority_level": s.Level}
		cur, ok := m.get("apiserver_flowcontrol_current_limit_seats", l)
		lo, hi := m.value("apiserver_flowcontrol_lower_limit_seats", l), m.value("apiserver_flowcontrol_upper_limit_seats", l)
		if !ok {
			t.Errorf("level %s: no current_limit_seats", s.Level)
			continue
		}
		t.Logf("%-28s nominal %3d  current %3v  bounds %v..%v (model %d..%d)", s.Level, s.Nominal, cur, lo, hi, s.Min, s.Max)
		if int(lo) != s.Min || int(hi) != s.Max {
			t.Errorf("level %s: the server's bounds %v..%v, the model's %d..%d", s.Level, lo, hi, s.Min, s.Max)
		}
		if !s.Exempt && (cur < lo || cur > hi) {
			t.Errorf("level %s: current limit %v outside %v..%v", s.Level, cur, lo, hi)
		}
		if !s.Exempt && math.Abs(cur-float64(s.Nominal)) >= 1 {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("every level's current limit equals its nominal seats; want idle levels to have lent some")
	}
}

// TestDebugDumps reads the server's own view of its levels, the
// /debug/api_priority_and_fairness/ dumps: every level the model knows is
// listed in dump_priority_levels, and dump_queues lists the queues of the
// levels that queue.
func TestDebugDumps(t *testing.T) {
	ctx := context.Background()
	_, client := cluster(t)
	_, cfg := loadModel(ctx, t, client)
	levels, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/api_priority_and_fairness/dump_priority_levels").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	queues, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/api_priority_and_fairness/dump_queues").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dump_priority_levels:\n%s", levels)
	for name := range cfg.Levels {
		if !strings.Contains(string(levels), name) {
			t.Errorf("level %s is not in dump_priority_levels", name)
		}
	}
	if !strings.Contains(string(queues), "workload-low") {
		t.Errorf("dump_queues does not list workload-low's queues:\n%.500s", queues)
	}
}

// TestExemptWatcher runs the lab's reference watcher while a schema
// starts and stops pointing at exempt: it first lists exactly the schemas
// kube.Config.Exempt lists (what apfctl exempt prints), then reports the
// new schema and its removal.
func TestExemptWatcher(t *testing.T) {
	ctx := context.Background()
	_, client := cluster(t)
	var buf syncBuffer
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := watchexempt.Watch(wctx, client, &buf); done <- err }()
	labenv.Poll(ctx, t, 10*time.Second, "the watcher's first list", func(context.Context) (bool, error) { return buf.String() != "", nil })
	_, model := loadModel(ctx, t, client)
	var names []string
	for _, fs := range model.Exempt() {
		names = append(names, fs.Name)
	}
	sort.Strings(names)
	var want strings.Builder
	for _, n := range names {
		fmt.Fprintf(&want, "exempt %s\n", n)
	}
	name := fixtureName() + "-exempt"
	fs := userSchema(ctx, t, client, name, name, "exempt")
	labenv.Poll(ctx, t, 10*time.Second, "the watcher's + line", func(context.Context) (bool, error) {
		return strings.Contains(buf.String(), "+ "+name+"\n"), nil
	})
	if err := client.FlowcontrolV1().FlowSchemas().Delete(ctx, fs.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	labenv.Poll(ctx, t, 10*time.Second, "the watcher's - line", func(context.Context) (bool, error) {
		return strings.Contains(buf.String(), "- "+name+"\n"), nil
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	t.Logf("the watcher printed:\n%s", got)
	if !strings.HasPrefix(got, want.String()) {
		t.Errorf("the watcher began with\n%s\nwant what apfctl exempt lists:\n%s", got, want.String())
	}
}

// syncBuffer is a bytes.Buffer that a watcher goroutine writes while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSeatlessQueueTimesOut gives a level that queues no seats of its own
// and no right to borrow (0 shares, borrowingLimitPercent 0): it never
// dispatches, since a queue set sends a queued request only while the
// seats in use are below its limit. A request sent with a 2 s deadline
// waits a quarter of it, half a second, and gets 429, counted as
// time-out.
func TestSeatlessQueueTimesOut(t *testing.T) {
	ctx := context.Background()
	cfg, client := cluster(t)
	name := fixtureName() + "-seatless"
	level(ctx, t, client, name, 0, 0, ptr(int32(0)), &flowcontrol.QueuingConfiguration{Queues: 4, HandSize: 2, QueueLengthLimit: 10})
	fs := userSchema(ctx, t, client, name, name, name)
	r := kube.Request{User: name, Verb: "get", Path: "/version"}
	labenv.Poll(ctx, t, 20*time.Second, "requests of "+name+" classified into "+name, func(ctx context.Context) (bool, error) {
		p, err := kube.SendWithin(ctx, cfg, r, 2*time.Second)
		return err == nil && p.FlowSchemaUID == string(fs.UID), nil
	})
	before := readMetrics(ctx, t, client)
	start := time.Now()
	p, err := kube.SendWithin(ctx, cfg, r, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	after := readMetrics(ctx, t, client)
	labels := map[string]string{"priority_level": name, "flow_schema": name, "reason": "time-out"}
	d := after.value("apiserver_flowcontrol_rejected_requests_total", labels) - before.value("apiserver_flowcontrol_rejected_requests_total", labels)
	t.Logf("HTTP %d after %v; time-out rejections +%v", p.Status, waited.Round(10*time.Millisecond), d)
	if p.Status != http.StatusTooManyRequests || d != 1 || waited < 400*time.Millisecond || waited > 1500*time.Millisecond {
		t.Errorf("GET /version in a seatless queuing level: HTTP %d after %v, time-out rejections +%v; want 429 after about 0.5 s and +1", p.Status, waited, d)
	}
}
