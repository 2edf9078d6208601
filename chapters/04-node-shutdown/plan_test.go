package shutdown

import (
	"fmt"
	"math"
	"slices"
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
// (pkg/kubelet/nodeshutdown/nodeshutdown_manager_test.go, v1.37.2).
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

// TestGroupByPriorityJoinsHighestAtOrBelow: with a table of 0, 800 and
// 50000 (the chapter's own example), each pod joins the group with the
// highest priority at or below its own; below every group, the lowest; above
// every group, the highest. Each pod must be in exactly one group.
func TestGroupByPriorityJoinsHighestAtOrBelow(t *testing.T) {
	groups := []Group{{0, 25}, {800, 45}, {50000, 90}}
	tests := []struct {
		name, reason string
		priority     int32
		want         int32
	}{
		{"regular", "no class: priority 0, exactly the lowest entry", 0, 0},
		{"between low", "640 is between 0 and 800: the lower group", 640, 0},
		{"exact", "exactly at a group's priority: that group", 800, 800},
		{"between high", "7000 is between 800 and 50000: the lower group", 7000, 800},
		{"top entry", "exactly 50000", 50000, 50000},
		{"system-node-critical", "above every group: the highest", 2_000_001_000, 50000},
		{"negative", "below every group: the lowest", -3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []int32
			for _, g := range groupByPriority(groups, []Pod{makePod(tt.name, tt.priority, nil)}) {
				for range g.Pods {
					in = append(in, g.Priority)
				}
			}
			if len(in) != 1 || in[0] != tt.want {
				t.Errorf("pod of priority %d is in groups %v, want exactly [%d] (%s)", tt.priority, in, tt.want, tt.reason)
			}
		})
	}
}

