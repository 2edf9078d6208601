package graceful

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// makePod is upstream's helper of the same name.
func makePod(name string, priority int32, terminationGracePeriod *int64) Pod {
	return Pod{Name: name, Priority: priority, TerminationGracePeriodSeconds: terminationGracePeriod}
}

func seconds(s int64) *int64 { return &s }

func names(pods []*Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// TestGroupByPriorityUpstream runs the cases of upstream's Test_groupByPriority
// (pkg/kubelet/nodeshutdown/nodeshutdown_manager_test.go, v1.36.3).
func TestGroupByPriorityUpstream(t *testing.T) {
	highestUserDefinable := int32(1_000_000_000)
	migrated, err := Validate(kubelet(300*time.Second, 120*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason string
		groups       []Group
		pods         []Pod
		want         map[Group][]string
	}{
		{name: "migrate config", reason: "the two-value form: everything below the critical range is regular",
			groups: migrated.Groups,
			pods: []Pod{
				makePod("normal-pod", 0, nil),
				makePod("highest-user-definable-pod", highestUserDefinable, nil),
				makePod("critical-pod", CriticalPriority, nil),
			},
			want: map[Group][]string{
				{0, 180}:                {"normal-pod", "highest-user-definable-pod"},
				{CriticalPriority, 120}: {"critical-pod"},
			}},
		{name: "pod priority", reason: "below the lowest joins the lowest, above the highest joins the highest",
			groups: []Group{{1, 10}, {2, 20}, {3, 30}, {4, 40}},
			pods: []Pod{
				makePod("pod-0", 0, nil), makePod("pod-1", 1, nil), makePod("pod-2", 2, nil),
				makePod("pod-3", 3, nil), makePod("pod-4", 4, nil), makePod("pod-5", 5, nil),
			},
			want: map[Group][]string{
				{1, 10}: {"pod-0", "pod-1"},
				{2, 20}: {"pod-2"},
				{3, 30}: {"pod-3"},
				{4, 40}: {"pod-4", "pod-5"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[Group][]string{}
			for _, g := range groupByPriority(tt.groups, tt.pods) {
				got[g.Group] = names(g.Pods)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groupByPriority mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestGroupByPriorityJoinsHighestAtOrBelow: with the documentation's table
// (100000, 1000, 0), a pod of 10000 joins the group of 1000.
func TestGroupByPriorityJoinsHighestAtOrBelow(t *testing.T) {
	groups := []Group{{0, 60}, {1000, 120}, {100000, 300}}
	tests := []struct {
		name, reason string
		priority     int32
		want         int32
	}{
		{"custom-class-b", "10000 is between 1000 and 100000: the lower group", 10000, 1000},
		{"custom-class-a", "exactly at a group's priority: that group", 100000, 100000},
		{"custom-class-c", "exactly 1000", 1000, 1000},
		{"regular", "no class: priority 0", 0, 0},
		{"negative", "below every group: the lowest", -5, 0},
		{"system-node-critical", "above every group: the highest", CriticalPriority + 1000, 100000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, g := range groupByPriority(groups, []Pod{makePod(tt.name, tt.priority, nil)}) {
				if len(g.Pods) == 1 && g.Priority != tt.want {
					t.Errorf("pod of priority %d joined group %d, want %d (%s)", tt.priority, g.Priority, tt.want, tt.reason)
				}
			}
		})
	}
}

// TestPlanTwoPhases: 30 s / 10 s ends regular pods in the first 20 s and
// critical pods in the last 10 s.
func TestPlanTwoPhases(t *testing.T) {
	c, err := Validate(kubelet(30*time.Second, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, []Pod{makePod("web", 0, seconds(30)), makePod("dns", CriticalPriority, seconds(30))})
	want := []PodStep{
		{Name: "web", Priority: 0, Group: 0, Start: 0, Grace: 20 * time.Second, End: 20 * time.Second},
		{Name: "dns", Priority: CriticalPriority, Group: CriticalPriority, Start: 20 * time.Second, Grace: 10 * time.Second, End: 30 * time.Second},
	}
	if diff := cmp.Diff(want, p.Pods); diff != "" {
		t.Errorf("NewPlan(30s/10s) pods mismatch (-want +got):\n%s", diff)
	}
}

// TestPlanGraceIsSmallerOfGroupAndPod: a pod's own terminationGracePeriodSeconds
// shortens its grace but never lengthens it; a pod without one gets the group's.
func TestPlanGraceIsSmallerOfGroupAndPod(t *testing.T) {
	c := Config{Enabled: true, Groups: []Group{{0, 60}}}
	tests := []struct {
		name, reason string
		tgps         *int64
		want         time.Duration
	}{
		{"shorter pod", "the pod asks for 5s, less than the group's 60s", seconds(5), 5 * time.Second},
		{"longer pod", "the pod asks for 600s, the group allows 60s", seconds(600), 60 * time.Second},
		{"no value", "no terminationGracePeriodSeconds: the group's seconds", nil, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPlan(c, []Pod{makePod("p", 0, tt.tgps)})
			if got := p.Pods[0].Grace; got != tt.want {
				t.Errorf("grace = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestPlanSkipsEmptyGroups: a group without pods takes no time; the next group
// starts at once.
func TestPlanSkipsEmptyGroups(t *testing.T) {
	c := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 60}, {1000, 120}, {10000, 180}, {100000, 10}}}
	p := NewPlan(c, []Pod{makePod("batch", 0, seconds(60)), makePod("db", 100000, seconds(30))})
	want := []GroupStep{
		{Group: Group{0, 60}, Pods: 1, Start: 0, End: 60 * time.Second},
		{Group: Group{1000, 120}, Skipped: true, Start: 60 * time.Second, End: 60 * time.Second},
		{Group: Group{10000, 180}, Skipped: true, Start: 60 * time.Second, End: 60 * time.Second},
		{Group: Group{100000, 10}, Pods: 1, Start: 60 * time.Second, End: 70 * time.Second},
	}
	if diff := cmp.Diff(want, p.Groups); diff != "" {
		t.Errorf("NewPlan groups mismatch (-want +got):\n%s", diff)
	}
	if p.Requested != 370*time.Second || p.End != 70*time.Second {
		t.Errorf("Requested, End = %v, %v; want 6m10s, 1m10s: the kubelet asks for every group's seconds, the pods need less", p.Requested, p.End)
	}
}

// TestPlanGroupEndsWhenPodsGone: a group whose pods need less than its
// seconds ends when the last of them is gone.
func TestPlanGroupEndsWhenPodsGone(t *testing.T) {
	c := Config{Enabled: true, Groups: []Group{{0, 60}, {1000, 60}}}
	p := NewPlan(c, []Pod{makePod("a", 0, seconds(5)), makePod("b", 0, seconds(12)), makePod("c", 1000, seconds(30))})
	if got := p.Groups[0].End; got != 12*time.Second {
		t.Errorf("first group ends at %v, want 12s (its longest pod)", got)
	}
	if got := p.Pods[2].Start; got != 12*time.Second {
		t.Errorf("pod c starts at %v, want 12s", got)
	}
}

// TestPlanOff: with graceful shutdown off there is no timeline.
func TestPlanOff(t *testing.T) {
	p := NewPlan(Config{}, []Pod{makePod("a", 0, nil)})
	if len(p.Pods) != 0 || p.Requested != 0 {
		t.Errorf("NewPlan(off) = %+v, want empty", p)
	}
}

// BenchmarkPlan10000Pods plans the shutdown of 10,000 pods over four groups.
func BenchmarkPlan10000Pods(b *testing.B) {
	c := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 60}, {1000, 120}, {10000, 180}, {100000, 10}}}
	pods := make([]Pod, 10000)
	for i := range pods {
		pods[i] = makePod(fmt.Sprintf("pod-%d", i), int32(i*37%120000), seconds(int64(i%90)))
	}
	for b.Loop() {
		NewPlan(c, pods)
	}
}

// TestGroupFor: the group a pod of a given priority joins, as groupByPriority
// places it.
func TestGroupFor(t *testing.T) {
	c := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 20}, {100000, 30}, {CriticalPriority, 10}}}
	tests := []struct {
		name, reason string
		priority     int32
		want         Group
	}{
		{"regular", "priority 0", 0, Group{0, 20}},
		{"database", "exactly 100000", 100000, Group{100000, 30}},
		{"user maximum", "1000000000 is below the critical range", 1_000_000_000, Group{100000, 30}},
		{"system-node-critical", "2000001000 joins the critical group", CriticalPriority + 1000, Group{CriticalPriority, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := c.GroupFor(tt.priority)
			if !ok || got != tt.want {
				t.Errorf("GroupFor(%d) = %v, %v; want %v (%s)", tt.priority, got, ok, tt.want, tt.reason)
			}
		})
	}
	if _, ok := (Config{}).GroupFor(0); ok {
		t.Errorf("GroupFor on a disabled config = ok, want false")
	}
}
