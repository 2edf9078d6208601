package upstream

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/kube"
	"github.com/opslab/opslab/lab/differential"
)

// A Case is one input given to both the kubelet and the model: a kubelet
// configuration (its shutdown fields and feature gates), the pods on the
// node as written (the kubelet gets them as the API server would hand them
// over), and logind's files on the node.
type Case struct {
	Name    string                              `json:"name,omitempty"`
	Kubelet kubeletv1beta1.KubeletConfiguration `json:"kubelet"`
	Pods    []v1.Pod                            `json:"pods,omitempty"`
	Logind  []shutdown.LogindFile               `json:"logind,omitempty"`
}

// Counts of what a run compared, for its log line.
type tally struct {
	cases, refusedByBoth, enabled, pods, logindWrites, conflicts int
}

var braces = regexp.MustCompile(`\{([^{}]*)\}`)

// compare gives c to the kubelet and to the model and returns every
// difference, in words; none means they agree.
func compare(t testing.TB, c Case, n *tally) []string {
	t.Helper()
	gateMu.Lock()
	defer gateMu.Unlock()
	if n == nil {
		n = &tally{}
	}
	n.cases++
	kc := c.Kubelet.DeepCopy()
	var diffs []string

	// 1. Validation. The kubelet prints a metav1.Duration as {30s}.
	want := inModelWords(kubeletValidate(t, kc))
	for i := range want {
		want[i] = braces.ReplaceAllString(want[i], "$1")
	}
	cfg, err := kube.Validate(kc)
	var got []string
	if err != nil {
		got = strings.Split(err.Error(), "\n")
		slices.Sort(got)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		return append(diffs, "validation (-kubelet +model):\n"+d)
	}
	if len(want) > 0 {
		n.refusedByBoth++
		return nil
	}

	// 2. The shutdown manager: whether it runs, its groups, the request, who
	// is in which group and the grace period each pod is asked for.
	api := make([]*v1.Pod, len(c.Pods))
	written := make([]*v1.Pod, len(c.Pods))
	for i := range c.Pods {
		written[i] = &c.Pods[i]
		api[i] = apiPod(&c.Pods[i])
	}
	kp := runKubelet(t, kc, api)
	mp, err := modelPlan(cfg, written)
	if err != nil {
		return append(diffs, "the model refused a pod the kubelet ended: "+err.Error())
	}
	if d := cmp.Diff(kp, mp, cmpopts.EquateEmpty()); d != "" {
		diffs = append(diffs, "shutdown manager (-kubelet +model):\n"+d)
	}
	if !kp.Enabled {
		return diffs
	}
	n.enabled++
	n.pods += len(c.Pods)

	// 3. logind at start-up.
	ka := kubeletLogind(c.Logind, kp.Requested)
	mr := shutdown.CheckLogind(c.Logind, cfg.Total())
	ma := logindAnswer{Before: mr.Before.Value, After: mr.After.Value, Writes: mr.KubeletWrites, Conflict: mr.Conflict}
	if d := cmp.Diff(ka, ma); d != "" {
		diffs = append(diffs, "logind (-kubelet +model):\n"+d)
	}
	if ka.Writes {
		n.logindWrites++
	}
	if ka.Conflict {
		n.conflicts++
	}
	return diffs
}

// TestDifferential compares the model with the kubelet's code on random
// configurations, feature gates, pods and logind files.
func TestDifferential(t *testing.T) {
	seed, cases := differential.Params(t, 20260401, 3000)
	t.Logf("seed %d, %d cases (OPSLAB_DIFF_SEED=%d reproduces this run)", seed, cases, seed)
	rng := rand.New(rand.NewPCG(seed, 0x0b5e4b))
	var n tally
	failed := 0
	for i := range cases {
		c := generate(rng)
		c.Name = fmt.Sprintf("seed %d, case %d", seed, i)
		diffs := compare(t, c, &n)
		if len(diffs) == 0 {
			continue
		}
		small := shrink(t, c)
		path := writeReplay(t, fmt.Sprintf("seed-%d-case-%d.json", seed, i), small)
		t.Errorf("seed %d, case %d: the model and the kubelet differ:\n%s\nshrunk to %s:\n%s",
			seed, i, strings.Join(diffs, "\n"), path, strings.Join(compare(t, small, nil), "\n"))
		if failed++; failed == 3 {
			t.Fatalf("stopping after 3 differences (seed %d)", seed)
		}
	}
	t.Logf("seed %d: %d cases, %d refused by both, %d with a shutdown manager (%d pods), %d where the kubelet writes its logind drop-in, %d where it then gives up",
		seed, n.cases, n.refusedByBoth, n.enabled, n.pods, n.logindWrites, n.conflicts)
}

