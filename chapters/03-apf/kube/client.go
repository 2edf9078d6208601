package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/internal/kubeio"
)

// Objects are the flow-control objects of a cluster or of files.
type Objects struct {
	Schemas []*flowcontrol.FlowSchema
	Levels  []*flowcontrol.PriorityLevelConfiguration
}

// Config digests the objects into a Config.
func (o Objects) Config() (*Config, error) { return NewConfig(o.Schemas, o.Levels) }

// Load lists the FlowSchemas and PriorityLevelConfigurations of a cluster.
func Load(ctx context.Context, client kubernetes.Interface) (Objects, error) {
	var o Objects
	fss, err := client.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
	if err != nil {
		return o, fmt.Errorf("listing FlowSchemas: %w", err)
	}
	pls, err := client.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return o, fmt.Errorf("listing PriorityLevelConfigurations: %w", err)
	}
	for i := range fss.Items {
		o.Schemas = append(o.Schemas, &fss.Items[i])
	}
	for i := range pls.Items {
		o.Levels = append(o.Levels, &pls.Items[i])
	}
	return o, nil
}

// ReadFiles reads FlowSchemas and PriorityLevelConfigurations from YAML or
// JSON files ("-" is stdin), as [Decode] reads them.
func ReadFiles(names []string, stdin io.Reader) (Objects, error) {
	docs, err := kubeio.ReadFiles(names, stdin)
	if err != nil {
		return Objects{}, err
	}
	return Decode(docs)
}

// Decode reads FlowSchemas and PriorityLevelConfigurations from the
// documents of manifest files: one object per document, or a List of them
// as kubectl get -o yaml prints. The objects get the API server's defaults
// and its validation; an unknown field, an unknown kind or an invalid
// object is an error that names the document.
func Decode(docs []kubeio.Document) (Objects, error) {
	var o Objects
	for _, d := range docs {
		if err := o.add(d); err != nil {
			return o, err
		}
	}
	SetDefaults(o.Schemas, o.Levels)
	for _, fs := range o.Schemas {
		if err := ValidateFlowSchema(fs); err != nil {
			return o, err
		}
	}
	for _, pl := range o.Levels {
		if err := ValidateLevel(pl); err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o *Objects) add(d kubeio.Document) error {
	switch d.Kind {
	case "List", "FlowSchemaList", "PriorityLevelConfigurationList":
		var list struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   map[string]any    `json:"metadata,omitempty"`
			Items      []json.RawMessage `json:"items"`
		}
		if err := d.Decode(&list); err != nil {
			return err
		}
		for i, raw := range list.Items {
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := json.Unmarshal(raw, &meta); err != nil {
				return fmt.Errorf("%s, item %d: not an object", d.Source, i+1)
			}
			item := kubeio.Document{Source: fmt.Sprintf("%s, item %d", d.Source, i+1), APIVersion: meta.APIVersion, Kind: meta.Kind, JSON: raw}
			if item.Kind == "" { // a typed list's items may leave their kind out
				item.APIVersion, item.Kind = d.APIVersion, strings.TrimSuffix(d.Kind, "List")
			}
			if err := o.add(item); err != nil {
				return err
			}
		}
		return nil
	case "FlowSchema":
		var fs flowcontrol.FlowSchema
		if err := decodeFlowControl(d, &fs); err != nil {
			return err
		}
		o.Schemas = append(o.Schemas, &fs)
	case "PriorityLevelConfiguration":
		var pl flowcontrol.PriorityLevelConfiguration
		if err := decodeFlowControl(d, &pl); err != nil {
			return err
		}
		o.Levels = append(o.Levels, &pl)
	default:
		return fmt.Errorf("%s: kind %s; want a FlowSchema, a PriorityLevelConfiguration or a List of them", d.Source, d.Kind)
	}
	return nil
}

