package kube

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/yaml"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/internal/kubeio"
	"github.com/opslab/opslab/labcheck/audit"
)

// The zone-outage lab's marks on its objects.
const (
	// OutageNamespace holds the lab's pods, one on each node.
	OutageNamespace = "outage"
	// ProfileLabel marks the nodes of the outage lab's cluster.
	ProfileLabel = "opslab.dev/profile"
	// PowerLabel, "off" on a node, makes the lab's kwok stage hold the node
	// at Ready=False (lab/kwokctl.yaml, stage opslab-node-power-off).
	PowerLabel = "opslab.dev/power"
	// OutageTolerationSeconds is how long the lab's pods tolerate the
	// not-ready and unreachable taints: short, so an eviction shows within
	// an experiment, and longer than the lab's health-pass period, so a
	// taint the controller takes off again at the next pass evicts nothing.
	OutageTolerationSeconds = 8
)

// The kube-controller-manager defaults the node lifecycle controller's
// settings fall back on when the cluster's configuration sets none.
const defaultMonitorPeriod = 5 * time.Second

// Controller is the node lifecycle controller as a kwokctl cluster runs it:
// its settings, and the port of its kube-controller-manager's metrics.
type Controller struct {
	Rates         taints.Rates
	MonitorPeriod time.Duration
	// MetricsPort serves kube-controller-manager's /metrics over HTTPS on
	// the local machine, 0 when the configuration does not say.
	MetricsPort int
}

// Settings reads the node lifecycle controller's settings from a kwokctl
// cluster's saved configuration (kwok.yaml in the cluster's directory): the
// kube-controller-manager's command line, where, as for any flag, the last
// value given wins. A flag the command line lacks has its default.
func Settings(kwokYAML []byte) (Controller, error) {
	var doc struct {
		Components []struct {
			Name string   `json:"name"`
			Args []string `json:"args"`
		} `json:"components"`
	}
	c := Controller{Rates: taints.DefaultRates(), MonitorPeriod: defaultMonitorPeriod}
	if err := yaml.Unmarshal(kwokYAML, &doc); err != nil {
		return c, fmt.Errorf("cannot read the cluster's configuration: %v", err)
	}
	found := false
	for _, comp := range doc.Components {
		if comp.Name != "kube-controller-manager" {
			continue
		}
		found = true
		for _, arg := range comp.Args {
			name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			if !ok {
				continue
			}
			var err error
			switch name {
			case "node-eviction-rate":
				c.Rates.Normal, err = strconv.ParseFloat(value, 64)
			case "secondary-node-eviction-rate":
				c.Rates.Secondary, err = strconv.ParseFloat(value, 64)
			case "large-cluster-size-threshold":
				c.Rates.LargeCluster, err = strconv.Atoi(value)
			case "unhealthy-zone-threshold":
				c.Rates.UnhealthyThreshold, err = strconv.ParseFloat(value, 64)
			case "node-monitor-period":
				c.MonitorPeriod, err = time.ParseDuration(value)
			case "secure-port":
				c.MetricsPort, err = strconv.Atoi(value)
			}
			if err != nil {
				return c, fmt.Errorf("the cluster's kube-controller-manager has --%s=%s, which is not a number", name, value)
			}
		}
	}
	if !found {
		return c, fmt.Errorf("the cluster's configuration runs no kube-controller-manager")
	}
	return c, nil
}

// SettingsOf reads Settings for the kwokctl cluster of a kube context
// (kwok-NAME), from the directory where kwokctl keeps it
// (audit.KwokCluster).
func SettingsOf(kubeContext string) (Controller, error) {
	name, dir, ok, err := audit.KwokCluster(kubeContext)
	switch {
	case !ok:
		return Controller{}, fmt.Errorf("context %q is not a kwokctl cluster's; the outage lab reads its controller's settings from kwokctl: make outage-up starts one", kubeContext)
	case err != nil:
		return Controller{}, fmt.Errorf("cannot find the home directory to look for the cluster: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kwok.yaml"))
	if err != nil {
		return Controller{}, fmt.Errorf("cluster %s is not on this machine: make outage-up starts it", name)
	}
	return Settings(data)
}

// Metrics is what the node lifecycle controller tells of itself on
// kube-controller-manager's /metrics.
type Metrics struct {
	// Passes counts the health passes since the controller started
	// (node_collector_update_all_nodes_health_duration_seconds_count).
	Passes int
	// Health is the share of Ready nodes in each zone, in percent, at the
	// last pass (node_collector_zone_health); the zone is its key, region
	// and zone joined as the controller joins them.
	Health map[string]float64
	// Tainted counts, zone by zone, the NoExecute taints the controller's
	// tainting passes put on (node_collector_evictions_total).
	Tainted map[string]float64
}