// TestDifferentialReplay runs every replay file in testdata/differential.
func TestDifferentialReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "differential", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no replay files in testdata/differential")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c Case
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if diffs := compare(t, c, nil); len(diffs) > 0 {
				t.Errorf("%s (%s): the model and the kubelet differ:\n%s", f, c.Name, strings.Join(diffs, "\n"))
			}
		})
	}
}

func writeReplay(t *testing.T, name string, c Case) string {
	t.Helper()
	dir := filepath.Join("testdata", "differential")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := replayJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayJSON is c as a replay file: the Case's JSON without the fields a
// replay does not need (the rest of the kubelet's configuration, empty pod
// status and containers).
func replayJSON(c Case) ([]byte, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	kc, _ := m["kubelet"].(map[string]any)
	for k, v := range kc {
		switch k {
		case "featureGates", "shutdownGracePeriodByPodPriority":
		case "shutdownGracePeriod", "shutdownGracePeriodCriticalPods":
			if v == "0s" {
				delete(kc, k)
			}
		default:
			delete(kc, k)
		}
	}
	pods, _ := m["pods"].([]any)
	for _, p := range pods {
		pm, _ := p.(map[string]any)
		delete(pm, "status")
		if md, ok := pm["metadata"].(map[string]any); ok {
			delete(md, "creationTimestamp")
		}
		if sp, ok := pm["spec"].(map[string]any); ok && sp["containers"] == nil {
			delete(sp, "containers")
		}
	}
	return json.MarshalIndent(m, "", "  ")
}

// shrink drops parts of c for as long as the model and the kubelet still
// differ: pods, table entries, logind files, feature gates, durations, pod
// fields.
func shrink(t testing.TB, c Case) Case {
	t.Helper()
	differs := func(c Case) bool { return len(compare(t, c, nil)) > 0 }
	for changed := true; changed; {
		changed = false
		for _, cand := range smaller(c) {
			if differs(cand) {
				c, changed = cand, true
				break
			}
		}
	}
	return c
}

// smaller lists the cases one step smaller than c.
func smaller(c Case) []Case {
	var out []Case
	clone := func() Case {
		d := c
		d.Kubelet = *c.Kubelet.DeepCopy()
		d.Pods = slices.Clone(c.Pods)
		for i := range d.Pods {
			d.Pods[i] = *d.Pods[i].DeepCopy()
		}
		d.Logind = slices.Clone(c.Logind)
		return d
	}
	for i := range c.Pods {
		d := clone()
		d.Pods = slices.Delete(d.Pods, i, i+1)
		out = append(out, d)
	}
	for i := range c.Kubelet.ShutdownGracePeriodByPodPriority {
		d := clone()
		d.Kubelet.ShutdownGracePeriodByPodPriority = slices.Delete(d.Kubelet.ShutdownGracePeriodByPodPriority, i, i+1)
		out = append(out, d)
	}
	for i := range c.Logind {
		d := clone()
		d.Logind = slices.Delete(d.Logind, i, i+1)
		out = append(out, d)
	}
	for g := range c.Kubelet.FeatureGates {
		d := clone()
		delete(d.Kubelet.FeatureGates, g)
		out = append(out, d)
	}
	if c.Kubelet.ShutdownGracePeriod.Duration != 0 {
		d := clone()
		d.Kubelet.ShutdownGracePeriod.Duration = 0
		out = append(out, d)
	}
	if c.Kubelet.ShutdownGracePeriodCriticalPods.Duration != 0 {
		d := clone()
		d.Kubelet.ShutdownGracePeriodCriticalPods.Duration = 0
		out = append(out, d)
	}
	for i, p := range c.Pods {
		if p.Spec.TerminationGracePeriodSeconds != nil {
			d := clone()
			d.Pods[i].Spec.TerminationGracePeriodSeconds = nil
			out = append(out, d)
		}
		if p.Spec.PriorityClassName != "" {
			d := clone()
			d.Pods[i].Spec.PriorityClassName = ""
			out = append(out, d)
		}
	}
	return out
}

// The generator draws from values where the kubelet's arithmetic and the
// model's could part: duplicates, zero, negative, sub-second and huge
// numbers, the edges of int32 priorities, and logind's infinity.
var (
	priorities = []int32{math.MinInt32, -10, 0, 0, 5, 1000, 1000, 10000, 100000, 1_000_000_000, shutdown.CriticalPriority, shutdown.CriticalPriority + 1000, math.MaxInt32}
	bigSeconds = []int64{0, 1, 10_000_000_000, 9_223_372_036, 9_223_372_037, 18_446_744_074, math.MaxInt64 / 2, math.MaxInt64}
	logindVals = []string{"", "0", "5", "30", "45", "90", "600", "infinity", "1min 30s", "1.5s", "4733640001", "9467280000", "soon"}
	dropIns    = []string{"10-a.conf", "99-kubelet.conf", "unattended-upgrades-logind-maxdelay.conf", "zz-b.conf", "notes.txt"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func genDuration(r *rand.Rand) time.Duration {
	switch r.IntN(10) {
	case 0:
		return 0
	case 1:
		return time.Duration(r.IntN(2000)) * time.Millisecond
	case 2:
		return -time.Duration(r.IntN(30)+1) * time.Second
	case 3:
		return time.Duration(r.Int64N(math.MaxInt64))
	default:
		return time.Duration(r.IntN(600)) * time.Second
	}
}

func genSeconds(r *rand.Rand) int64 {
	switch r.IntN(10) {
	case 0:
		return pick(r, bigSeconds)
	case 1:
		return -r.Int64N(30)
	default:
		return r.Int64N(600)
	}
}

func genPriority(r *rand.Rand) int32 {
	if r.IntN(3) == 0 {
		return r.Int32N(2_000_010_000) - 10_000
	}
	return pick(r, priorities)
}

func generate(r *rand.Rand) Case {
	var c Case
	kc := &c.Kubelet
	for _, g := range modelGates {
		switch r.IntN(8) {
		case 0, 1:
			if kc.FeatureGates == nil {
				kc.FeatureGates = map[string]bool{}
			}
			kc.FeatureGates[g] = r.IntN(3) > 0
		case 2:
			// Switching off all three together is the only way to turn
			// graceful shutdown off that the kubelet accepts.
			if kc.FeatureGates == nil {
				kc.FeatureGates = map[string]bool{}
			}
			for _, h := range modelGates {
				kc.FeatureGates[h] = false
			}
		}
	}
	form := r.IntN(10)
	if form < 4 || form == 8 { // the two values
		kc.ShutdownGracePeriod = metav1.Duration{Duration: genDuration(r)}
		if r.IntN(3) > 0 {
			kc.ShutdownGracePeriodCriticalPods = metav1.Duration{Duration: genDuration(r) % max(1, kc.ShutdownGracePeriod.Duration+1)}
		}
		if r.IntN(8) == 0 {
			kc.ShutdownGracePeriodCriticalPods = metav1.Duration{Duration: genDuration(r)}
		}
	}
	if form >= 4 { // the table (8: both at once)
		n := 1 + r.IntN(5)
		if r.IntN(5) == 0 {
			n = 10 + r.IntN(20) // past 12 entries sort.Slice is no longer an insertion sort
		}
		for range n {
			kc.ShutdownGracePeriodByPodPriority = append(kc.ShutdownGracePeriodByPodPriority, kubeletv1beta1.ShutdownGracePeriodByPodPriority{Priority: genPriority(r), ShutdownGracePeriodSeconds: genSeconds(r)})
		}
	}
	for i := range r.IntN(10) {
		p := v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod-%d", i)}}
		switch r.IntN(8) {
		case 0:
		case 1:
			p.Spec.PriorityClassName = pick(r, []string{"system-cluster-critical", "system-node-critical"})
		default:
			v := genPriority(r)
			p.Spec.Priority = &v
		}
		switch r.IntN(6) {
		case 0:
		case 1:
			v := pick(r, bigSeconds)
			p.Spec.TerminationGracePeriodSeconds = &v
		default:
			v := r.Int64N(700)
			p.Spec.TerminationGracePeriodSeconds = &v
		}
		c.Pods = append(c.Pods, p)
	}
	if r.IntN(2) == 0 {
		c.Logind = append(c.Logind, shutdown.LogindFile{Layer: pick(r, []shutdown.Layer{shutdown.Etc, shutdown.Lib}), Name: "logind.conf", Content: "[Login]\nInhibitDelayMaxSec=" + pick(r, logindVals) + "\n"})
	}
	for range r.IntN(4) {
		f := shutdown.LogindFile{Layer: pick(r, []shutdown.Layer{shutdown.Etc, shutdown.Run, shutdown.Lib}), Name: pick(r, dropIns)}
		if r.IntN(6) == 0 {
			f.Layer, f.Masked = shutdown.Etc, true
		} else {
			f.Content = "[Login]\nInhibitDelayMaxSec=" + pick(r, logindVals) + "\n"
		}
		c.Logind = append(c.Logind, f)
	}
	return c
}