// decodeFlowControl decodes d, an object of flowcontrol.apiserver.k8s.io/v1.
func decodeFlowControl(d kubeio.Document, into any) error {
	if d.APIVersion != flowcontrol.SchemeGroupVersion.String() {
		return fmt.Errorf("%s: apiVersion %q; want %s", d.Source, d.APIVersion, flowcontrol.SchemeGroupVersion)
	}
	return d.Decode(into)
}

// NominalSeats reads apiserver_flowcontrol_nominal_limit_seats from the
// server's /metrics: the nominal seats of each priority level.
func NominalSeats(ctx context.Context, client kubernetes.Interface) (map[string]int, error) {
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	return ParseNominalSeats(body)
}

// ParseNominalSeats reads apiserver_flowcontrol_nominal_limit_seats from a
// Prometheus text exposition.
func ParseNominalSeats(metrics []byte) (map[string]int, error) {
	out, err := parseLevelGauge(metrics, "apiserver_flowcontrol_nominal_limit_seats")
	if err == nil && len(out) == 0 {
		err = errors.New("no apiserver_flowcontrol_nominal_limit_seats in /metrics")
	}
	return out, err
}

// SeatLimits are a priority level's seats as the server reports them:
// its nominal seats and the bounds of its current limit, Lower (nominal
// less what it lends, apiserver_flowcontrol_lower_limit_seats) and Upper
// (nominal plus what it may borrow, apiserver_flowcontrol_upper_limit_seats).
// Bounded says whether the server reported the bounds: they are ALPHA
// metrics, which a server may leave out.
type SeatLimits struct {
	Nominal, Lower, Upper int
	Bounded               bool
}

// LevelLimits reads each priority level's SeatLimits from the server's
// /metrics.
func LevelLimits(ctx context.Context, client kubernetes.Interface) (map[string]SeatLimits, error) {
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	return ParseLevelLimits(body)
}

// ParseLevelLimits reads each priority level's SeatLimits from a
// Prometheus text exposition. A level is Bounded when both bounds are
// there.
func ParseLevelLimits(metrics []byte) (map[string]SeatLimits, error) {
	nominal, err := ParseNominalSeats(metrics)
	if err != nil {
		return nil, err
	}
	lower, err := parseLevelGauge(metrics, "apiserver_flowcontrol_lower_limit_seats")
	if err != nil {
		return nil, err
	}
	upper, err := parseLevelGauge(metrics, "apiserver_flowcontrol_upper_limit_seats")
	if err != nil {
		return nil, err
	}
	out := map[string]SeatLimits{}
	for l, n := range nominal {
		lo, okLo := lower[l]
		up, okUp := upper[l]
		out[l] = SeatLimits{Nominal: n, Lower: lo, Upper: up, Bounded: okLo && okUp}
	}
	return out, nil
}

// parseLevelGauge reads a gauge labelled by priority_level from a
// Prometheus text exposition.
func parseLevelGauge(metrics []byte, gauge string) (map[string]int, error) {
	name := gauge + "{"
	out := map[string]int{}
	for _, line := range strings.Split(string(metrics), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			return nil, fmt.Errorf("metric line %q has no value", line)
		}
		level := ""
		for _, l := range strings.Split(labels, ",") {
			if v, ok := strings.CutPrefix(l, `priority_level="`); ok {
				level = strings.TrimSuffix(v, `"`)
			}
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || level == "" {
			return nil, fmt.Errorf("metric line %q: want priority_level and a number", line)
		}
		out[level] = int(f)
	}
	return out, nil
}

// A Probe is what the server said about one request.
type Probe struct {
	Status        int    // the HTTP status, often 403: classification comes before authorization
	FlowSchemaUID string // X-Kubernetes-PF-FlowSchema-UID
	LevelUID      string // X-Kubernetes-PF-PriorityLevel-UID
	RetryAfter    string // Retry-After, which a 429 carries
}

