package kube

import (
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// A Request is what classification sees of an API request: who sent it,
// after authentication and impersonation, and what it asks for.
//
// Build it from the request line with [ParseRequest] when you can: the
// namespace a request is classified by is the one the server reads from
// the path, which is not always the one you meant (a Namespace fetched by
// name carries its own name as its namespace).
type Request struct {
	User   string
	Groups []string
	Verb   string // get, list, create…; for a non-resource request the lower-case HTTP method

	// A resource request names a Resource; the API group is "" for the
	// core group, and Namespace is "" for a cluster-scoped request. The
	// resource itself may be "": GET /api/v1//pods is a resource request
	// for resource "" named "pods".
	APIGroup    string
	Resource    string
	Subresource string
	Namespace   string
	Name        string // the object's name, "" for a collection

	// Path is the URL path of a non-resource request, such as /healthz; a
	// request with a Path is a non-resource request.
	Path string
}

// IsResourceRequest reports whether r asks for an API resource rather than
// a non-resource path.
func (r Request) IsResourceRequest() bool { return r.Path == "" }

// ParseRequest returns what the API server reads from a request line, as
// RequestInfoFactory.NewRequestInfo in k8s.io/apiserver's
// endpoints/request/requestinfo.go does with kube-apiserver's prefixes
// (/api without a group, /apis with one). A path under neither prefix, or
// too short to name a resource, is a non-resource request. Under
// /namespaces/NAME the namespace is NAME, so GET /api/v1/namespaces/NAME
// (a Namespace fetched by name) is a request in namespace NAME, not a
// cluster-scoped one. A list or watch whose field selector requires
// metadata.name to equal a name (fieldSelector=metadata.name=X) is a
// request for that name, as the server reads it. The result has no user.
func ParseRequest(method, path string, query url.Values) Request {
	nonResource := Request{Verb: strings.ToLower(method), Path: path}
	parts := splitPath(path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return nonResource
	}
	r := Request{}
	grouped := parts[0] == "apis"
	parts = parts[1:]
	if grouped {
		if len(parts) < 3 {
			return nonResource
		}
		r.APIGroup, parts = parts[0], parts[1:]
	}
	parts = parts[1:] // the version
	if parts[0] == "proxy" || parts[0] == "watch" {
		if len(parts) < 2 {
			// Upstream returns an error here and the server refuses the
			// request before classification.
			return Request{Verb: parts[0]}
		}
		r.Verb, parts = parts[0], parts[1:]
	} else {
		r.Verb = map[string]string{"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}[method]
	}
	if parts[0] == "namespaces" {
		if len(parts) > 1 {
			r.Namespace = parts[1]
			// /namespaces/NAME/status and /finalize are subresources of
			// the Namespace NAME; anything else under it is a resource
			// in namespace NAME.
			if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
				parts = parts[2:]
			}
		}
	}
	switch {
	case len(parts) >= 3 && r.Verb != "proxy":
		r.Subresource = parts[2]
		fallthrough
	case len(parts) >= 2:
		r.Name = parts[1]
		fallthrough
	case len(parts) >= 1:
		r.Resource = parts[0]
	}
	if r.Name == "" && r.Verb == "get" {
		r.Verb, r.Name = listOrWatch(query)
	}
	if r.Name == "" && r.Verb == "delete" {
		r.Verb = "deletecollection"
	}
	return r
}

// listOrWatch reads a GET of a collection as requestinfo.go does: a watch
// when the query says watch (anything but "false" or "0"), else a list;
// and, when its field selector requires metadata.name to equal a name
// that can be a path segment, a request for that name. The server decodes
// the whole query as ListOptions first; when any of it does not decode (a
// malformed selector, a limit that is not a number), it keeps only the
// watch parameter and no name.
func listOrWatch(query url.Values) (verb, name string) {
	var opts metainternalversion.ListOptions
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		opts = metainternalversion.ListOptions{}
		if w := query["watch"]; len(w) > 0 && !strings.EqualFold(w[0], "false") && w[0] != "0" {
			opts.Watch = true
		}
	}
	verb = "list"
	if opts.Watch {
		verb = "watch"
	}
	if opts.FieldSelector != nil {
		if n, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && len(content.IsPathSegmentName(n)) == 0 {
			name = n
		}
	}
	return verb, name
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// Groups the API server adds to every user it authenticates.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	GroupServiceAccounts = "system:serviceaccounts"
	GroupNodes           = "system:nodes"
	UserAnonymous        = "system:anonymous"
	serviceAccountPrefix = "system:serviceaccount:"
	nodePrefix           = "system:node:"
)

// ServiceAccountUser returns the user name the API server gives the service
// account name in namespace ns.
func ServiceAccountUser(ns, name string) string {
	return serviceAccountPrefix + ns + ":" + name
}

// Impersonated returns the groups the API server gives a request that
// impersonates user with the given groups (the Impersonate-User and
// Impersonate-Group headers, kubectl's --as and --as-group), as the
// impersonation filters of k8s.io/apiserver do:
//
//   - a service account without explicit groups gets system:serviceaccounts
//     and system:serviceaccounts:NAMESPACE, but only when its user name is
//     valid (serviceaccount.SplitUsername checks the namespace and the
//     name): system:serviceaccount:ns:Bad_SA is an ordinary user;
//   - a node without explicit groups gets system:nodes, which is what
//     v1.37's constrained impersonation gives it; see the chapter for why
//     the server's answer can differ;
//   - every user but system:anonymous gets system:authenticated unless a
//     group already says whether it is authenticated.
func Impersonated(user string, groups []string) []string {
	out := append([]string(nil), groups...)
	if len(groups) == 0 {
		if ns, _, err := serviceaccount.SplitUsername(user); err == nil {
			out = append(out, GroupServiceAccounts, GroupServiceAccounts+":"+ns)
		} else if IsNodeUser(user) {
			out = append(out, GroupNodes)
		}
	}
	if user == UserAnonymous {
		if !contains(out, GroupUnauthenticated) {
			out = append(out, GroupUnauthenticated)
		}
		return out
	}
	if !contains(out, GroupAuthenticated) && !contains(out, GroupUnauthenticated) {
		out = append(out, GroupAuthenticated)
	}
	return out
}

// IsNodeUser reports whether user is a node's user name,
// system:node:NAME with NAME a valid node name.
func IsNodeUser(user string) bool {
	name, ok := strings.CutPrefix(user, nodePrefix)
	return ok && len(validation.IsDNS1123Subdomain(name)) == 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
