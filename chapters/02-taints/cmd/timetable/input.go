package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
)

// fileNode is the node shown for a pod read from a file without
// spec.nodeName: it is assumed to run on the tainted node.
const fileNode = "-"

// readPods returns the pods to put in the timetable and how many were left
// out because they are not on a node.
func readPods(o options, stdin io.Reader) ([]taints.Pod, int, error) {
	var pods []corev1.Pod
	var err error
	fromFiles := len(o.files) > 0
	if fromFiles {
		pods, err = readFiles(o.files, stdin)
	} else {
		pods, err = listCluster(o)
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([]taints.Pod, 0, len(pods))
	skipped := 0
	for i := range pods {
		p := kube.Pod(&pods[i])
		if fromFiles {
			if p.Namespace == "" {
				p.Namespace = "default"
			}
			if o.namespace != "" && p.Namespace != o.namespace {
				continue
			}
			if p.Node == "" {
				p.Node = fileNode
			}
			// A manifest has not been through admission yet; a pod written
			// out by the server has, and admitting it again changes nothing.
			p.Tolerations = taints.AdmitDefaults(p.Tolerations, taints.DefaultTolerationSeconds)
		}
		if o.node != "" && p.Node != o.node && p.Node != fileNode {
			continue
		}
		if p.Node == "" {
			skipped++
			continue
		}
		out = append(out, p)
	}
	return out, skipped, nil
}

func readFiles(names []string, stdin io.Reader) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	for _, name := range names {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, err
		}
		got, err := decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pods = append(pods, got...)
	}
	return pods, nil
}

// decode reads every YAML document of a file: each is a Pod or a List
// (or PodList) of Pods.
func decode(data []byte) ([]corev1.Pod, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var pods []corev1.Pod
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return pods, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d is not YAML: %w", n, err)
		}
		if string(js) == "null" {
			continue // an empty document, e.g. after a trailing ---
		}
		got, err := decodeObject(js, "")
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		pods = append(pods, got...)
	}
}

// decodeObject decodes a Pod or a List; kind is the kind to assume when
// the object names none (the items of a PodList).
func decodeObject(js []byte, kind string) ([]corev1.Pod, error) {
	var meta metav1.TypeMeta
	if err := json.Unmarshal(js, &meta); err != nil {
		return nil, fmt.Errorf("not an object: %w", err)
	}
	if meta.Kind == "" {
		meta.Kind = kind
	}
	switch meta.Kind {
	case "Pod":
		var p corev1.Pod
		if err := json.Unmarshal(js, &p); err != nil {
			return nil, fmt.Errorf("pod: %w", err)
		}
		return []corev1.Pod{p}, nil
	case "List", "PodList":
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(js, &list); err != nil {
			return nil, fmt.Errorf("%s: %w", meta.Kind, err)
		}
		itemKind := ""
		if meta.Kind == "PodList" {
			itemKind = "Pod"
		}
		var pods []corev1.Pod
		for i, item := range list.Items {
			got, err := decodeObject(item, itemKind)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			pods = append(pods, got...)
		}
		return pods, nil
	case "":
		return nil, errors.New("no kind: want a Pod or a List of Pods")
	default:
		return nil, fmt.Errorf("kind %s: want a Pod or a List of Pods", meta.Kind)
	}
}

// listCluster lists the pods of a namespace, finding the cluster as
// kubectl does.
func listCluster(o options) ([]corev1.Pod, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster: %w", err)
	}
	cfg.Timeout = 30 * time.Second
	ns := o.namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, fmt.Errorf("no namespace: %w", err)
		}
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("no cluster: %w", err)
	}
	list, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cannot list pods in namespace %s: %w", ns, err)
	}
	return list.Items, nil
}
