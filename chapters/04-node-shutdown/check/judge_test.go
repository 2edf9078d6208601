package check

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func solution(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../lab/kubelet-shutdown.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

const kubeletHead = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"

// TestJudgeConfig: the reference ConfigMap passes; each way of missing the
// lab's asks fails with the reason.
func TestJudgeConfig(t *testing.T) {
	table := kubeletHead + "shutdownGracePeriodByPodPriority:\n- {priority: 0, shutdownGracePeriodSeconds: 20}\n- {priority: 100000, shutdownGracePeriodSeconds: 30}\n- {priority: 2000000000, shutdownGracePeriodSeconds: 10}\n"
	tests := []struct {
		name, reason string
		data         map[string]string
		wantPass     bool
		wantMessage  string
	}{
		{name: "reference", reason: "lab/kubelet-shutdown.yaml is the answer", data: solution(t), wantPass: true},
		{name: "not masked", reason: "60s needed, unattended-upgrades' drop-in keeps 30s",
			data:        map[string]string{"kubelet.yaml": table},
			wantMessage: "logind allows 30s, less than the 1m0s the kubelet needs: its shutdown manager would not start (/usr/lib/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf)"},
		{name: "later drop-in", reason: "a drop-in that sorts after unattended-upgrades' also wins",
			data:     map[string]string{"kubelet.yaml": table, "zz-kubelet.conf": "[Login]\nInhibitDelayMaxSec=60\n"},
			wantPass: true},
		{name: "refused", reason: "the kubelet refuses both forms at once",
			data:        map[string]string{"kubelet.yaml": table + "shutdownGracePeriod: 30s\n"},
			wantMessage: "the kubelet refuses kubelet.yaml: shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set"},
		{name: "off", reason: "an empty configuration switches graceful shutdown off",
			data:        map[string]string{"kubelet.yaml": kubeletHead},
			wantMessage: "kubelet.yaml leaves graceful node shutdown off: both periods are 0 and there is no shutdownGracePeriodByPodPriority"},
		{name: "two values", reason: "the lab asks for the priority form",
			data:        map[string]string{"kubelet.yaml": kubeletHead + "shutdownGracePeriod: 60s\nshutdownGracePeriodCriticalPods: 10s\n"},
			wantMessage: "kubelet.yaml uses shutdownGracePeriod/shutdownGracePeriodCriticalPods; the lab asks for shutdownGracePeriodByPodPriority so the database ends after the application"},
		{name: "database short", reason: "the database's group gives 15s",
			data:        map[string]string{"kubelet.yaml": strings.Replace(table, "100000, shutdownGracePeriodSeconds: 30", "100000, shutdownGracePeriodSeconds: 15", 1), "masked": "unattended-upgrades-logind-maxdelay.conf\n"},
			wantMessage: "the database (priority 100000) get 15s from the group of 100000; the lab asks for at least 30s"},
		{name: "database shares", reason: "without its own group the database ends together with the application",
			data:        map[string]string{"kubelet.yaml": kubeletHead + "shutdownGracePeriodByPodPriority:\n- {priority: 0, shutdownGracePeriodSeconds: 30}\n- {priority: 2000000000, shutdownGracePeriodSeconds: 10}\n", "masked": "unattended-upgrades-logind-maxdelay.conf"},
			wantMessage: "the database shares a group with regular pods; give it a group of its own so it ends after them"},
		{name: "no key", reason: "the configuration lives under kubelet.yaml",
			data:        map[string]string{"config": table},
			wantMessage: "ConfigMap kubelet-shutdown has no key kubelet.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := judgeConfig(tt.data)
			if r.Pass != tt.wantPass || (tt.wantMessage != "" && r.Message != tt.wantMessage) {
				t.Errorf("judgeConfig = pass %v, %q; want pass %v, %q (%s)", r.Pass, r.Message, tt.wantPass, tt.wantMessage, tt.reason)
			}
		})
	}
}

// TestLabDatabaseRunsAtDatabasePriority: the priority the graceful-shutdown
// check plans for is the one the lab's db-0 really gets, from its
// PriorityClass in lab/db.yaml (a pod without one runs at 0, with the
// applications).
func TestLabDatabaseRunsAtDatabasePriority(t *testing.T) {
	raw, err := os.ReadFile("../lab/db.yaml")
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int32{}
	var template string
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var obj struct {
			Kind     string
			Metadata struct{ Name string }
			Value    int32
			Spec     struct {
				Template struct {
					Spec struct {
						PriorityClassName string `json:"priorityClassName"`
					}
				}
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		switch obj.Kind {
		case "PriorityClass":
			classes[obj.Metadata.Name] = obj.Value
		case "StatefulSet":
			template = obj.Spec.Template.Spec.PriorityClassName
		}
	}
	got, ok := classes[template]
	if !ok || got != DatabasePriority {
		t.Errorf("db-0 runs with priority class %q (value %d, defined %v), want one of value %d", template, got, ok, DatabasePriority)
	}
}
