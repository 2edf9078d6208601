package upstream

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/godbus/dbus/v5"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	schedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/pkg/features"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	"k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
	clocktesting "k8s.io/utils/clock/testing"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/kube"
)

// The three gates the chapter models, as the kubelet names them.
var modelGates = []string{string(features.GracefulNodeShutdown), string(features.GracefulNodeShutdownBasedOnPodPriority), string(features.WindowsGracefulNodeShutdown)}

// gateMu serializes the tests that set the kubelet's global feature gates.
var gateMu sync.Mutex

// setGates sets the process-wide feature gates the kubelet's shutdown manager
// reads: the three modelled gates to their values under set (default: on).
func setGates(t testing.TB, set map[string]bool) {
	t.Helper()
	m := map[string]bool{}
	for _, g := range modelGates {
		v, ok := set[g]
		m[g] = !ok || v
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(m); err != nil {
		t.Fatalf("setting feature gates %v: %v", m, err)
	}
}

// defaultConfig is the kubelet's configuration with every v1beta1 default
// applied, in the kubelet's internal form.
func defaultConfig(t testing.TB) *kubeletconfig.KubeletConfiguration {
	t.Helper()
	scheme, _, err := kubeletscheme.NewSchemeAndCodecs()
	if err != nil {
		t.Fatal(err)
	}
	ext := &kubeletv1beta1.KubeletConfiguration{}
	scheme.Default(ext)
	internal := &kubeletconfig.KubeletConfiguration{}
	if err := scheme.Convert(ext, internal, nil); err != nil {
		t.Fatal(err)
	}
	// The validation also looks at the machine it runs on: on a cgroup v1
	// host the default failCgroupV1 refuses the configuration. The shutdown
	// rules do not depend on it.
	internal.FailCgroupV1 = false
	return internal
}

// kubeletValidate runs the kubelet's ValidateKubeletConfiguration on a
// default configuration with the shutdown fields and feature gates of kc, and
// returns its reasons, each without the "invalid configuration: " prefix.
func kubeletValidate(t testing.TB, kc *kubeletv1beta1.KubeletConfiguration) []string {
	t.Helper()
	setGates(t, nil)
	c := defaultConfig(t)
	c.ShutdownGracePeriod = kc.ShutdownGracePeriod
	c.ShutdownGracePeriodCriticalPods = kc.ShutdownGracePeriodCriticalPods
	c.ShutdownGracePeriodByPodPriority = nil
	for _, p := range kc.ShutdownGracePeriodByPodPriority {
		c.ShutdownGracePeriodByPodPriority = append(c.ShutdownGracePeriodByPodPriority, kubeletconfig.ShutdownGracePeriodByPodPriority{Priority: p.Priority, ShutdownGracePeriodSeconds: p.ShutdownGracePeriodSeconds})
	}
	c.FeatureGates = kc.FeatureGates
	return reasons(validation.ValidateKubeletConfiguration(c, utilfeature.DefaultFeatureGate))
}

func reasons(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			out = append(out, reasons(e)...)
		}
		return out
	}
	return []string{strings.TrimPrefix(err.Error(), "invalid configuration: ")}
}

// modelWords are the model's reasons that are worded differently from the
// kubelet's (the model's errors start lower case and say "needs").
var modelWords = map[string]string{
	"specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown": "shutdownGracePeriod or shutdownGracePeriodCriticalPods needs feature gate GracefulNodeShutdown",
	"Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time":                "shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set",
	"Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority":     "shutdownGracePeriodByPodPriority needs feature gate GracefulNodeShutdownBasedOnPodPriority",
}

// inModelWords returns the kubelet's reasons as the model words them, sorted.
func inModelWords(rs []string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		if w, ok := modelWords[r]; ok {
			r = w
		}
		out[i] = r
	}
	slices.Sort(out)
	return out
}

// kubeletPlan is what the kubelet's shutdown manager does with a
// configuration the kubelet accepted: whether it runs, its groups, what it
// asks logind for, which pods each group ends and the grace period each pod
// is asked to stop in.
type kubeletPlan struct {
	Enabled   bool
	Groups    []shutdown.Group
	Requested time.Duration
	PodsIn    [][]string
	Asked     map[string]int64
}

func testLogger() klog.Logger { return klog.Background().V(10) }

