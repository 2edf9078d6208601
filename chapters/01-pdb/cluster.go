package pdb

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// A Phase is a pod's status.phase.
type Phase string

const (
	Pending   Phase = "Pending"
	Running   Phase = "Running"
	Succeeded Phase = "Succeeded"
	Failed    Phase = "Failed"
)

// A Pod is one replica, or a pod that no controller owns.
type Pod struct {
	Name   string
	Labels map[string]string
	Node   string // empty while Pending with no node to run on
	Owner  string // the controller that owns it; empty for an unmanaged pod
	Phase  Phase
	// Terminating is set when the pod has a deletionTimestamp but is not
	// gone, such as a pod on a node that lost power.
	Terminating bool
	// ReadyAt is when the pod becomes Ready, if it is Running and its
	// readiness probe passes.
	ReadyAt time.Duration
	// Unready is set while the pod's readiness probe fails.
	Unready bool
	// NodeLost is set once the node lifecycle controller has marked the pod
	// not Ready because its node stopped reporting (MarkPodsNotReady).
	NodeLost bool
	// Restarts counts the restarts of its container after a crash.
	Restarts int

	budgets []*Budget // the budgets that select it, in creation order
	gone    bool      // deleted from the cluster; still in Cluster.order until compacted
}

// Ready reports whether p is Ready at now: the condition the disruption
// controller and the eviction subresource read (podutil.IsPodReady).
func (p *Pod) Ready(now time.Duration) bool {
	return p.Phase == Running && !p.Terminating && !p.Unready && !p.NodeLost && now >= p.ReadyAt
}

// A Node is a node pods run on.
type Node struct {
	Name     string
	Cordoned bool // spec.unschedulable
	// Down is set when the node has lost power: it runs nothing and reports
	// nothing, but the API server does not know it yet.
	Down bool
	// Unreachable is set once the node lifecycle controller has noticed the
	// silence and tainted the node node.kubernetes.io/unreachable, NoSchedule
	// and NoExecute: the scheduler places nothing there any more.
	Unreachable bool

	index int // position in Cluster.nodeList
}

// NodeMonitorGracePeriod is how long the node lifecycle controller waits
// for a silent node before it sets its Ready condition to Unknown, taints
// it unreachable and marks its pods not Ready (--node-monitor-grace-period,
// 50 s by default in pkg/controller/nodelifecycle/config/v1alpha1/defaults.go).
// The model acts at that instant; upstream checks every 5 s.
const NodeMonitorGracePeriod = 50 * time.Second

// DefaultTolerationSeconds is how long a pod tolerates the unreachable
// NoExecute taint when its manifest says nothing: the DefaultTolerationSeconds
// admission plugin adds 300 s to every pod (chapter 2). Then the taint
// eviction controller deletes it.
const DefaultTolerationSeconds = 300 * time.Second

// A timer is something a controller will do at a later instant.
type timer struct {
	at   time.Duration
	kind timerKind
	node string
}

type timerKind int

const (
	// The node lifecycle controller notices a silent node.
	timerNodeUnreachable timerKind = iota
	// The taint eviction controller deletes the pods of an unreachable node.
	timerTaintEviction
	// A pod of a rolling update turns available (minReadySeconds).
	timerAvailable
)

// A Controller stands for a Deployment: it keeps Replicas pods with Labels,
// replaces a pod as soon as it goes, and its replacements become Ready
// ReadyAfter after they are placed.
type Controller struct {
	Name       string
	Replicas   int
	Labels     map[string]string
	ReadyAfter time.Duration

	created int // pods created so far, which names the next one
	// deployment names the Deployment in a rolling update whose ReplicaSet
	// this controller is (see Rollout); "" when it stands for a Deployment.
	deployment string

	// The budgets that select the controller's pods, all of which carry
	// Labels, and the budget version they were computed for.
	budgets        []*Budget
	budgetsVersion int
}

