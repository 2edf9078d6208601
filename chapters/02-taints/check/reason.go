package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What the chapter asks a reason to say ("Choosing a value"): what a move
// costs the workload, or what the wait is meant to ride out, and the
// number it explains, since the next operator who opens the manifest sees
// only a number. Whether a sentence says the first is for a person to
// judge: a list of words it must contain only teaches a learner the list
// ("6000 6000 6000 6000 6000 data" had every word it once asked for). A program
// judges what it can, that the reason is there and names the value; the
// check's report shows the reason and says that a person must read it.
var (
	durationRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*([a-z]*)`)
	thousandRE = regexp.MustCompile(`(\d),(\d{3})`)
)

// judgeReason says what db's reason lacks of what a program can judge, or
// "" when it has it: it is there, and it names each value chosen (values,
// one per distinct tolerationSeconds), in seconds, minutes or hours.
func judgeReason(reason string, values []time.Duration) string {
	if reason == "" {
		return "db has no " + ReasonKey + " annotation: write down why it waits as long as it does"
	}
	named := durationsIn(strings.ToLower(reason))
	for _, v := range values {
		if !slices.Contains(named, v) {
			return fmt.Sprintf("db's reason does not name the value it explains (%s, or the same in minutes or hours): the next operator sees that number first", secs(v))
		}
	}
	return ""
}

// durationsIn returns the durations a text names: a number with a unit
// (900 s, 15 minutes, 2 h), a number alone as seconds, and runs written
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
