package taints

// DaemonSetTolerations returns tols with the tolerations the DaemonSet
// controller puts on its pods (AddOrUpdateDaemonPodTolerations in
// pkg/controller/daemon/util): not-ready and unreachable NoExecute with no
// seconds, so the node's own agents never leave a failing node (any other
// NoExecute taint still removes them); disk-pressure,
// memory-pressure, pid-pressure and unschedulable NoSchedule; and
// network-unavailable NoSchedule for pods on the host network.
//
// Each is added or updated: a toleration with the same key, operator, value
// and effect is replaced in place, so a template that wrote
// {not-ready Exists NoExecute for 60s} ends up tolerating forever.
func DaemonSetTolerations(tols []Toleration, hostNetwork bool) []Toleration {
	out := append([]Toleration(nil), tols...)
	add := []Toleration{
		{Key: KeyNotReady, Operator: Exists, Effect: NoExecute},
		{Key: KeyUnreachable, Operator: Exists, Effect: NoExecute},
		{Key: KeyDiskPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyMemoryPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyPIDPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyUnschedulable, Operator: Exists, Effect: NoSchedule},
	}
	if hostNetwork {
		add = append(add, Toleration{Key: KeyNetworkUnavailable, Operator: Exists, Effect: NoSchedule})
	}
	for _, t := range add {
		out = addOrUpdate(out, t)
	}
	return out
}

// addOrUpdate replaces every toleration that has t's key, operator, value
// and effect with t, or appends t when there is none (upstream's
// AddOrUpdateTolerationInPodSpec).
func addOrUpdate(tols []Toleration, t Toleration) []Toleration {
	found := false
	for i, old := range tols {
		if old.Key == t.Key && old.Operator == t.Operator && old.Value == t.Value && old.Effect == t.Effect {
			tols[i] = t
			found = true
		}
	}
	if !found {
		tols = append(tols, t)
	}
	return tols
}
