package upstream

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
)

func twoValues(total, critical time.Duration) kubeletv1beta1.KubeletConfiguration {
	return kubeletv1beta1.KubeletConfiguration{ShutdownGracePeriod: duration(total), ShutdownGracePeriodCriticalPods: duration(critical)}
}

func table(gates map[string]bool, entries ...[2]int64) kubeletv1beta1.KubeletConfiguration {
	kc := kubeletv1beta1.KubeletConfiguration{FeatureGates: gates}
	for _, e := range entries {
		kc.ShutdownGracePeriodByPodPriority = append(kc.ShutdownGracePeriodByPodPriority, kubeletv1beta1.ShutdownGracePeriodByPodPriority{Priority: int32(e[0]), ShutdownGracePeriodSeconds: e[1]})
	}
	return kc
}

// makePod is upstream's helper of the same name: a pod with a priority and,
// optionally, a terminationGracePeriodSeconds.
func makePod(name string, priority int32, grace *int64) v1.Pod {
	return v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PodSpec{Priority: &priority, TerminationGracePeriodSeconds: grace}}
}

func ptr[T any](v T) *T { return &v }

// TestKubeletTables gives the inputs of the kubelet's own unit-test tables
// (pkg/kubelet/nodeshutdown/nodeshutdown_manager_test.go,
// nodeshutdown_manager_linux_test.go and the shutdown cases of
// pkg/kubelet/apis/config/validation/validation_test.go, v1.37.2) to the
// kubelet's code and to the model, and compares every answer.
func TestKubeletTables(t *testing.T) {
	const critical = shutdown.CriticalPriority
	normal, crit := makePod("normal-pod-nil-grace-period", 0, nil), makePod("critical-pod-nil-grace-period", critical, nil)
	normalShort, critShort := makePod("normal-pod-grace-period", 0, ptr[int64](2)), makePod("critical-pod-grace-period", critical, ptr[int64](2))
	normalLong := makePod("normal-pod-long-grace-period", 0, ptr[int64](1000))
	logind := func(seconds string) []shutdown.LogindFile {
		return []shutdown.LogindFile{{Layer: shutdown.Etc, Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=" + seconds + "\n"}}
	}
	// TestManager's "override unsuccessful": logind keeps its value whatever
	// the kubelet writes; here a drop-in that sorts after the kubelet's.
	pinned := func(seconds string) []shutdown.LogindFile {
		return append(logind(seconds), shutdown.LogindFile{Layer: shutdown.Etc, Name: "zz-pin.conf", Content: "[Login]\nInhibitDelayMaxSec=" + seconds + "\n"})
	}
	offGates := map[string]bool{"GracefulNodeShutdown": false, "GracefulNodeShutdownBasedOnPodPriority": false, "WindowsGracefulNodeShutdown": false}
	cases := []Case{
		// Test_migrateConfig
		{Name: "migrateConfig: both", Kubelet: twoValues(300*time.Second, 120*time.Second)},
		{Name: "migrateConfig: only shutdownGracePeriodRequested", Kubelet: twoValues(100*time.Second, 0)},
		{Name: "migrateConfig: empty configuration", Kubelet: twoValues(0, 0)},
		{Name: "migrateConfig: wrong configuration", Kubelet: twoValues(time.Second, 100*time.Second)},
		// Test_groupByPriority
		{Name: "groupByPriority: migrate config", Kubelet: twoValues(300*time.Second, 120*time.Second),
			Pods: []v1.Pod{makePod("normal-pod", 0, nil), makePod("highest-user-definable-pod", 1_000_000_000, nil), makePod("critical-pod", critical, nil)}},
		{Name: "groupByPriority: pod priority", Kubelet: table(nil, [2]int64{1, 10}, [2]int64{2, 20}, [2]int64{3, 30}, [2]int64{4, 40}),
			Pods: []v1.Pod{makePod("pod-0", 0, nil), makePod("pod-1", 1, nil), makePod("pod-2", 2, nil), makePod("pod-3", 3, nil), makePod("pod-4", 4, nil), makePod("pod-5", 5, nil)}},
		// TestManager
		{Name: "TestManager: no override (total=30s, critical=10s)", Kubelet: twoValues(30*time.Second, 10*time.Second),
			Pods: []v1.Pod{normal, crit}, Logind: logind("40")},
		{Name: "TestManager: pods with terminationGracePeriod and without", Kubelet: twoValues(30*time.Second, 10*time.Second),
			Pods: []v1.Pod{normal, crit, normalShort, critShort}, Logind: logind("40")},
		{Name: "TestManager: pod with long terminationGracePeriod is overridden", Kubelet: twoValues(30*time.Second, 10*time.Second),
			Pods: []v1.Pod{normal, crit, normalShort, critShort, normalLong}, Logind: logind("40")},
		{Name: "TestManager: no override (total=30, critical=0)", Kubelet: twoValues(30*time.Second, 0),
			Pods: []v1.Pod{normal, crit}, Logind: logind("40")},
		{Name: "TestManager: override successful (total=30, critical=10)", Kubelet: twoValues(30*time.Second, 10*time.Second),
			Pods: []v1.Pod{normal, crit}, Logind: logind("5")},
		{Name: "TestManager: override unsuccessful", Kubelet: twoValues(30*time.Second, 10*time.Second),
			Pods: []v1.Pod{normal, crit}, Logind: pinned("5")},
		{Name: "TestManager: override unsuccessful, zero time", Kubelet: twoValues(5*time.Second, 5*time.Second),
			Pods: []v1.Pod{normal, crit}, Logind: pinned("0")},
		{Name: "TestManager: no override, all time to critical pods", Kubelet: twoValues(5*time.Second, 5*time.Second),
			Pods: []v1.Pod{normal, crit}, Logind: logind("5")},
		// TestValidateKubeletConfiguration, its shutdown cases
		{Name: "validation: critical greater than total", Kubelet: twoValues(time.Second, 2*time.Second)},
		{Name: "validation: ShutdownGracePeriod is less than 1 sec", Kubelet: twoValues(time.Millisecond, 0)},
		{Name: "validation: ShutdownGracePeriodCriticalPods is less than 1 sec", Kubelet: twoValues(30*time.Second, time.Millisecond)},
		{Name: "validation: ShutdownGracePeriod without GracefulNodeShutdown", Kubelet: func() kubeletv1beta1.KubeletConfiguration {
			kc := twoValues(time.Second, 0)
			kc.FeatureGates = offGates
			return kc
		}()},
		{Name: "validation: ShutdownGracePeriodCriticalPods without GracefulNodeShutdown", Kubelet: func() kubeletv1beta1.KubeletConfiguration {
			kc := twoValues(0, time.Second)
			kc.FeatureGates = offGates
			return kc
		}()},
		{Name: "validation: invalid GracefulNodeShutdownBasedOnPodPriority", Kubelet: func() kubeletv1beta1.KubeletConfiguration {
			kc := table(map[string]bool{"GracefulNodeShutdownBasedOnPodPriority": true}, [2]int64{0, 0})
			kc.ShutdownGracePeriod, kc.ShutdownGracePeriodCriticalPods = duration(30*time.Second), duration(10*time.Second)
			return kc
		}()},
		{Name: "validation: table without GracefulNodeShutdownBasedOnPodPriority", Kubelet: table(map[string]bool{"GracefulNodeShutdownBasedOnPodPriority": false}, [2]int64{0, 0})},
	}
	var n tally
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if diffs := compare(t, c, &n); len(diffs) > 0 {
				t.Errorf("the model and the kubelet differ:\n%s", strings.Join(diffs, "\n"))
			}
		})
	}
	t.Logf("%d cases, %d refused by both, %d with a shutdown manager, %d where the kubelet writes its logind drop-in, %d where it then gives up",
		n.cases, n.refusedByBoth, n.enabled, n.logindWrites, n.conflicts)
}

