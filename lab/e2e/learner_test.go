//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/opslab/opslab/lab/labenv"
)

// learnerConfig is the client configuration of the learner's context.
func learnerConfig(t *testing.T) *rest.Config {
	t.Helper()
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: labenv.Kubeconfig()}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: labenv.LearnerContext()}).ClientConfig()
	if err != nil {
		t.Fatalf("the learner's context %s: %v (lab/scripts/lab-up.sh makes it)", labenv.LearnerContext(), err)
	}
	return rc
}

func clientFor(t *testing.T, rc *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestLearnerIsTheLearner: the learner's context authenticates as
// opslab:learner in group opslab:learners, not as the admin.
func TestLearnerIsTheLearner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	review, err := clientFor(t, learnerConfig(t)).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := review.Status.UserInfo
	if u.Username != "opslab:learner" {
		t.Errorf("the learner's context acts as %q, want opslab:learner", u.Username)
	}
	has := map[string]bool{}
	for _, g := range u.Groups {
		has[g] = true
	}
	if !has["opslab:learners"] || has["system:masters"] {
		t.Errorf("the learner's groups are %v, want opslab:learners and not system:masters", u.Groups)
	}
}

// TestLearnerCannotActAsTheControlPlane tries, as the learner, each thing
// that would let a learner pass for a part of the control plane or change
// it, and requires the server to refuse every one (403). Run as the admin
// (OPSLAB_LEARNER_CONTEXT set to the admin's context), every case fails.
func TestLearnerCannotActAsTheControlPlane(t *testing.T) {
	rc := learnerConfig(t)
	cs := clientFor(t, rc)
	impersonating := func(user string, groups ...string) *kubernetes.Clientset {
		c := rest.CopyConfig(rc)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
		return clientFor(t, c)
	}
	expiry := int64(600)
	token := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}
	merge := types.MergePatchType
	cases := []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"a token for a controller's service account in kube-system", func(ctx context.Context) error {
			_, err := cs.CoreV1().ServiceAccounts("kube-system").CreateToken(ctx, "pod-garbage-collector", token, metav1.CreateOptions{})
			return err
		}},
		{"a token for any service account", func(ctx context.Context) error {
			_, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", token, metav1.CreateOptions{})
			return err
		}},
		{"binding a pod to a node, as the scheduler does", func(ctx context.Context) error {
			return cs.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
				Target:     corev1.ObjectReference{Kind: "Node", Name: "learner-e2e"},
			}, metav1.CreateOptions{})
		}},
		{"a pod's status, as a kubelet reports it", func(ctx context.Context) error {
			_, err := cs.CoreV1().Pods("default").Patch(ctx, "learner-e2e", merge, []byte(`{"status":{"phase":"Failed"}}`), metav1.PatchOptions{}, "status")
			return err
		}},
		{"a node's status, as a kubelet reports it", func(ctx context.Context) error {
			_, err := cs.CoreV1().Nodes().Patch(ctx, "learner-e2e", merge, []byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status")
			return err
		}},
		{"creating a node", func(ctx context.Context) error {
			_, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"}}, metav1.CreateOptions{})
			return err
		}},
		{"deleting a node", func(ctx context.Context) error {
			return cs.CoreV1().Nodes().Delete(ctx, "learner-e2e", metav1.DeleteOptions{})
		}},
		{"an Event (core)", func(ctx context.Context) error {
			_, err := cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "learner-e2e"},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "learner-e2e"},
				Reason:         "Scheduled", Source: corev1.EventSource{Component: "default-scheduler"},
			}, metav1.CreateOptions{})
			return err
		}},
		{"an Event (events.k8s.io)", func(ctx context.Context) error {
			_, err := cs.EventsV1().Events("default").Create(ctx, &eventsv1.Event{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"}, EventTime: metav1.NowMicro(),
				ReportingController: "default-scheduler", ReportingInstance: "learner-e2e", Action: "Binding", Reason: "Scheduled",
				Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "learner-e2e"},
			}, metav1.CreateOptions{})
			return err
		}},
		{"impersonating the scheduler", func(ctx context.Context) error {
			_, err := impersonating("system:kube-scheduler").CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}},
		{"impersonating a controller's service account", func(ctx context.Context) error {
			_, err := impersonating("system:serviceaccount:kube-system:node-controller").CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}},
		{"impersonating the group system:masters", func(ctx context.Context) error {
			_, err := impersonating("opslab:learner", "system:masters").CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}},
		{"a ClusterRoleBinding", func(ctx context.Context) error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
				RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "opslab:learner"}},
			}, metav1.CreateOptions{})
			return err
		}},
		{"a RoleBinding", func(ctx context.Context) error {
			_, err := cs.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
				RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"},
				Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "opslab:learner"}},
			}, metav1.CreateOptions{})
			return err
		}},
		{"a certificate signing request, to mint a certificate", func(ctx context.Context) error {
			_, err := cs.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
				Spec: certificatesv1.CertificateSigningRequestSpec{
					Request: []byte("-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n"), SignerName: "kubernetes.io/kube-apiserver-client",
					Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth},
				},
			}, metav1.CreateOptions{})
			return err
		}},
		{"reading Secrets", func(ctx context.Context) error {
			_, err := cs.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}},
		{"a ConfigMap in kube-system", func(ctx context.Context) error {
			_, err := cs.CoreV1().ConfigMaps("kube-system").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"}}, metav1.CreateOptions{})
			return err
		}},
		{"a pod in kube-system", func(ctx context.Context) error {
			_, err := cs.CoreV1().Pods("kube-system").Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
			}, metav1.CreateOptions{})
			return err
		}},
		{"a service account in kube-system", func(ctx context.Context) error {
			_, err := cs.CoreV1().ServiceAccounts("kube-system").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"}}, metav1.CreateOptions{})
			return err
		}},
		{"a node lease, as a kubelet renews it", func(ctx context.Context) error {
			_, err := cs.CoordinationV1().Leases("kube-node-lease").Patch(ctx, "learner-e2e", merge, []byte(`{"spec":{}}`), metav1.PatchOptions{})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := c.do(ctx)
			if !apierrors.IsForbidden(err) {
				t.Errorf("as the learner, %s: got %v, want 403 Forbidden", c.name, err)
			}
		})
	}
}