// ParseMetrics reads Metrics from Prometheus's text format.
func ParseMetrics(text string) Metrics {
	m := Metrics{Health: map[string]float64{}, Tainted: map[string]float64{}}
	for _, line := range strings.Split(text, "\n") {
		name, rest, _ := strings.Cut(line, " ")
		labels := ""
		if i := strings.IndexByte(name, '{'); i >= 0 {
			// A label value may hold a space: cut at the closing brace.
			j := strings.Index(line, "} ")
			if j < 0 {
				continue
			}
			name, labels, rest = line[:i], line[i+1:j], line[j+2:]
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			continue
		}
		zone := strings.TrimSuffix(strings.TrimPrefix(labels, `zone="`), `"`)
		switch name {
		case "node_collector_update_all_nodes_health_duration_seconds_count":
			m.Passes = int(v)
		case "node_collector_zone_health":
			m.Health[zone] = v
		case "node_collector_evictions_total":
			m.Tainted[zone] = v
		}
	}
	return m
}

// ReadMetrics reads the controller's metrics from the local
// kube-controller-manager, which serves them without credentials
// (kwokctl starts it with --authorization-always-allow-paths=/metrics).
func (c Controller) ReadMetrics(ctx context.Context) (Metrics, error) {
	if c.MetricsPort == 0 {
		return Metrics{}, fmt.Errorf("the cluster's configuration names no kube-controller-manager port")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", c.MetricsPort), nil)
	if err != nil {
		return Metrics{}, err
	}
	resp, err := metricsClient.Do(req)
	if err != nil {
		return Metrics{}, fmt.Errorf("cannot read kube-controller-manager's metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return Metrics{}, fmt.Errorf("cannot read kube-controller-manager's metrics: %s %v", resp.Status, err)
	}
	return ParseMetrics(string(body)), nil
}

// metricsClient reaches kube-controller-manager's self-signed port on the
// local machine.
var metricsClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

// OutageNode returns the lab's Node object for a node of the model's layout.
func OutageNode(n taints.Node) *corev1.Node {
	caps := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("128Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        n.Name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			// The operating system and architecture labels, each under its
			// name and its beta name, as a kubelet registers its node: a
			// node with only the first of a pair gets the other from the
			// node lifecycle controller, a write each, and 150 of those
			// queue before its taints in its client, which
			// kube-controller-manager holds to 20 requests a second by
			// default (--kube-api-qps).
			Labels: map[string]string{
				"kubernetes.io/hostname":        n.Name,
				"kubernetes.io/os":              "linux",
				"kubernetes.io/arch":            "amd64",
				"beta.kubernetes.io/arch":       "amd64",
				"beta.kubernetes.io/os":         "linux",
				"type":                          "kwok",
				"topology.kubernetes.io/region": "lab",
				"topology.kubernetes.io/zone":   n.Zone,
				ProfileLabel:                    "outage",
			},
		},
		Status: corev1.NodeStatus{Allocatable: caps, Capacity: caps},
	}
}

// OutagePod returns the lab's pod for a node: bound to it, tolerating the
// not-ready and unreachable taints for OutageTolerationSeconds.
func OutagePod(node string) *corev1.Pod {
	secs := int64(OutageTolerationSeconds)
	tol := func(key string) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}
	}
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "app-" + node, Namespace: OutageNamespace, Labels: map[string]string{"app": "outage"}},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			TerminationGracePeriodSeconds: &zero,
			Containers:                    []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			Tolerations:                   []corev1.Toleration{tol(taints.KeyNotReady), tol(taints.KeyUnreachable)},
		},
	}
}

// parallel runs f on each name with a few requests in flight, and returns
// the first error.
func parallel(names []string, f func(string) error) error {
	const inFlight = 32
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, inFlight)
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(n); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// PopulateNodes creates what the layout lacks of the lab's nodes and its
// namespace.
func PopulateNodes(ctx context.Context, k kubernetes.Interface, l taints.Layout) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OutageNamespace}}
	if _, err := k.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %v", OutageNamespace, err)
	}
	nodes := l.Nodes()
	byName := map[string]taints.Node{}
	var names []string
	for _, n := range nodes {
		byName[n.Name] = n
		names = append(names, n.Name)
	}
	return parallel(names, func(name string) error {
		_, err := k.CoreV1().Nodes().Create(ctx, OutageNode(byName[name]), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %v", name, err)
		}
		return nil
	})
}

