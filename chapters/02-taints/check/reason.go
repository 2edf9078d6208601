package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What the chapter asks a reason to say ("Choosing a value"): start from
// what a move costs the workload, or from what the wait is meant to ride
// out, and name the number it explains, since the next operator who opens
// the manifest sees only a number. These are the words either can be told
// by; a stem matches the start of a word, a word only itself ("stateful"
// alone says nothing of what a move costs).
var (
	costStems = []string{"cache", "rebuild", "resync", "replica", "restor", "recover", "warm", "copy", "copie",
		"rejoin", "reload", "migrat", "quorum", "snapshot", "index", "disk", "volume", "storage", "catch", "reindex",
		"replay", "wal", "journal", "reseed", "reshard", "rebalanc"}
	costWords = []string{"state", "data", "local", "sync"}
	rideStems = []string{"partition", "network", "switch", "reboot", "link", "flap", "blip", "outage", "unreachable",
		"maintenance", "upgrade", "transient", "glitch", "hiccup", "split"}
)

var (
	wordRE     = regexp.MustCompile(`[a-z]+`)
	durationRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*([a-z]*)`)
	thousandRE = regexp.MustCompile(`(\d),(\d{3})`)
)

// judgeReason says what db's reason lacks, or "" when it is one the
// chapter asks for: a few words that name the value chosen (values, one
// per distinct tolerationSeconds) and what a move costs or what the wait
// rides out.
func judgeReason(reason string, values []time.Duration) string {
	if reason == "" {
		return "db has no " + ReasonKey + " annotation: write down why it waits as long as it does"
	}
	text := strings.ToLower(reason)
	words := wordRE.FindAllString(text, -1)
	if len(strings.Fields(text)) < 6 {
		return fmt.Sprintf("db's reason %q is too short to be one: say what a move costs db, or what the wait rides out, and the value it chose", reason)
	}
	named := durationsIn(text)
	for _, v := range values {
		if !slices.Contains(named, v) {
			return fmt.Sprintf("db's reason does not name the value it explains (%s, or the same in minutes or hours): the next operator sees that number first", secs(v))
		}
	}
	for _, w := range words {
		if slices.Contains(costWords, w) || slices.ContainsFunc(costStems, func(s string) bool { return strings.HasPrefix(w, s) }) ||
			slices.ContainsFunc(rideStems, func(s string) bool { return strings.HasPrefix(w, s) }) {
			return ""
		}
	}
	return "db's reason names neither what a move costs it (a cache or data to rebuild or copy) nor what the wait rides out (a partition, a switch reboot): say what the long value buys"
}

// durationsIn returns the durations a text names: a number with a unit
// (6000 s, 100 minutes, 2 h), a number alone as seconds, and runs written
// together such as 1h40m.
func durationsIn(text string) []time.Duration {
	text = thousandRE.ReplaceAllString(text, "$1$2")
	var out []time.Duration
	var run time.Duration
	end := -1
	for _, m := range durationRE.FindAllStringSubmatchIndex(text, -1) {
		n, err := strconv.ParseFloat(text[m[2]:m[3]], 64)
		if err != nil {
			continue
		}
		unit, known := unitOf(text[m[4]:m[5]])
		if !known {
			unit = time.Second
		}
		d := time.Duration(n * float64(unit))
		if known && m[0] == end {
			run += d
		} else {
			run = d
		}
		end = -1
		if known {
			end = m[1]
		}
		out = append(out, d, run)
	}
	return out
}

func unitOf(s string) (time.Duration, bool) {
	switch s {
	case "h", "hr", "hrs", "hour", "hours":
		return time.Hour, true
	case "m", "min", "mins", "minute", "minutes":
		return time.Minute, true
	case "s", "sec", "secs", "second", "seconds":
		return time.Second, true
	}
	return 0, false
}
