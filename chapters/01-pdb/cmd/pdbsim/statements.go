package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	pdb "github.com/opslab/opslab/chapters/01-pdb"
)

// A sim is a scenario being played.
type sim struct {
	c       *pdb.Cluster
	out     io.Writer
	printed int // events of the cluster's log printed so far
}

// flush prints the events that happened since the last flush.
func (s *sim) flush() {
	log := s.c.Log()
	for _, e := range log[s.printed:] {
		fmt.Fprintln(s.out, e)
	}
	s.printed = len(log)
}

// do plays one statement.
func (s *sim) do(w []string) error {
	verb, args := w[0], w[1:]
	switch verb {
	case "node":
		if len(args) == 0 {
			return fmt.Errorf("node needs at least one name")
		}
		for _, n := range args {
			if err := s.c.AddNode(n); err != nil {
				return err
			}
		}
		return nil
	case "deployment":
		return s.deployment(args)
	case "budget":
		return s.budget(args)
	case "pod":
		return s.pod(args)
	case "evict", "dry-run":
		name, err := one(verb, "POD", args)
		if err != nil {
			return err
		}
		if !s.c.Known(name) {
			return fmt.Errorf("unknown pod %q", name)
		}
		if verb == "evict" {
			s.c.Evict(name)
			return nil
		}
		d := s.c.EvictDryRun(name)
		fmt.Fprintf(s.out, "%s dry-run evict %s: %s\n", pdb.At(s.c.Now()), name, d)
		return nil
	case "crash", "delete", "unready", "ready":
		name, err := one(verb, "POD", args)
		if err != nil {
			return err
		}
		switch verb {
		case "crash":
			return s.c.CrashContainer(name)
		case "delete":
			return s.c.Delete(name)
		default:
			return s.c.SetReady(name, verb == "ready")
		}
	case "race":
		if len(args) < 2 {
			return fmt.Errorf("race wants at least two PODs, got %d", len(args))
		}
		// Every request reads the budget before any of them writes.
		var inFlight []*pdb.Eviction
		for _, name := range args {
			if !s.c.Known(name) {
				return fmt.Errorf("unknown pod %q", name)
			}
			inFlight = append(inFlight, s.c.BeginEviction(name))
		}
		for _, e := range inFlight {
			e.Commit()
		}
		return nil
	case "power-off":
		name, err := one(verb, "NODE", args)
		if err != nil {
			return err
		}
		return s.c.PowerOff(name)
	case "resync":
		name, err := one(verb, "BUDGET", args)
		if err != nil {
			return err
		}
		return s.c.ResyncBudget(name)
	case "cordon", "uncordon":
		name, err := one(verb, "NODE", args)
		if err != nil {
			return err
		}
		if verb == "cordon" {
			return s.c.Cordon(name)
		}
		return s.c.Uncordon(name)
	case "drain":
		return s.drain(args)
	case "scale":
		if len(args) != 2 {
			return fmt.Errorf("scale wants DEPLOYMENT N, got %q", strings.Join(args, " "))
		}
		n, err := count("replicas", args[1])
		if err != nil {
			return err
		}
		return s.c.Scale(args[0], n)
	case "rollout":
		return s.rollout(args)
	case "set":
		return s.set(args)
	case "controller":
		switch strings.Join(args, " ") {
		case "stop":
			s.c.StopController()
		case "start":
			s.c.StartController()
		default:
			if len(args) == 2 && args[0] == "picks" {
				return s.c.PreferBudget(args[1])
			}
			return fmt.Errorf("controller wants stop, start or picks BUDGET, got %q", strings.Join(args, " "))
		}
		return nil
	case "status":
		what := strings.Join(args, " ")
		switch what {
		case "", "budgets", "pods":
		default:
			return fmt.Errorf("status wants nothing, budgets or pods, got %q", what)
		}
		s.status(what != "pods", what != "budgets")
		return nil
	case "after", "at":
		d, err := duration(verb, strings.Join(args, " "))
		if err != nil {
			return err
		}
		if verb == "at" {
			if d < s.c.Now() {
				return fmt.Errorf("at %v is before the current time %v", d, s.c.Now())
			}
			d -= s.c.Now()
		}
		return s.c.Advance(d)
	}
	return fmt.Errorf("unknown statement %q (want node, deployment, budget, pod, evict, dry-run, race, crash, power-off, delete, drain, cordon, uncordon, scale, set, unready, ready, controller, resync, status, after or at)", verb)
}

