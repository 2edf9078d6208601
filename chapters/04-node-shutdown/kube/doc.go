// Package kube is chapter 4's model on the Kubernetes API: it takes the
// inputs the kubelet takes, a KubeletConfiguration and core/v1 Pods, and
// hands them to the model in package shutdown, the one implementation.
// [Validate] reads the fields of a KubeletConfiguration that decide a
// graceful shutdown; [NewPlan] reads each pod as the API server would have
// filled it in.
package kube