// TestLearnerCanDoTheLabs is the other side: what every chapter's lab asks
// of a learner is allowed. The reference solutions, which make test runs as
// the learner, are the full proof; this is the quick one.
func TestLearnerCanDoTheLabs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rc := learnerConfig(t)
	cs := clientFor(t, rc)
	ns := "opslab-learner-e2e"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s as the learner: %v", ns, err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("a ConfigMap in the learner's namespace: %v", err)
	}
	if _, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Errorf("listing pods in every namespace, as a drain does: %v", err)
	}
	if _, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Errorf("listing FlowSchemas: %v", err)
	}
	// Writes of cluster-scoped objects pass the policy that keeps the
	// learner out of the system namespaces (a dry run is admitted as a
	// write is): a node's taint, a FlowSchema, a priority level.
	dry := []string{metav1.DryRunAll}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, "pdb-1", types.MergePatchType, []byte(`{"metadata":{"labels":{"opslab.dev/learner-e2e":"yes"}}}`), metav1.PatchOptions{DryRun: dry}); err != nil {
		t.Errorf("labelling node pdb-1 (dry run): %v", err)
	}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}},
	}, metav1.CreateOptions{DryRun: dry}); err != nil {
		t.Errorf("a priority level (dry run): %v", err)
	}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "learner-e2e"},
		Spec:       flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "learner-e2e"}},
	}, metav1.CreateOptions{DryRun: dry}); err != nil {
		t.Errorf("a FlowSchema (dry run): %v", err)
	}
	if _, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx); err != nil {
		t.Errorf("GET /metrics: %v", err)
	}
	// Impersonating one of chapter 3's accounts is allowed; the account
	// itself may do nothing, so the server's refusal names it, not the
	// learner.
	c := rest.CopyConfig(rc)
	c.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":runaway-operator"}
	_, err := clientFor(t, c).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err == nil || !strings.Contains(err.Error(), `"system:serviceaccount:`+ns+`:runaway-operator" cannot`) {
		t.Errorf("a request as chapter 3's runaway-operator: got %v, want the account's own refusal", err)
	}
}