// Send sends r to the server of cfg as the user and groups of r
// (impersonation: cfg's user needs the impersonate permission) and returns
// the status and the classification headers. r.Groups are sent exactly as
// given, as Impersonate-Group headers: the server then adds what
// Impersonated says it adds, so classify the request with
// Impersonated(r.User, r.Groups). Mutating verbs are sent with
// dryRun=All, so a request that happens to be allowed changes nothing;
// watch is sent with timeoutSeconds=1.
func Send(ctx context.Context, cfg *rest.Config, r Request) (Probe, error) {
	return SendWithin(ctx, cfg, r, 0)
}

// SendWithin is Send with the request's server-side deadline set to d (the
// timeout query parameter) when d > 0. A request may wait in an APF queue
// a quarter of its deadline, so a request to a level that cannot run it
// comes back as 429 after d/4 instead of 15 s.
func SendWithin(ctx context.Context, cfg *rest.Config, r Request, d time.Duration) (Probe, error) {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: r.User, Groups: r.Groups}
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		return Probe{}, err
	}
	method, p, query, err := RequestLine(r)
	if err != nil {
		return Probe{}, err
	}
	u, err := url.Parse(strings.TrimSuffix(c.Host, "/") + c.APIPath)
	if err != nil {
		return Probe{}, err
	}
	u.Path = p
	if d > 0 {
		query.Set("timeout", d.String())
	}
	u.RawQuery = query.Encode()
	var body io.Reader
	if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return Probe{}, err
	}
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	} else if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Probe{}, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return ProbeOf(resp), nil
}

// ProbeOf reads what the server said about a request from its answer: the
// status, the UIDs of the FlowSchema and the priority level that APF
// chose (none when the request never reached APF), and a 429's
// Retry-After.
func ProbeOf(resp *http.Response) Probe {
	return Probe{
		Status:        resp.StatusCode,
		FlowSchemaUID: resp.Header.Get(flowcontrol.ResponseHeaderMatchedFlowSchemaUID),
		LevelUID:      resp.Header.Get(flowcontrol.ResponseHeaderMatchedPriorityLevelConfigurationUID),
		RetryAfter:    resp.Header.Get("Retry-After"),
	}
}

// groupVersions gives the version used in paths for a few API groups; any
// other group is sent as v1, which is enough for the server to classify it.
var groupVersions = map[string]string{"": "v1", "autoscaling": "v2"}

// Seen returns the request the API server sees when Send sends r: r's
// user and groups, and what ParseRequest reads from its request line.
// It differs from r where the path says something else, as for a
// Namespace fetched by name, whose namespace is its name.
func Seen(r Request) (Request, error) {
	method, p, query, err := RequestLine(r)
	if err != nil {
		return Request{}, err
	}
	seen := ParseRequest(method, p, query)
	seen.User, seen.Groups = r.User, r.Groups
	return seen, nil
}

// byName asks a list or watch for one object, as kubectl get NAME --watch
// does, with the field selector the server reads the request's name from.
func byName(query url.Values, name string) {
	if name != "" {
		query.Set("fieldSelector", "metadata.name="+name)
	}
}

// ProbeName is the object name RequestLine uses for a request for one
// object when r names none.
const ProbeName = "apf-probe"

