package shutdown

import "testing"

// TestShutdownNames: the words a person searches for after a shutdown, as
// upstream writes them at v1.37.2 (the upstream module's
// TestNamesMatchUpstream reads the same values from the kubelet's and the
// cloud provider's code). Each case says the mistake it guards against.
func TestShutdownNames(t *testing.T) {
	tests := []struct {
		name, reason string
		got, want    string
	}{
		{"event-reason", "the event's reason is the constant's value, not its Go name NodeShutdown",
			ShutdownEventReason, "Shutdown"},
		{"admission-reason", "a refused pod's reason is NodeShutdown, unlike the node's event",
			NotAdmittedReason, "NodeShutdown"},
		{"pod-reason", "kubectl get pods prints the status reason",
			StoppedPodReason, "Terminated"},
		{"metric-start", "the gauges carry the kubelet subsystem's prefix; without it a query finds nothing",
			MetricShutdownStart, "kubelet_graceful_shutdown_start_time_seconds"},
		{"metric-end", "the same prefix on the end gauge",
			MetricShutdownEnd, "kubelet_graceful_shutdown_end_time_seconds"},
		{"out-of-service", "the key the pod GC and the attach/detach controller read",
			OutOfServiceTaint, "node.kubernetes.io/out-of-service"},
		{"cloud-shutdown", "the cloud controller's key lives under node.cloudprovider.kubernetes.io, not node.kubernetes.io",
			CloudShutdownTaint, "node.cloudprovider.kubernetes.io/shutdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %q, want %q (%s)", tt.name, tt.got, tt.want, tt.reason)
			}
		})
	}
	if RuntimeMinimumGraceSeconds != 2 {
		t.Errorf("RuntimeMinimumGraceSeconds = %d, want 2: killContainer's minimumGracePeriodInSeconds", RuntimeMinimumGraceSeconds)
	}
}