// TestGroupByPriorityRepeatedPriority: with priority 0 listed twice, pods of
// exactly 0 join the first entry and pods above 0 (below 1000) the second, as
// upstream's sort.Search and index-- place them; both periods count. A
// priority listed three times leaves its middle entry without pods.
func TestGroupByPriorityRepeatedPriority(t *testing.T) {
	tests := []struct {
		name, reason string
		table        []Group
		want         map[Group][]string
		wantTotal    time.Duration
	}{
		{name: "twice", reason: "0 finds the first 0; 5 finds 1000 and steps back to the second 0",
			table: []Group{prio(0, 10), prio(0, 20), prio(1000, 30)},
			want:  map[Group][]string{{0, 10}: {"pod-0"}, {0, 20}: {"pod-5"}, {1000, 30}: {"pod-1000"}}, wantTotal: 60 * time.Second},
		{name: "three times", reason: "the middle 0 is neither the first nor the last: no pod reaches it",
			table: []Group{prio(0, 10), prio(0, 15), prio(0, 20), prio(1000, 30)},
			want:  map[Group][]string{{0, 10}: {"pod-0"}, {0, 15}: {}, {0, 20}: {"pod-5"}, {1000, 30}: {"pod-1000"}}, wantTotal: 75 * time.Second},
		{name: "highest twice", reason: "above every entry: the last of the repeated highest",
			table: []Group{prio(0, 10), prio(1000, 20), prio(1000, 30)},
			want:  map[Group][]string{{0, 10}: {"pod-0", "pod-5"}, {1000, 20}: {"pod-1000"}, {1000, 30}: {}}, wantTotal: 60 * time.Second},
	}
	pods := []Pod{makePod("pod-0", 0, nil), makePod("pod-5", 5, nil), makePod("pod-1000", 1000, nil)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Validate(kubelet(0, 0, tt.table...))
			if err != nil {
				t.Fatalf("Validate = %v, want accepted as the kubelet accepts it (%s)", err, tt.reason)
			}
			got := map[Group][]string{}
			for _, g := range groupByPriority(c.Groups, slices.Clone(pods)) {
				got[g.Group] = names(g.Pods)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groupByPriority mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
			if c.Total() != tt.wantTotal {
				t.Errorf("Total() = %v, want %v: every entry's seconds count", c.Total(), tt.wantTotal)
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
		{Name: "web", Priority: 0, Group: 0, GracePeriodSeconds: 20, Start: 0, Grace: 20 * time.Second, End: 20 * time.Second},
		{Name: "dns", Priority: CriticalPriority, Group: CriticalPriority, GracePeriodSeconds: 10, Start: 20 * time.Second, Grace: 10 * time.Second, End: 30 * time.Second},
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

// TestPlanNegativeSeconds: the kubelet accepts a negative number of seconds.
// The pod is asked to stop with that grace period, which the pod worker
// raises to one second and killContainer to two; the group's timer fires at once, so the next group
// starts at once; and the seconds are subtracted from what the kubelet asks
// logind for.
func TestPlanNegativeSeconds(t *testing.T) {
	c, err := Validate(kubelet(0, 0, prio(0, -5), prio(1000, 30)))
	if err != nil {
		t.Fatalf("Validate = %v, want accepted as the kubelet accepts it", err)
	}
	p := NewPlan(c, []Pod{makePod("batch", 0, seconds(30)), makePod("db", 1000, seconds(30))})
	want := []PodStep{
		{Name: "batch", Priority: 0, Group: 0, GracePeriodSeconds: -5, Start: 0, Grace: 2 * time.Second, End: 2 * time.Second},
		{Name: "db", Priority: 1000, Group: 1000, GracePeriodSeconds: 30, Start: 0, Grace: 30 * time.Second, End: 30 * time.Second},
	}
	if diff := cmp.Diff(want, p.Pods); diff != "" {
		t.Errorf("NewPlan pods mismatch (-want +got):\n%s", diff)
	}
	if !p.Groups[0].NoWait || p.Groups[0].End != 0 {
		t.Errorf("group 0: NoWait %v, End %v; want true, 0s", p.Groups[0].NoWait, p.Groups[0].End)
	}
	if p.Requested != 25*time.Second {
		t.Errorf("Requested = %v, want 25s (-5 + 30)", p.Requested)
	}
}

// TestPlanComparesSeconds: the kubelet compares a pod's
// terminationGracePeriodSeconds with its group's seconds as whole seconds,
// and the API bounds neither, so no value is too large.
func TestPlanComparesSeconds(t *testing.T) {
	huge := int64(18_446_744_074) // times 10^9 ns, this wraps a Duration round to 290ms
	tests := []struct {
		name, reason string
		groups       []Group
		tgps         *int64
		wantSeconds  int64
		wantGrace    time.Duration
		wantNoWait   bool
	}{
		{name: "huge pod grace", reason: "18446744074 s is more than the group's 20 s: the group's 20 s",
			groups: []Group{{0, 20}, {CriticalPriority, 10}}, tgps: &huge, wantSeconds: 20, wantGrace: 20 * time.Second},
		{name: "huge group", reason: "10^10 s: the pod's 30 s is smaller; the group's wait wraps below zero, so the kubelet does not wait for it",
			groups: []Group{{0, 10_000_000_000}}, tgps: seconds(30), wantSeconds: 30, wantGrace: 30 * time.Second, wantNoWait: true},
		{name: "huge group, no pod grace", reason: "the group's 10^10 s are the grace period; the timeline is cut at the largest Duration",
			groups: []Group{{0, 10_000_000_000}}, wantSeconds: 10_000_000_000, wantGrace: math.MaxInt64, wantNoWait: true},
		{name: "equal", reason: "<=: a pod grace equal to the group's is the pod's",
			groups: []Group{{0, 20}}, tgps: seconds(20), wantSeconds: 20, wantGrace: 20 * time.Second},
		{name: "zero", reason: "a pod grace of 0 is asked for as 0; the pod worker makes it 1 s and killContainer 2 s",
			groups: []Group{{0, 20}}, tgps: seconds(0), wantSeconds: 0, wantGrace: 2 * time.Second},
		{name: "one second", reason: "1 s is above the pod worker's floor and below killContainer's: the container gets 2 s",
			groups: []Group{{0, 20}}, tgps: seconds(1), wantSeconds: 1, wantGrace: 2 * time.Second},
		{name: "two seconds", reason: "2 s is the floor itself: kept",
			groups: []Group{{0, 20}}, tgps: seconds(2), wantSeconds: 2, wantGrace: 2 * time.Second},
		{name: "three seconds", reason: "above the floor a grace is kept as asked",
			groups: []Group{{0, 20}}, tgps: seconds(3), wantSeconds: 3, wantGrace: 3 * time.Second},
		{name: "zero-second group", reason: "a group of 0 s: the container gets 2 s, and the kubelet's timer of 0 fires at once",
			groups: []Group{{0, 0}}, wantSeconds: 0, wantGrace: 2 * time.Second, wantNoWait: true},
		{name: "largest whole seconds", reason: "9223372036 s is the largest whole number of seconds a Duration holds: kept exactly, not cut, and waited for",
			groups: []Group{{0, 9_223_372_036}}, wantSeconds: 9_223_372_036, wantGrace: 9_223_372_036 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPlan(Config{Enabled: true, Groups: tt.groups}, []Pod{makePod("p", 0, tt.tgps)})
			got := p.Pods[0]
			if got.GracePeriodSeconds != tt.wantSeconds || got.Grace != tt.wantGrace || p.Groups[0].NoWait != tt.wantNoWait {
				t.Errorf("pod asked for %d s, grace %v, NoWait %v; want %d s, %v, %v (%s)",
					got.GracePeriodSeconds, got.Grace, p.Groups[0].NoWait, tt.wantSeconds, tt.wantGrace, tt.wantNoWait, tt.reason)
			}
		})
	}
	// 10^10 s asked of logind wraps below zero too: the kubelet writes no drop-in.
	big := Config{Enabled: true, Groups: []Group{{0, 10_000_000_000}}}
	if r := CheckLogind(nil, big.Total()); big.Total() >= 0 || r.KubeletWrites {
		t.Errorf("Total() = %v, writes %v; want a negative Duration and no drop-in", big.Total(), r.KubeletWrites)
	}
}

// TestPlanSkipsEmptyGroups: a group without pods takes no time; the next group
// starts at once.
func TestPlanSkipsEmptyGroups(t *testing.T) {
	c := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 30}, {800, 45}, {7000, 120}, {50000, 15}}}
	p := NewPlan(c, []Pod{makePod("batch", 0, seconds(30)), makePod("ledger", 50000, seconds(15))})
	want := []GroupStep{
		{Group: Group{0, 30}, Pods: 1, Start: 0, End: 30 * time.Second},
		{Group: Group{800, 45}, Skipped: true, Start: 30 * time.Second, End: 30 * time.Second},
		{Group: Group{7000, 120}, Skipped: true, Start: 30 * time.Second, End: 30 * time.Second},
		{Group: Group{50000, 15}, Pods: 1, Start: 30 * time.Second, End: 45 * time.Second},
	}
	if diff := cmp.Diff(want, p.Groups); diff != "" {
		t.Errorf("NewPlan groups mismatch (-want +got):\n%s", diff)
	}
	if p.Requested != 210*time.Second || p.End != 45*time.Second {
		t.Errorf("Requested, End = %v, %v; want 3m30s, 45s: the kubelet asks for every group's seconds, the pods need less", p.Requested, p.End)
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
	c := Config{Enabled: true, ByPriority: true, Groups: []Group{{0, 45}, {2000, 90}, {50000, 150}, {200000, 15}}}
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

// TestPlanEndsLowestFirst: the groups end one after another from the lowest
// priority up, whatever order the table was written in. A nightly job (5)
// goes first, the queue (700) next, the ledger (90000) last.
func TestPlanEndsLowestFirst(t *testing.T) {
	c, err := Validate(kubelet(0, 0, prio(90000, 15), prio(5, 25), prio(700, 40)))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, []Pod{makePod("ledger", 90000, seconds(15)), makePod("nightly", 5, seconds(25)), makePod("queue", 700, seconds(40))})
	want := []PodStep{
		{Name: "nightly", Priority: 5, Group: 5, GracePeriodSeconds: 25, Start: 0, Grace: 25 * time.Second, End: 25 * time.Second},
		{Name: "queue", Priority: 700, Group: 700, GracePeriodSeconds: 40, Start: 25 * time.Second, Grace: 40 * time.Second, End: 65 * time.Second},
		{Name: "ledger", Priority: 90000, Group: 90000, GracePeriodSeconds: 15, Start: 65 * time.Second, Grace: 15 * time.Second, End: 80 * time.Second},
	}
	if diff := cmp.Diff(want, p.Pods); diff != "" {
		t.Errorf("NewPlan pods mismatch (-want +got):\n%s", diff)
	}
}

// TestPlanCriticalStartsAtTwoBillion: in the two-value form the critical
// group starts at priority 2000000000, the value of system-cluster-critical,
// written here as a number rather than read from the model's constant. The
// highest priority a user's class may have, 1000000000, and 1999999999 are
// regular; 2000000000 and system-node-critical's 2000001000 are critical.
func TestPlanCriticalStartsAtTwoBillion(t *testing.T) {
	c, err := Validate(kubelet(40*time.Second, 15*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Group{{0, 25}, {2_000_000_000, 15}}, c.Groups); diff != "" {
		t.Errorf("Validate(40s, 15s) groups mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		name      string
		priority  int32
		wantGroup int32
		wantStart time.Duration
	}{
		{"user maximum", 1_000_000_000, 0, 0},
		{"just below", 1_999_999_999, 0, 0},
		{"system-cluster-critical", 2_000_000_000, 2_000_000_000, 25 * time.Second},
		{"system-node-critical", 2_000_001_000, 2_000_000_000, 25 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPlan(c, []Pod{makePod("regular", 0, seconds(30)), makePod(tt.name, tt.priority, seconds(30))})
			got := p.Pods[len(p.Pods)-1]
			if got.Name != tt.name {
				got = p.Pods[0]
			}
			if got.Group != tt.wantGroup || got.Start != tt.wantStart {
				t.Errorf("pod of priority %d: group %d from %v, want group %d from %v", tt.priority, got.Group, got.Start, tt.wantGroup, tt.wantStart)
			}
		})
	}
}