// TestKubeletStart runs the kubelet's own NewManager and Start against a fake
// logind for the cases where logind decides whether graceful shutdown
// exists at all, and checks CheckLogind says the same. Each refusal costs the
// kubelet's backoff, about 3 s.
func TestKubeletStart(t *testing.T) {
	etc := func(name, value string) shutdown.LogindFile {
		return shutdown.LogindFile{Layer: shutdown.Etc, Name: name, Content: "[Login]\nInhibitDelayMaxSec=" + value + "\n"}
	}
	uu := shutdown.LogindFile{Layer: shutdown.Lib, Name: "unattended-upgrades-logind-maxdelay.conf", Content: "[Login]\nInhibitDelayMaxSec=30\n"}
	tests := []struct {
		name, reason string
		kc           kubeletv1beta1.KubeletConfiguration
		files        []shutdown.LogindFile
		wantWrites   bool
		wantErr      string
	}{
		{name: "fits", reason: "logind's 40 s cover 30 s: nothing written",
			kc: twoValues(30*time.Second, 10*time.Second), files: []shutdown.LogindFile{etc("logind.conf", "40")}},
		{name: "default 5s", reason: "the kubelet raises logind's 5 s",
			kc: twoValues(30*time.Second, 10*time.Second), wantWrites: true},
		{name: "unattended-upgrades", reason: "its drop-in sorts after 99-kubelet.conf and keeps 30 s",
			kc: twoValues(45*time.Second, 15*time.Second), files: []shutdown.LogindFile{uu}, wantWrites: true,
			wantErr: "node shutdown manager was timed out after 5 attempts waiting for logind InhibitDelayMaxSec to update to 45s (ShutdownGracePeriod), current value is 30s"},
		{name: "infinity", reason: "infinity reads as -1µs: the kubelet writes its drop-in over it",
			kc: twoValues(45*time.Second, 15*time.Second), files: []shutdown.LogindFile{etc("logind.conf", "infinity")}, wantWrites: true},
		{name: "infinity after 99-kubelet.conf", reason: "infinity again after the kubelet's drop-in: still -1µs, the manager does not start",
			kc: twoValues(45*time.Second, 15*time.Second), files: []shutdown.LogindFile{etc("logind.conf", "infinity"), etc("zz-forever.conf", "infinity")}, wantWrites: true,
			wantErr: "node shutdown manager was timed out after 5 attempts waiting for logind InhibitDelayMaxSec to update to 45s (ShutdownGracePeriod), current value is -1µs"},
		{name: "150 years", reason: "past 2^53 ns logind's microseconds still read back exactly",
			kc: table(nil, [2]int64{0, 4_733_640_001}), wantWrites: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err, f := startKubelet(t, &tt.kc, tt.files)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr || (f.wrote != nil) != tt.wantWrites {
				t.Errorf("kubelet Start = %q, wrote %v; want %q, wrote %v (%s)", gotErr, f.wrote != nil, tt.wantErr, tt.wantWrites, tt.reason)
			}
			var s shutdown.Settings
			s.ShutdownGracePeriod, s.ShutdownGracePeriodCriticalPods = tt.kc.ShutdownGracePeriod.Duration, tt.kc.ShutdownGracePeriodCriticalPods.Duration
			for _, p := range tt.kc.ShutdownGracePeriodByPodPriority {
				s.ShutdownGracePeriodByPodPriority = append(s.ShutdownGracePeriodByPodPriority, shutdown.Group{Priority: p.Priority, Seconds: p.ShutdownGracePeriodSeconds})
			}
			cfg, verr := shutdown.Validate(s)
			if verr != nil {
				t.Fatal(verr)
			}
			r := shutdown.CheckLogind(tt.files, cfg.Total())
			if r.KubeletWrites != tt.wantWrites || r.Conflict != (tt.wantErr != "") {
				t.Errorf("CheckLogind = writes %v, conflict %v; the kubelet wrote %v and failed %v (%s)", r.KubeletWrites, r.Conflict, tt.wantWrites, tt.wantErr != "", tt.reason)
			}
		})
	}
}