// A Cluster is the state the model acts on. Its zero value is not usable;
// call NewCluster.
type Cluster struct {
	now            time.Duration
	nodes          map[string]*Node
	nodeList       []*Node
	pods           map[string]*Pod
	order          []*Pod // pods in creation order, with removed ones until compacted
	removed        int
	everSeen       map[string]bool
	controllers    map[string]*Controller
	budgets        []*Budget
	budgetPods     map[*Budget][]*Pod
	budgetsVersion int    // counts AddBudget calls, to invalidate Controller.budgets
	notReady       []*Pod // Running pods that will become Ready later
	stopped        bool   // the disruption controller is not running
	timers         []timer
	prefer         string // the budget the disruption controller picks for a pod several select
	quiet          bool   // do not log pod creations
	dirty          map[*Budget]bool
	rollouts       map[string]*rollout // by Deployment
	log            [][]Event           // in chunks, so that a long log is never copied to grow
	watch          func(*Cluster)

	// Counts kept as pods come and go, so that placing a replacement does
	// not walk every pod.
	onNode    []int            // pods per node, by node index
	ownOnNode map[string][]int // pods per controller per node index
	live      map[string]int   // pods per controller, not being deleted
}

// NewCluster returns an empty cluster at time zero.
func NewCluster() *Cluster {
	return &Cluster{
		nodes:       map[string]*Node{},
		pods:        map[string]*Pod{},
		everSeen:    map[string]bool{},
		controllers: map[string]*Controller{},
		budgetPods:  map[*Budget][]*Pod{},
		dirty:       map[*Budget]bool{},
		ownOnNode:   map[string][]int{},
		live:        map[string]int{},
	}
}

// Now returns the logical clock.
func (c *Cluster) Now() time.Duration { return c.now }

// AddNode adds a schedulable node.
func (c *Cluster) AddNode(name string) error {
	if name == "" {
		return fmt.Errorf("node without a name")
	}
	if _, dup := c.nodes[name]; dup {
		return fmt.Errorf("node %s already exists", name)
	}
	n := &Node{Name: name, index: len(c.nodeList)}
	c.nodes[name] = n
	c.nodeList = append(c.nodeList, n)
	c.onNode = append(c.onNode, 0)
	c.schedulePending()
	return nil
}

// Node returns the named node.
func (c *Cluster) Node(name string) (Node, bool) {
	n, ok := c.nodes[name]
	if !ok {
		return Node{}, false
	}
	return *n, true
}

// Cordon marks a node unschedulable; its pods stay.
func (c *Cluster) Cordon(name string) error {
	n, ok := c.nodes[name]
	if !ok {
		return fmt.Errorf("unknown node %q", name)
	}
	if !n.Cordoned {
		n.Cordoned = true
		c.record(Event{Kind: EventCordon, Node: name})
	}
	return nil
}

// Uncordon makes a node schedulable again, and places pods that were
// Pending for want of a node.
func (c *Cluster) Uncordon(name string) error {
	n, ok := c.nodes[name]
	if !ok {
		return fmt.Errorf("unknown node %q", name)
	}
	if n.Cordoned {
		n.Cordoned = false
		c.record(Event{Kind: EventUncordon, Node: name})
		c.schedulePending()
		c.sync()
	}
	return nil
}

// AddController adds a controller and creates its pods. They are Ready at
// once: the story starts with the application running. ReadyAfter applies to
// the pods it creates later, replacements and scale-ups.
func (c *Cluster) AddController(ctl Controller) error {
	switch {
	case ctl.Name == "":
		return fmt.Errorf("controller without a name")
	case ctl.Replicas < 0:
		return fmt.Errorf("controller %s: replicas %d is negative", ctl.Name, ctl.Replicas)
	case ctl.ReadyAfter < 0:
		return fmt.Errorf("controller %s: ready-after %v is negative", ctl.Name, ctl.ReadyAfter)
	}
	if _, dup := c.controllers[ctl.Name]; dup {
		return fmt.Errorf("controller %s already exists", ctl.Name)
	}
	ctl.Labels = maps.Clone(ctl.Labels)
	ctl.created = 0
	c.controllers[ctl.Name] = &ctl
	ready := ctl.ReadyAfter
	ctl.ReadyAfter = 0
	c.quiet = true // one line for the deployment rather than one a pod
	c.reconcile(&ctl)
	c.quiet = false
	ctl.ReadyAfter = ready
	var placed []string
	for _, p := range c.order {
		if p.Owner == ctl.Name && !p.gone {
			placed = append(placed, p.Name+on(p.Node))
		}
	}
	c.record(Event{Kind: EventDeployed, Controller: ctl.Name, Detail: names(placed)})
	c.sync()
	return nil
}

