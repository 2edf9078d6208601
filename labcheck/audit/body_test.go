package audit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestDryRunInBody: kubectl and client-go name an eviction's dry run in its
// body, not in the URI; where the policy keeps the body (level Request),
// the event is a dry run and was not stored. A body without a dry run
// leaves the event stored, and an event without a body is judged by its URI.
func TestDryRunInBody(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	evict := func(body string) Event {
		e := Event{Received: t0, Time: t0, User: "opslab:learner", Verb: "create", Resource: "pods", Subresource: "eviction",
			Namespace: "pdb-lab", Name: "web-1", URI: "/api/v1/namespaces/pdb-lab/pods/web-1/eviction", Code: 201}
		if body != "" {
			e.Request = json.RawMessage(body)
		}
		return e
	}
	for _, tc := range []struct {
		name, body string
		dry        bool
	}{
		{"dry run in the eviction's deleteOptions", `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web-1","namespace":"pdb-lab"},"deleteOptions":{"dryRun":["All"]}}`, true},
		{"dry run in a delete's options", `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`, true},
		{"an eviction that was meant", `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web-1","namespace":"pdb-lab"}}`, false},
		{"empty deleteOptions", `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web-1"},"deleteOptions":{}}`, false},
		{"no body kept", "", false},
	} {
		var b strings.Builder
		if err := Write(&b, evict(tc.body)); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(strings.NewReader(b.String()))
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: Parse = %v, %v", tc.name, got, err)
		}
		if got[0].DryRun != tc.dry || got[0].OK() == tc.dry {
			t.Errorf("%s: DryRun = %v, OK = %v; want DryRun %v", tc.name, got[0].DryRun, got[0].OK(), tc.dry)
		}
	}
}

// TestResponseKept: a request logged at level RequestResponse keeps the
// object the server answered with, a pod as a change left it.
func TestResponseKept(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	e := Event{Received: t0, Time: t0, User: "opslab:learner", Verb: "patch", Resource: "pods", Namespace: "pdb-lab", Name: "web-1",
		URI: "/api/v1/namespaces/pdb-lab/pods/web-1", Code: 200,
		Request:  json.RawMessage(`{"metadata":{"labels":{"app":"web-old"}}}`),
		Response: json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","labels":{"app":"web-old"}}}`)}
	var b strings.Builder
	if err := Write(&b, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"level":"RequestResponse"`) {
		t.Errorf("Write: %s, want level RequestResponse", b.String())
	}
	got, err := Parse(strings.NewReader(b.String()))
	if err != nil || len(got) != 1 {
		t.Fatalf("Parse = %v, %v", got, err)
	}
	if string(got[0].Response) != string(e.Response) {
		t.Errorf("Response = %s, want %s", got[0].Response, e.Response)
	}
}
