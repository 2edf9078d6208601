package labcheck

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/labcheck/version"
)

// TestVersionWarning: a report warns when the cluster runs another
// Kubernetes version than the course teaches, and only then.
func TestVersionWarning(t *testing.T) {
	tests := []struct {
		name, server string
		warn         bool
		reason       string
	}{
		{"the course's", version.Kubernetes, false, "the lab cluster make lab-up builds from this checkout"},
		{"the course's, built by someone else", version.Kubernetes + "+k3s1", false, "build metadata names the builder, not another release"},
		{"another patch", "v1.36.0", true, "a cluster built from an older checkout's pins"},
		{"another minor", "v1.35.2", true, "a release whose behaviour the labs were not written for"},
		{"unknown", "", false, "a server that did not say is not said to differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := VersionWarning(tt.server)
			if (got != "") != tt.warn {
				t.Errorf("VersionWarning(%q) = %q, want a warning: %v (%s)", tt.server, got, tt.warn, tt.reason)
			}
		})
	}
}

// TestReportWarnsOfAnotherVersion: on a cluster whose /version answers
// another release than the course's, the report carries one warning line
// that names both versions and the fix; it is not a failure, and the score
// is the checks' alone.
func TestReportWarnsOfAnotherVersion(t *testing.T) {
	const other = "v1.35.2"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			fmt.Fprintf(w, `{"major":"1","minor":"35","gitVersion":%q}`, other)
		case "/api/v1/namespaces/kube-system":
			fmt.Fprint(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"kube-system","uid":"uid-1"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := NewCluster(&rest.Config{Host: srv.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	id, err := Identify(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	pass := Check{Chapter: 1, ID: "a", Title: "A", Points: 2}
	r := NewReport(id, []Chapter{{Number: 1, Title: "One"}}, []Outcome{{Check: pass, Result: Result{Pass: true, Message: "ok"}}}, time.Second)
	if len(r.Warnings) != 1 {
		t.Fatalf("Warnings = %q, want one line", r.Warnings)
	}
	for _, want := range []string{other, version.Kubernetes, "make lab-reset"} {
		if !strings.Contains(r.Warnings[0], want) {
			t.Errorf("warning %q does not say %q", r.Warnings[0], want)
		}
	}
	if r.Score != 2 || r.MaxScore != 2 {
		t.Errorf("score %d/%d, want 2/2: a warning is not a failure", r.Score, r.MaxScore)
	}
	var b strings.Builder
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "\nWarning: " + r.Warnings[0] + "\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the text report lacks the line %q:\n%s", want, b.String())
	}
}

// TestReportNamesItsLabcheck: a report records the labcheck that made it,
// under the digest, so that a grader's report cannot be passed off as
// another labcheck's.
func TestReportNamesItsLabcheck(t *testing.T) {
	r := sampleReport()
	if want := version.Read().Short(); r.Labcheck != want {
		t.Errorf("Labcheck = %q, want %q", r.Labcheck, want)
	}
	r.Seal(nil)
	r.Labcheck = "v0.0.1"
	if err := r.Verify(nil); err != ErrEdited {
		t.Errorf("Verify after changing the labcheck version = %v, want %v", err, ErrEdited)
	}
}