func managerConfig(kc *kubeletv1beta1.KubeletConfiguration, kill func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error, dir string) *nodeshutdown.Config {
	conf := &nodeshutdown.Config{
		Logger:                          testLogger(),
		VolumeManager:                   noVolumes{},
		NodeRef:                         &v1.ObjectReference{Kind: "Node", Name: "node"},
		GetPodsFunc:                     func() []*v1.Pod { return nil },
		KillPodFunc:                     kill,
		SyncNodeStatusFunc:              func(context.Context) {},
		ShutdownGracePeriodRequested:    kc.ShutdownGracePeriod.Duration,
		ShutdownGracePeriodCriticalPods: kc.ShutdownGracePeriodCriticalPods.Duration,
		StateDirectory:                  dir,
		Clock:                           clocktesting.NewFakeClock(time.Unix(0, 0)),
	}
	for _, p := range kc.ShutdownGracePeriodByPodPriority {
		conf.ShutdownGracePeriodByPodPriority = append(conf.ShutdownGracePeriodByPodPriority, kubeletconfig.ShutdownGracePeriodByPodPriority{Priority: p.Priority, ShutdownGracePeriodSeconds: p.ShutdownGracePeriodSeconds})
	}
	return conf
}

// runKubelet builds the kubelet's shutdown manager for kc (which the kubelet
// accepted) and lets its pod manager end pods, the way the API server would
// have handed them to it.
func runKubelet(t testing.TB, kc *kubeletv1beta1.KubeletConfiguration, pods []*v1.Pod) kubeletPlan {
	t.Helper()
	setGates(t, kc.FeatureGates)
	defer setGates(t, nil)
	var mu sync.Mutex
	asked := map[string]int64{}
	kill := func(p *v1.Pod, _ bool, grace *int64, _ func(*v1.PodStatus)) error {
		mu.Lock()
		defer mu.Unlock()
		asked[p.Name] = *grace
		return nil
	}
	conf := managerConfig(kc, kill, t.TempDir())
	var out kubeletPlan
	m := nodeshutdown.NewManager(conf)
	typ := reflect.TypeOf(m)
	out.Enabled = typ.Kind() == reflect.Pointer && typ.Elem().Name() == "managerImpl"
	if !out.Enabled {
		return out
	}
	pm := newPodManager(managerConfig(kc, kill, t.TempDir()))
	sorted := sortedGroups(pm)
	for _, g := range sorted {
		out.Groups = append(out.Groups, shutdown.Group{Priority: g.Priority, Seconds: g.ShutdownGracePeriodSeconds})
	}
	out.Requested = periodRequested(pm)
	for _, g := range groupByPriority(sorted, pods) {
		var names []string
		for _, p := range g.Pods {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		out.PodsIn = append(out.PodsIn, names)
	}
	if err := killPods(pm, context.Background(), pods); err != nil {
		t.Fatalf("killPods: %v", err)
	}
	out.Asked = asked
	return out
}

// sortedGroups reads the pod manager's sorted table (an unexported field) by
// reflection.
func sortedGroups(pm *podManager) []kubeletconfig.ShutdownGracePeriodByPodPriority {
	// pm points at a nodeshutdown.podManager: look at it through that type,
	// found as the type of the manager's field that holds it.
	v := reflect.NewAt(podManagerType(), unsafe.Pointer(pm)).Elem().FieldByName("shutdownGracePeriodByPodPriority")
	out := make([]kubeletconfig.ShutdownGracePeriodByPodPriority, v.Len())
	for i := range out {
		e := v.Index(i)
		out[i] = kubeletconfig.ShutdownGracePeriodByPodPriority{Priority: int32(e.FieldByName("Priority").Int()), ShutdownGracePeriodSeconds: e.FieldByName("ShutdownGracePeriodSeconds").Int()}
	}
	return out
}

var podManagerType = sync.OnceValue(func() reflect.Type {
	m := nodeshutdown.NewManager(&nodeshutdown.Config{Logger: testLogger(), ShutdownGracePeriodRequested: time.Minute})
	f, ok := reflect.TypeOf(m).Elem().FieldByName("podManager")
	if !ok {
		panic("nodeshutdown.managerImpl has no field podManager")
	}
	return f.Type.Elem()
})

// apiPod returns p as the API server would hand it to the kubelet: defaulted
// (terminationGracePeriodSeconds 30) and, for a built-in PriorityClass, with
// the priority the Priority admission plugin copies from it.
func apiPod(p *v1.Pod) *v1.Pod {
	p = p.DeepCopy()
	corev1defaults.SetObjectDefaults_Pod(p)
	if p.Spec.Priority == nil && p.Spec.PriorityClassName != "" {
		for _, pc := range schedulingv1.SystemPriorityClasses() {
			if pc.Name == p.Spec.PriorityClassName {
				v := pc.Value
				p.Spec.Priority = &v
			}
		}
	}
	return p
}

// modelPlan is the model's answer in the shape of kubeletPlan, from the
// chapter's API layer (shutdown.Validate, shutdown.NewPlan).
func modelPlan(c shutdown.Config, pods []*v1.Pod) (kubeletPlan, error) {
	p, err := kube.NewPlan(c, pods)
	if err != nil {
		return kubeletPlan{}, err
	}
	out := kubeletPlan{Enabled: c.Enabled, Requested: p.Requested}
	if !c.Enabled {
		return out, nil
	}
	out.Groups = c.Groups
	out.Asked = map[string]int64{}
	next := 0
	for _, g := range p.Groups {
		var names []string
		for _, s := range p.Pods[next : next+g.Pods] {
			names = append(names, s.Name)
			out.Asked[s.Name] = s.GracePeriodSeconds
		}
		next += g.Pods
		sort.Strings(names)
		out.PodsIn = append(out.PodsIn, names)
	}
	return out, nil
}

// fakeLogind answers the kubelet's D-Bus calls from logind files, read by the
// model's EffectiveInhibitDelay (there is no systemd here), so systemd's
// precedence is the model's on both sides of a comparison: the chapter's
// evidence page says so under "Drop-ins are read by name". The delay goes
// through the kubelet's own CurrentInhibitDelay, on a fake bus that reports
// InhibitDelayMaxUSec as logind would.
type fakeLogind struct {
	files []shutdown.LogindFile
	wrote *time.Duration
}

func (f *fakeLogind) usec() uint64 {
	files := slices.Clone(f.files)
	if f.wrote != nil {
		files = slices.DeleteFunc(files, func(l shutdown.LogindFile) bool { return l.Layer == shutdown.Etc && l.Name == shutdown.KubeletDropIn })
		// The content upstream's OverrideInhibitDelay writes.
		files = append(files, shutdown.LogindFile{Layer: shutdown.Etc, Name: shutdown.KubeletDropIn, Content: fmt.Sprintf("# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=%.0f\n", f.wrote.Seconds())})
	}
	return shutdown.EffectiveInhibitDelay(files).USec
}

func (f *fakeLogind) CurrentInhibitDelay() (time.Duration, error) {
	con := systemd.DBusCon{SystemBus: fakeBus{usec: f.usec()}}
	return con.CurrentInhibitDelay()
}
func (f *fakeLogind) InhibitShutdown() (systemd.InhibitLock, error)    { return 1, nil }
func (f *fakeLogind) ReleaseInhibitLock(systemd.InhibitLock) error     { return nil }
func (f *fakeLogind) ReloadLogindConf() error                          { return nil }
func (f *fakeLogind) MonitorShutdown(klog.Logger) (<-chan bool, error) { return make(chan bool), nil }
func (f *fakeLogind) Close() error                                     { return nil }
func (f *fakeLogind) OverrideInhibitDelay(d time.Duration) error {
	f.wrote = &d
	return nil
}

type fakeBus struct{ usec uint64 }

func (b fakeBus) Object(string, dbus.ObjectPath) dbus.BusObject { return fakeObject{usec: b.usec} }
func (fakeBus) AddMatchSignal(...dbus.MatchOption) error        { return nil }
func (fakeBus) Signal(chan<- *dbus.Signal)                      {}
func (fakeBus) Close() error                                    { return nil }

type fakeObject struct {
	dbus.BusObject
	usec uint64
}

func (o fakeObject) GetProperty(string) (dbus.Variant, error) { return dbus.MakeVariant(o.usec), nil }

// kubeletLogind is the start-up check of the kubelet's shutdown manager
// (managerImpl.start) on logind files, for a manager that asks for requested:
// whether it writes its drop-in, the delays it reads before and after, and
// whether it gives up. The reads are the kubelet's CurrentInhibitDelay; the
// comparisons are start's, restated here because start itself waits up to
// 3 s of backoff per refusal (TestKubeletStart runs the real one).
type logindAnswer struct {
	Before, After time.Duration
	Writes        bool
	Conflict      bool
}

func kubeletLogind(files []shutdown.LogindFile, requested time.Duration) logindAnswer {
	f := &fakeLogind{files: files}
	var a logindAnswer
	a.Before, _ = f.CurrentInhibitDelay()
	a.After = a.Before
	if requested > a.Before {
		a.Writes = true
		_ = f.OverrideInhibitDelay(requested)
		a.After, _ = f.CurrentInhibitDelay()
		a.Conflict = requested > a.After
	}
	return a
}

// startKubelet runs the kubelet's real NewManager and Start for kc against
// a fake logind serving files, and returns Start's error.
func startKubelet(t testing.TB, kc *kubeletv1beta1.KubeletConfiguration, files []shutdown.LogindFile) (error, *fakeLogind) {
	t.Helper()
	gateMu.Lock()
	defer gateMu.Unlock()
	setGates(t, kc.FeatureGates)
	defer setGates(t, nil)
	f := &fakeLogind{files: files}
	old := systemDbus
	systemDbus = func() (dbusInhibiter, error) { return f, nil }
	defer func() { systemDbus = old }()
	m := nodeshutdown.NewManager(managerConfig(kc, func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil }, t.TempDir()))
	return m.Start(context.Background()), f
}

func duration(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
