//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	apf "github.com/opslab/opslab/chapters/03-apf"
	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/lab/differential"
	"github.com/opslab/opslab/lab/labenv"
)

// The differential's defaults: a fixed seed, and few enough scenarios to
// stay under a minute on the shared lab machine (each scenario creates
// its objects, waits for the server to take them, and sends its
// requests: about 5 s).
const (
	defaultDiffSeed  = 2026
	defaultScenarios = 8
	requestsPer      = 40
	// prefixToken stands for the run's own name prefix in scenarios and
	// replay files; it is replaced when the scenario is applied.
	prefixToken = "PFX"
)

// A scenario is what the differential puts on the cluster and asks it:
// levels, schemas and impersonated requests. Names, users, groups and
// namespaces carry PFX, replaced by the run's prefix, so that the schemas
// match only the test's own users, never the cluster's components.
type scenario struct {
	Levels   []*flowcontrol.PriorityLevelConfiguration `json:"levels"`
	Schemas  []*flowcontrol.FlowSchema                 `json:"schemas"`
	Requests []kube.Request                            `json:"requests"`
}

// generate draws a scenario: 2–4 levels, 6–12 schemas (some naming a
// level that does not exist, several sharing a precedence), and n
// requests from a small pool of users, groups and shapes.
func generate(rng *rand.Rand, n int) scenario {
	var sc scenario
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	some := func(all []string, wild string) []string {
		if wild != "" && rng.IntN(4) == 0 {
			return []string{wild}
		}
		var out []string
		for _, x := range all {
			if rng.IntN(2) == 0 {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			out = []string{all[rng.IntN(len(all))]}
		}
		return out
	}
	var levels []string
	for i := range 2 + rng.IntN(3) {
		name := fmt.Sprintf("%s-l%d", prefixToken, i)
		levels = append(levels, name)
		lim := &flowcontrol.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr(int32(rng.IntN(8))),
			LendablePercent:          ptr(int32(rng.IntN(101))),
			LimitResponse:            flowcontrol.LimitResponse{Type: flowcontrol.LimitResponseTypeReject},
		}
		if rng.IntN(2) == 0 {
			lim.BorrowingLimitPercent = ptr(int32(rng.IntN(201)))
		}
		if rng.IntN(3) > 0 {
			queues := int32(1 + rng.IntN(64))
			lim.LimitResponse = flowcontrol.LimitResponse{Type: flowcontrol.LimitResponseTypeQueue, Queuing: &flowcontrol.QueuingConfiguration{
				Queues: queues, HandSize: 1 + rng.Int32N(min(queues, 8)), QueueLengthLimit: 1 + rng.Int32N(50),
			}}
		}
		sc.Levels = append(sc.Levels, &flowcontrol.PriorityLevelConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       flowcontrol.PriorityLevelConfigurationSpec{Type: flowcontrol.PriorityLevelEnablementLimited, Limited: lim},
		})
	}
	users := []string{prefixToken + "-u0", prefixToken + "-u1", prefixToken + "-u2"}
	groups := []string{prefixToken + "-g0", prefixToken + "-g1"}
	nss := []string{prefixToken + "-a", prefixToken + "-b"}
	for i := range 6 + rng.IntN(7) {
		level := levels[rng.IntN(len(levels))]
		if rng.IntN(6) == 0 {
			level = prefixToken + "-missing"
		}
		fs := &flowcontrol.FlowSchema{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-s%02d", prefixToken, i)},
			Spec: flowcontrol.FlowSchemaSpec{
				PriorityLevelConfiguration: flowcontrol.PriorityLevelConfigurationReference{Name: level},
				MatchingPrecedence:         []int32{2, 300, 300, 300, 800, 5000, 9000, 9900, 10000}[rng.IntN(9)],
			},
		}
		switch rng.IntN(3) {
		case 0:
			fs.Spec.DistinguisherMethod = &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByUserType}
		case 1:
			fs.Spec.DistinguisherMethod = &flowcontrol.FlowDistinguisherMethod{Type: flowcontrol.FlowDistinguisherMethodByNamespaceType}
		}
		for range 1 + rng.IntN(2) {
			var rule flowcontrol.PolicyRulesWithSubjects
			for range 1 + rng.IntN(2) {
				switch rng.IntN(4) {
				case 0, 1:
					rule.Subjects = append(rule.Subjects, flowcontrol.Subject{Kind: flowcontrol.SubjectKindUser, User: &flowcontrol.UserSubject{Name: pick(users...)}})
				case 2:
					rule.Subjects = append(rule.Subjects, flowcontrol.Subject{Kind: flowcontrol.SubjectKindGroup, Group: &flowcontrol.GroupSubject{Name: pick(groups...)}})
				case 3:
					rule.Subjects = append(rule.Subjects, flowcontrol.Subject{Kind: flowcontrol.SubjectKindServiceAccount, ServiceAccount: &flowcontrol.ServiceAccountSubject{Namespace: pick(nss...), Name: pick("sa0", "*")}})
				}
			}
			if rng.IntN(3) > 0 {
				rr := flowcontrol.ResourcePolicyRule{
					Verbs:        some([]string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}, "*"),
					APIGroups:    some([]string{"", "apps"}, "*"),
					Resources:    some([]string{"pods", "pods/status", "configmaps", "deployments", "deployments/scale", "namespaces"}, "*"),
					ClusterScope: rng.IntN(2) == 0,
				}
				if !rr.ClusterScope || rng.IntN(2) == 0 {
					rr.Namespaces = some(nss, "*")
				}
				rule.ResourceRules = append(rule.ResourceRules, rr)
			}
			if len(rule.ResourceRules) == 0 || rng.IntN(3) == 0 {
				rule.NonResourceRules = append(rule.NonResourceRules, flowcontrol.NonResourcePolicyRule{
					Verbs:           some([]string{"get", "list"}, "*"),
					NonResourceURLs: some([]string{"/healthz", "/healthz/*", "/version", "/apis"}, "*"),
				})
			}
			fs.Spec.Rules = append(fs.Spec.Rules, rule)
		}
		sc.Schemas = append(sc.Schemas, fs)
	}
	reqUsers := append(slices.Clone(users),
		"system:serviceaccount:"+prefixToken+"-a:sa0",
		"system:serviceaccount:"+prefixToken+"-b:sa0",
		"system:serviceaccount:"+prefixToken+"-a:Bad_SA")
	for range n {
		r := kube.Request{User: pick(reqUsers...)}
		switch rng.IntN(6) {
		case 0:
		case 1:
			r.Groups = []string{kube.GroupAuthenticated}
		default:
			r.Groups = some(groups, "")
			if rng.IntN(3) == 0 {
				r.Groups = nil
			}
		}
		switch rng.IntN(8) {
		case 0, 1:
			r.Verb = pick("get", "post")
			r.Path = pick("/healthz", "/healthz/etcd", "/version", "/apis", "/livez")
		case 2:
			r.Verb, r.Resource, r.Name = pick("get", "update", "delete"), "namespaces", pick(nss...)
		case 3:
			r.Verb, r.Name = "get", "pods" // GET /api/v1//pods
		default:
			r.Verb = pick("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
			r.APIGroup = pick("", "", "apps")
			r.Resource = pick("pods", "configmaps")
			if r.APIGroup == "apps" {
				r.Resource = "deployments"
			}
			if oneObject(r.Verb) && rng.IntN(3) == 0 {
				r.Subresource = map[string]string{"pods": "status", "configmaps": "status", "deployments": "scale"}[r.Resource]
			}
			if rng.IntN(4) > 0 {
				r.Namespace = pick(nss...)
			}
			// A list or watch of one object by a field selector on
			// metadata.name, which the server reads as the request's name.
			if (r.Verb == "list" || r.Verb == "watch") && rng.IntN(3) == 0 {
				r.Name = pick("web-1", "sa0")
			}
		}
		sc.Requests = append(sc.Requests, r)
	}
	return sc
}

