package taints

import "time"

// A Status is the status of a node condition: True, False or Unknown.
type Status string

// Condition statuses.
const (
	True    Status = "True"
	False   Status = "False"
	Unknown Status = "Unknown"
)

// A Condition is one entry of a node's status.conditions.
type Condition struct {
	Type   string // Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
	Status Status
}

// conditionTaint is upstream's nodeConditionToTaintKeyStatusMap: which
// condition, in which status, gives which taint key.
var conditionTaint = map[string]map[Status]string{
	"Ready":              {False: KeyNotReady, Unknown: KeyUnreachable},
	"MemoryPressure":     {True: KeyMemoryPressure},
	"DiskPressure":       {True: KeyDiskPressure},
	"PIDPressure":        {True: KeyPIDPressure},
	"NetworkUnavailable": {True: KeyNetworkUnavailable},
}

// ConditionTaints returns the NoSchedule taints the node lifecycle controller
// keeps on a node with these conditions (doNoScheduleTaintingPass), in the
// order of the conditions, then node.kubernetes.io/unschedulable:NoSchedule
// when the node is cordoned. A Ready=True node gets none.
//
// The NoExecute taints are not here: they go through the per-zone rate
// limiter (see Tainter) and only follow the Ready condition.
func ConditionTaints(conds []Condition, unschedulable bool) []Taint {
	var out []Taint
	for _, c := range conds {
		if key, ok := conditionTaint[c.Type][c.Status]; ok {
			out = append(out, Taint{Key: key, Effect: NoSchedule})
		}
	}
	if unschedulable {
		out = append(out, Taint{Key: KeyUnschedulable, Effect: NoSchedule})
	}
	return out
}

// ReadyTaint returns the NoExecute taint the node lifecycle controller
// wants on a node whose Ready condition has status s: not-ready for False,
// unreachable for Unknown, none (false) for True. The two are exclusive:
// the controller swaps one for the other.
func ReadyTaint(s Status) (Taint, bool) {
	switch s {
	case False:
		return Taint{Key: KeyNotReady, Effect: NoExecute}, true
	case Unknown:
		return Taint{Key: KeyUnreachable, Effect: NoExecute}, true
	default:
		return Taint{}, false
	}
}

// ObservedReady is the Ready status the node lifecycle controller acts on
// (tryUpdateNodeHealth in pkg/controller/nodelifecycle): the status the node
// last reported, unless the controller has seen no heartbeat for longer than
// grace (--node-monitor-grace-period, 50 s by default), and then Unknown.
// A node has two heartbeats: its status (the Ready condition's
// lastHeartbeatTime changes) and its Lease, kube-node-lease/<node>, whose
// renewTime the kubelet moves every 10 s. statusSeen and leaseSeen are when
// the controller last saw each of them move; the later counts, so a node
// whose kubelet renews its Lease but never posts a status stays healthy.
func ObservedReady(reported Status, statusSeen, leaseSeen, now time.Time, grace time.Duration) Status {
	probe := statusSeen
	if leaseSeen.After(probe) {
		probe = leaseSeen
	}
	if now.After(probe.Add(grace)) {
		return Unknown
	}
	return reported
}