// PopulatePods creates the lab's pod on each node of the layout that lacks
// one. A pod left by an older lab, with other tolerations, is deleted, to
// be created again on a later call.
func PopulatePods(ctx context.Context, k kubernetes.Interface, l taints.Layout) error {
	var names []string
	for _, n := range l.Nodes() {
		names = append(names, n.Name)
	}
	pods, err := k.CoreV1().Pods(OutageNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list pods: %v", err)
	}
	want := OutagePod("").Spec.Tolerations
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && !slices.EqualFunc(p.Spec.Tolerations, want, func(a, b corev1.Toleration) bool {
			return a.Key == b.Key && a.Effect == b.Effect && a.TolerationSeconds != nil && *a.TolerationSeconds == *b.TolerationSeconds
		}) {
			if err := k.CoreV1().Pods(OutageNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete pod %s of an older lab: %v", p.Name, err)
			}
		}
	}
	// The namespace's default service account, which a pod needs, comes
	// from a controller a moment after the namespace.
	for i := 0; ; i++ {
		_, err := k.CoreV1().ServiceAccounts(OutageNamespace).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) || i == 300 {
			return fmt.Errorf("namespace %s has no default service account: %v", OutageNamespace, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return parallel(names, func(name string) error {
		_, err := k.CoreV1().Pods(OutageNamespace).Create(ctx, OutagePod(name), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create pod on %s: %v", name, err)
		}
		return nil
	})
}

// Power switches nodes off or on. Off, a node gets the power label, which
// makes the lab's kwok stage hold it at Ready=False, and its Ready
// condition is written False at once, as its kubelet would report it; on,
// the label goes and the condition is written True. Writing the condition
// here, a few requests at a time, switches 150 nodes in a fraction of a
// second, where kwok's stages take seconds.
func Power(ctx context.Context, k kubernetes.Interface, nodes []string, on bool) error {
	label := []byte(`{"metadata":{"labels":{"` + PowerLabel + `":"off"}}}`)
	status, reason, message := corev1.ConditionFalse, "KubeletNotReady", "opslab: the node is powered off; no kubelet posts its status"
	if on {
		label = []byte(`{"metadata":{"labels":{"` + PowerLabel + `":null}}}`)
		status, reason, message = corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"
	}
	return parallel(nodes, func(name string) error {
		if _, err := k.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, label, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("switch node %s: %v", name, err)
		}
		now := metav1.Now()
		cond := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: reason, Message: message, LastHeartbeatTime: now, LastTransitionTime: now}
		patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{cond}}})
		if err != nil {
			return err
		}
		if _, err := k.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("switch node %s: %v", name, err)
		}
		return nil
	})
}

// A Seen is what a Recorder saw of an experiment, times counted from its
// start.
type Seen struct {
	Flips   []taints.Flip     // Ready condition changes
	Marks   []taints.Mark     // NoExecute not-ready or unreachable taints on and off
	Evicted []taints.Eviction // the lab's pods deleted
}

// A Recorder watches the outage lab's nodes and pods and notes, when it
// receives them, the changes of each node's Ready condition and its
// not-ready and unreachable NoExecute taints, and the deletions of the
// lab's pods.
type Recorder struct {
	mu    sync.Mutex
	start time.Time
	seen  Seen
	ready map[string]taints.Status
	taint map[string]bool
	zone  map[string]string
	gone  map[string]bool
	stop  context.CancelFunc
	done  sync.WaitGroup
}

// Record lists the nodes and pods and starts watching them from there. The
// start time is now; Stop ends the watch and returns what was seen.
func Record(ctx context.Context, k kubernetes.Interface) (*Recorder, error) {
	r := &Recorder{start: time.Now(), ready: map[string]taints.Status{}, taint: map[string]bool{}, zone: map[string]string{}, gone: map[string]bool{}}
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %v", err)
	}
	for i := range nodes.Items {
		r.node(&nodes.Items[i], false)
	}
	pods, err := k.CoreV1().Pods(OutageNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list pods: %v", err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	// A retry watcher opens the watch again from the last event it passed
	// on when the server closes it, as it does to a watcher that falls
	// behind while 150 nodes change at once.
	nw, err := watchtools.NewRetryWatcherWithContext(wctx, nodes.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return k.CoreV1().Nodes().Watch(ctx, o)
		},
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watch nodes: %v", err)
	}
	pw, err := watchtools.NewRetryWatcherWithContext(wctx, pods.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return k.CoreV1().Pods(OutageNamespace).Watch(ctx, o)
		},
	})
	if err != nil {
		cancel()
		nw.Stop()
		return nil, fmt.Errorf("watch pods: %v", err)
	}
	r.done.Add(2)
	go r.follow(nw, func(e watch.Event) {
		if n, ok := e.Object.(*corev1.Node); ok {
			r.node(n, true)
		}
	})
	go r.follow(pw, func(e watch.Event) {
		if p, ok := e.Object.(*corev1.Pod); ok && (e.Type == watch.Deleted || p.DeletionTimestamp != nil) {
			r.pod(p)
		}
	})
	return r, nil
}

