package taints

// An Owner is the kind of workload controller that owns a pod.
type Owner string

// The two owners whose answers differ on a node that stops answering.
const (
	ReplicaSet  Owner = "ReplicaSet" // also every Deployment's pods
	StatefulSet Owner = "StatefulSet"
)

// An OldPod is what the API still holds of a pod that was deleted on a node
// that stopped answering. Deleting a pod usually only marks it (a
// deletionTimestamp, "Terminating"); the object goes when the kubelet
// confirms that the containers stopped, which a kubelet that does not answer
// never does. Deletion.GoneAtOnce says when the object goes at once instead.
type OldPod struct {
	Exists      bool // the object is still in the API
	Terminating bool // it carries a deletionTimestamp
}

// A Deletion is what the API server reads of a pod it is asked to delete
// to decide whether the object goes at once or is only marked Terminating
// (CheckGracefulDelete in pkg/registry/core/pod/strategy.go, then the
// generic store's delete in k8s.io/apiserver).
type Deletion struct {
	// GraceSeconds is the grace period the delete asks for, or else the
	// pod's terminationGracePeriodSeconds (30 unless the pod set it). The
	// taint eviction controller asks for none, so the pod's own value
	// decides.
	GraceSeconds int64
	Scheduled    bool // spec.nodeName is set
	Terminal     bool // phase Succeeded or Failed
	Finalizers   bool // metadata.finalizers is not empty
}

// GoneAtOnce reports whether the API server removes a deleted pod's object
// at once, without waiting for a kubelet. It does for a pod that was never
// scheduled or has already ended, whatever its grace period, and for a pod
// whose grace period is 0; a negative period counts as 1 s. A pending
// finalizer always keeps the object, marked, until it is removed.
//
// So a StatefulSet pod with terminationGracePeriodSeconds: 0 on a lost
// node is gone the moment it is deleted, and its successor of the same
// name is created while the old containers may still run.
func (d Deletion) GoneAtOnce() bool {
	if d.Finalizers {
		return false
	}
	if !d.Scheduled || d.Terminal {
		// Nothing runs, or nothing runs any more: no kubelet to wait for.
		return true
	}
	return d.GraceSeconds == 0
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
