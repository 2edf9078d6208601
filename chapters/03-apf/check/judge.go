package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/labcheck"
)

// A Route is where one request went: the schema and the level, and who
// said so, the server (its answer's headers) or the model (the cluster's
// objects).
type Route struct {
	Request    kube.Request // as the server read it, with its sender
	Schema     string
	Precedence int32
	Level      string
	Exempt     bool // the level is of type Exempt: nothing limits the request
	ByModel    bool
}

func (r Route) String() string {
	by := "server"
	if r.ByModel {
		by = "model"
	}
	return fmt.Sprintf("%s as %s → %s (precedence %d) → %s [%s]", kube.Describe(r.Request), r.Request.User, r.Schema, r.Precedence, r.Level, by)
}

// An Other is a request of a sender other than the lab's accounts, and
// the level it has on a new cluster, where only the server's own schemas
// classify.
type Other struct {
	Route
	Was string
}

// taken reports whether a schema the learner added takes the request, or
// it left the level it has on a new cluster.
func (o Other) taken() bool { return !isDefaultSchema(o.Schema) || o.Level != o.Was }

// A TieRoute is where a request of the tie experiment's account went, and
// the schemas that match it at the precedence of the one the server
// picked, in name order.
type TieRoute struct {
	Route
	Tied []string
}

// judgeIsolated passes when every kind of request of the runaway operator
// goes, through schemas the learner added, to one Limited level of the
// learner's, no other sender is taken by an added schema or moved from
// its level, and the server's own schemas, which place every other
// sender, are as it writes them.
func judgeIsolated(runaway []Route, others []Other, changed []Changed) labcheck.Result {
	var stayed, exempt, shared []Route
	var levels, schemas []string
	for _, r := range runaway {
		switch {
		case isDefaultSchema(r.Schema):
			stayed = append(stayed, r)
		case r.Exempt:
			exempt = append(exempt, r)
		case isDefaultLevel(r.Level):
			shared = append(shared, r)
		default:
			levels = appendNew(levels, r.Level)
			schemas = appendNew(schemas, r.Schema)
		}
	}
	switch {
	case len(runaway) == 0:
		return labcheck.Failf("there is no request of the runaway operator to judge")
	case len(stayed) == len(runaway):
		return labcheck.Failf("the runaway operator's requests still go to the default schema %s and level %s", stayed[0].Schema, stayed[0].Level)
	case len(stayed) == 1:
		return labcheck.Failf("1 of the runaway operator's %d kinds of request still goes to a default schema: %s", len(runaway), routes(stayed))
	case len(stayed) > 0:
		return labcheck.Failf("%d of the runaway operator's %d kinds of request still go to default schemas: %s", len(stayed), len(runaway), routes(stayed))
	case len(exempt) > 0:
		return labcheck.Failf("the runaway operator's requests go to exempt through %s: nothing limits them now", exempt[0].Schema)
	case len(shared) > 0:
		return labcheck.Failf("schema %s takes the runaway operator, but sends it to the shared level %s, not a level of its own", shared[0].Schema, shared[0].Level)
	case len(levels) > 1:
		return labcheck.Failf("the runaway operator's requests are split between the levels %s: give them one level of their own", strings.Join(levels, " and "))
	}
	for _, ch := range changed {
		if ch.Kind == "FlowSchema" {
			f := labcheck.Failf("%s. The server's own schemas place every other sender, so isolate the operator with a schema of yours and leave them as the server writes them", ch)
			f.Hint = restoreHint(ch)
			return f
		}
	}
	if msg := takenOthers(others, func(o Other) bool { return o.taken() }); msg != "" {
		return labcheck.Failf("%s: a schema for the runaway operator must take its requests and no one else's", msg)
	}
	return labcheck.Passf("all %d kinds of the runaway operator's requests go through %s into its own level %s, and the %d requests of other senders judged keep their levels",
		len(runaway), strings.Join(schemas, ", "), levels[0], len(others))
}