func (s *sim) deployment(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("deployment needs a name")
	}
	kv, err := pairs("deployment "+args[0], args[1:], "replicas", "ready-after", "labels")
	if err != nil {
		return err
	}
	ctl := pdb.Controller{Name: args[0], Labels: map[string]string{"app": args[0]}}
	v, ok := kv["replicas"]
	if !ok {
		return fmt.Errorf("deployment %s needs replicas N", args[0])
	}
	if ctl.Replicas, err = count("replicas", v); err != nil {
		return err
	}
	if v, ok := kv["ready-after"]; ok {
		if ctl.ReadyAfter, err = duration("ready-after", v); err != nil {
			return err
		}
	}
	if v, ok := kv["labels"]; ok {
		if ctl.Labels, err = labels(v); err != nil {
			return err
		}
	}
	return s.c.AddController(ctl)
}

func (s *sim) budget(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("budget needs a name")
	}
	kv, err := pairs("budget "+args[0], args[1:], "selector", "min-available", "max-unavailable", "policy")
	if err != nil {
		return err
	}
	b := pdb.Budget{Name: args[0]}
	sel, ok := kv["selector"]
	if !ok {
		return fmt.Errorf("budget %s needs selector K=V,..., {} or none", args[0])
	}
	switch sel {
	case "none":
	case "{}":
		b.Selector = &pdb.Selector{}
	default:
		m, err := labels(sel)
		if err != nil {
			return err
		}
		b.Selector = &pdb.Selector{MatchLabels: m}
	}
	if err := setFloor(&b, kv); err != nil {
		return err
	}
	return s.c.AddBudget(b)
}

// setFloor applies min-available, max-unavailable and policy from kv.
func setFloor(b *pdb.Budget, kv map[string]string) error {
	for _, key := range []string{"min-available", "max-unavailable"} {
		v, ok := kv[key]
		if !ok {
			continue
		}
		iop, err := pdb.ParseIntOrPercent(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if key == "min-available" {
			b.MinAvailable, b.MaxUnavailable = &iop, nil
		} else {
			b.MaxUnavailable, b.MinAvailable = &iop, nil
		}
	}
	if _, both := kv["min-available"]; both {
		if _, also := kv["max-unavailable"]; also {
			return fmt.Errorf("budget %s: min-available and max-unavailable cannot be both set", b.Name)
		}
	}
	if v, ok := kv["policy"]; ok {
		b.UnhealthyPodEvictionPolicy = pdb.UnhealthyPodEvictionPolicy(v)
	}
	return nil
}

func (s *sim) set(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("set needs a budget name")
	}
	kv, err := pairs("set "+args[0], args[1:], "min-available", "max-unavailable", "policy")
	if err != nil {
		return err
	}
	if len(kv) == 0 {
		return fmt.Errorf("set %s needs min-available, max-unavailable or policy", args[0])
	}
	var inner error
	err = s.c.UpdateBudget(args[0], func(b *pdb.Budget) { inner = setFloor(b, kv) })
	if inner != nil {
		return inner
	}
	return err
}

func (s *sim) pod(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("pod needs a name")
	}
	kv, err := pairs("pod "+args[0], args[1:], "node", "phase", "labels", "terminating")
	if err != nil {
		return err
	}
	p := pdb.Pod{Name: args[0], Node: kv["node"], Phase: pdb.Running}
	if v, ok := kv["phase"]; ok {
		switch ph := pdb.Phase(v); ph {
		case pdb.Pending, pdb.Running, pdb.Succeeded, pdb.Failed:
			p.Phase = ph
		default:
			return fmt.Errorf("phase %q is not Pending, Running, Succeeded or Failed", v)
		}
	}
	if p.Phase != pdb.Pending && p.Node == "" {
		return fmt.Errorf("pod %s is %s and needs node NAME", p.Name, p.Phase)
	}
	if v, ok := kv["labels"]; ok {
		if p.Labels, err = labels(v); err != nil {
			return err
		}
	}
	switch kv["terminating"] {
	case "", "no":
	case "yes":
		p.Terminating = true
	default:
		return fmt.Errorf("terminating wants yes or no, got %q", kv["terminating"])
	}
	return s.c.AddPod(p)
}

