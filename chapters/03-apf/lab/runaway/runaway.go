// Package runaway is the lab's runaway operator: a controller written
// without an informer cache, which asks the API server for the same things
// on every pass of its loop. The lab's nodes run no containers, so it runs
// on the learner's machine, as its own service account,
// apf-lab/runaway-operator. The lab's learner may not ask for the
// account's token, but may act as the account, as kubectl --as does: the
// server classifies the requests as the account's either way. With
// credentials that may ask for a token (the admin's, which the chapter's
// cheat tests use), it sends them under the account's own token, so that
// the API server, and its audit log, see the account itself.
//
// It is a stand-in, not a flood: it sends one pass every few seconds, for a
// few passes. The account has no permissions, so every request but the
// discovery path, which every account may read, is classified and then
// refused (403), and its writes carry dryRun=All, so an account someone did
// give permissions to would change nothing either.
// After each request it prints the schema and the level the server chose.
package runaway

import (
	"context"
	"fmt"
	"io"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/chapters/03-apf/kube"
)

// The operator's namespace and service account.
const (
	Namespace = "apf-lab"
	Account   = "runaway-operator"
)

// User is the operator's user name at the API server.
var User = kube.ServiceAccountUser(Namespace, Account)

// UserAgent is the user agent its requests carry.
const UserAgent = "runaway-operator/v1"

// Requests are one pass of the operator's loop, without a sender: the
// kinds of request it makes. They differ in verb, API group, resource,
// scope and path, as a real operator's do; a FlowSchema that is to take
// the operator's traffic must take every one of them.
var Requests = []kube.Request{
	{Verb: "get", Path: "/apis"},                           // discovery, a non-resource request
	{Verb: "get", Resource: "namespaces", Name: Namespace}, // its own namespace: filed under namespace apf-lab
	{Verb: "list", Resource: "configmaps", Namespace: Namespace},
	{Verb: "watch", Resource: "configmaps", Namespace: Namespace},
	{Verb: "list", Resource: "pods"}, // every namespace's pods: a cluster-scoped request
	{Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: Namespace, Name: Account},
	{Verb: "update", Resource: "configmaps", Namespace: Namespace, Name: "runaway-state"},
	{Verb: "create", Resource: "events", Namespace: Namespace},
}

// operatorConfig returns a client configuration that sends as the account:
// under its own token when cfg's user may ask for one, else as cfg's user,
// and then actAs is the account's user name, which each request impersonates.
func operatorConfig(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, ttlWanted time.Duration) (_ *rest.Config, actAs string, _ error) {
	ttl := int64(ttlWanted / time.Second)
	if ttl < 600 {
		ttl = 600
	}
	tr, err := client.CoreV1().ServiceAccounts(Namespace).CreateToken(ctx, Account,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	switch {
	case apierrors.IsForbidden(err):
		return rest.CopyConfig(cfg), User, nil
	case err != nil:
		return nil, "", fmt.Errorf("asking for a token of %s/%s: %w", Namespace, Account, err)
	}
	// Only the server and its CA are kept from cfg: the requests carry the
	// account's token and nothing of the administrator's credentials.
	asOperator := rest.AnonymousClientConfig(cfg)
	asOperator.BearerToken = tr.Status.Token
	return asOperator, "", nil
}

// Options say how long the operator runs.
type Options struct {
	Passes int           // passes of the loop; 0 runs until ctx ends
	Every  time.Duration // the pause between two passes
	// TokenTTL is how long the account's token lives; the API server
	// grants at least 10 minutes.
	TokenTTL time.Duration
}

// Run sends Requests as the operator's account, pass after pass, and
// prints one line per request to out: the pass, the request, the status,
// and the schema and level named by the answer's X-Kubernetes-PF-* headers.
// It asks the server of cfg for a token of the account and sends under that
// token; when cfg's user may not ask for one (the lab's learner may not),
// it sends as cfg's user acting as the account (Impersonate-User), which
// the learner may do.
func Run(ctx context.Context, cfg *rest.Config, opts Options, out io.Writer) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	asOperator, actAs, err := operatorConfig(ctx, cfg, client, opts.TokenTTL)
	if err != nil {
		return err
	}
	asOperator.UserAgent = UserAgent
	for pass := 1; opts.Passes == 0 || pass <= opts.Passes; pass++ {
		if pass > 1 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(opts.Every):
			}
		}
		objs, err := kube.Load(ctx, client)
		if err != nil {
			return err
		}
		schemas, levels := objs.ByUID()
		for _, r := range Requests {
			// Described as the server reads it: a Namespace fetched by
			// name is a request in that namespace.
			what := kube.Describe(r)
			if seen, err := kube.Seen(r); err == nil {
				what = kube.Describe(seen)
			}
			r.User = actAs // kube.Send impersonates a request's user, if any
			p, err := kube.Send(ctx, asOperator, r)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%s: %w", what, err)
			}
			fmt.Fprintf(out, "%d %s: %d, %s → %s\n", pass, what, p.Status, name(schemas, p.FlowSchemaUID), name(levels, p.LevelUID))
		}
	}
	return nil
}

func name(byUID map[string]string, uid string) string {
	if uid == "" {
		return "(no header)"
	}
	if n, ok := byUID[uid]; ok {
		return n
	}
	return "UID " + uid
}
