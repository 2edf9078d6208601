package taints

import "testing"

func TestReplaces(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		owner  Owner
		old    OldPod
		want   bool
	}{
		{"replicaset_terminating", "IsPodActive drops a pod with a deletionTimestamp: the ReplicaSet is short and creates one at once",
			ReplicaSet, OldPod{Exists: true, Terminating: true}, true},
		{"replicaset_running", "an active pod counts: nothing to replace",
			ReplicaSet, OldPod{Exists: true}, false},
		{"statefulset_terminating", "db-0 Terminating still holds the name db-0, and the StatefulSet waits for its deletion to complete",
			StatefulSet, OldPod{Exists: true, Terminating: true}, false},
		{"statefulset_gone", "once the old object is gone, db-0 is created again",
			StatefulSet, OldPod{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Replaces(tt.owner, tt.old); got != tt.want {
				t.Errorf("Replaces(%s, %+v) = %v, want %v (%s)", tt.owner, tt.old, got, tt.want, tt.reason)
			}
		})
	}
}

func TestTerminatingPodRemoved(t *testing.T) {
	tests := []struct {
		name                                      string
		reason                                    string
		kubeletAnswers, nodeDeleted, outOfService bool
		want                                      bool
	}{
		{"dead_node", "nobody confirms the containers stopped: the object stays Terminating", false, false, false, false},
		{"node_back", "the kubelet, back, stops the containers and finishes the deletion", true, false, false, true},
		{"node_deleted", "the pod garbage collector removes pods of a Node that no longer exists", false, true, false, true},
		{"out_of_service", "the pod garbage collector force-deletes Terminating pods of a not-Ready node with the out-of-service taint", false, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TerminatingPodRemoved(tt.kubeletAnswers, tt.nodeDeleted, tt.outOfService); got != tt.want {
				t.Errorf("TerminatingPodRemoved(%v, %v, %v) = %v, want %v (%s)", tt.kubeletAnswers, tt.nodeDeleted, tt.outOfService, got, tt.want, tt.reason)
			}
		})
	}
}

func TestGoneAtOnce(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		d      Deletion
		want   bool
	}{
		{"running_default_grace", "a scheduled, running pod with the default 30 s is only marked: the kubelet must confirm",
			Deletion{GraceSeconds: 30, Scheduled: true}, false},
		{"grace_zero", "a grace period of 0 deletes the object at once, whatever runs on the node",
			Deletion{GraceSeconds: 0, Scheduled: true}, true},
		{"grace_negative", "a negative grace period counts as 1 s: marked, not gone",
			Deletion{GraceSeconds: -5, Scheduled: true}, false},
		{"unscheduled", "a pod on no node has no kubelet to wait for",
			Deletion{GraceSeconds: 30}, true},
		{"terminal", "a Succeeded or Failed pod runs nothing: gone at once",
			Deletion{GraceSeconds: 30, Scheduled: true, Terminal: true}, true},
		{"finalizer_keeps", "a pending finalizer keeps even a grace-0 pod, marked",
			Deletion{GraceSeconds: 0, Scheduled: true, Finalizers: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.GoneAtOnce(); got != tt.want {
				t.Errorf("%+v.GoneAtOnce() = %v, want %v (%s)", tt.d, got, tt.want, tt.reason)
			}
		})
	}
}
