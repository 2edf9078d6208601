package shutdown

import (
	"time"
)

// Defaults of the controllers that act on a node that went away without a
// graceful shutdown (kube-controller-manager v1.37.2).
const (
	// PodGCPeriod is how often the pod garbage collector runs (gcCheckPeriod).
	PodGCPeriod = 20 * time.Second
	// MaxWaitForUnmount is how long the attach/detach controller waits for an
	// unhealthy node to unmount a volume before it detaches it anyway.
	MaxWaitForUnmount = 6 * time.Minute
	// ReconcilerPeriod is how often the attach/detach controller's reconciler
	// runs; it is also the step of Simulate's clock.
	ReconcilerPeriod = 100 * time.Millisecond
	// OrphanQuarantine is how long the pod GC waits, after it first finds a
	// pod whose Node object is gone, before it deletes the pod (quarantineTime).
	OrphanQuarantine = 40 * time.Second
)

// An EventKind is something that happens to the node or its pod from outside
// the controllers Simulate runs.
type EventKind int

const (
	// NodeNotReady: the node stopped reporting Ready (it lost power).
	NodeNotReady EventKind = iota
	// NodeReady: the node is back, and so is its kubelet.
	NodeReady
	// DeleteRequested: someone (usually the taint eviction controller) asked
	// for the pod's graceful deletion; it is Terminating until its kubelet
	// confirms the containers are gone.
	DeleteRequested
	// TaintOutOfService: node.kubernetes.io/out-of-service was added.
	TaintOutOfService
	// UntaintOutOfService: the taint was removed.
	UntaintOutOfService
	// ForceDeleted: a person ran kubectl delete --force --grace-period=0.
	ForceDeleted
	// NodeDeleted: the Node object was deleted, by a person (kubectl delete
	// node) or by a cloud provider's node lifecycle controller that found the
	// machine gone.
	NodeDeleted
)

// An Event happens at a moment of the logical clock, which starts at zero.
type Event struct {
	At   time.Duration
	Kind EventKind
}

// A Scenario is a node with one StatefulSet pod, possibly holding a volume,
// and the events that happen to them.
type Scenario struct {
	Events []Event
	// Volume says the pod has an attached volume that its replacement needs.
	Volume bool
	// ContainersStopped says the last container statuses the node reported
	// for the pod were all terminated or waiting (say, its database had
	// crashed before the power went). With a deletionTimestamp that makes the
	// pod terminated for the attach/detach controller (IsPodTerminated), which
	// drops its volume from the desired state while the pod is still
	// Terminating. By default the node's last report had them running.
	ContainersStopped bool
	// GracePeriod is how long a live kubelet takes to stop the pod once its
	// deletion is requested.
	GracePeriod time.Duration
	// PodGCOffset is when the pod GC first runs; it then runs every PodGCPeriod.
	PodGCOffset time.Duration
	// DisableForceDetachOnTimeout is kube-controller-manager's
	// --disable-force-detach-on-timeout.
	DisableForceDetachOnTimeout bool
	// Until is when the simulation stops.
	Until time.Duration
}

// A Moment is a time on the clock, or Never when the thing did not happen
// before the scenario ended.
type Moment struct {
	At    time.Duration
	Never bool
}

func at(d time.Duration) Moment { return Moment{At: d} }

func (m Moment) String() string {
	if m.Never {
		return "never"
	}
	return "t+" + m.At.String()
}

// Who ended the old pod.
const (
	ByPodGC         = "pod GC (out-of-service)"
	ByPodGCOrphaned = "pod GC (node object gone)"
	ByHand          = "force delete by hand"
	ByKubelet       = "kubelet"
)

// How the volume left the old node.
const (
	DetachedOutOfService = "force detach (out-of-service taint)"
	DetachedTimeout      = "force detach (6 min unmount timeout)"
	DetachedNormal       = "detach after unmount"
)

// An Outcome is what the controllers did.
type Outcome struct {
	// Terminating is when the pod got its deletionTimestamp.
	Terminating Moment
	// Gone is when the old pod left the API server, and By who removed it.
	Gone Moment
	By   string
	// Detached is when the volume left the old node, and How.
	Detached Moment
	How      string
	// Replacement is when the StatefulSet's new pod can run elsewhere: the old
	// pod is gone (the name is free) and, with a volume, the volume is detached.
	Replacement Moment
}