func (s *sim) drain(args []string) error {
	var nodes []string
	for len(args) > 0 && args[0] != "timeout" {
		nodes, args = append(nodes, args[0]), args[1:]
	}
	kv, err := pairs("drain", args, "timeout")
	if err != nil {
		return err
	}
	var timeout time.Duration
	if v, ok := kv["timeout"]; ok {
		if timeout, err = duration("timeout", v); err != nil {
			return err
		}
	}
	_, err = s.c.DrainNodes(nodes, timeout)
	return err
}

// status prints every budget's status, every pod, or both.
func (s *sim) status(budgets, pods bool) {
	now := s.c.Now()
	for _, name := range s.c.BudgetNames() {
		if !budgets {
			break
		}
		b, _ := s.c.Budget(name)
		fmt.Fprintf(s.out, "%s   budget %s (%s): %s\n", pdb.At(now), b.Name, b.Spec(), b.Status)
	}
	for _, p := range s.c.Pods() {
		if !pods {
			break
		}
		var state string
		switch {
		case p.Phase != pdb.Running:
			state = string(p.Phase)
		case p.Terminating:
			state = "Terminating"
		case p.NodeLost:
			state = "not Ready (node unreachable)"
		case p.Ready(now):
			state = "Ready"
		case p.Unready:
			state = "not Ready (probe failing)"
		default:
			state = "not Ready until " + pdb.At(p.ReadyAt)
		}
		node := p.Node
		if node == "" {
			node = "no node"
		}
		fmt.Fprintf(s.out, "%s   pod %s on %s: %s\n", pdb.At(now), p.Name, node, state)
	}
}

// one returns the single argument of a statement.
func one(verb, what string, args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("%s wants one %s, got %d", verb, what, len(args))
	}
	return args[0], nil
}

// pairs reads "key value" pairs, refusing keys not in allowed.
func pairs(stmt string, words []string, allowed ...string) (map[string]string, error) {
	kv := map[string]string{}
	for i := 0; i < len(words); i += 2 {
		key := words[i]
		ok := false
		for _, a := range allowed {
			ok = ok || key == a
		}
		if !ok {
			return nil, fmt.Errorf("unknown word %q in %s (want %s)", key, stmt, strings.Join(allowed, ", "))
		}
		if i+1 == len(words) {
			return nil, fmt.Errorf("%s needs a value in %s", key, stmt)
		}
		if _, dup := kv[key]; dup {
			return nil, fmt.Errorf("%s given twice in %s", key, stmt)
		}
		kv[key] = words[i+1]
	}
	return kv, nil
}

func count(what, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q is not a whole number", what, s)
	}
	return n, nil
}

func duration(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s %q is not a duration such as 15s or 2m", what, s)
	}
	return d, nil
}

// labels reads "k=v,k2=v2".
func labels(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("labels %q: want KEY=VALUE,... such as app=ledger", s)
		}
		m[k] = v
	}
	return m, nil
}

// rollout reads "DEPLOYMENT [surge N] [unavailable N] [min-ready D]": a
// rolling update with those bounds (by default surge 1, unavailable 0).
func (s *sim) rollout(args []string) error {
	if len(args) == 0 || len(args)%2 != 1 {
		return fmt.Errorf("rollout wants DEPLOYMENT [surge N] [unavailable N] [min-ready D], got %q", strings.Join(args, " "))
	}
	st := pdb.Strategy{MaxSurge: 1}
	for i := 1; i < len(args); i += 2 {
		var err error
		switch args[i] {
		case "surge":
			st.MaxSurge, err = count("surge", args[i+1])
		case "unavailable":
			st.MaxUnavailable, err = count("unavailable", args[i+1])
		case "min-ready":
			st.MinReady, err = duration("min-ready", args[i+1])
		default:
			return fmt.Errorf("rollout: unknown %q; want surge, unavailable or min-ready", args[i])
		}
		if err != nil {
			return err
		}
	}
	return s.c.Rollout(args[0], st)
}