// Scale sets a controller's replicas: it creates pods, or deletes the
// newest ones, without asking any budget (a scale-down is not an eviction).
func (c *Cluster) Scale(name string, replicas int) error {
	ctl, ok := c.controllers[name]
	if !ok {
		return fmt.Errorf("unknown controller %q", name)
	}
	if replicas < 0 {
		return fmt.Errorf("controller %s: replicas %d is negative", name, replicas)
	}
	c.record(Event{Kind: EventScale, Controller: name, Detail: fmt.Sprintf("%d → %d replicas", ctl.Replicas, replicas)})
	ctl.Replicas = replicas
	// The disruption controller does not watch scales: the pods the
	// ReplicaSet creates or deletes are the events that sync the budgets.
	c.reconcile(ctl)
	c.sync()
	return nil
}

// AddPod adds a pod as it is, for pods no controller made: a finished Job's
// pod, a pod stuck Terminating. A pod with an Owner counts towards that
// controller's replicas.
func (c *Cluster) AddPod(p Pod) error {
	if p.Name == "" {
		return fmt.Errorf("pod without a name")
	}
	if c.everSeen[p.Name] {
		return fmt.Errorf("pod %s already exists", p.Name)
	}
	if p.Node != "" {
		if _, ok := c.nodes[p.Node]; !ok {
			return fmt.Errorf("pod %s: unknown node %q", p.Name, p.Node)
		}
	}
	if p.Owner != "" {
		if _, ok := c.controllers[p.Owner]; !ok {
			return fmt.Errorf("pod %s: unknown controller %q", p.Name, p.Owner)
		}
	}
	if p.Phase == "" {
		p.Phase = Running
	}
	p.Labels = maps.Clone(p.Labels)
	p.budgets = nil
	c.insert(&p)
	c.sync()
	return nil
}

// Pod returns a copy of the named pod.
func (c *Cluster) Pod(name string) (Pod, bool) {
	p, ok := c.pods[name]
	if !ok {
		return Pod{}, false
	}
	return *p, true
}

// Pods returns copies of the pods that exist, in creation order.
func (c *Cluster) Pods() []Pod {
	var out []Pod
	for _, p := range c.order {
		if !p.gone {
			out = append(out, *p)
		}
	}
	return out
}

// PodsOn returns the names of the pods on a node, in creation order.
func (c *Cluster) PodsOn(node string) []string {
	var out []string
	for _, p := range c.order {
		if p.Node == node && !p.gone {
			out = append(out, p.Name)
		}
	}
	return out
}

// Known reports whether a pod of that name ever existed, so that a caller
// can tell a pod that is gone from a name that is wrong.
func (c *Cluster) Known(pod string) bool { return c.everSeen[pod] }

// SetReady makes a pod's readiness probe pass or fail.
func (c *Cluster) SetReady(name string, ready bool) error {
	p, ok := c.pods[name]
	if !ok {
		return fmt.Errorf("unknown pod %q", name)
	}
	if p.Unready == !ready {
		return nil
	}
	p.Unready = !ready
	c.touch(p)
	kind := EventProbeFails
	if ready {
		kind = EventProbePasses
	}
	c.record(Event{Kind: kind, Pod: name, Node: p.Node})
	c.sync()
	return nil
}