func (r *Recorder) follow(w watch.Interface, f func(watch.Event)) {
	defer r.done.Done()
	defer w.Stop()
	for e := range w.ResultChan() {
		f(e)
	}
}

// node notes n's Ready condition and NoExecute taint when they changed;
// note is false for the first listing, which sets the starting point.
func (r *Recorder) node(n *corev1.Node, note bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := time.Since(r.start)
	r.zone[n.Name] = n.Labels["topology.kubernetes.io/zone"]
	ready := taints.Unknown
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = taints.Status(c.Status)
		}
	}
	tainted := controllerTainted(n)
	if note && r.ready[n.Name] != ready {
		r.seen.Flips = append(r.seen.Flips, taints.Flip{At: at, Node: n.Name, Ready: ready})
	}
	if note && r.taint[n.Name] != tainted {
		r.seen.Marks = append(r.seen.Marks, taints.Mark{At: at, Node: n.Name, Zone: r.zone[n.Name], Added: tainted})
	}
	r.ready[n.Name], r.taint[n.Name] = ready, tainted
}

func (r *Recorder) pod(p *corev1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone[p.Name] {
		return
	}
	r.gone[p.Name] = true
	r.seen.Evicted = append(r.seen.Evicted, taints.Eviction{At: time.Since(r.start), Node: p.Spec.NodeName})
}

// Since returns how long ago the recording started.
func (r *Recorder) Since() time.Duration { return time.Since(r.start) }

// Stop ends the recording and returns what it saw.
func (r *Recorder) Stop() Seen {
	r.stop()
	r.done.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// NodesAsStarted reports whether the nodes are as an experiment starts
// them: the nodes of down not Ready, every other node of the layout Ready
// without a NoExecute not-ready or unreachable taint; when not, it says
// what is still missing.
func NodesAsStarted(ctx context.Context, k kubernetes.Interface, l taints.Layout, down []string) (bool, string, error) {
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: ProfileLabel + "=outage"})
	if err != nil {
		return false, "", fmt.Errorf("list nodes: %v", err)
	}
	want := map[string]bool{}
	for _, n := range down {
		want[n] = true
	}
	notYet := 0
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if kubeio.NodeReady(n) == want[n.Name] || (controllerTainted(n) && !want[n.Name]) {
			notYet++
		}
	}
	if total := len(l.Nodes()); len(nodes.Items) != total {
		return false, fmt.Sprintf("%d of %d nodes registered", len(nodes.Items), total), nil
	}
	if notYet > 0 {
		return false, fmt.Sprintf("%d nodes not yet as the experiment starts them", notYet), nil
	}
	return true, "", nil
}

// ControllerTainted lists the lab's nodes that carry a NoExecute taint of
// the node lifecycle controller's, not-ready or unreachable.
func ControllerTainted(ctx context.Context, k kubernetes.Interface) ([]string, error) {
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: ProfileLabel + "=outage"})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %v", err)
	}
	var tainted []string
	for i := range nodes.Items {
		if controllerTainted(&nodes.Items[i]) {
			tainted = append(tainted, nodes.Items[i].Name)
		}
	}
	return tainted, nil
}

// controllerTainted reports whether n carries a NoExecute taint of the
// node lifecycle controller's, not-ready or unreachable.
func controllerTainted(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoExecute && (t.Key == taints.KeyNotReady || t.Key == taints.KeyUnreachable) {
			return true
		}
	}
	return false
}

// PodsRunning reports whether every lab pod is running and not being
// deleted; when not, it says how many are.
func PodsRunning(ctx context.Context, k kubernetes.Interface, l taints.Layout) (bool, string, error) {
	pods, err := k.CoreV1().Pods(OutageNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, "", fmt.Errorf("list pods: %v", err)
	}
	running := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running != len(l.Nodes()) {
		return false, fmt.Sprintf("%d of %d pods running", running, len(l.Nodes())), nil
	}
	return true, "", nil
}
