package apf

import "strings"

// A Request is what classification sees of an API request: who sent it,
// after authentication and impersonation, and what it asks for.
type Request struct {
	User   string
	Groups []string
	Verb   string // get, list, create…; for a non-resource request the lower-case HTTP method

	// A resource request names a Resource; the API group is "" for the
	// core group, and Namespace is "" for a cluster-scoped request.
	APIGroup    string
	Resource    string
	Subresource string
	Namespace   string

	// Path is the URL path of a non-resource request, such as /healthz.
	Path string
}

// IsResourceRequest reports whether r asks for an API resource rather than
// a non-resource path.
func (r Request) IsResourceRequest() bool { return r.Resource != "" }

// Groups the API server adds to every user it authenticates.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	GroupServiceAccounts = "system:serviceaccounts"
	UserAnonymous        = "system:anonymous"
	serviceAccountPrefix = "system:serviceaccount:"
)

// ServiceAccountUser returns the user name the API server gives the service
// account name in namespace ns.
func ServiceAccountUser(ns, name string) string {
	return serviceAccountPrefix + ns + ":" + name
}

// Impersonated returns the groups the API server gives a request that
// impersonates user with the given groups (the Impersonate-User and
// Impersonate-Group headers, kubectl's --as and --as-group), as the
// impersonation filter of k8s.io/apiserver does: a service account without
// explicit groups gets system:serviceaccounts and
// system:serviceaccounts:NAMESPACE, and every user but system:anonymous
// gets system:authenticated unless a group already says whether it is
// authenticated.
func Impersonated(user string, groups []string) []string {
	out := append([]string(nil), groups...)
	if ns, _, ok := splitServiceAccount(user); ok && len(groups) == 0 {
		out = append(out, GroupServiceAccounts, GroupServiceAccounts+":"+ns)
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

// splitServiceAccount splits a service account's user name into its
// namespace and name.
func splitServiceAccount(user string) (ns, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, serviceAccountPrefix)
	if !ok {
		return "", "", false
	}
	ns, name, ok = strings.Cut(rest, ":")
	if !ok || ns == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return ns, name, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