// AddBudget adds a budget. The disruption controller computes its status
// at once if it is running; until then ObservedGeneration is behind.
func (c *Cluster) AddBudget(b Budget) error {
	if err := b.validate(); err != nil {
		return err
	}
	for _, old := range c.budgets {
		if old.Name == b.Name {
			return fmt.Errorf("budget %s already exists", b.Name)
		}
	}
	b.Generation = 1
	b.ResourceVersion = 1
	b.Status = Status{}
	nb := &b
	c.budgets = append(c.budgets, nb)
	c.budgetsVersion++
	for _, p := range c.order {
		if !p.gone && nb.Selector.Matches(p.Labels) {
			p.budgets = append(p.budgets, nb)
			c.budgetPods[nb] = append(c.budgetPods[nb], p)
		}
	}
	c.record(Event{Kind: EventBudgetAdded, Budget: nb.Name, Detail: fmt.Sprintf("%s of %s", nb.Spec(), nb.Selector)})
	c.sync()
	return nil
}

// UpdateBudget changes a budget's floor or policy (not its selector) and
// bumps its generation, as an edit of spec does.
func (c *Cluster) UpdateBudget(name string, change func(*Budget)) error {
	b := c.budget(name)
	if b == nil {
		return fmt.Errorf("unknown budget %q", name)
	}
	next := *b
	change(&next)
	if err := next.validate(); err != nil {
		return err
	}
	b.MinAvailable, b.MaxUnavailable = next.MinAvailable, next.MaxUnavailable
	b.UnhealthyPodEvictionPolicy = next.UnhealthyPodEvictionPolicy
	b.Generation++
	b.ResourceVersion++
	c.record(Event{Kind: EventBudgetChanged, Budget: name, Detail: b.Spec()})
	c.sync()
	return nil
}

// Budget returns a copy of the named budget, with its status.
func (c *Cluster) Budget(name string) (Budget, bool) {
	b := c.budget(name)
	if b == nil {
		return Budget{}, false
	}
	out := *b
	out.Status.DisruptedPods = maps.Clone(b.Status.DisruptedPods)
	return out, true
}

func (c *Cluster) budget(name string) *Budget {
	for _, b := range c.budgets {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// StopController stops the disruption controller: budget status stays as
// it was last written, while evictions keep decrementing it.
func (c *Cluster) StopController() {
	if !c.stopped {
		c.stopped = true
		c.record(Event{Kind: EventControllerStopped})
	}
}

// StartController starts the disruption controller, which syncs every
// budget at once.
func (c *Cluster) StartController() {
	if c.stopped {
		c.stopped = false
		c.record(Event{Kind: EventControllerStarted})
		c.touchAll()
		c.sync()
	}
}

// Advance moves the clock forward by d. Pods whose readiness falls inside
// the interval become Ready at their own instant, each followed by a sync
// of the budgets, so that the log shows when each one counted.
func (c *Cluster) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("cannot move the clock back by %v", -d)
	}
	c.advanceTo(c.now + d)
	return nil
}

func (c *Cluster) advanceTo(t time.Duration) {
	for {
		ready, okReady := c.nextReady()
		tm, okTimer := c.nextTimer()
		switch {
		case okTimer && tm.at <= t && (!okReady || tm.at <= ready):
			c.moveTo(tm.at)
			c.fire(tm)
		case okReady && ready <= t:
			c.moveTo(ready)
			c.becomeReady()
		default:
			c.moveTo(t)
			return
		}
	}
}

// moveTo sets the clock, first showing the instant that ends to the
// watcher, if any.
func (c *Cluster) moveTo(t time.Duration) {
	if t != c.now && c.watch != nil {
		c.watch(c)
	}
	c.now = t
}

// Watch calls f each time the clock is about to move on, with the cluster
// as it stands at the end of the instant that ends: every state a figure
// of the run needs, drains' retries included. The last instant is the
// caller's to look at. Watch(nil) stops it.
func (c *Cluster) Watch(f func(*Cluster)) { c.watch = f }

// nextChange returns the earliest future instant at which something will
// happen without anyone acting: a pod becoming Ready, or a controller's
// timer.
func (c *Cluster) nextChange() (time.Duration, bool) {
	next, ok := c.nextReady()
	if tm, okTimer := c.nextTimer(); okTimer && (!ok || tm.at < next) {
		next, ok = tm.at, true
	}
	return next, ok
}

