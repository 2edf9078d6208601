package shutdown

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Priorities the kubelet uses when it turns the two-value form
// (shutdownGracePeriod, shutdownGracePeriodCriticalPods) into groups; see
// upstream's migrateConfig.
const (
	// RegularPriority is the priority of a pod without a PriorityClass when no
	// class is the cluster default.
	RegularPriority int32 = 0
	// CriticalPriority is where the system-critical range begins
	// (system-cluster-critical is exactly this, system-node-critical is 1000 above).
	CriticalPriority int32 = 2_000_000_000
)

// Feature gates that decide whether the kubelet runs a graceful shutdown and
// which configuration fields it accepts (pkg/features/kube_features.go,
// v1.37.2). All three are beta and on by default; the two others depend on
// GracefulNodeShutdown, so switching it off alone is refused.
const (
	GateGraceful        = "GracefulNodeShutdown"
	GateByPriority      = "GracefulNodeShutdownBasedOnPodPriority"
	GateWindowsGraceful = "WindowsGracefulNodeShutdown"
)

// gates are the feature gates the model knows, with what each depends on
// (upstream's defaultKubernetesFeatureGateDependencies). Every one is on by
// default in v1.37.
var gates = []struct {
	name string
	deps []string
}{
	{GateGraceful, nil},
	{GateByPriority, []string{GateGraceful}},
	{GateWindowsGraceful, []string{GateGraceful}},
}

// A Group is one step of a graceful shutdown: pods whose priority falls in it
// are ended together and the group lasts at most Seconds.
type Group struct {
	Priority int32
	Seconds  int64
}

// Settings are the fields of the kubelet's configuration (KubeletConfiguration,
// kubelet.config.k8s.io/v1beta1) that decide its graceful shutdown, under the
// same names. The zero value is the kubelet's default: graceful shutdown off.
type Settings struct {
	// ShutdownGracePeriod is the whole delay of the two-value form.
	ShutdownGracePeriod time.Duration
	// ShutdownGracePeriodCriticalPods is the part of ShutdownGracePeriod kept
	// for critical pods, at its end.
	ShutdownGracePeriodCriticalPods time.Duration
	// ShutdownGracePeriodByPodPriority is the priority table, one Group per
	// entry, in the order it is written.
	ShutdownGracePeriodByPodPriority []Group
	// FeatureGates are the kubelet's featureGates; a gate that is not listed
	// has its default, on. Gates other than the three above are ignored: the
	// model does not know the kubelet's other gates.
	FeatureGates map[string]bool
}

// A Config is a shutdown configuration the kubelet accepts.
type Config struct {
	// Enabled is false when the configuration switches graceful shutdown off:
	// both durations zero and no priority table.
	Enabled bool
	// ByPriority says the groups come from shutdownGracePeriodByPodPriority
	// rather than from the two-value form.
	ByPriority bool
	// Groups are sorted by ascending priority, the order the kubelet ends them in.
	Groups []Group
}

// Total is the time the kubelet asks logind for: the sum of every group's
// seconds, empty groups included, computed as upstream's periodRequested
// does: an int64 sum of seconds, then times time.Second. Neither step is
// bounded, so a sum past about 292 years wraps around, as it does in the kubelet.
func (c Config) Total() time.Duration {
	var sum int64
	for _, g := range c.Groups {
		sum += g.Seconds
	}
	return time.Duration(sum) * time.Second
}

