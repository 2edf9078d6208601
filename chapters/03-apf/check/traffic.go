package check

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/labcheck/audit"
)

// A Sender is a user as the API server knows it after authentication: the
// name and the groups, which is all classification reads of who sent a
// request.
type Sender struct {
	User   string
	Groups []string
}

func serviceAccount(user string) Sender { return Sender{user, kube.Impersonated(user, nil)} }

// Bystanders are the accounts the checks send the runaway operator's
// requests as, besides the operator itself: one beside it in apf-lab and
// one in another namespace. Neither needs to exist, since classification
// reads only names and groups, and neither has any permission. A schema
// made for the operator must leave them where a new cluster puts them.
var Bystanders = []string{
	kube.ServiceAccountUser(Namespace, "bystander"),
	kube.ServiceAccountUser("default", "bystander"),
}

// Outsiders are senders beyond the lab and the control plane that a
// schema for the lab's accounts must leave where a new cluster puts them,
// judged by the model: a kubelet (group system:nodes), an anonymous
// request (group system:unauthenticated), service accounts of namespaces
// other than apf-lab and default, and people who are neither admins nor
// service accounts, the learner's user among them. A subject list widened
// by a group, or a rule for every account of a namespace, takes some of
// them. They are judged with the model, as the control plane is: the
// grader impersonates only the lab's accounts and its two bystanders.
var Outsiders = []Sender{
	{"system:node:node-1", []string{kube.GroupNodes, kube.GroupAuthenticated}},
	{kube.UserAnonymous, []string{kube.GroupUnauthenticated}},
	serviceAccount(kube.ServiceAccountUser("kube-system", "bystander")),
	serviceAccount(kube.ServiceAccountUser("kube-public", "default")),
	serviceAccount(kube.ServiceAccountUser("opslab-other", "bystander")),
	{"opslab:learner", []string{"opslab:learners", kube.GroupAuthenticated}},
	{"jane", []string{kube.GroupAuthenticated}},
}

// ControlPlane are the senders of the control plane that the checks judge
// even when the audit log shows none of them: the controllers of
// kube-controller-manager, which the lab runs with
// --use-service-account-credentials, each under its service account in
// kube-system; kwok, which plays every kubelet under a user of its own
// (group system:masters); and the scheduler's and the controller manager's
// own users, which the lab gives them as kubeadm does. They are judged with the model, never
// impersonated: impersonating a controller would give the grader its
// powers.
var ControlPlane = []Sender{
	serviceAccount(audit.NodeController),
	serviceAccount(audit.PodGC),
	serviceAccount(audit.DisruptionController),
	serviceAccount(audit.ReplicaSetController),
	serviceAccount(audit.StatefulSetController),
	serviceAccount(audit.DaemonSetController),
	serviceAccount(audit.DeploymentController),
	{string(audit.NodeAgent), []string{"system:masters", kube.GroupAuthenticated}},
	{string(audit.Scheduler), []string{kube.GroupAuthenticated}},
	{string(audit.ControllerManager), []string{kube.GroupAuthenticated}},
}

