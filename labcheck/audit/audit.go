// Package audit reads the lab cluster's audit log: one line per request the
// API server completed, with who asked (user, impersonation, user agent),
// what (verb, resource, subresource, object), when, and the status code of
// the answer. The lab's policy is lab/audit-policy.yaml.
//
// It is the checks' ground truth for who did what. An object, a label or an
// Event can be written by anyone with the right role; the audit log cannot
// be written through the API at all, and each component's requests carry
// its own identity: the lab's controller manager runs each controller under
// its service account (--use-service-account-credentials, as kubeadm's
// does), and the scheduler, the controller manager and kwok authenticate
// with certificates of their own (lab/scripts/pki.sh). A request is judged
// by the user the API server authenticated, never by its user agent, which
// any client sets: an Event's agent is a Hint, for a person to read.
//
// Where no log is reachable (a student graded from afar, a cluster created
// before the lab kept one), Locate says why, and the checks judge from the
// API alone and say so in their evidence.
//
// See https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/ for the
// format (audit.k8s.io/v1 Event).
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// The identities under which the lab's control plane acts. kube-controller-
// manager gives each controller the credentials of its own service account
// in kube-system (cmd/kube-controller-manager/app/core.go, NewClient); the
// taint eviction controller borrows the node lifecycle controller's ("taint-
// manager uses existing cluster role from node-controller").
const (
	NodeController        = "system:serviceaccount:kube-system:node-controller"
	TaintEviction         = NodeController
	PodGC                 = "system:serviceaccount:kube-system:pod-garbage-collector"
	DisruptionController  = "system:serviceaccount:kube-system:disruption-controller"
	ReplicaSetController  = "system:serviceaccount:kube-system:replicaset-controller"
	StatefulSetController = "system:serviceaccount:kube-system:statefulset-controller"
	DaemonSetController   = "system:serviceaccount:kube-system:daemon-set-controller"
	DeploymentController  = "system:serviceaccount:kube-system:deployment-controller"
)

// controllerPrefix is the prefix of every controller's identity.
const controllerPrefix = "system:serviceaccount:kube-system:"

// An Identity is a user the lab's components authenticate as: the subject
// of a client certificate the lab's CA signed for that component alone
// (lab/scripts/pki.sh writes them; the names must agree).
type Identity string

const (
	// Scheduler is kube-scheduler's user, the one Kubernetes' default
	// RBAC binds the scheduler's role to.
	Scheduler Identity = "system:kube-scheduler"
	// ControllerManager is kube-controller-manager's own user: it asks
	// for its controllers' tokens under it, and each controller then acts
	// under its service account.
	ControllerManager Identity = "system:kube-controller-manager"
	// NodeAgent is kwok's user: kwok plays every node's kubelet.
	NodeAgent Identity = "opslab:kwok"
	// APIServer is the API server's own loopback client.
	APIServer Identity = "system:apiserver"
)

// Components are the lab's components known by their credentials.
var Components = []Identity{Scheduler, ControllerManager, NodeAgent, APIServer}

// A Hint is a request's user agent: what the client said it was. Any
// client chooses its own ("curl -A kube-scheduler/v1.0.0"), so a check
// prints it beside the user and never decides by it; the type has no
// comparison and no way to read it back but String, and
// TestNoCheckReadsAnAgent keeps the checks from calling that.
type Hint struct {
	s string
	_ [0]func() // not comparable: == on a Hint does not compile
}

// AgentHint is the hint of a request sent with user agent s.
func AgentHint(s string) Hint { return Hint{s: s} }

// String is the agent as the client sent it.
func (h Hint) String() string { return h.s }

// program is the agent's first part, "kubectl" of "kubectl/v1.0.0 (…)".
func (h Hint) program() string {
	p, _, _ := strings.Cut(h.s, "/")
	return p
}

// An Event is one request the API server completed.
type Event struct {
	Received time.Time // when the request arrived
	Time     time.Time // when the response was complete

	User         string   // the authenticated user
	Groups       []string // the authenticated user's groups
	Impersonated string   // the user it acted as with --as, or ""
	Agent        Hint     // the client's user agent: a hint for evidence, never a proof

	// Borrowed is set (by MarkBorrowed, Log.Window) on a request of a
	// kube-system service account after someone other than the controller
	// manager asked for a token of that account (or made a secret in
	// kube-system, which can hold any of their tokens): from then on the
	// account's requests may be a person's, and none of them counts as the
	// controller's.
	Borrowed bool

	Verb        string // get, list, watch, create, update, patch, delete, deletecollection
	Group       string // the API group; "" for the core group
	Resource    string // "pods"
	Subresource string // "eviction", "binding", "status", or ""
	Namespace   string
	Name        string
	UID         string // the object's UID when the request names one: a binding names its pod's
	URI         string
	Code        int  // the response's status code
	DryRun      bool // asked with dryRun, in the URI or in a logged body: nothing was stored

	// Request is the request's body (requestObject) where the policy
	// logs it at level Request or above, nil elsewhere: a patch holds
	// only what it changes, as its client sent it.
	Request json.RawMessage
	// Response is the object the server answered with (responseObject)
	// where the policy logs it at level RequestResponse: a pod as a
	// change left it.
	Response json.RawMessage
}

