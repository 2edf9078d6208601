package pdb

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// A Strategy is a Deployment's rolling update: how many pods above its
// replicas it may create (MaxSurge), how many below them may be unavailable
// (MaxUnavailable), and how long a Ready pod must stay Ready before it
// counts as available (MinReady, the Deployment's minReadySeconds). The
// model takes integers; upstream also takes percentages of the replicas.
type Strategy struct {
	MaxSurge, MaxUnavailable int
	MinReady                 time.Duration
}

// A rollout is a Deployment in a rolling update from its old ReplicaSet to
// a new one. Both are controllers of the cluster; the Deployment keeps the
// replicas it had when the update began.
type rollout struct {
	name     string // the Deployment, whose old ReplicaSet has this name too
	replicas int
	strategy Strategy
	old, new *Controller
}

// Rollout starts a rolling update of the controller name, as a change of
// its Deployment's pod template does: a new ReplicaSet, name-v2, with the
// same labels and start-up time, replaces the old one within the strategy.
// The Deployment controller asks no budget; it deletes old pods only while
// enough pods of both ReplicaSets are available
// (pkg/controller/deployment/rolling.go). For a budget, the pods of both
// ReplicaSets belong to one controller, the Deployment, whose scale is its
// replicas (getPodDeployment in the disruption controller).
func (c *Cluster) Rollout(name string, s Strategy) error {
	old, ok := c.controllers[name]
	switch {
	case !ok:
		return fmt.Errorf("unknown controller %q", name)
	case old.deployment != "":
		return fmt.Errorf("controller %s is already a ReplicaSet of a rolling update", name)
	case s.MaxSurge < 0 || s.MaxUnavailable < 0 || s.MinReady < 0:
		return fmt.Errorf("rollout %s: a negative surge, unavailability or min-ready", name)
	case s.MaxSurge == 0 && s.MaxUnavailable == 0:
		// Refused by the API server's validation of a Deployment.
		return fmt.Errorf("rollout %s: maxSurge and maxUnavailable may not both be 0", name)
	}
	newName := name + "-v2"
	if _, dup := c.controllers[newName]; dup {
		return fmt.Errorf("controller %s already exists", newName)
	}
	nw := &Controller{Name: newName, Labels: old.Labels, ReadyAfter: old.ReadyAfter, deployment: name}
	old.deployment = name
	c.controllers[newName] = nw
	r := &rollout{name: name, replicas: old.Replicas, strategy: s, old: old, new: nw}
	if c.rollouts == nil {
		c.rollouts = map[string]*rollout{}
	}
	c.rollouts[name] = r
	c.record(Event{Kind: EventRollout, Controller: name, Detail: fmt.Sprintf("new ReplicaSet %s, maxSurge %d, maxUnavailable %d, minReadySeconds %v",
		newName, s.MaxSurge, s.MaxUnavailable, s.MinReady)})
	c.sync()
	return nil
}

// owner returns the controller whose scale a budget reads for a pod's
// owner, and that scale: the Deployment for a ReplicaSet of a rolling
// update, the controller itself otherwise.
func (c *Cluster) owner(name string) (string, int) {
	ctl, ok := c.controllers[name]
	if !ok {
		return name, 0
	}
	if r, ok := c.rollouts[ctl.deployment]; ok {
		return r.name, r.replicas
	}
	return name, ctl.Replicas
}

// available counts the pods of ctl that the Deployment controller counts
// as available: Ready for at least minReady.
func (c *Cluster) available(ctl *Controller, minReady time.Duration) int {
	n := 0
	for _, p := range c.order {
		if p.Owner == ctl.Name && !p.gone && p.Ready(c.now) && c.now >= p.ReadyAt+minReady {
			n++
		}
	}
	return n
}

// progressRollouts is the Deployment controller's rolling update, run
// after every change until nothing moves: the new ReplicaSet grows while
// all pods stay within replicas+maxSurge (NewRSNewReplicas), and the old
// one shrinks while more than replicas−maxUnavailable pods are available
// (reconcileOldReplicaSets and scaleDownOldReplicaSetsForRollingUpdate).
// Its scale-downs delete pods without asking any budget.
func (c *Cluster) progressRollouts() {
	for _, name := range slices.Sorted(maps.Keys(c.rollouts)) {
		r := c.rollouts[name]
		for c.progress(r) {
		}
	}
}

func (c *Cluster) progress(r *rollout) bool {
	old, nw, s := r.old, r.new, r.strategy
	if up := min(r.replicas+s.MaxSurge-(old.Replicas+nw.Replicas), r.replicas-nw.Replicas); up > 0 {
		c.rolloutScale(r, nw, nw.Replicas+up)
		return true
	}
	if old.Replicas == 0 {
		return false
	}
	minAvailable := r.replicas - s.MaxUnavailable
	newUnavailable := nw.Replicas - c.available(nw, s.MinReady)
	if old.Replicas+nw.Replicas-minAvailable-newUnavailable <= 0 {
		return false
	}
	available := c.available(old, s.MinReady) + c.available(nw, s.MinReady)
	if available <= minAvailable {
		// The old pods stay until enough pods are available: a pod that a
		// drain took, whose replacement is not yet available, holds the
		// rollout up as surely as a new pod that is still starting.
		return false
	}
	c.rolloutScale(r, old, old.Replicas-min(old.Replicas, available-minAvailable))
	return true
}

func (c *Cluster) rolloutScale(r *rollout, ctl *Controller, replicas int) {
	c.record(Event{Kind: EventScale, Controller: ctl.Name, Detail: fmt.Sprintf("%d → %d replicas (rolling update of %s)", ctl.Replicas, replicas, r.name)})
	ctl.Replicas = replicas
	c.reconcile(ctl)
}

// watchAvailable sets a timer for the instant a new pod of a rolling
// update turns available, when the Deployment controller looks again.
func (c *Cluster) watchAvailable(p *Pod, ctl *Controller) {
	if r, ok := c.rollouts[ctl.deployment]; ok && r.strategy.MinReady > 0 && p.Phase == Running {
		c.timers = append(c.timers, timer{at: p.ReadyAt + r.strategy.MinReady, kind: timerAvailable})
	}
}