// nextTimer returns the earliest timer, the first set of those due at the
// same instant.
func (c *Cluster) nextTimer() (timer, bool) {
	if len(c.timers) == 0 {
		return timer{}, false
	}
	best := c.timers[0]
	for _, tm := range c.timers[1:] {
		if tm.at < best.at {
			best = tm
		}
	}
	return best, true
}

// fire removes a timer and does what it stands for.
func (c *Cluster) fire(tm timer) {
	c.timers = slices.DeleteFunc(c.timers, func(x timer) bool { return x == tm })
	n := c.nodes[tm.node]
	switch tm.kind {
	case timerAvailable:
		c.sync()
	case timerNodeUnreachable:
		// monitorNodeHealth: the Ready condition goes Unknown, the node is
		// tainted unreachable, and MarkPodsNotReady turns its pods' Ready
		// condition false. The pods stay: nobody deletes them yet.
		n.Unreachable = true
		var pods []string
		for _, p := range c.order {
			if p.gone || p.Node != n.Name || p.Terminating {
				continue
			}
			p.NodeLost = true
			c.touch(p)
			pods = append(pods, p.Name)
		}
		c.record(Event{Kind: EventNodeUnreachable, Node: n.Name, Detail: names(pods)})
		c.timers = append(c.timers, timer{at: c.now + DefaultTolerationSeconds, kind: timerTaintEviction, node: n.Name})
		c.sync()
	case timerTaintEviction:
		// The taint eviction controller deletes every pod whose toleration
		// of the unreachable taint has run out. No budget is asked. The
		// kubelet that would finish the deletion is dead, so each pod stays
		// Terminating, bound to the node; its ReplicaSet, which ignores
		// pods being deleted, creates a replacement at once, and the taint
		// keeps the replacement off this node.
		var owners []string
		for _, p := range c.order {
			if p.gone || p.Node != n.Name || p.Terminating || !n.Down {
				continue
			}
			c.count(p, -1)
			p.Terminating = true
			c.count(p, +1)
			c.touch(p)
			c.record(Event{Kind: EventTaintEviction, Pod: p.Name, Node: n.Name})
			if p.Owner != "" && !slices.Contains(owners, p.Owner) {
				owners = append(owners, p.Owner)
			}
		}
		for _, o := range owners {
			if ctl, ok := c.controllers[o]; ok {
				c.reconcile(ctl)
			}
		}
		c.sync()
	}
}

// nextReady returns the earliest future instant at which a pod becomes
// Ready.
func (c *Cluster) nextReady() (time.Duration, bool) {
	found := false
	var next time.Duration
	for _, p := range c.notReady {
		if p.gone || p.Phase != Running {
			continue
		}
		if !found || p.ReadyAt < next {
			next, found = p.ReadyAt, true
		}
	}
	return next, found
}

// becomeReady records every pod that is Ready at c.now, then syncs.
func (c *Cluster) becomeReady() {
	keep := c.notReady[:0]
	changed := false
	for _, p := range c.notReady {
		if p.gone || p.Phase != Running {
			continue
		}
		if p.ReadyAt > c.now {
			keep = append(keep, p)
			continue
		}
		changed = true
		c.touch(p)
		if p.Ready(c.now) {
			c.record(Event{Kind: EventReady, Pod: p.Name, Node: p.Node})
		}
	}
	clear(c.notReady[len(keep):])
	c.notReady = keep
	if changed {
		c.sync()
	}
}

// PowerOff makes a node lose power, as a failed power supply or a kernel
// panic does. Nothing asks a budget and nothing happens at once: the pods on
// it stay, bound and Ready as far as the API server knows, until the node
// lifecycle controller notices the silence NodeMonitorGracePeriod later and
// marks them not Ready; DefaultTolerationSeconds after that, the taint
// eviction controller deletes them and their controllers replace them on
// other nodes.
func (c *Cluster) PowerOff(node string) error {
	n, ok := c.nodes[node]
	if !ok {
		return fmt.Errorf("unknown node %q", node)
	}
	if n.Down {
		return fmt.Errorf("node %s is already down", node)
	}
	n.Down = true
	c.record(Event{Kind: EventNodeDown, Node: node, Detail: names(c.PodsOn(node))})
	c.timers = append(c.timers, timer{at: c.now + NodeMonitorGracePeriod, kind: timerNodeUnreachable, node: node})
	return nil
}