// Actor is who the request acted as: the impersonated user if there was one,
// else the authenticated user.
func (e Event) Actor() string {
	if e.Impersonated != "" {
		return e.Impersonated
	}
	return e.User
}

// Is reports whether the request was verb on res, where res is a resource
// with an optional subresource: "pods", "pods/eviction".
func (e Event) Is(verb, res string) bool {
	r, sub, _ := strings.Cut(res, "/")
	return e.Verb == verb && e.Resource == r && e.Subresource == sub
}

// OK reports whether the server granted the request and stored its effect:
// a 2xx answer to a request that was not a dry run.
func (e Event) OK() bool { return e.Code >= 200 && e.Code < 300 && !e.DryRun }

// ByController reports whether the request came from a controller of the
// control plane under its own identity, without impersonation: a person
// with an admin kubeconfig cannot produce it without first minting that
// account's token, which the log also records (see Borrowed).
func (e Event) ByController(identity string) bool {
	return e.Impersonated == "" && e.User == identity && !e.Borrowed
}

// ByAController reports whether the request came from any of kube-system's
// service accounts under its own identity.
func (e Event) ByAController() bool {
	return e.Impersonated == "" && strings.HasPrefix(e.User, controllerPrefix) && !e.Borrowed
}

// By reports whether the component id sent the request, authenticated as
// itself and impersonating nobody.
func (e Event) By(id Identity) bool {
	return e.Impersonated == "" && e.User == string(id)
}

// The lab's control plane, as the log tells it from a person: by the user
// the API server authenticated. A request from any other user is a
// person's (or a person's script's), whatever agent it claims.

// FromScheduler reports whether kube-scheduler sent the request.
func (e Event) FromScheduler() bool { return e.By(Scheduler) }

// FromNodeAgent reports whether the agent that runs a node's pods sent the
// request: kwok in the lab, a kubelet (system:node:NAME) on a real node.
func (e Event) FromNodeAgent() bool {
	return e.By(NodeAgent) || e.Impersonated == "" && strings.HasPrefix(e.User, "system:node:") && slices.Contains(e.Groups, "system:nodes")
}

// FromControllerManager reports whether kube-controller-manager sent the
// request, under a controller's identity or its own.
func (e Event) FromControllerManager() bool {
	return e.By(ControllerManager) || e.ByAController()
}

// FromControlPlane reports whether a component of the control plane sent
// the request under its own name: a controller, the scheduler, the node
// agent or the API server itself. Anything else is a person's, or a
// person's script's; a request with --as always is.
func (e Event) FromControlPlane() bool {
	return e.FromControllerManager() || e.FromScheduler() || e.FromNodeAgent() || e.By(APIServer)
}

// Forged reports whether the request claims, in its agent, to come from a
// component of the control plane that did not send it: a hint worth a line
// in the evidence ("claims to be kube-scheduler"), never a judgement, since
// the request is a person's either way.
func (e Event) Forged() string {
	p := e.Agent.program()
	switch {
	case e.FromControlPlane():
		return ""
	case p == "kube-scheduler", p == "kube-controller-manager", p == "kwok-controller", p == "kube-apiserver", p == "kubelet":
		return p
	}
	return ""
}

// Who names the actor for a learner's report: "kwok-admin (kubectl)",
// "the taint eviction controller (system:serviceaccount:kube-system:node-controller)".
// A request that claims a component's agent it was not sent by says so:
// "kwok-admin (claims to be kube-scheduler)".
func (e Event) Who() string {
	agent := e.Agent.program()
	who := e.Actor()
	if e.Impersonated != "" {
		who = e.User + " as " + e.Impersonated
	}
	switch {
	case e.Forged() != "":
		who += " (claims to be " + agent + ")"
	case agent != "":
		who += " (" + agent + ")"
	}
	if e.Borrowed {
		who += " (with a borrowed token)"
	}
	return who
}