// RequestLine returns the method, path and query that make the API server
// see r's verb, resource and namespace. A request for one object names
// r.Name, or ProbeName; a list or watch with a name asks for it with a
// field selector on metadata.name. The resource may be "": GET /api/v1//pods is a
// request for resource "" named "pods".
func RequestLine(r Request) (method, p string, query url.Values, err error) {
	query = url.Values{}
	if !r.IsResourceRequest() {
		if !strings.HasPrefix(r.Path, "/") {
			return "", "", nil, fmt.Errorf("non-resource path %q does not start with /", r.Path)
		}
		m := strings.ToUpper(r.Verb)
		switch m {
		case "GET", "HEAD", "OPTIONS":
		case "POST", "PUT", "PATCH", "DELETE":
			query.Set("dryRun", "All")
		default:
			return "", "", nil, fmt.Errorf("verb %q is not an HTTP method of a non-resource request", r.Verb)
		}
		return m, r.Path, query, nil
	}
	if r.Resource == "" && r.Name == "" {
		return "", "", nil, errors.New(`a request for resource "" needs a name: /api/v1//NAME`)
	}
	version := groupVersions[r.APIGroup]
	if version == "" {
		version = "v1"
	}
	parts := []string{"/apis", r.APIGroup, version}
	if r.APIGroup == "" {
		parts = []string{"/api", "v1"}
	}
	if r.Namespace != "" {
		parts = append(parts, "namespaces", r.Namespace)
	}
	parts = append(parts, r.Resource)
	named := func() {
		name := r.Name
		if name == "" {
			name = ProbeName
		}
		parts = append(parts, name)
		if r.Subresource != "" {
			parts = append(parts, r.Subresource)
		}
	}
	switch r.Verb {
	case "get":
		method = http.MethodGet
		named()
	case "list":
		method = http.MethodGet
		byName(query, r.Name)
	case "watch":
		method = http.MethodGet
		query.Set("watch", "true")
		query.Set("timeoutSeconds", "1")
		byName(query, r.Name)
	case "create":
		method = http.MethodPost
		query.Set("dryRun", "All")
		if r.Subresource != "" { // such as pods/NAME/binding or pods/NAME/eviction
			named()
		}
	case "update":
		method = http.MethodPut
		query.Set("dryRun", "All")
		named()
	case "patch":
		method = http.MethodPatch
		query.Set("dryRun", "All")
		named()
	case "delete":
		method = http.MethodDelete
		query.Set("dryRun", "All")
		named()
	case "deletecollection":
		method = http.MethodDelete
		query.Set("dryRun", "All")
	default:
		return "", "", nil, fmt.Errorf("verb %q: want get, list, watch, create, update, patch, delete or deletecollection", r.Verb)
	}
	if r.Subresource != "" && (r.Verb == "list" || r.Verb == "watch" || r.Verb == "deletecollection") {
		return "", "", nil, fmt.Errorf("a %s request has no subresource %q: only requests for one object do", r.Verb, r.Subresource)
	}
	// Joined by hand, not with path.Join, which would turn the "//" of an
	// empty resource into "/".
	return method, strings.Join(parts, "/"), query, nil
}

// ByUID maps the UIDs of objects to their names.
func (o Objects) ByUID() (schemas, levels map[string]string) {
	schemas, levels = map[string]string{}, map[string]string{}
	for _, fs := range o.Schemas {
		schemas[string(fs.UID)] = fs.Name
	}
	for _, pl := range o.Levels {
		levels[string(pl.UID)] = pl.Name
	}
	return schemas, levels
}

// SortedSchemas returns the schemas in matching order.
func (o Objects) SortedSchemas() []*flowcontrol.FlowSchema {
	out := append([]*flowcontrol.FlowSchema(nil), o.Schemas...)
	sort.SliceStable(out, func(i, j int) bool { return Before(out[i], out[j]) })
	return out
}

// Describe names a request without its sender, as a line of evidence
// reads it: "list configmaps -n apf-lab", "list pods at cluster scope",
// "get namespaces apf-lab -n apf-lab", "get /apis".
func Describe(r Request) string {
	if !r.IsResourceRequest() {
		return r.Verb + " " + r.Path
	}
	s := r.Verb + " "
	if r.APIGroup != "" {
		s += r.APIGroup + "/"
	}
	s += r.Resource
	if r.Subresource != "" {
		s += "/" + r.Subresource
	}
	if r.Name != "" {
		s += " " + r.Name
	}
	if r.Namespace == "" {
		return s + " at cluster scope"
	}
	return s + " -n " + r.Namespace
}