func oneObject(verb string) bool {
	return verb == "get" || verb == "update" || verb == "patch" || verb == "delete"
}

// withPrefix returns sc with PFX replaced by prefix everywhere.
func (sc scenario) withPrefix(t testing.TB, prefix string) scenario {
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	var out scenario
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), prefixToken, prefix)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A mismatch is one disagreement between the model and the server.
type mismatch struct {
	Request int    `json:"request"` // -1 for one about objects or seats
	What    string `json:"what"`
}

// differ applies sc to the cluster under a fresh prefix, waits until the
// server has taken every object, compares the model with the server, and
// deletes what it created. It returns the mismatches and the number of
// requests compared.
func differ(ctx context.Context, t *testing.T, cfg *rest.Config, client kubernetes.Interface, sc scenario) []mismatch {
	t.Helper()
	prefix := "apf-e2e-d" + strings.ToLower(strconv.FormatUint(rand.Uint64()%1e8, 36))
	live := sc.withPrefix(t, prefix)
	fc := client.FlowcontrolV1()
	defer func() {
		bg := context.Background()
		for _, fs := range live.Schemas {
			fc.FlowSchemas().Delete(bg, fs.Name, metav1.DeleteOptions{})
		}
		for _, pl := range live.Levels {
			fc.PriorityLevelConfigurations().Delete(bg, pl.Name, metav1.DeleteOptions{})
		}
	}()
	for _, pl := range live.Levels {
		if _, err := fc.PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating level %s: %v", pl.Name, err)
		}
	}
	for _, fs := range live.Schemas {
		if _, err := fc.FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating schema %s: %v", fs.Name, err)
		}
	}
	t0 := time.Now()
	defer func() {
		t.Logf("scenario: %d levels, %d schemas, %d requests in %v", len(sc.Levels), len(sc.Schemas), len(sc.Requests), time.Since(t0).Round(time.Millisecond))
	}()
	// The server has taken the objects when every schema has its Dangling
	// condition and every level its seats.
	labenv.Poll(ctx, t, 30*time.Second, "the server takes the scenario's objects", func(ctx context.Context) (bool, error) {
		list, err := fc.FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		done := 0
		for _, fs := range list.Items {
			if !strings.HasPrefix(fs.Name, prefix) {
				continue
			}
			for _, c := range fs.Status.Conditions {
				if c.Type == flowcontrol.FlowSchemaConditionDangling {
					done++
				}
			}
		}
		if done < len(live.Schemas) {
			return false, nil
		}
		seats, err := kube.NominalSeats(ctx, client)
		if err != nil {
			return false, err
		}
		for _, pl := range live.Levels {
			if _, ok := seats[pl.Name]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
	objs, model := loadModel(ctx, t, client)
	var out []mismatch
	// Dangling: the model's list against the server's conditions.
	dangling := map[string]bool{}
	for _, d := range model.Dangling {
		dangling[d.Schema] = true
	}
	for _, fs := range objs.Schemas {
		if !strings.HasPrefix(fs.Name, prefix) {
			continue
		}
		server := false
		for _, c := range fs.Status.Conditions {
			if c.Type == flowcontrol.FlowSchemaConditionDangling && c.Status == flowcontrol.ConditionTrue {
				server = true
			}
		}
		if server != dangling[fs.Name] {
			out = append(out, mismatch{-1, fmt.Sprintf("schema %s: server Dangling=%v, model %v", unprefix(fs.Name, prefix), server, dangling[fs.Name])})
		}
	}
	// Seats: every level's nominal seats and bounds against the metrics.
	// The server reconfigures all levels at once; give it a moment, and
	// keep the differences of the last reading. (Each reading has the
	// test's context, not the wait's, which may end in the middle of one.)
	var seatDiffs []mismatch
	labenv.WaitUntil(ctx, 6*time.Second, func(context.Context) (bool, error) {
		seatDiffs = nil
		m := readMetrics(ctx, t, client)
		for _, s := range model.Seats(apf.DefaultServerSeats) {
			l := map[string]string{"priority_level": s.Level}
			n, lo, hi := m.value("apiserver_flowcontrol_nominal_limit_seats", l), m.value("apiserver_flowcontrol_lower_limit_seats", l), m.value("apiserver_flowcontrol_upper_limit_seats", l)
			if int(n) != s.Nominal || int(lo) != s.Min || int(hi) != s.Max {
				seatDiffs = append(seatDiffs, mismatch{-1, fmt.Sprintf("level %s: server nominal %v, bounds %v..%v; model %d, %d..%d", unprefix(s.Level, prefix), n, lo, hi, s.Nominal, s.Min, s.Max)})
			}
		}
		return len(seatDiffs) == 0, nil
	})
	out = append(out, seatDiffs...)
	schemaByUID, levelByUID := objs.ByUID()
	tooMany := 0
	defer func() {
		if tooMany > 0 {
			t.Logf("%d requests came back 429, classified all the same", tooMany)
		}
	}()
	for i, r := range live.Requests {
		// A level may have no seat to run a request at the moment (a
		// level without a share of its own that cannot borrow yet): the
		// request waits in its queue a quarter of its deadline, then gets
		// 429, classified all the same. A 2 s deadline keeps that wait at
		// half a second.
		p, err := kube.SendWithin(ctx, cfg, r, 2*time.Second)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if p.Status == http.StatusTooManyRequests {
			tooMany++
		}
		seen, err := kube.Seen(r)
		if err != nil {
			t.Fatal(err)
		}
		seen.Groups = kube.Impersonated(r.User, r.Groups)
		got := model.Classify(seen)
		server, level := schemaByUID[p.FlowSchemaUID], levelByUID[p.LevelUID]
		if got.Schema.Name != server || got.Level.Name != level {
			out = append(out, mismatch{i, fmt.Sprintf("%s: server (HTTP %d) %s/%s, model %s/%s",
				unprefix(describe(r), prefix), p.Status, unprefix(server, prefix), unprefix(level, prefix), unprefix(got.Schema.Name, prefix), unprefix(got.Level.Name, prefix))})
		}
	}
	return out
}

func unprefix(s, prefix string) string { return strings.ReplaceAll(s, prefix, prefixToken) }

// shrink drops requests, schemas, levels and rules from sc while the
// scenario still shows a mismatch, and returns the smallest it found.
func shrink(ctx context.Context, t *testing.T, cfg *rest.Config, client kubernetes.Interface, sc scenario, first []mismatch) (scenario, []mismatch) {
	// Keep only the first mismatching request, if the mismatch is one.
	if first[0].Request >= 0 {
		sc.Requests = []kube.Request{sc.Requests[first[0].Request]}
	} else {
		sc.Requests = nil
	}
	last := first
	try := func(cand scenario) bool {
		ms := differ(ctx, t, cfg, client, cand)
		if len(ms) == 0 {
			return false
		}
		for i := range ms {
			if ms[i].Request >= 0 {
				ms[i].Request = 0
			}
		}
		last = ms
		return true
	}
	if !try(sc) {
		t.Logf("the mismatch did not come back with its request alone; keeping the whole scenario")
		return sc, first
	}
	for changed := true; changed; {
		changed = false
		for i := len(sc.Schemas) - 1; i >= 0; i-- {
			cand := sc
			cand.Schemas = slices.Delete(slices.Clone(sc.Schemas), i, i+1)
			if try(cand) {
				sc, changed = cand, true
			}
		}
		for i := len(sc.Levels) - 1; i >= 0; i-- {
			cand := sc
			cand.Levels = slices.Delete(slices.Clone(sc.Levels), i, i+1)
			if try(cand) {
				sc, changed = cand, true
			}
		}
		for i, fs := range sc.Schemas {
			for j := len(fs.Spec.Rules) - 1; j >= 0 && len(fs.Spec.Rules) > 1; j-- {
				cand := sc
				cand.Schemas = slices.Clone(sc.Schemas)
				c := fs.DeepCopy()
				c.Spec.Rules = slices.Delete(c.Spec.Rules, j, j+1)
				cand.Schemas[i] = c
				if try(cand) {
					sc, changed, fs = cand, true, c
				}
			}
		}
	}
	return sc, last
}

// writeReplay saves sc under testdata/differential and returns the path.
func writeReplay(t *testing.T, sc scenario, seed uint64, ms []mismatch) string {
	t.Helper()
	type replay struct {
		Seed       uint64     `json:"seed"`
		Mismatches []mismatch `json:"mismatches"`
		scenario
	}
	b, err := json.MarshalIndent(replay{seed, ms, sc}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "differential")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("seed-%d.json", seed))
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDifferential puts random scenarios on the lab cluster and compares
// the model with the server: for every impersonated request, the schema
// and level whose UIDs the server returns in X-Kubernetes-PF-FlowSchema-UID
// and X-Kubernetes-PF-PriorityLevel-UID against kube.Config.Classify of the
// request the server saw (kube.Seen, kube.Impersonated); for every
// schema, Dangling; for every level, the nominal seats and their bounds
// against apiserver_flowcontrol_{nominal,lower,upper}_limit_seats. On a
// mismatch it shrinks the scenario and writes a replay file.
// OPSLAB_DIFF_SEED and OPSLAB_DIFF_CASES (scenarios) set the run.
func TestDifferential(t *testing.T) {
	ctx := context.Background()
	cfg, client := cluster(t)
	seed, n := differential.Params(t, defaultDiffSeed, defaultScenarios)
	t.Logf("seed %d, %d scenarios of %d requests", seed, n, requestsPer)
	rng := rand.New(rand.NewPCG(seed, 22))
	requests := 0
	for i := range n {
		sc := generate(rng, requestsPer)
		ms := differ(ctx, t, cfg, client, sc)
		requests += len(sc.Requests)
		if len(ms) > 0 {
			t.Errorf("seed %d, scenario %d: %d mismatches, the first: %s", seed, i, len(ms), ms[0].What)
			small, last := shrink(ctx, t, cfg, client, sc, ms)
			path := writeReplay(t, small, seed, last)
			t.Fatalf("seed %d: shrunk to %d levels, %d schemas, %d requests: %s; replay: OPSLAB_DIFF_REPLAY=%s go test -tags e2e -run TestDifferentialReplay", seed, len(small.Levels), len(small.Schemas), len(small.Requests), last[0].What, path)
		}
	}
	t.Logf("seed %d: %d scenarios, %d requests, every one classified as the model says", seed, n, requests)
}

// TestDifferentialReplay runs every replay file under testdata/differential
// (or only $OPSLAB_DIFF_REPLAY) and fails on any mismatch.
func TestDifferentialReplay(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "differential", "*.json"))
	if only := os.Getenv("OPSLAB_DIFF_REPLAY"); only != "" {
		files = []string{only}
	}
	if len(files) == 0 {
		t.Skip("no replay files")
	}
	ctx := context.Background()
	cfg, client := cluster(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var sc scenario
			if err := json.Unmarshal(b, &sc); err != nil {
				t.Fatal(err)
			}
			for _, m := range differ(ctx, t, cfg, client, sc) {
				t.Errorf("%s", m.What)
			}
		})
	}
}