// String is one line for evidence: "12:03:41 kwok-admin (kubectl) create pods/eviction pdb-lab/web-1: 429".
func (e Event) String() string {
	res := e.Resource
	if e.Subresource != "" {
		res += "/" + e.Subresource
	}
	obj := e.Name
	if e.Namespace != "" {
		obj = e.Namespace + "/" + e.Name
	}
	dry := ""
	if e.DryRun {
		dry = " (dry run)"
	}
	return fmt.Sprintf("%s %s %s %s %s%s: %d", e.Time.UTC().Format("15:04:05"), e.Who(), e.Verb, res, obj, dry, e.Code)
}

// A Log is the requests of an audit log, in the order they completed: its
// rotated segments (Segments), oldest first, then the live file at Path.
type Log struct {
	Path     string
	Segments []string // the rotated segments read before Path, oldest first
	Events   []Event

	read int64       // bytes of Path read, up to the end of the last whole line
	file os.FileInfo // the file at Path when it was last read
}

// Segments returns the rotated segments of the audit log at path, oldest
// first. The API server's log backend (--audit-log-maxsize, -maxbackup)
// renames a full log NAME-TIMESTAMP.EXT beside it, the timestamp
// 2006-01-02T15-04-05.000, so the names sort by time.
func Segments(path string) []string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(stem)+"-[0-9][0-9][0-9][0-9]-*"+globEscape(ext)))
	sort.Strings(matches)
	return matches
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// readSegments reads the rotated segments, replacing every event read so
// far; Refresh then reads the live file from its start.
func (l *Log) readSegments() error {
	l.Segments, l.Events, l.read = Segments(l.Path), nil, 0
	for _, seg := range l.Segments {
		data, err := os.ReadFile(seg)
		if err != nil {
			return fmt.Errorf("cannot read the audit log's rotated segment %s: %v", seg, errors.Unwrap(err))
		}
		events, err := Parse(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("cannot read the audit log's rotated segment %s: %v", seg, err)
		}
		l.Events = append(l.Events, events...)
	}
	return nil
}

