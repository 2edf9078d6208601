package kube

import (
	"testing"
	"time"

	taints "github.com/opslab/opslab/chapters/02-taints"
)

// TestSettingsReadTheCommandLine: the outage lab's model runs with the
// node lifecycle controller's settings as kube-controller-manager got them
// on its command line, the last value of a flag winning, its defaults for
// the flags it did not get; no other component's flags count.
func TestSettingsReadTheCommandLine(t *testing.T) {
	conf := []byte(`components:
- name: kwok-controller
  args: ["--node-eviction-rate=7"]
- name: kube-controller-manager
  args:
  - --node-monitor-period=25s
  - --secure-port=32762
  - --node-monitor-period=5s
  - --secondary-node-eviction-rate=0.1
  - --unhealthy-zone-threshold=0.55
  - --node-eviction-rate=0.5
  - --node-eviction-rate=0.25
`)
	got, err := Settings(conf)
	if err != nil {
		t.Fatal(err)
	}
	want := Controller{
		Rates:         taints.Rates{Normal: 0.25, Secondary: 0.1, LargeCluster: 50, UnhealthyThreshold: 0.55},
		MonitorPeriod: 5 * time.Second,
		MetricsPort:   32762,
	}
	if got != want {
		t.Errorf("Settings = %+v, want %+v", got, want)
	}
	for _, bad := range []string{
		"components: [{name: kube-controller-manager, args: [--node-eviction-rate=fast]}]",
		"components: [{name: kube-scheduler, args: []}]",
		"components: {",
	} {
		if _, err := Settings([]byte(bad)); err == nil {
			t.Errorf("Settings(%q) gave no error", bad)
		}
	}
}

// TestParseMetrics reads the node lifecycle controller's metrics as
// kube-controller-manager serves them; a zone's label holds the region, a
// NUL byte and the zone.
func TestParseMetrics(t *testing.T) {
	text := "# HELP node_collector_zone_health Gauge measuring percentage of healthy nodes per zone.\n" +
		"node_collector_evictions_total{zone=\"lab:\x00:zone-a\"} 44\n" +
		"node_collector_update_all_nodes_health_duration_seconds_count 1127\n" +
		"node_collector_update_all_nodes_health_duration_seconds_sum 3.5\n" +
		"node_collector_zone_health{zone=\"lab:\x00:zone-c\"} 40\n" +
		"node_collector_zone_health{zone=\"lab: :zone-b\"} 100\n"
	m := ParseMetrics(text)
	if m.Passes != 1127 {
		t.Errorf("Passes = %d, want 1127", m.Passes)
	}
	if m.Health["lab:\x00:zone-c"] != 40 || m.Health["lab: :zone-b"] != 100 || len(m.Health) != 2 {
		t.Errorf("Health = %v", m.Health)
	}
	if m.Tainted["lab:\x00:zone-a"] != 44 {
		t.Errorf("Tainted = %v", m.Tainted)
	}
}

// TestOutageNodeAsAKubeletRegistersIt: the lab's nodes carry the
// operating system and architecture labels under both their names, with
// the same values, as a kubelet's first Node has them (upstream
// pkg/kubelet/kubelet_node_status.go, initialNode), so the node lifecycle
// controller's label reconciliation (node_lifecycle_controller.go,
// labelReconcileInfo and reconcileNodeLabels) has nothing to write: with
// one label of a pair missing it writes every node once, and those writes
// wait, with its taints, for its client's 20 requests a second.
func TestOutageNodeAsAKubeletRegistersIt(t *testing.T) {
	pairs := [][2]string{
		{"kubernetes.io/os", "beta.kubernetes.io/os"},
		{"kubernetes.io/arch", "beta.kubernetes.io/arch"},
	}
	for _, n := range taints.OutageLayout.Nodes() {
		labels := OutageNode(n).Labels
		for _, p := range pairs {
			primary, ok := labels[p[0]]
			if !ok {
				t.Fatalf("node %s has no %s label, which a kubelet sets", n.Name, p[0])
			}
			// What reconcileNodeLabels would write: the secondary label,
			// missing or with another value than the primary's.
			if secondary, ok := labels[p[1]]; !ok || secondary != primary {
				t.Fatalf("node %s has %s=%q and %s=%q: the node lifecycle controller would write %s=%q", n.Name, p[0], primary, p[1], secondary, p[1], primary)
			}
		}
	}
}