// CrashContainer makes a pod's container exit, as an out-of-memory kill or
// a panic in the program does. The kubelet restarts it in the same pod, on
// the same node: no pod is deleted, none is created, and no budget is asked.
// The pod is not Ready until its readiness probe passes again, its
// controller's ReadyAfter later. (The kubelet waits longer between restarts
// of a container that keeps crashing; the model restarts it at once.)
func (c *Cluster) CrashContainer(pod string) error {
	p, ok := c.pods[pod]
	if !ok {
		return fmt.Errorf("unknown pod %q", pod)
	}
	switch {
	case p.Phase != Running:
		return fmt.Errorf("pod %s is %s: it has no running container to crash", pod, p.Phase)
	case p.Terminating:
		return fmt.Errorf("pod %s is being deleted: its container is not restarted", pod)
	case p.Node != "" && c.nodes[p.Node].Down:
		return fmt.Errorf("pod %s: node %s is down, nothing runs there", pod, p.Node)
	}
	var after time.Duration
	if ctl, ok := c.controllers[p.Owner]; ok {
		after = ctl.ReadyAfter
	}
	p.Restarts++
	p.ReadyAt = c.now + after
	if after > 0 {
		c.notReady = append(c.notReady, p)
	}
	c.touch(p)
	c.record(Event{Kind: EventContainerCrash, Pod: pod, Node: p.Node, ReadyAt: p.ReadyAt, Detail: strconv.Itoa(p.Restarts)})
	c.sync()
	return nil
}

// Delete deletes a pod directly, as kubectl delete pod, kubectl drain
// --disable-eviction or a ReplicaSet scale-down do: no budget is asked. Its
// controller replaces it.
func (c *Cluster) Delete(name string) error {
	p, ok := c.pods[name]
	if !ok {
		return fmt.Errorf("unknown pod %q", name)
	}
	c.record(Event{Kind: EventDelete, Pod: name, Node: p.Node})
	c.remove(p)
	c.sync()
	return nil
}

// Log returns what happened so far, in order.
func (c *Cluster) Log() []Event { return slices.Concat(c.log...) }

const logChunk = 4096

func (c *Cluster) record(e Event) {
	e.At = c.now
	if len(c.log) == 0 || len(c.log[len(c.log)-1]) == logChunk {
		c.log = append(c.log, make([]Event, 0, logChunk))
	}
	last := &c.log[len(c.log)-1]
	*last = append(*last, e)
}

// insert adds a pod to the indexes and to the budgets that select it.
func (c *Cluster) insert(p *Pod) {
	c.pods[p.Name] = p
	c.everSeen[p.Name] = true
	c.order = append(c.order, p)
	c.count(p, +1)
	p.budgets = c.selecting(p)
	for _, b := range p.budgets {
		c.budgetPods[b] = append(c.budgetPods[b], p)
	}
	c.touch(p)
	if p.Phase == Running && p.ReadyAt > c.now {
		c.notReady = append(c.notReady, p)
	}
}

// selecting returns the budgets that select a new pod. A controller's pods
// all carry its labels, so their budgets are computed once per controller.
func (c *Cluster) selecting(p *Pod) []*Budget {
	match := func() []*Budget {
		var out []*Budget
		for _, b := range c.budgets {
			if b.Selector.Matches(p.Labels) {
				out = append(out, b)
			}
		}
		return out
	}
	ctl, ok := c.controllers[p.Owner]
	if !ok || !maps.Equal(ctl.Labels, p.Labels) {
		return match()
	}
	if ctl.budgetsVersion != c.budgetsVersion || ctl.budgets == nil {
		ctl.budgets, ctl.budgetsVersion = match(), c.budgetsVersion
	}
	return slices.Clone(ctl.budgets)
}