// Select returns the events for which keep is true, in order.
func (l *Log) Select(keep func(Event) bool) []Event {
	var out []Event
	for _, e := range l.Events {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Window returns a copy of the events since t (see Since) with Borrowed
// marked among them: a token asked for in this run of the lab makes its
// account's later requests a person's; one asked for before the run (an
// earlier attempt, a cheat tried and given up) does not.
func (l *Log) Window(t time.Time) []Event {
	events := slices.Clone(l.Since(t))
	MarkBorrowed(events)
	return events
}

// Since returns the events that completed at or after t: a check reads only
// what happened since its lab began (the lab's namespace was created), so
// what an earlier attempt or a test left in the log does not count.
func (l *Log) Since(t time.Time) []Event {
	i := sort.Search(len(l.Events), func(i int) bool { return !l.Events[i].Time.Before(t) })
	return l.Events[i:]
}

// Covers reports whether the log was being written at t: a request made
// before the log's first line cannot be judged from it.
func (l *Log) Covers(t time.Time) bool {
	return len(l.Events) > 0 && !l.Events[0].Received.After(t)
}

// Read reads the audit log at path. A line the server is still writing is
// left for the next Refresh; a file that holds no audit event at all is an
// error.
func Read(path string) (*Log, error) {
	l := &Log{Path: path}
	if err := l.readSegments(); err != nil {
		return nil, err
	}
	if err := l.Refresh(); err != nil {
		return nil, err
	}
	if len(l.Events) == 0 {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return nil, fmt.Errorf("%s is not an audit log (no line of it is an audit.k8s.io event)", path)
		}
	}
	return l, nil
}

// Refresh reads what the server has written since the last read, so that
// checks run one after another read a growing log once, not once each.
func (l *Log) Refresh() error {
	f, err := os.Open(l.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the audit log %s does not exist", l.Path)
		}
		return fmt.Errorf("cannot read the audit log %s: %v", l.Path, errors.Unwrap(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot read the audit log %s: %v", l.Path, err)
	}
	if fi.Size() < l.read || l.file != nil && !os.SameFile(l.file, fi) {
		// The log was rotated (what was read is now a segment) or
		// truncated: read the segments and the file again from the start.
		if err := l.readSegments(); err != nil {
			return err
		}
	}
	l.file = fi
	if _, err := f.Seek(l.read, io.SeekStart); err != nil {
		return fmt.Errorf("cannot read the audit log %s: %v", l.Path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("cannot read the audit log %s: %v", l.Path, errors.Unwrap(err))
	}
	whole := data[:bytes.LastIndexByte(data, '\n')+1]
	events, err := Parse(bytes.NewReader(whole))
	if err != nil {
		return fmt.Errorf("cannot read the audit log %s: %v", l.Path, err)
	}
	l.read += int64(len(whole))
	if len(events) > 0 {
		n := len(l.Events)
		l.Events = append(l.Events, events...)
		if n > 0 && events[0].Time.Before(l.Events[n-1].Time) {
			sort.SliceStable(l.Events, func(i, j int) bool { return l.Events[i].Time.Before(l.Events[j].Time) })
		}
	}
	return nil
}

// Size is how many bytes of the file have been read.
func (l *Log) Size() int64 { return l.read }

// Span is when the log's first and last requests arrived and completed;
// both are zero for a log with none.
func (l *Log) Span() (first, last time.Time) {
	if len(l.Events) == 0 {
		return time.Time{}, time.Time{}
	}
	first = l.Events[0].Received
	for _, e := range l.Events[:min(len(l.Events), 64)] {
		if e.Received.Before(first) {
			first = e.Received
		}
	}
	return first, l.Events[len(l.Events)-1].Time
}

// line is the part of an audit.k8s.io/v1 Event the checks read.
type line struct {
	Kind       string `json:"kind"`
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
		UID         string `json:"uid"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestObject            json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage `json:"responseObject,omitempty"`
	RequestReceivedTimestamp time.Time       `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time       `json:"stageTimestamp"`
}

// Parse reads audit events, one JSON object a line, keeping those whose
// response was complete, sorted by completion time.
func Parse(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []Event
	for sc.Scan() {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Kind != "Event" {
			continue
		}
		if l.Stage != "ResponseComplete" && l.Stage != "Panic" {
			continue
		}
		e := Event{
			Received: l.RequestReceivedTimestamp,
			Time:     l.StageTimestamp,
			User:     l.User.Username,
			Groups:   l.User.Groups,
			Agent:    AgentHint(l.UserAgent),
			Verb:     l.Verb,
			URI:      l.RequestURI,
			Code:     500,
			Request:  l.RequestObject,
			Response: l.ResponseObject,
		}
		if l.ImpersonatedUser != nil {
			e.Impersonated = l.ImpersonatedUser.Username
		}
		if o := l.ObjectRef; o != nil {
			e.Group, e.Resource, e.Subresource = o.APIGroup, o.Resource, o.Subresource
			e.Namespace, e.Name, e.UID = o.Namespace, o.Name, o.UID
		}
		if l.ResponseStatus != nil {
			e.Code = l.ResponseStatus.Code
		}
		if u, err := url.Parse(l.RequestURI); err == nil {
			e.DryRun = u.Query().Has("dryRun")
		}
		if !e.DryRun && l.RequestObject != nil {
			// kubectl and client-go name a delete's or an eviction's dry
			// run in its body, which the URI does not show.
			var body struct {
				DryRun        []string `json:"dryRun"`
				DeleteOptions *struct {
					DryRun []string `json:"dryRun"`
				} `json:"deleteOptions"`
			}
			if json.Unmarshal(l.RequestObject, &body) == nil {
				e.DryRun = len(body.DryRun) > 0 || body.DeleteOptions != nil && len(body.DeleteOptions.DryRun) > 0
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, nil
}

// MarkBorrowed sets Borrowed on every request of a kube-system service
// account that arrived after someone other than the controller manager
// was granted a token of that account, or made a secret in kube-system
// (a legacy token secret holds an account's token, and the log's metadata
// does not say whose). events are in the order they completed.
func MarkBorrowed(events []Event) {
	minted := map[string]time.Time{} // service account user → first foreign token
	var anySecret time.Time
	for _, e := range events {
		if !e.OK() || e.Namespace != "kube-system" || e.Verb != "create" || e.By(ControllerManager) {
			continue
		}
		switch {
		case e.Resource == "serviceaccounts" && e.Subresource == "token":
			u := controllerPrefix + e.Name
			if t, ok := minted[u]; !ok || e.Time.Before(t) {
				minted[u] = e.Time
			}
		case e.Resource == "secrets" && e.Subresource == "" && !e.FromControlPlane():
			if anySecret.IsZero() || e.Time.Before(anySecret) {
				anySecret = e.Time
			}
		}
	}
	if len(minted) == 0 && anySecret.IsZero() {
		return
	}
	for i := range events {
		e := &events[i]
		if !strings.HasPrefix(e.User, controllerPrefix) {
			continue
		}
		if t, ok := minted[e.User]; ok && !e.Received.Before(t) || !anySecret.IsZero() && !e.Received.Before(anySecret) {
			e.Borrowed = true
		}
	}
}

// KwokCluster returns the name of the kwokctl cluster behind a kubectl
// context and the directory where kwokctl keeps its files: kwokctl names
// its contexts kwok-NAME and keeps a cluster's files in
// $KWOK_WORKDIR/clusters/NAME (by default ~/.kwok). The lab's admin context,
// kwok-NAME-admin (lab/scripts/lab-up.sh), names the same cluster as the
// learner's kwok-NAME. ok is false when the context is not a kwokctl
// cluster's; err is the home directory's lookup failing. Whether the
// directory exists is the caller's to ask.
func KwokCluster(kubeContext string) (name, dir string, ok bool, err error) {
	name, ok = strings.CutPrefix(kubeContext, "kwok-")
	name = strings.TrimSuffix(name, "-admin")
	if !ok || name == "" {
		return "", "", false, nil
	}
	work := os.Getenv("KWOK_WORKDIR")
	if work == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return name, "", true, err
		}
		work = filepath.Join(home, ".kwok")
	}
	return name, filepath.Join(work, "clusters", name), true, nil
}

// Locate returns where kwokctl keeps the audit log of the cluster behind a
// kubectl context (see KwokCluster). The error says in one sentence why
// there is no log to read.
func Locate(kubeContext string) (string, error) {
	name, dir, ok, err := KwokCluster(kubeContext)
	switch {
	case !ok:
		return "", fmt.Errorf("context %q is not a kwokctl cluster's, so its audit log is not on this machine; pass --audit-log FILE if you have it", kubeContext)
	case err != nil:
		return "", fmt.Errorf("cannot find the home directory to look for the audit log: %v", err)
	}
	path := filepath.Join(dir, "logs", "audit.log")
	if _, err := os.Stat(path); err != nil {
		if _, derr := os.Stat(filepath.Dir(path)); derr != nil {
			return "", fmt.Errorf("cluster %s is not on this machine (no %s), so its audit log cannot be read; pass --audit-log FILE if you have it", name, dir)
		}
		return "", fmt.Errorf("cluster %s keeps no audit log (it was created before the lab kept one); run make lab-reset to recreate it", name)
	}
	return path, nil
}

// Write writes events as an API server's audit log would hold them: one
// audit.k8s.io/v1 Event a line, at stage ResponseComplete. Parse reads them
// back as they were, so tests and fixtures can build a log from Events. An
// event without URI gets one that names its object, with ?dryRun=All when
// DryRun is set.
func Write(w io.Writer, events ...Event) error {
	bw := bufio.NewWriter(w)
	for _, e := range events {
		var l line
		l.Kind, l.Stage, l.Verb, l.UserAgent = "Event", "ResponseComplete", e.Verb, e.Agent.String()
		l.RequestURI = e.URI
		if l.RequestURI == "" {
			l.RequestURI = e.path()
			if e.DryRun {
				l.RequestURI += "?dryRun=All"
			}
		}
		l.User.Username, l.User.Groups = e.User, e.Groups
		if e.Impersonated != "" {
			l.ImpersonatedUser = &struct {
				Username string `json:"username"`
			}{e.Impersonated}
		}
		l.ObjectRef = &struct {
			Resource    string `json:"resource"`
			Namespace   string `json:"namespace"`
			Name        string `json:"name"`
			APIGroup    string `json:"apiGroup"`
			Subresource string `json:"subresource"`
			UID         string `json:"uid"`
		}{e.Resource, e.Namespace, e.Name, e.Group, e.Subresource, e.UID}
		l.ResponseStatus = &struct {
			Code int `json:"code"`
		}{e.Code}
		l.RequestReceivedTimestamp, l.StageTimestamp = e.Received, e.Time
		l.RequestObject, l.ResponseObject = e.Request, e.Response
		level := "Metadata"
		if e.Request != nil {
			level = "Request"
		}
		if e.Response != nil {
			level = "RequestResponse"
		}
		b, err := json.Marshal(struct {
			APIVersion string `json:"apiVersion"`
			Level      string `json:"level"`
			line
		}{"audit.k8s.io/v1", level, l})
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// path is the request path of the event's object, as the API server's
// routes name it.
func (e Event) path() string {
	p := "/api/v1"
	if e.Group != "" {
		p = "/apis/" + e.Group + "/v1"
	}
	if e.Namespace != "" {
		p += "/namespaces/" + e.Namespace
	}
	p += "/" + e.Resource
	if e.Name != "" {
		p += "/" + e.Name
	}
	if e.Subresource != "" {
		p += "/" + e.Subresource
	}
	return p
}

// WriteFile writes events to the file path with Write.
func WriteFile(path string, events ...Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, events...); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