// ControlPlaneRequests are kinds of request the control plane makes in
// the lab's namespace and at cluster scope, judged for every control-plane
// sender besides those the audit log shows. The audit log keeps the
// control plane's writes only, so its reads come from here.
var ControlPlaneRequests = []kube.Request{
	{Verb: "get", Path: "/api"},
	{Verb: "list", Resource: "pods"},
	{Verb: "watch", Resource: "pods"},
	{Verb: "get", Resource: "pods", Namespace: Namespace, Name: "web"},
	{Verb: "create", Resource: "pods", Namespace: Namespace},
	{Verb: "delete", Resource: "pods", Namespace: Namespace, Name: "web"},
	{Verb: "update", Resource: "pods", Subresource: "status", Namespace: Namespace, Name: "web"},
	{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: Namespace, Name: "web"},
	{Verb: "list", Resource: "nodes"},
	{Verb: "patch", Resource: "nodes", Name: "node-1"},
	{Verb: "update", Resource: "nodes", Subresource: "status", Name: "node-1"},
	{Verb: "create", Resource: "events", Namespace: Namespace},
	{Verb: "create", APIGroup: "events.k8s.io", Resource: "events", Namespace: Namespace},
	{Verb: "update", APIGroup: "apps", Resource: "replicasets", Subresource: "status", Namespace: Namespace, Name: "web"},
	{Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-controller-manager"},
}

// TieRequests are the kinds of request the checks send as the tie
// experiment's account: requests in its namespace, as tie.yaml's rules
// take them. A tie holds for the account only if it holds for each.
var TieRequests = []kube.Request{
	{Verb: "get", Resource: "pods", Namespace: Namespace, Name: "web"},
	{Verb: "list", Resource: "configmaps", Namespace: Namespace},
	{Verb: "create", Resource: "events", Namespace: Namespace},
}

// methods gives the HTTP method behind an audit event's verb: a resource
// request's verb, or a non-resource request's lower-case method.
var methods = map[string]string{
	"get": http.MethodGet, "list": http.MethodGet, "watch": http.MethodGet,
	"create": http.MethodPost, "post": http.MethodPost,
	"update": http.MethodPut, "put": http.MethodPut,
	"patch":  http.MethodPatch,
	"delete": http.MethodDelete, "deletecollection": http.MethodDelete,
	"head": http.MethodHead, "options": http.MethodOptions,
}

// requestOf returns the request the API server classified for an audit
// event: its request line read as the server reads it (kube.ParseRequest),
// sent by the event's user and groups. It reports false for an event it
// cannot read and for requests that API Priority and Fairness never sees.
func requestOf(e audit.Event) (kube.Request, bool) {
	u, err := url.Parse(e.URI)
	method, ok := methods[e.Verb]
	if err != nil || !ok {
		return kube.Request{}, false
	}
	r := kube.ParseRequest(method, u.Path, u.Query())
	if r.Verb != e.Verb || !classified(r) {
		return kube.Request{}, false
	}
	r.User, r.Groups = e.User, e.Groups
	return r, true
}

// classified reports whether API Priority and Fairness sees a request:
// long-running requests other than watches bypass it (the server's
// LongRunningFunc: proxy, and a pod's attach, exec, log and portforward).
func classified(r kube.Request) bool {
	if r.Verb == "proxy" {
		return false
	}
	switch r.Subresource {
	case "attach", "exec", "log", "portforward", "proxy":
		return false
	}
	return true
}

// kindKey identifies a kind of request: what classification reads of it
// other than its sender. The object's name is left out; the namespace a
// Namespace's name gives its request is not, being the namespace.
func kindKey(r kube.Request) string {
	return strings.Join([]string{r.Verb, r.APIGroup, r.Resource, r.Subresource, r.Namespace, r.Path}, "\x00")
}

// kinds returns one request of each kind in reqs, without its sender, in
// the order of first appearance.
func kinds(reqs ...[]kube.Request) []kube.Request {
	seen := map[string]bool{}
	var out []kube.Request
	for _, list := range reqs {
		for _, r := range list {
			r.User, r.Groups = "", nil
			if k := kindKey(r); !seen[k] {
				seen[k] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// asSeen returns reqs as the server reads them from the request lines
// kube.Send sends: a Namespace fetched by name is in its own namespace.
func asSeen(reqs []kube.Request) []kube.Request {
	out := make([]kube.Request, 0, len(reqs))
	for _, r := range reqs {
		if s, err := kube.Seen(r); err == nil {
			r = s
		}
		out = append(out, r)
	}
	return out
}

// KnownRunawayRequests are the kinds of request the lab's operator makes,
// as the server reads them.
var KnownRunawayRequests = asSeen(runaway.Requests)

// operatorTraffic returns the requests sent as the runaway operator: under
// its own token, or by a user acting as it (kubectl --as, or the operator
// run with the learner's credentials, which may not ask for its token). The
// server classifies both as the account's, so a schema for the operator
// must take both; they only add kinds to judge. The audit policy keeps
// every request under the account's token, reads included. It is applied
// before impersonation, so of those sent acting as the account it keeps
// what it keeps of the sender's own: writes to config maps and events.
func operatorTraffic(events []audit.Event) []kube.Request {
	var out []kube.Request
	for _, e := range events {
		if e.Actor() != runaway.User {
			continue
		}
		if r, ok := requestOf(e); ok {
			out = append(out, r)
		}
	}
	return out
}

// isControlPlane reports whether an event is a request of the control
// plane under its own identity: a controller's service account in
// kube-system, or a component known by its own certificate's user.
func isControlPlane(e audit.Event) bool { return e.FromControlPlane() }

// controlPlaneTraffic returns the control plane's senders and its requests
// among events: each sender once, in order of appearance, after those of
// ControlPlane.
func controlPlaneTraffic(events []audit.Event) (senders []Sender, reqs []kube.Request) {
	senders = slices.Clone(ControlPlane)
	seen := map[string]bool{}
	key := func(s Sender) string { return s.User + "\x00" + strings.Join(s.Groups, "\x00") }
	for _, s := range senders {
		seen[key(s)] = true
	}
	for _, e := range events {
		if !isControlPlane(e) {
			continue
		}
		r, ok := requestOf(e)
		if !ok {
			continue
		}
		reqs = append(reqs, r)
		if s := (Sender{e.User, e.Groups}); !seen[key(s)] {
			seen[key(s)] = true
			senders = append(senders, s)
		}
	}
	return senders, reqs
}

// since returns the events of l that completed at or after t, or none
// when l is nil.
func since(l *audit.Log, t time.Time) []audit.Event {
	if l == nil {
		return nil
	}
	return l.Window(t)
}