// remove deletes a pod and lets its controller replace it. On a node that
// is down no kubelet confirms the deletion: the pod stays Terminating,
// bound to the node, and the ReplicaSet replaces it all the same.
func (c *Cluster) remove(p *Pod) {
	if p.Node != "" && c.nodes[p.Node].Down {
		c.count(p, -1)
		p.Terminating = true
		c.count(p, +1)
		c.touch(p)
	} else {
		c.forget(p)
	}
	if ctl, ok := c.controllers[p.Owner]; ok {
		c.reconcile(ctl)
	}
}

// forget deletes a pod from every index.
func (c *Cluster) forget(p *Pod) {
	delete(c.pods, p.Name)
	p.gone = true
	c.count(p, -1)
	c.removed++
	for _, b := range p.budgets {
		c.budgetPods[b] = slices.DeleteFunc(c.budgetPods[b], func(q *Pod) bool { return q == p })
	}
	c.touch(p)
	if c.removed > len(c.pods) {
		c.order = slices.DeleteFunc(c.order, func(q *Pod) bool { return q.gone })
		c.removed = 0
	}
}

// count adds delta to the counts a pod takes part in.
func (c *Cluster) count(p *Pod, delta int) {
	if p.Owner != "" && !p.Terminating {
		c.live[p.Owner] += delta
	}
	if p.Node == "" {
		return
	}
	i := c.nodes[p.Node].index
	c.onNode[i] += delta
	if p.Owner != "" {
		own := c.ownOnNode[p.Owner]
		if len(own) < len(c.nodeList) {
			own = append(own, make([]int, len(c.nodeList)-len(own))...)
			c.ownOnNode[p.Owner] = own
		}
		own[i] += delta
	}
}

// reconcile creates or deletes pods until the controller has Replicas, as
// the ReplicaSet controller does.
func (c *Cluster) reconcile(ctl *Controller) {
	for c.live[ctl.Name] < ctl.Replicas {
		ctl.created++
		p := &Pod{
			Name:   ctl.Name + "-" + strconv.Itoa(ctl.created),
			Labels: maps.Clone(ctl.Labels),
			Owner:  ctl.Name,
			Phase:  Pending,
		}
		for c.everSeen[p.Name] {
			ctl.created++
			p.Name = ctl.Name + "-" + strconv.Itoa(ctl.created)
		}
		c.place(p, ctl)
		c.insert(p)
		c.watchAvailable(p, ctl)
		if !c.quiet {
			c.record(Event{Kind: EventCreated, Pod: p.Name, Node: p.Node, Controller: ctl.Name, ReadyAt: p.ReadyAt, Placed: p.Node != ""})
		}
	}
	if c.live[ctl.Name] <= ctl.Replicas {
		return
	}
	// Scaling down removes the newest pods first (the real ReplicaSet
	// prefers pods that are not Ready; the newest usually are not).
	var mine []*Pod
	for _, p := range c.order {
		if p.Owner == ctl.Name && !p.gone && !p.Terminating {
			mine = append(mine, p)
		}
	}
	for i := len(mine) - 1; i >= ctl.Replicas; i-- {
		p := mine[i]
		c.record(Event{Kind: EventDelete, Pod: p.Name, Node: p.Node, Controller: ctl.Name})
		c.forget(p)
	}
}

// place puts a new pod on the schedulable node with the fewest pods of the
// same controller, then the fewest pods, then the first name. With no
// schedulable node the pod stays Pending.
func (c *Cluster) place(p *Pod, ctl *Controller) {
	own := c.ownOnNode[ctl.Name]
	best, bestOwn, bestAll := -1, 0, 0
	for i, n := range c.nodeList {
		if n.Cordoned || n.Unreachable {
			continue
		}
		mine := 0
		if i < len(own) {
			mine = own[i]
		}
		if best < 0 || mine < bestOwn || (mine == bestOwn && c.onNode[i] < bestAll) {
			best, bestOwn, bestAll = i, mine, c.onNode[i]
		}
	}
	if best < 0 {
		p.Phase, p.Node = Pending, ""
		return
	}
	p.Node, p.Phase, p.ReadyAt = c.nodeList[best].Name, Running, c.now+ctl.ReadyAfter
}

