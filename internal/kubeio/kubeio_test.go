package kubeio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPods reads Pods from one file holding a Pod, a List and comments, and
// from stdin; each document is named in errors by file and number.
func TestPods(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pods.yaml")
	os.WriteFile(file, []byte(`# the lab's pods
apiVersion: v1
kind: Pod
metadata: {name: a}
---
# nothing here
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: b}
- apiVersion: v1
  kind: Pod
  metadata: {name: c}
`), 0o644)
	docs, err := ReadFiles([]string{file, "-"}, strings.NewReader(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := Pods(docs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "a b c d" {
		t.Errorf("pods = %s, want a b c d", got)
	}
	if docs[1].Source != file+", document 2" || docs[2].Source != "standard input" {
		t.Errorf("sources = %q, %q", docs[1].Source, docs[2].Source)
	}
}

// TestDecodeErrors: each mistake is one line naming the document.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"apiVersion: v1\nkind: Pod\nspec: {nodeNmae: x}\n", `pods.yaml: unknown field "nodeNmae"`},
		{"apiVersion: v1\nmetadata: {name: a}\n", "pods.yaml: no kind; every object needs apiVersion and kind"},
		{"apiVersion: v1\nkind: Pod\n---\napiVersion: v1\nkind: Node\n", "pods.yaml, document 2: kind Node; want a Pod or a List of Pods"},
		{"kind: Pod\n\tbad: [\n", "pods.yaml"},
	} {
		docs, err := Parse("pods.yaml", []byte(tc.in))
		if err == nil {
			_, err = Pods(docs)
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line starting %q", tc.in, err, tc.want)
		}
	}
}

// TestConnectErrors: a missing file and a missing context each get one
// sentence naming the fix.
func TestConnectErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Connect(filepath.Join(dir, "nope"), ""); err == nil || err.Error() != "cannot read the kubeconfig "+filepath.Join(dir, "nope")+": no such file or directory; check --kubeconfig" {
		t.Errorf("missing file: %v", err)
	}
	kc := filepath.Join(dir, "kc")
	os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:1}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: lab}\ncurrent-context: c\n"), 0o600)
	if _, err := Connect(kc, "other"); err == nil || !strings.Contains(err.Error(), `no context "other"`) {
		t.Errorf("missing context: %v", err)
	}
	c, err := Connect(kc, "")
	if err != nil || c.Namespace != "lab" || c.Context != "c" || c.Config.Timeout != Timeout {
		t.Errorf("Connect = %+v, %v", c, err)
	}
}

// TestPodReady reads the Ready condition only.
func TestPodReady(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	if PodReady(p) {
		t.Error("a pod without conditions is Ready")
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	if PodReady(p) {
		t.Error("Ready=False is Ready")
	}
	p.Status.Conditions[1].Status = corev1.ConditionTrue
	if !PodReady(p) {
		t.Error("Ready=True is not Ready")
	}
}

// TestNodeReady reads the Ready condition only.
func TestNodeReady(t *testing.T) {
	n := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}}}}
	if NodeReady(n) {
		t.Error("a node without Ready is Ready")
	}
	n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown})
	if NodeReady(n) {
		t.Error("Ready=Unknown is Ready")
	}
	n.Status.Conditions[1].Status = corev1.ConditionTrue
	if !NodeReady(n) {
		t.Error("Ready=True is not Ready")
	}
}
