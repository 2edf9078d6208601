// Package audittest holds fixtures for the tests of checks that read the
// lab cluster's audit log: who sends requests there, as the log names them
// (user, impersonated user, user agent), so that every chapter's tests build
// their logs from the same actors.
package audittest

import (
	"github.com/opslab/opslab/labcheck/audit"
	"github.com/opslab/opslab/labcheck/version"
)

// An Actor is who sends a request, as the audit log records it.
type Actor struct {
	User  string // the authenticated user
	As    string // the user it impersonates with --as, or ""
	Agent string // the client's user agent
}

// KubectlAgent is the user agent of the course's kubectl.
var KubectlAgent = "kubectl/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format"

// The lab cluster's senders. The scheduler, kwok and kube-controller-manager
// (for its own requests) share the admin's credentials and differ only by
// user agent; each controller runs under its own service account.
var (
	Learner   = Actor{"kwok-admin", "", KubectlAgent}
	Scheduler = Actor{"kwok-admin", "", "kube-scheduler/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/scheduler"}
	Kwok      = Actor{"kwok-admin", "", "kwok-controller/" + version.Kwok + " (linux/amd64) kubernetes/$Format"}
	Manager   = Actor{"kwok-admin", "", "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/kube-controller-manager"}
)

// Controller is the controller of kube-system's service account sa, as
// kube-controller-manager runs it with --use-service-account-credentials.
func Controller(sa string) Actor {
	id := "system:serviceaccount:kube-system:" + sa
	return Actor{id, "", "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/" + id}
}

// Impersonating is the learner's kubectl run with --as user.
func Impersonating(user string) Actor { return Actor{"kwok-admin", user, KubectlAgent} }

// WithToken is the learner's kubectl run with a token minted for user.
func WithToken(user string) Actor { return Actor{user, "", KubectlAgent} }

// Sends returns e as sent by a.
func (a Actor) Sends(e audit.Event) audit.Event {
	e.User, e.Impersonated, e.UserAgent = a.User, a.As, a.Agent
	return e
}

// Sent reports whether e was sent by a.
func (a Actor) Sent(e audit.Event) bool {
	return e.User == a.User && e.Impersonated == a.As && e.UserAgent == a.Agent
}