// schedulePending places pods that were waiting for a node.
func (c *Cluster) schedulePending() {
	for _, p := range c.order {
		if p.gone || p.Phase != Pending || p.Node != "" {
			continue
		}
		ctl, ok := c.controllers[p.Owner]
		if !ok {
			continue
		}
		c.count(p, -1)
		c.place(p, ctl)
		c.count(p, +1)
		if p.Phase == Running {
			c.touch(p)
			c.record(Event{Kind: EventScheduled, Pod: p.Name, Node: p.Node, ReadyAt: p.ReadyAt})
			if p.ReadyAt > c.now {
				c.notReady = append(c.notReady, p)
			}
		}
	}
}

// touch marks for the next sync the budget that the disruption controller
// queues for an event of p: one budget, even when several select the pod.
func (c *Cluster) touch(p *Pod) {
	if b := c.pick(p); b != nil {
		c.dirty[b] = true
	}
}

// pick returns the one budget the disruption controller syncs for an event
// of a pod. Upstream, addPod, updatePod and deletePod call getPdbForPod,
// which takes the first of the budgets that select the pod in the order
// the informer's cache lists them, a Go map's order, and logs "Chose %q
// arbitrarily". The model takes the budget PreferBudget named when it
// selects the pod, and otherwise the oldest, so that a scenario plays the
// same every time; the other budgets keep their status until their own next
// sync.
func (c *Cluster) pick(p *Pod) *Budget {
	if len(p.budgets) == 0 {
		return nil
	}
	for _, b := range p.budgets {
		if b.Name == c.prefer {
			return b
		}
	}
	return p.budgets[0]
}

// PreferBudget names the budget the disruption controller picks when a pod
// that changed is selected by several (see pick); "" restores the oldest.
func (c *Cluster) PreferBudget(name string) error {
	if name != "" && c.budget(name) == nil {
		return fmt.Errorf("unknown budget %q", name)
	}
	c.prefer = name
	return nil
}

// ResyncBudget syncs one budget as an update of the budget object that does
// not change its spec does (a new label or annotation), or as the
// informers' periodic resync does, every 12 to 24 hours with
// kube-controller-manager's default --min-resync-period of 12h.
func (c *Cluster) ResyncBudget(name string) error {
	b := c.budget(name)
	if b == nil {
		return fmt.Errorf("unknown budget %q", name)
	}
	c.record(Event{Kind: EventBudgetResync, Budget: name})
	c.dirty[b] = true
	c.sync()
	return nil
}

// touchAll marks every budget for the next sync.
func (c *Cluster) touchAll() {
	for _, b := range c.budgets {
		c.dirty[b] = true
	}
}

// sync runs the Deployment controller's rolling updates, then the
// disruption controller over every budget, if it is running.
func (c *Cluster) sync() {
	c.progressRollouts()
	if c.stopped {
		return
	}
	for _, b := range c.budgets {
		// A budget's status changes only when its pods, its spec, or the
		// time-limited entries of DisruptedPods change; the rest is skipped
		// so that a large cluster stays cheap to simulate.
		if !c.dirty[b] && b.Status.ObservedGeneration == b.Generation && len(b.Status.DisruptedPods) == 0 {
			continue
		}
		next := computeStatus(b, c.budgetPods[b], c.owner, c.now)
		// updatePdbStatus writes only a status that changed, and every write
		// gives the object a new resourceVersion.
		if !next.equal(b.Status) {
			b.ResourceVersion++
		}
		b.Status = next
	}
	clear(c.dirty)
}

// FreshStatus returns the status the disruption controller would write if
// it synced the budget now: the status a budget that went stale gets back
// at its next sync.
func (c *Cluster) FreshStatus(name string) (Status, bool) {
	b := c.budget(name)
	if b == nil {
		return Status{}, false
	}
	return computeStatus(b, c.budgetPods[b], c.owner, c.now), true
}

// BudgetNames returns the names of the budgets in the order they were added.
func (c *Cluster) BudgetNames() []string {
	var out []string
	for _, b := range c.budgets {
		out = append(out, b.Name)
	}
	return out
}