// Simulate runs the pod GC and the attach/detach controller on a logical
// clock with the step ReconcilerPeriod, applying events as they come.
//
// The pod GC, on each run, force-deletes a Terminating pod only if its node is
// not Ready and carries the out-of-service taint (any effect, gcTerminating);
// and it deletes any pod whose Node object is gone, on its first run at least
// OrphanQuarantine after the run that first found the Node missing
// (gcOrphaned). The attach/detach controller starts the detach of a volume
// once no pod needs it: the pod is gone, or it is Terminating with its
// containers last reported stopped (DetermineVolumeAction). A node that is
// not Ready never confirms the unmount, so the volume is detached at once
// under the out-of-service taint, after MaxWaitForUnmount otherwise, or never
// when force detach on timeout is disabled. A deleted Node is neither Ready
// nor tainted.
func Simulate(s Scenario) Outcome {
	never := Moment{Never: true}
	w := &world{
		s:           s,
		o:           Outcome{Terminating: never, Gone: never, Detached: never, Replacement: never},
		ready:       true,
		missingSeen: never,
	}
	next := 0
	nextGC := s.PodGCOffset
	for t := time.Duration(0); t <= s.Until; t += ReconcilerPeriod {
		for next < len(s.Events) && s.Events[next].At <= t {
			w.apply(s.Events[next].Kind, t)
			next++
		}
		if w.terminating && s.ContainersStopped {
			// IsPodTerminated: a deletionTimestamp and no running container.
			w.unneeded(t)
		}
		// A live kubelet finishes a pending deletion itself, once the pod's
		// grace period is over.
		if w.ready && w.terminating && !w.gone && t-w.deleteAsked >= s.GracePeriod {
			w.remove(t, ByKubelet)
		}
		if t >= nextGC {
			nextGC += PodGCPeriod
			w.podGC(t)
		}
		if s.Volume && w.needless && w.o.Detached.Never {
			w.detach(t)
		}
		if w.gone && (!s.Volume || !w.o.Detached.Never) && w.o.Replacement.Never {
			w.o.Replacement = at(t)
		}
	}
	return w.o
}

// A world is the node, its pod and its volume as Simulate runs them.
type world struct {
	s Scenario
	o Outcome

	ready, outOfService, nodeGone bool
	terminating, gone             bool
	deleteAsked                   time.Duration
	// needless says the volume has left the desired state, since detachAsked.
	needless    bool
	detachAsked time.Duration
	// missingSeen is the pod GC's run that first found the Node gone.
	missingSeen Moment
}

// apply is an event from outside the controllers, at t.
func (w *world) apply(kind EventKind, t time.Duration) {
	switch kind {
	case NodeNotReady:
		w.ready = false
	case NodeReady:
		w.ready = true
	case TaintOutOfService:
		w.outOfService = true
	case UntaintOutOfService:
		w.outOfService = false
	case DeleteRequested:
		if !w.terminating && !w.gone {
			w.terminating = true
			w.o.Terminating = at(t)
			w.deleteAsked = t
		}
	case ForceDeleted:
		if !w.gone {
			w.remove(t, ByHand)
		}
	case NodeDeleted:
		w.nodeGone, w.ready, w.outOfService = true, false, false
	}
}

// unneeded takes the volume out of the desired state at t, once.
func (w *world) unneeded(t time.Duration) {
	if !w.needless {
		w.needless, w.detachAsked = true, t
	}
}

// remove takes the old pod out of the API server at t.
func (w *world) remove(t time.Duration, by string) {
	w.gone = true
	w.o.Gone, w.o.By = at(t), by
	w.unneeded(t)
}

// podGC is one run of the pod garbage collector at t: gcTerminating, then
// gcOrphaned.
func (w *world) podGC(t time.Duration) {
	// The pod GC's test in gcTerminating: not Ready and the taint key present.
	if w.terminating && !w.gone && !w.ready && w.outOfService {
		w.remove(t, ByPodGC)
	}
	// gcOrphaned: quarantine the node name on the first run that misses it,
	// delete its pods on the first run after quarantine.
	if w.nodeGone && !w.gone {
		if w.missingSeen.Never {
			w.missingSeen = at(t)
		} else if t-w.missingSeen.At >= OrphanQuarantine {
			w.remove(t, ByPodGCOrphaned)
		}
	}
}

// detach is one pass of the attach/detach controller's reconciler at t, for
// a volume no pod needs any more.
func (w *world) detach(t time.Duration) {
	switch {
	case w.ready:
		// The kubelet unmounts, so the detach is safe.
		w.o.Detached, w.o.How = at(t), DetachedNormal
	case w.outOfService:
		w.o.Detached, w.o.How = at(t), DetachedOutOfService
	case t-w.detachAsked > MaxWaitForUnmount && !w.s.DisableForceDetachOnTimeout:
		// The data on the volume may be corrupt if the node still writes to it.
		w.o.Detached, w.o.How = at(t), DetachedTimeout
	}
}
