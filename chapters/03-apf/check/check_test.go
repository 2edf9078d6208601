package check

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/labcheck"
	"github.com/opslab/opslab/labcheck/gradertest"
)

// The checks' IDs.
const (
	isolated = "apf-runaway-isolated"
	narrow   = "apf-runaway-level-narrow"
	tie      = "apf-tie-by-name"
	exempt   = "apf-nothing-exempt-or-dangling"
)

// fakeCluster is a cluster for the checks without a server: a fake
// clientset holds the server's default FlowSchemas and levels, the lab's
// namespace and the given YAML documents (the lab's files, or a mistake;
// a document named as a default replaces it),
// each object with a UID; and the checks' requests, sent by impersonation,
// go to an HTTP server that answers each with 403 and the
// X-Kubernetes-PF-* headers the model gives it on those objects, as the
// chapter's differential shows the real server does. There is no audit
// log, so the checks judge the operator's known kinds of request.
func fakeCluster(t *testing.T, docs ...string) *labcheck.Cluster {
	t.Helper()
	objs := withDefaults(t, docs...)
	stored := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}}
	for _, fs := range objs.Schemas {
		fs.UID = types.UID("uid-schema-" + fs.Name)
		stored = append(stored, fs)
	}
	for _, pl := range objs.Levels {
		pl.UID = types.UID("uid-level-" + pl.Name)
		stored = append(stored, pl)
	}
	client := fake.NewClientset(stored...)
	gradertest.Guard(t, client)
	onServer, err := kube.Load(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	model, err := onServer.Config()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r := kube.ParseRequest(req.Method, req.URL.Path, req.URL.Query())
		r.User = req.Header.Get("Impersonate-User")
		r.Groups = kube.Impersonated(r.User, req.Header.Values("Impersonate-Group"))
		c := model.Classify(r)
		w.Header().Set("X-Kubernetes-PF-FlowSchema-UID", string(c.Schema.UID))
		w.Header().Set("X-Kubernetes-PF-PriorityLevel-UID", string(c.Level.UID))
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return &labcheck.Cluster{Config: &rest.Config{Host: srv.URL}, Kube: client, NoAudit: "this cluster is a fake."}
}

// dangling marks a FlowSchema document Dangling=True, as the server does
// when the schema's level does not exist.
func dangling(doc string) string {
	return doc + "status:\n  conditions:\n  - type: Dangling\n    status: \"True\"\n    reason: NotFound\n    message: This FlowSchema references the PriorityLevelConfiguration object named \"apf-lab-runway\" but there is no such object\n"
}

// TestChecksOnFakeCluster runs the checks that need no metrics, whole,
// on fake clusters: the lab's solution passes each, and each mistake
// fails the check that judges it, with a message that names what is
// wrong.
func TestChecksOnFakeCluster(t *testing.T) {
	byID := map[string]labcheck.Check{}
	for _, c := range Checks() {
		byID[c.ID] = c
	}
	for _, id := range []string{isolated, narrow, tie, exempt} {
		if byID[id].Run == nil {
			t.Fatalf("Checks() has no check %s", id)
		}
	}
	// apf-runaway-level-narrow reads the server's /metrics, which a fake
	// clientset cannot serve: its judge is tested in judge_test.go.
	checks := []string{isolated, tie, exempt}
	for _, tc := range []struct {
		name, reason string
		docs         []string
		// fail maps a check to a phrase its failure must contain; the
		// other checks must pass.
		fail map[string]string
	}{
		{"reference solution", "the lab's level, schema and tie",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", "tie.yaml"}, nil},
		{"schema after service-accounts", "precedence 9500 comes after service-accounts (9000), which keeps the operator",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 9500, runawaySubject, allRules)},
			map[string]string{isolated: "still go to the default schema service-accounts and level workload-low",
				exempt: "none of the 3 schemas you added takes any of the runaway operator's requests"}},
		{"schema for every authenticated user", "the operator's schema takes everyone's requests",
			[]string{"runaway-level.yaml", "tie.yaml", schemaDoc("apf-lab-runaway", 500, everyone, allRules)},
			map[string]string{isolated: "schema apf-lab-runaway also takes", tie: "only apf-lab-runaway matches the tie probe's"}},
		{"schema to exempt", "nothing limits the operator",
			[]string{"runaway-level.yaml", "tie.yaml", strings.Replace(schemaDoc("apf-lab-runaway", 500, runawaySubject, allRules), "name: apf-lab-runaway\n  rules", "name: exempt\n  rules", 1)},
			map[string]string{isolated: "go to exempt through apf-lab-runaway", exempt: "requests matched by apf-lab-runaway go to exempt"}},
		{"schema naming a missing level", "a typo in the level's name: the server ignores the schema",
			[]string{"runaway-level.yaml", "tie.yaml", dangling(strings.Replace(schemaDoc("apf-lab-runaway", 500, runawaySubject, allRules), "name: apf-lab-runaway\n  rules", "name: apf-lab-runway\n  rules", 1))},
			map[string]string{isolated: "still go to the default schema service-accounts", exempt: "the server ignores apf-lab-runaway (status Dangling)"}},
		{"workload-low as step 8 leaves it", "fewer shares for a default, kept by the annotation, widen nothing",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", "tie.yaml", workloadLow(90, 90, "")}, nil},
		{"global-default to exempt", "a default schema kept pointed at exempt: every person's requests go unlimited",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", "tie.yaml", globalDefaultExemptDoc},
			map[string]string{isolated: "the server's FlowSchema global-default is changed", exempt: "global-default is changed (priorityLevelConfiguration exempt"}},
		{"no tie", "one schema for the tie probe: nothing to break the tie",
			[]string{"runaway-level.yaml", "runaway-schema.yaml", schemaDoc("apf-lab-tie-a", 600, tieSubject, allRules)},
			map[string]string{tie: "only apf-lab-tie-a matches the tie probe's"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCluster(t, tc.docs...)
			for _, id := range checks {
				res, err := byID[id].Run(context.Background(), c)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				phrase, mustFail := tc.fail[id]
				switch {
				case !mustFail && !res.Pass:
					t.Errorf("%s failed with %q, want a pass (%s)\n%s", id, res.Message, tc.reason, strings.Join(res.Evidence, "\n"))
				case mustFail && res.Pass:
					t.Errorf("%s passed with %q, want a failure that says %q (%s)", id, res.Message, phrase, tc.reason)
				case mustFail && !strings.Contains(res.Message, phrase):
					t.Errorf("%s failed with %q, want it to say %q (%s)", id, res.Message, phrase, tc.reason)
				}
			}
		})
	}
}

// readDocs reads the flow-control objects of docs, each the name of a file
// of the lab or a YAML document of its own.
func readDocs(t *testing.T, docs ...string) kube.Objects {
	t.Helper()
	var files []string
	for i, d := range docs {
		if !strings.Contains(d, "\n") { // a file of the lab
			files = append(files, filepath.Join("..", "lab", d))
			continue
		}
		f := filepath.Join(t.TempDir(), fmt.Sprintf("doc%d.yaml", i))
		if err := os.WriteFile(f, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	objs, err := kube.ReadFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}
