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

	budgets []*Budget // the budgets that select it, in creation order
	gone    bool      // deleted from the cluster; still in Cluster.order until compacted
}

// Ready reports whether p is Ready at now: the condition the disruption
// controller and the eviction subresource read (podutil.IsPodReady).
func (p *Pod) Ready(now time.Duration) bool {
	return p.Phase == Running && !p.Terminating && !p.Unready && now >= p.ReadyAt
}

// A Node is a node pods run on.
type Node struct {
	Name     string
	Cordoned bool // spec.unschedulable

	index int // position in Cluster.nodeList
}

// A Controller stands for a Deployment: it keeps Replicas pods with Labels,
// replaces a pod as soon as it goes, and its replacements become Ready
// ReadyAfter after they are placed.
type Controller struct {
	Name       string
	Replicas   int
	Labels     map[string]string
	ReadyAfter time.Duration

	created int // pods created so far, which names the next one

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
	quiet          bool   // do not log pod creations
	dirty          map[*Budget]bool
	log            [][]Event // in chunks, so that a long log is never copied to grow

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
	c.touchAll() // the scale is part of expectedPods
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
		next, ok := c.nextReady()
		if !ok || next > t {
			break
		}
		c.now = next
		c.becomeReady()
	}
	c.now = t
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

// Crash removes a pod without asking anyone, as a power loss or a kernel
// panic does. Its controller replaces it.
func (c *Cluster) Crash(name string) error {
	p, ok := c.pods[name]
	if !ok {
		return fmt.Errorf("unknown pod %q", name)
	}
	c.record(Event{Kind: EventCrash, Pod: name, Node: p.Node})
	c.remove(p)
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
		c.dirty[b] = true
	}
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

// remove deletes a pod and lets its controller replace it.
func (c *Cluster) remove(p *Pod) {
	c.forget(p)
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
		c.dirty[b] = true
	}
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
		if n.Cordoned {
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

// touch marks the budgets of a pod for the next sync.
func (c *Cluster) touch(p *Pod) {
	for _, b := range p.budgets {
		c.dirty[b] = true
	}
}

// touchAll marks every budget for the next sync.
func (c *Cluster) touchAll() {
	for _, b := range c.budgets {
		c.dirty[b] = true
	}
}

// sync runs the disruption controller over every budget, if it is running.
func (c *Cluster) sync() {
	if c.stopped {
		return
	}
	scale := func(owner string) int {
		if ctl, ok := c.controllers[owner]; ok {
			return ctl.Replicas
		}
		return 0
	}
	for _, b := range c.budgets {
		// A budget's status changes only when its pods, its spec, or the
		// time-limited entries of DisruptedPods change; the rest is skipped
		// so that a large cluster stays cheap to simulate.
		if !c.dirty[b] && b.Status.ObservedGeneration == b.Generation && len(b.Status.DisruptedPods) == 0 {
			continue
		}
		b.Status = computeStatus(b, c.budgetPods[b], scale, c.now)
	}
	clear(c.dirty)
}

// BudgetNames returns the names of the budgets in the order they were added.
func (c *Cluster) BudgetNames() []string {
	var out []string
	for _, b := range c.budgets {
		out = append(out, b.Name)
	}
	return out
}