// judgeNarrow passes when every level the runaway operator's requests go
// to is a Limited level of the learner's whose seats, borrowing included
// (the server's upper limit), are fewer than the nominal seats of before,
// the level the operator used to share; when it holds no one else's
// requests; and when no default level was changed to widen its own seats,
// which would move the mark the level is measured against.
func judgeNarrow(runaway []Route, others []Other, seats map[string]kube.SeatLimits, before string, changed []Changed) labcheck.Result {
	var levels []string
	for _, r := range runaway {
		if isDefaultLevel(r.Level) || r.Exempt {
			return labcheck.Failf("the runaway operator's requests go to %s (%s), not to a Limited level of their own", r.Level, kube.Describe(r.Request))
		}
		levels = appendNew(levels, r.Level)
	}
	if len(levels) == 0 {
		return labcheck.Failf("there is no request of the runaway operator to judge")
	}
	for _, ch := range changed {
		if len(ch.Wider) > 0 {
			f := labcheck.Failf("%s. A default level with more seats of its own than the server gives it takes them from every other level", ch)
			f.Hint = restoreHint(ch)
			return f
		}
	}
	for _, l := range levels {
		mine, ok := seats[l]
		switch {
		case !ok:
			return labcheck.Failf("the server reports no seats for %s yet; run the check again in a few seconds", l)
		case mine.Nominal >= seats[before].Nominal:
			return labcheck.Failf("%s has %d seats, no fewer than %s's %d: lower its nominalConcurrencyShares", l, mine.Nominal, before, seats[before].Nominal)
		case mine.Upper >= seats[before].Nominal:
			return labcheck.Failf("%s has %d nominal seats but may hold up to %d, borrowing from idle levels (its upper limit), no fewer than %s's %d: set its borrowingLimitPercent to 0",
				l, mine.Nominal, mine.Upper, before, seats[before].Nominal)
		}
		if msg := takenOthers(others, func(o Other) bool { return o.Level == l && o.Was != l }); msg != "" {
			return labcheck.Failf("%s is not the runaway operator's alone: %s", l, msg)
		}
	}
	m := seats[levels[0]]
	return labcheck.Passf("%s has %d nominal seats and may hold %d to %d, lending and borrowing included, against %d nominal seats for %s, and holds no other sender's requests",
		strings.Join(levels, ", "), m.Nominal, m.Lower, m.Upper, seats[before].Nominal, before)
}

// restoreHint tells how to hand a changed default back to the server's
// ensurer, whose next pass, within a minute, puts its spec back.
func restoreHint(ch Changed) string {
	kind := "flowschema"
	if ch.Kind == "PriorityLevelConfiguration" {
		kind = "prioritylevelconfiguration"
	}
	return fmt.Sprintf("Hand it back to the server, which puts its spec back within a minute: kubectl annotate %s %s %s=true --overwrite", kind, ch.Name, kube.AutoUpdateAnnotation)
}

// judgeTie passes when, for every kind of request of the tie experiment's
// account, at least two schemas match at the precedence of the one the
// server picked and the server picked the first by name, and none of the
// tied schemas takes another sender's requests.
func judgeTie(ties []TieRoute, others []Other) labcheck.Result {
	var tied []string
	for _, t := range ties {
		switch {
		case len(t.Tied) < 2:
			return labcheck.Failf("only %s matches the tie probe's %s at precedence %d: there is no tie yet", t.Schema, kube.Describe(t.Request), t.Precedence)
		case t.Tied[0] != t.Schema:
			return labcheck.Failf("the server picked %s for %s although %s sorts first among the tied %s", t.Schema, kube.Describe(t.Request), t.Tied[0], strings.Join(t.Tied, ", "))
		}
		for _, s := range t.Tied {
			tied = appendNew(tied, s)
		}
	}
	if len(ties) == 0 {
		return labcheck.Failf("there is no request of the tie probe to judge")
	}
	inTie := func(o Other) bool { return slices.Contains(tied, o.Schema) && !isDefaultSchema(o.Schema) }
	if msg := takenOthers(others, inTie); msg != "" {
		return labcheck.Failf("%s: the tied schemas must take apf-lab/tie-probe and no one else", msg)
	}
	return labcheck.Passf("%s all match the tie probe's %d kinds of request at precedence %d, and the server picked %s, the first by name",
		strings.Join(ties[0].Tied, ", "), len(ties), ties[0].Precedence, ties[0].Schema)
}

