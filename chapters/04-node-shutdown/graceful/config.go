package graceful

import (
	"errors"
	"fmt"
	"slices"
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

// Feature gates that decide which configuration fields the kubelet accepts.
// Both are on by default in v1.36.
const (
	gateGraceful   = "GracefulNodeShutdown"
	gateByPriority = "GracefulNodeShutdownBasedOnPodPriority"
)

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
	// has its default, on.
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

// Total is the time the kubelet asks logind to hold the shutdown for: the sum
// of every group's seconds, empty groups included (upstream's periodRequested).
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
// The first rules are the kubelet's own (ValidateKubeletConfiguration in
// pkg/kubelet/apis/config/validation). The kubelet does not check the priority
// table itself; Validate also refuses a priority listed twice and negative
// seconds, which the kubelet would accept and then run in a way nobody means.
func Validate(s Settings) (Config, error) {
	total := s.ShutdownGracePeriod
	critical := s.ShutdownGracePeriodCriticalPods
	table := s.ShutdownGracePeriodByPodPriority
	graceful := s.gateOn(gateGraceful)
	byPriority := graceful && s.gateOn(gateByPriority)

	var errs []error
	if graceful {
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
	} else if total > 0 || critical > 0 {
		errs = append(errs, fmt.Errorf("shutdownGracePeriod or shutdownGracePeriodCriticalPods needs feature gate %s", gateGraceful))
	}
	if byPriority && len(table) > 0 && (total > 0 || critical > 0) {
		errs = append(errs, errors.New("shutdownGracePeriodByPodPriority and shutdownGracePeriod cannot both be set"))
	}
	if !byPriority && len(table) > 0 {
		errs = append(errs, fmt.Errorf("shutdownGracePeriodByPodPriority needs feature gate %s", gateByPriority))
	}
	if byPriority {
		seen := map[int32]int{}
		for i, p := range table {
			if j, dup := seen[p.Priority]; dup {
				errs = append(errs, fmt.Errorf("shutdownGracePeriodByPodPriority[%d] repeats priority %d of entry %d: the second group would never get a pod", i, p.Priority, j))
			} else {
				seen[p.Priority] = i
			}
			if p.Seconds < 0 {
				errs = append(errs, fmt.Errorf("shutdownGracePeriodByPodPriority[%d] (priority %d) has %d seconds, want 0 or more", i, p.Priority, p.Seconds))
			}
		}
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}

	if byPriority && len(table) > 0 {
		groups := slices.Clone(table)
		slices.SortStableFunc(groups, func(a, b Group) int { return cmpInt32(a.Priority, b.Priority) })
		return Config{Enabled: true, ByPriority: true, Groups: groups}, nil
	}
	if !graceful || total == 0 {
		return Config{}, nil
	}
	return Config{Enabled: true, Groups: []Group{
		{Priority: RegularPriority, Seconds: int64((total - critical) / time.Second)},
		{Priority: CriticalPriority, Seconds: int64(critical / time.Second)},
	}}, nil
}

func (s Settings) gateOn(name string) bool {
	on, set := s.FeatureGates[name]
	return !set || on
}

func cmpInt32(a, b int32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