// Validate returns the shutdown configuration the kubelet would run with under
// s, or the reasons it is refused, one error per reason.
//
// The rules are the kubelet's own (ValidateKubeletConfiguration in
// pkg/kubelet/apis/config/validation): first the feature gates, whose
// dependencies the kubelet checks before anything else and stops at; then the
// durations and which form is allowed. The kubelet does not check the priority
// table itself, and neither does Validate: a priority listed twice and
// negative seconds are accepted, and [NewPlan] shows what the kubelet does
// with them.
//
// The groups are those of upstream's newPodManager: the table, or the two
// values turned into two groups by migrateConfig, sorted with sort.Slice by
// priority as upstream sorts them (so entries of equal priority end up in the
// same order as in the kubelet).
func Validate(s Settings) (Config, error) {
	on, err := s.gates()
	if err != nil {
		return Config{}, err
	}
	total := s.ShutdownGracePeriod
	critical := s.ShutdownGracePeriodCriticalPods
	table := s.ShutdownGracePeriodByPodPriority

	var errs []error
	if on[GateGraceful] {
		// Equal is allowed: regular pods then get no time at all.
		if critical > total {
			errs = append(errs, fmt.Errorf("shutdownGracePeriodCriticalPods %v must be <= shutdownGracePeriod %v", critical, total))
		}
		if total < 0 || (total > 0 && total < time.Second) {
			errs = append(errs, fmt.Errorf("shutdownGracePeriod %v must be either zero or otherwise >= 1 sec", total))
		}
		if critical < 0 || (critical > 0 && critical < time.Second) {
			errs = append(errs, fmt.Errorf("shutdownGracePeriodCriticalPods %v must be either zero or otherwise >= 1 sec", critical))
		}
	}
	if (total > 0 || critical > 0) && !on[GateGraceful] {
		errs = append(errs, fmt.Errorf("shutdownGracePeriod or shutdownGracePeriodCriticalPods needs feature gate %s", GateGraceful))
	}
	if on[GateByPriority] && len(table) > 0 && (total > 0 || critical > 0) {
		errs = append(errs, errors.New("shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set"))
	}
	if !on[GateByPriority] && len(table) > 0 {
		errs = append(errs, fmt.Errorf("shutdownGracePeriodByPodPriority needs feature gate %s", GateByPriority))
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}

	// NewManager: without GracefulNodeShutdown the kubelet runs no shutdown manager.
	if !on[GateGraceful] {
		return Config{}, nil
	}
	byPriority := on[GateByPriority] && len(table) > 0
	var groups []Group
	if byPriority {
		groups = slices.Clone(table)
	} else {
		groups = migrateConfig(total, critical)
	}
	// sort.Slice, not a stable sort: upstream's newPodManager sorts this way,
	// and the order it leaves equal priorities in decides which of them gets
	// which pods.
	sort.Slice(groups, func(i, j int) bool { return groups[i].Priority < groups[j].Priority })
	if len(groups) == 0 {
		// NewManager: an empty configuration disables the manager.
		return Config{}, nil
	}
	return Config{Enabled: true, ByPriority: byPriority, Groups: groups}, nil
}

// migrateConfig is upstream's function of the same name: the two-value form
// as two groups, the regular one at priority 0 and the critical one at
// 2000000000, each with its whole seconds.
func migrateConfig(total, critical time.Duration) []Group {
	if total == 0 {
		return nil
	}
	regular := total - critical
	if regular < 0 {
		return nil
	}
	return []Group{
		{Priority: RegularPriority, Seconds: int64(regular / time.Second)},
		{Priority: CriticalPriority, Seconds: int64((total - regular) / time.Second)},
	}
}

// gates returns which of the model's feature gates are on under s, or the
// kubelet's refusal when a gate that is on depends on one that is off (the
// dependency check of component-base's featuregate, which
// ValidateKubeletConfiguration runs first and stops at).
func (s Settings) gates() (map[string]bool, error) {
	on := map[string]bool{}
	for _, g := range gates {
		v, set := s.FeatureGates[g.name]
		on[g.name] = !set || v
	}
	var errs []error
	for _, g := range gates {
		if !on[g.name] {
			continue
		}
		var off []string
		for _, d := range g.deps {
			if !on[d] {
				off = append(off, d)
			}
		}
		if len(off) > 0 {
			errs = append(errs, fmt.Errorf("%s is enabled, but depends on features that are disabled: [%s]", g.name, strings.Join(off, " ")))
		}
	}
	return on, errors.Join(errs...)
}
