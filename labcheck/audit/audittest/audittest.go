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

	// Borrowed: the user is a kube-system service account whose token
	// someone else asked for earlier in the log (audit.MarkBorrowed).
	Borrowed bool
}

// KubectlAgent is the user agent of the course's kubectl.
var KubectlAgent = "kubectl/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format"

// The lab cluster's senders. The scheduler, kwok and kube-controller-manager
// (for its own requests) authenticate with certificates of their own
// (lab/scripts/pki.sh); each controller runs under its own service account.
var (
	Learner   = Actor{User: "kwok-admin", Agent: KubectlAgent}
	Scheduler = Actor{User: string(audit.Scheduler), Agent: "kube-scheduler/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/scheduler"}
	Kwok      = Actor{User: string(audit.NodeAgent), Agent: "kwok-controller/" + version.Kwok + " (linux/amd64) kubernetes/$Format"}
	Manager   = Actor{User: string(audit.ControllerManager), Agent: "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/kube-controller-manager"}
)

// Claiming is the learner's own client sending with a's user agent: curl -A
// with the admin's certificate. It is the learner, whatever it claims.
func Claiming(a Actor) Actor { return Actor{User: Learner.User, Agent: a.Agent} }

// Controller is the controller of kube-system's service account sa, as
// kube-controller-manager runs it with --use-service-account-credentials.
func Controller(sa string) Actor {
	id := "system:serviceaccount:kube-system:" + sa
	return Actor{User: id, Agent: "kube-controller-manager/" + version.Kubernetes + " (linux/amd64) kubernetes/$Format/" + id}
}

// Impersonating is the learner's kubectl run with --as user.
func Impersonating(user string) Actor {
	return Actor{User: "kwok-admin", As: user, Agent: KubectlAgent}
}

// WithToken is the learner's kubectl run with a token minted for user, a
// service account of kube-system: the log holds the learner's request for
// the token, so the account's requests are Borrowed.
func WithToken(user string) Actor { return Actor{User: user, Agent: KubectlAgent, Borrowed: true} }

// Sends returns e as sent by a.
func (a Actor) Sends(e audit.Event) audit.Event {
	e.User, e.Impersonated, e.Agent, e.Borrowed = a.User, a.As, audit.AgentHint(a.Agent), a.Borrowed
	return e
}

// Sent reports whether e was sent by a.
func (a Actor) Sent(e audit.Event) bool {
	return e.User == a.User && e.Impersonated == a.As && e.Agent.String() == a.Agent && e.Borrowed == a.Borrowed
}
