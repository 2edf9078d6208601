package taints

// An Owner is the kind of workload controller that owns a pod.
type Owner string

// The two owners whose answers differ on a node that stops answering.
const (
	ReplicaSet  Owner = "ReplicaSet" // also every Deployment's pods
	StatefulSet Owner = "StatefulSet"
)

// An OldPod is what the API still holds of a pod that was deleted on a node
// that stopped answering. Deleting a pod only marks it (a deletionTimestamp,
// "Terminating"); the object goes when the kubelet confirms that the
// containers stopped, which a kubelet that does not answer never does.
type OldPod struct {
	Exists      bool // the object is still in the API
	Terminating bool // it carries a deletionTimestamp
}

// Replaces reports whether owner creates a replacement for old.
//
// A ReplicaSet counts only active pods (IsPodActive in pkg/controller:
// not Succeeded, not Failed, no deletionTimestamp), so a Terminating pod no
// longer counts and its replacement is created at once, wherever the
// scheduler finds room, while the old object still stays bound to the lost
// node. A StatefulSet gives each pod a fixed name (db-0): the old object
// holds that name until it is gone, and stateful_set_control.go waits for a
// Terminating pod's graceful deletion to complete.
func Replaces(owner Owner, old OldPod) bool {
	if !old.Exists {
		return true
	}
	return owner == ReplicaSet && old.Terminating
}

// TerminatingPodRemoved reports whether a Terminating pod's object leaves the
// API, given its node: the node's kubelet answers again and confirms; the
// Node object is deleted (the pod garbage collector removes pods of nodes
// that no longer exist); or the node is not Ready and carries the
// out-of-service taint (the pod garbage collector force-deletes its
// Terminating pods: chapter 4). Until one of them, a StatefulSet is a
// replica short.
func TerminatingPodRemoved(kubeletAnswers, nodeDeleted, outOfService bool) bool {
	return kubeletAnswers || nodeDeleted || outOfService
}
