package main

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/internal/cmdshell"
	"github.com/opslab/opslab/internal/kubeio"
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
		var docs []kubeio.Document
		if docs, err = kubeio.ReadFiles(o.files, stdin); err == nil {
			pods, err = kubeio.Pods(docs)
		}
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
			// A pod the API server would refuse cannot run anywhere: say
			// why, in the server's words, rather than when it would leave.
			if err := taints.ValidatePod(p.Name, p.Tolerations); err != nil {
				return nil, 0, cmdshell.Usagef("%v", err)
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

// listCluster lists the pods of a namespace, finding the cluster as
// kubectl does.
func listCluster(o options) ([]corev1.Pod, error) {
	c, err := kubeio.Connect(o.kubeconfig, o.context)
	if err != nil {
		return nil, err
	}
	ns := o.namespace
	if ns == "" {
		ns = c.Namespace
	}
	list, err := c.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cannot list pods in namespace %s: %w", ns, err)
	}
	return list.Items, nil
}
