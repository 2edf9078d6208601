package kube

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/opslab/opslab/internal/kubeio"
)

func TestParseNominalSeats(t *testing.T) {
	metrics := `# HELP apiserver_flowcontrol_nominal_limit_seats [BETA] Nominal number of execution seats configured for each priority level
# TYPE apiserver_flowcontrol_nominal_limit_seats gauge
apiserver_flowcontrol_nominal_limit_seats{priority_level="catch-all"} 13
apiserver_flowcontrol_nominal_limit_seats{priority_level="exempt"} 0
apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245
apiserver_flowcontrol_nominal_limit_seats_sum 3
`
	got, err := ParseNominalSeats([]byte(metrics))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"catch-all": 13, "exempt": 0, "workload-low": 245}, got); diff != "" {
		t.Errorf("ParseNominalSeats (-want +got):\n%s", diff)
	}
	if _, err := ParseNominalSeats([]byte("up 1\n")); err == nil {
		t.Error("ParseNominalSeats of metrics without the gauge: no error, want one")
	}
}

func TestParseLevelLimits(t *testing.T) {
	metrics := `apiserver_flowcontrol_nominal_limit_seats{priority_level="apf-lab-runaway"} 12
apiserver_flowcontrol_lower_limit_seats{priority_level="apf-lab-runaway"} 12
apiserver_flowcontrol_upper_limit_seats{priority_level="apf-lab-runaway"} 612
apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 240
`
	got, err := ParseLevelLimits([]byte(metrics))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]SeatLimits{
		"apf-lab-runaway": {Nominal: 12, Lower: 12, Upper: 612, Bounded: true},
		"workload-low":    {Nominal: 240},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseLevelLimits (-want +got):\n%s", diff)
	}
}

func TestRequestLine(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		req          Request
		method, path string
		query        url.Values
	}{
		{"list core", "", Request{Verb: "list", Resource: "configmaps", Namespace: "apf-lab"}, "GET", "/api/v1/namespaces/apf-lab/configmaps", url.Values{}},
		{"get subresource", "a named object", Request{Verb: "get", APIGroup: "apps", Resource: "deployments", Subresource: "scale", Namespace: "x"}, "GET", "/apis/apps/v1/namespaces/x/deployments/apf-probe/scale", url.Values{}},
		{"create", "mutations are dry-run", Request{Verb: "create", Resource: "pods", Namespace: "x"}, "POST", "/api/v1/namespaces/x/pods", url.Values{"dryRun": {"All"}}},
		{"create subresource", "a binding or an eviction is created under its pod", Request{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "x"}, "POST", "/api/v1/namespaces/x/pods/apf-probe/eviction", url.Values{"dryRun": {"All"}}},
		{"cluster scope delete", "", Request{Verb: "delete", Resource: "nodes"}, "DELETE", "/api/v1/nodes/apf-probe", url.Values{"dryRun": {"All"}}},
		{"watch", "watch ends after a second if allowed", Request{Verb: "watch", Resource: "pods"}, "GET", "/api/v1/pods", url.Values{"watch": {"true"}, "timeoutSeconds": {"1"}}},
		{"watch by name", "a named watch asks with a field selector, which the server reads back as the name", Request{Verb: "watch", Resource: "pods", Namespace: "x", Name: "web-1"}, "GET", "/api/v1/namespaces/x/pods", url.Values{"watch": {"true"}, "timeoutSeconds": {"1"}, "fieldSelector": {"metadata.name=web-1"}}},
		{"non-resource", "", Request{Verb: "get", Path: "/healthz"}, "GET", "/healthz", url.Values{}},
		{"namespace by name", "the name goes in the path", Request{Verb: "get", Resource: "namespaces", Name: "apf-lab"}, "GET", "/api/v1/namespaces/apf-lab", url.Values{}},
		{"empty resource", "the double slash stays", Request{Verb: "get", Name: "pods"}, "GET", "/api/v1//pods", url.Values{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, p, q, err := RequestLine(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if m != tc.method || p != tc.path || !cmp.Equal(tc.query, q) {
				t.Errorf("RequestLine = %s %s?%s, want %s %s?%s (%s)", m, p, q.Encode(), tc.method, tc.path, tc.query.Encode(), tc.reason)
			}
		})
	}
}

func TestSeenReadsTheRequestLine(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		req, want    Request
	}{
		{"namespace by name", "the server reads the Namespace's name as the request's namespace",
			Request{User: "u", Verb: "get", Resource: "namespaces", Name: "apf-lab"},
			Request{User: "u", Verb: "get", Resource: "namespaces", Name: "apf-lab", Namespace: "apf-lab"}},
		{"empty resource", "", Request{User: "u", Verb: "get", Name: "pods"}, Request{User: "u", Verb: "get", Name: "pods"}},
		{"probe name", "a get without a name asks for apf-probe", Request{Verb: "get", Resource: "pods", Namespace: "x"},
			Request{Verb: "get", Resource: "pods", Namespace: "x", Name: ProbeName}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Seen(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Seen(%+v) (-want +got): %s\n%s", tc.req, tc.reason, diff)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		req          Request
		want         string
	}{
		{"namespaced", "", Request{User: "u", Verb: "list", Resource: "configmaps", Namespace: "apf-lab"}, "list configmaps -n apf-lab"},
		{"cluster scope", "a list of pods in every namespace has no namespace", Request{Verb: "list", Resource: "pods"}, "list pods at cluster scope"},
		{"group and subresource", "", Request{Verb: "update", APIGroup: "apps", Resource: "deployments", Subresource: "scale", Namespace: "x", Name: "web"}, "update apps/deployments/scale web -n x"},
		{"namespace by name", "the server files it under its own name", Request{Verb: "get", Resource: "namespaces", Name: "apf-lab", Namespace: "apf-lab"}, "get namespaces apf-lab -n apf-lab"},
		{"non-resource", "", Request{Verb: "get", Path: "/apis"}, "get /apis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe(tc.req); got != tc.want {
				t.Errorf("Describe(%+v) = %q, want %q (%s)", tc.req, got, tc.want, tc.reason)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		yaml         string
		schemas      []string // the schemas read, or
		err          string   // the error
	}{
		{"typed list", "kubectl get flowschemas -o yaml of an older kubectl: items without kind",
			"apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchemaList\nitems:\n- metadata: {name: a}\n  spec: {priorityLevelConfiguration: {name: global-default}}\n",
			[]string{"a"}, ""},
		{"old apiVersion", "only v1 is read",
			"apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata: {name: a}\nspec: {priorityLevelConfiguration: {name: global-default}}\n",
			nil, `f.yaml: apiVersion "flowcontrol.apiserver.k8s.io/v1beta3"; want flowcontrol.apiserver.k8s.io/v1`},
		{"unknown field in an item", "the item is named",
			"apiVersion: v1\nkind: List\nitems:\n- apiVersion: flowcontrol.apiserver.k8s.io/v1\n  kind: FlowSchema\n  metadata: {name: a}\n  spec: {level: x}\n",
			nil, `f.yaml, item 1: unknown field "level"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := kubeio.Parse("f.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			objs, err := Decode(docs)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Decode = %v, want error %q (%s)", err, tc.err, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v (%s)", err, tc.reason)
			}
			var got []string
			for _, fs := range objs.Schemas {
				got = append(got, fs.Name)
			}
			if diff := cmp.Diff(tc.schemas, got); diff != "" {
				t.Errorf("Decode: schemas (-want +got): %s\n%s", tc.reason, diff)
			}
		})
	}
}
