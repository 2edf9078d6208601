// Package kubeio is how the course's commands reach a cluster and read
// manifests: one way to load a kubeconfig, with one timeout and one wording
// of its errors, and one strict decoder for YAML or JSON files that hold one
// or several objects. labcheck has its own, stricter connection (it also
// checks that the server answers); the chapters' commands use this one.
package kubeio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// Timeout bounds every request a command makes to the cluster.
const Timeout = 30 * time.Second

// A Cluster is a cluster reached through a kubeconfig.
type Cluster struct {
	Config *rest.Config
	Kube   kubernetes.Interface
	// Namespace is the context's namespace, "default" when it names none.
	Namespace string
	// Context is the context used: the one asked for, or the current one.
	Context string
}

// Connect loads the kubeconfig as kubectl does (kubeconfig "" means
// $KUBECONFIG or ~/.kube/config; context "" the current context) and returns
// a client for its cluster. It does not call the server. Its errors are one
// sentence that names the fix.
func Connect(kubeconfig, context string) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, configError(kubeconfig, context, err)
	}
	cfg.Timeout = Timeout
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	if context == "" {
		if raw, err := cc.RawConfig(); err == nil {
			context = raw.CurrentContext
		}
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot make a client for %s: %s", cfg.Host, firstLine(err))
	}
	return &Cluster{Config: cfg, Kube: kube, Namespace: ns, Context: context}, nil
}

func configError(kubeconfig, context string, err error) error {
	switch {
	case kubeconfig != "":
		if _, serr := os.Stat(kubeconfig); serr != nil {
			return fmt.Errorf("cannot read the kubeconfig %s: %s; check --kubeconfig", kubeconfig, firstLine(unwrapPath(serr)))
		}
	case clientcmd.IsEmptyConfig(err):
		return errors.New("no cluster is configured (no kubeconfig found); start the lab cluster with make lab-up, or give --kubeconfig")
	}
	if context != "" && strings.Contains(err.Error(), "context") && strings.Contains(err.Error(), "does not exist") {
		return fmt.Errorf("the kubeconfig has no context %q; start the lab cluster with make lab-up, or name another with --context", context)
	}
	return fmt.Errorf("cannot read the kubeconfig: %s; check --kubeconfig and --context", firstLine(err))
}

// A Document is one object of a manifest file, as JSON.
type Document struct {
	// Source names it for messages: "pods.yaml", or "pods.yaml, document 2"
	// when the file holds several.
	Source     string
	APIVersion string
	Kind       string
	JSON       []byte
}

// Decode decodes the document into v, refusing fields v does not have.
func (d Document) Decode(v any) error {
	if err := yaml.UnmarshalStrict(d.JSON, v); err != nil {
		msg := strings.TrimPrefix(firstLine(err), "error unmarshaling JSON: while decoding JSON: ")
		return fmt.Errorf("%s: %s", d.Source, strings.TrimPrefix(msg, "json: "))
	}
	return nil
}

// ReadFiles reads every document of the named files ("-" is stdin), in
// order. Files hold YAML or JSON, one object or several separated by ---.
// Empty documents and documents of comments only are skipped; a document
// without kind is an error that names it.
func ReadFiles(names []string, stdin io.Reader) ([]Document, error) {
	var docs []Document
	for _, name := range names {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
			name = "standard input"
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %s", name, firstLine(unwrapPath(err)))
		}
		d, err := Parse(name, data)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// Parse splits data, the content of the file name, into its documents.
func Parse(name string, data []byte) ([]Document, error) {
	r := utilyaml.NewYAMLReader(bufioReader(data))
	var raws [][]byte
	for {
		raw, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, firstLine(err))
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		raws = append(raws, raw)
	}
	docs := make([]Document, 0, len(raws))
	for i, raw := range raws {
		source := name
		if len(raws) > 1 {
			source = fmt.Sprintf("%s, document %d", name, i+1)
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: not YAML or JSON: %s", source, firstLine(err))
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(js, &meta); err != nil {
			return nil, fmt.Errorf("%s: not an object: %s", source, firstLine(err))
		}
		if meta.Kind == "" {
			return nil, fmt.Errorf("%s: no kind; every object needs apiVersion and kind", source)
		}
		docs = append(docs, Document{Source: source, APIVersion: meta.APIVersion, Kind: meta.Kind, JSON: js})
	}
	return docs, nil
}

// Pods returns the Pods the documents hold: each a Pod, or a List or PodList
// of Pods. Any other kind is an error that names the document and its kind.
func Pods(docs []Document) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	for _, d := range docs {
		switch d.Kind {
		case "Pod":
			var p corev1.Pod
			if err := d.Decode(&p); err != nil {
				return nil, err
			}
			pods = append(pods, p)
		case "List", "PodList":
			var list struct {
				APIVersion string         `json:"apiVersion"`
				Kind       string         `json:"kind"`
				Metadata   map[string]any `json:"metadata,omitempty"`
				Items      []corev1.Pod   `json:"items"`
			}
			if err := d.Decode(&list); err != nil {
				return nil, err
			}
			for i, p := range list.Items {
				if p.Kind != "" && p.Kind != "Pod" {
					return nil, fmt.Errorf("%s, item %d: kind %s; want a Pod", d.Source, i+1, p.Kind)
				}
			}
			pods = append(pods, list.Items...)
		default:
			return nil, fmt.Errorf("%s: kind %s; want a Pod or a List of Pods", d.Source, d.Kind)
		}
	}
	return pods, nil
}

// PodReady reports whether the pod's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// NodeReady reports whether the node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return s
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func stripComments(raw []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