// takenOthers says which schema takes other senders' requests, among
// those for which taken is true, or returns "" when there are none. It
// names the first schema, how many senders it takes, and two of them, one
// of the control plane and one bystander where it takes both:
// "schema S also takes 15 other senders, such as X (get /api: workload-high
// → L) and Y (list configmaps -n apf-lab: workload-low → L)".
func takenOthers(others []Other, taken func(Other) bool) string {
	var schemas []string
	users := map[string][]string{}
	examples := map[string][]Other{}
	for _, o := range others {
		if !taken(o) {
			continue
		}
		s := o.Schema
		schemas = appendNew(schemas, s)
		if slices.Contains(users[s], o.Request.User) {
			continue
		}
		users[s] = append(users[s], o.Request.User)
		ex := examples[s]
		if len(ex) == 0 || (len(ex) == 1 && ex[0].ByModel != o.ByModel) {
			examples[s] = append(ex, o)
		}
	}
	if len(schemas) == 0 {
		return ""
	}
	s := schemas[0]
	var parts []string
	for _, o := range examples[s] {
		parts = append(parts, fmt.Sprintf("%s (%s: %s → %s)", o.Request.User, kube.Describe(o.Request), o.Was, o.Level))
	}
	msg := "schema " + s + " also takes "
	if n := len(users[s]); n == 1 {
		msg += parts[0]
	} else {
		msg += fmt.Sprintf("%d other senders, such as %s", n, strings.Join(parts, " and "))
	}
	switch n := len(schemas) - 1; {
	case n == 1:
		msg += ", and 1 more schema takes others too"
	case n > 1:
		msg += fmt.Sprintf(", and %d more schemas take others too", n)
	}
	return msg
}

// routes lists up to three routes for a message.
func routes(rs []Route) string {
	var parts []string
	for i, r := range rs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s → %s)", kube.Describe(r.Request), r.Schema, r.Level))
	}
	return strings.Join(parts, ", ")
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// An Added schema is one the learner added, as the checks see it.
type Added struct {
	Name   string
	Level  string
	Exempt bool // its level is of type Exempt
	// Dangling says why the server leaves it out of matching, or is "":
	// its level is missing or broken, by the objects or by the status
	// condition the server wrote.
	Dangling string
}

// judgeExemptDangling passes when the learner added schemas, at least one
// of them takes the runaway operator's requests (takers), none points at
// exempt or dangles, and no default schema was changed into one that
// sends its requests to exempt.
func judgeExemptDangling(added []Added, takers []string, changed []Changed) labcheck.Result {
	for _, ch := range changed {
		if ch.ToExempt {
			f := labcheck.Failf("%s. Its requests go to exempt, where nothing protects the server from them", ch)
			f.Hint = restoreHint(ch)
			return f
		}
	}
	var exempt, dangling []string
	for _, a := range added {
		if a.Exempt {
			exempt = append(exempt, a.Name)
		}
		if a.Dangling != "" {
			dangling = append(dangling, a.Name)
		}
	}
	switch {
	case len(added) == 0:
		return labcheck.Failf("you have added no FlowSchema yet")
	case len(exempt) > 0:
		f := labcheck.Failf("requests matched by %s go to exempt, where nothing protects the server from them", strings.Join(exempt, ", "))
		f.Hint = exemptHint
		return f
	case len(dangling) > 0:
		return labcheck.Failf("the server ignores %s (status Dangling): their requests go where they went before", strings.Join(dangling, ", "))
	case len(takers) == 0:
		f := labcheck.Failf("none of the %d schemas you added takes any of the runaway operator's requests, so they show nothing of the lab yet", len(added))
		f.Hint = takeHint
		return f
	}
	return labcheck.Passf("none of the %d schemas you added points at exempt or dangles, and %s takes the runaway operator's requests", len(added), strings.Join(takers, ", "))
}
