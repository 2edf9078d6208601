package taints

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// TestNames pins the cases that matter most for taint keys and values:
// the length limits, the prefix and its '/', and the characters a name may
// start, hold and end with. Each case is compared with upstream's
// validation, messages included, and must be valid or not as the table says.
func TestNames(t *testing.T) {
	const (
		key   = "key"
		value = "value"
	)
	long := func(n int) string { return strings.Repeat("a", n) }
	// A subdomain of exactly n bytes: labels of 63 bytes, joined by dots.
	subdomain := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(long(min(63, n-b.Len())))
		}
		s := b.String()
		if s[len(s)-1] == '.' {
			panic("subdomain ends in a dot")
		}
		return s
	}
	tests := []struct {
		name   string
		reason string
		kind   string // key or value
		in     string
		valid  bool
	}{
		{"key_empty", "a key needs a name; upstream gives two messages", key, "", false},
		{"key_plain", "a name without a prefix", key, "dedicated", true},
		{"key_prefixed", "the chapter's custom taint", key, "opslab.dev/link-down", true},
		{"key_builtin", "the keys Kubernetes writes", key, KeyNotReady, true},
		{"key_one_char", "a single letter or digit is a name", key, "a", true},
		{"key_one_dash", "a name starts with a letter or digit", key, "-", false},
		{"key_mixed_case", "names may hold upper case", key, "MyName", true},
		{"key_range_ends", "the first and last of each range of letters and digits", key, "Z0-A9.az", true},
		{"key_prefix_range_ends", "the same in a prefix, which is lower case", key, "a0.z9/x", true},
		{"key_inner_punct", "'-', '_' and '.' inside a name", key, "a_b.c-d", true},
		{"key_name_63", "a name of 63 bytes is the longest", key, long(63), true},
		{"key_name_64", "a name of 64 bytes is too long", key, long(64), false},
		{"key_prefixed_name_64", "the limit is on the name part alone", key, "example.com/" + long(64), false},
		{"key_prefix_253", "a prefix of 253 bytes is the longest", key, subdomain(253) + "/x", true},
		{"key_prefix_254", "a prefix of 254 bytes is too long", key, subdomain(254) + "/x", false},
		{"key_prefix_label_64", "the subdomain rule sets no limit per label", key, long(64) + ".com/x", true},
		{"key_prefix_digits", "a prefix may be all digits", key, "123/x", true},
		{"key_prefix_empty", "a '/' needs a prefix before it", key, "/x", false},
		{"key_name_empty", "a '/' needs a name after it", key, "example.com/", false},
		{"key_only_slash", "neither prefix nor name", key, "/", false},
		{"key_two_slashes", "at most one '/'", key, "a/b/c", false},
		{"key_prefix_upper", "a prefix is lower case", key, "Example.com/x", false},
		{"key_prefix_underscore", "a prefix holds no '_'", key, "my_domain.com/x", false},
		{"key_prefix_leading_dash", "a prefix's label starts with a letter or digit", key, "-a.com/x", false},
		{"key_prefix_trailing_dash", "a prefix's label ends with a letter or digit", key, "a-.com/x", false},
		{"key_prefix_double_dot", "a prefix has no empty label", key, "a..com/x", false},
		{"key_prefix_leading_dot", "a prefix does not start with a dot", key, ".a.com/x", false},
		{"key_prefix_trailing_dot", "a prefix does not end with a dot", key, "a.com./x", false},
		{"key_leading_dash", "a name starts with a letter or digit", key, "-a", false},
		{"key_leading_underscore", "a name starts with a letter or digit", key, "_a", false},
		{"key_trailing_dot", "a name ends with a letter or digit", key, "a.", false},
		{"key_space", "no spaces", key, "a b", false},
		{"key_equals", "ParseTaint cuts at the first '=', so a key never holds one, but the rule refuses it", key, "a=b", false},
		{"key_non_ascii", "letters are ASCII letters", key, "ключ", false},
		{"key_invalid_utf8", "a byte that is not UTF-8", key, "a\xffb", false},
		{"key_trailing_newline", "upstream's '$' is the end of the text, not of a line", key, "a\n", false},
		{"key_prefix_newline", "the same in the prefix", key, "a.com\n/x", false},
		{"key_bad_prefix_bad_name", "both parts wrong: one message each, prefix first", key, "A/-", false},

		{"value_empty", "a value may be empty", value, "", true},
		{"value_plain", "a plain value", value, "db", true},
		{"value_mixed", "upper case and inner punctuation", value, "My.value_1-x", true},
		{"value_63", "a value of 63 bytes is the longest", value, long(63), true},
		{"value_64", "a value of 64 bytes is too long", value, long(64), false},
		{"value_64_bad_end", "too long and ending in '-': two messages", value, long(63) + "-", false},
		{"value_space", "no spaces", value, "a b", false},
		{"value_leading_dash", "a value starts with a letter or digit", value, "-a", false},
		{"value_trailing_underscore", "a value ends with a letter or digit", value, "a_", false},
		{"value_slash", "a value holds no '/'", value, "a/b", false},
		{"value_colon", "a value holds no ':'", value, "a:b", false},
		{"value_non_ascii", "letters are ASCII letters", value, "é", false},
		{"value_trailing_newline", "upstream's '$' is the end of the text", value, "a\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want []string
			fn := "isQualifiedName"
			switch tt.kind {
			case key:
				got, want = isQualifiedName(tt.in), validation.IsQualifiedName(tt.in)
			case value:
				fn = "isLabelValue"
				got, want = isLabelValue(tt.in), validation.IsValidLabelValue(tt.in)
			default:
				t.Fatalf("kind %q: want key or value", tt.kind)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s(%q) differs from upstream (-want +got):\n%s", fn, tt.in, diff)
			}
			if valid := len(want) == 0; valid != tt.valid {
				t.Errorf("upstream says %q is valid = %v, the table says %v (%s): %q", tt.in, valid, tt.valid, tt.reason, want)
			}
		})
	}
}

// TestNamesMatchUpstream compares isQualifiedName and isLabelValue with
// upstream's IsQualifiedName and IsValidLabelValue, and isDNS1123Subdomain
// with the subdomain check those use, on generated keys and values, message
// for message. The seed is fixed, so a failure repeats; the
// test also fails if the generator stops reaching one of upstream's
// messages, a valid and an invalid input, or the lengths on either side of
// a limit.
func TestNamesMatchUpstream(t *testing.T) {
	const inputs = 20000
	g := nameGen{rand.New(rand.NewPCG(63, 253))}
	seen := map[string]int{}
	failures := 0
	check := func(fn, in string, got, want []string) {
		if failures >= 10 {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			failures++
			t.Errorf("%s(%q) differs from upstream (-want +got):\n%s", fn, in, diff)
		}
	}
	for range inputs {
		prefix := g.prefix()
		k := g.key(prefix)
		v := g.name()

		want := validation.IsQualifiedName(k)
		check("isQualifiedName", k, isQualifiedName(k), want)
		for _, msg := range want {
			seen["key: "+kindOf(msg)]++
		}
		if len(want) == 0 {
			seen["key: valid"]++
		}
		if name, ok := strings.CutPrefix(k, prefix+"/"); ok && strings.Count(k, "/") == 1 {
			seen["key: prefix of "+lengthClass(len(prefix), dns1123SubdomainMaxLength)]++
			seen["key: name of "+lengthClass(len(name), labelNameMaxLength)]++
		} else if !strings.Contains(k, "/") {
			seen["key: name of "+lengthClass(len(k), labelNameMaxLength)]++
		}

		// The prefix is checked by content.IsDNS1123Subdomain, which
		// IsQualifiedName calls; validation.IsDNS1123Subdomain is another
		// copy whose length message says "characters", not "bytes".
		want = content.IsDNS1123Subdomain(prefix)
		check("isDNS1123Subdomain", prefix, isDNS1123Subdomain(prefix), want)
		seen["subdomain: "+validity(want)]++

		seen["key: "+spoilt(k)]++
		seen["subdomain: "+spoilt(prefix)]++
		seen["value: "+spoilt(v)]++

		want = validation.IsValidLabelValue(v)
		check("isLabelValue", v, isLabelValue(v), want)
		for _, msg := range want {
			seen["value: "+kindOf(msg)]++
		}
		if len(want) == 0 {
			seen["value: valid"]++
		}
		seen["value: "+lengthClass(len(v), labelNameMaxLength)]++
	}

	// Each of these must be reached often, or the comparison proves little.
	const enough = 50
	for _, what := range []string{
		"key: valid",
		"key: prefix part must be non-empty",
		"key: prefix part must be no more than 253 bytes",
		"key: prefix part a lowercase RFC 1123 subdomain",
		"key: name part must be non-empty",
		"key: name part must be no more than 63 bytes",
		"key: name part must consist",
		"key: a valid label key",
		"key: prefix of the limit",
		"key: prefix of one over the limit",
		"key: name of the limit",
		"key: name of one over the limit",
		"key: name of 0",
		"key: a byte outside every rule",
		"key: starts with punctuation",
		"key: ends with punctuation",
		"subdomain: upper case or '_'",
		"subdomain: an empty label",
		"subdomain: valid",
		"subdomain: invalid",
		"value: valid",
		"value: must be no more than 63 bytes",
		"value: a valid label must",
		"value: the limit",
		"value: one over the limit",
		"value: 0",
		"value: a byte outside every rule",
		"value: starts with punctuation",
		"value: ends with punctuation",
	} {
		if seen[what] < enough {
			t.Errorf("the generator reached %q %d times in %d inputs, want at least %d", what, seen[what], inputs, enough)
		}
	}
	if t.Failed() {
		t.Logf("reached: %v", seen)
	}
}

// kindOf shortens one of upstream's messages to the words that tell which
// rule failed.
func kindOf(msg string) string {
	for _, kind := range []string{
		"prefix part must be non-empty",
		"prefix part must be no more than 253 bytes",
		"prefix part a lowercase RFC 1123 subdomain",
		"name part must be non-empty",
		"name part must be no more than 63 bytes",
		"name part must consist",
		"a valid label key",
		"must be no more than 63 bytes",
		"a valid label must",
	} {
		if strings.HasPrefix(msg, kind) {
			return kind
		}
	}
	return "other: " + msg
}

// spoilt names the first way s breaks a rule by its characters, if any. A
// byte that is not UTF-8 is read as utf8.RuneError, which is outside.
func spoilt(s string) string {
	const allowed = lower + upper + digit + "-_./"
	switch {
	case strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(allowed, r) }) >= 0:
		return "a byte outside every rule"
	case s != "" && strings.ContainsAny(s[:1], "-_."):
		return "starts with punctuation"
	case s != "" && strings.ContainsAny(s[len(s)-1:], "-_."):
		return "ends with punctuation"
	case strings.Contains(s, ".."):
		return "an empty label"
	case strings.ContainsAny(s, upper+"_"):
		return "upper case or '_'"
	}
	return "no character wrong"
}

func validity(errs []string) string {
	if len(errs) == 0 {
		return "valid"
	}
	return "invalid"
}

// lengthClass names a length by where it stands against limit.
func lengthClass(n, limit int) string {
	switch n {
	case 0:
		return "0"
	case limit:
		return "the limit"
	case limit + 1:
		return "one over the limit"
	}
	return "other"
}

// nameGen makes keys, prefixes and names that are mostly valid, with the
// lengths around each limit favoured, and then sometimes spoils them in one
// of the ways upstream checks for.
type nameGen struct{ r *rand.Rand }

const (
	lower = "abcdefghijklmnopqrstuvwxyz"
	upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digit = "0123456789"
	// Characters no rule allows, as bytes: ASCII punctuation and spaces,
	// the halves of a UTF-8 letter and a byte that is never UTF-8.
	bad = " /:=*@+~!\n\t\x00\xc3\xa9\xff"
)

func (g nameGen) pick(s string) byte { return s[g.r.IntN(len(s))] }

func (g nameGen) chance(percent int) bool { return g.r.IntN(100) < percent }

// length returns a length near limit, a short one or any up to limit+3.
func (g nameGen) length(limit int) int {
	switch g.r.IntN(4) {
	case 0:
		return limit - 2 + g.r.IntN(4) // limit-2 .. limit+1
	case 1:
		return g.r.IntN(4) // 0 .. 3
	default:
		return g.r.IntN(limit + 4)
	}
}

// name returns a label name or value: letters of either case, digits and
// inner '-', '_', '.', then perhaps spoiled at the start, the end or
// inside.
func (g nameGen) name() string {
	n := g.length(labelNameMaxLength)
	b := make([]byte, n)
	for i := range b {
		if i == 0 || i == n-1 || !g.chance(30) {
			b[i] = g.pick(lower + upper + digit)
		} else {
			b[i] = g.pick("-_.")
		}
	}
	g.spoil(b, "-_.", bad)
	return string(b)
}

// label returns a DNS label of n bytes: lower-case letters, digits and inner
// '-'.
func (g nameGen) label(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		if i == 0 || i == n-1 || !g.chance(20) {
			b[i] = g.pick(lower + digit)
		} else {
			b[i] = '-'
		}
	}
	return b
}

// prefix returns a DNS subdomain, often at or around 253 bytes, perhaps
// spoiled: a label starting or ending with '-', an empty label, a trailing
// dot, upper case, '_' or a bad character.
func (g nameGen) prefix() string {
	n := g.length(dns1123SubdomainMaxLength)
	if g.chance(40) {
		n = g.r.IntN(30)
	}
	var b []byte
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, '.')
		}
		// Labels longer than 63 bytes are allowed in a subdomain; let a
		// few through.
		size := 1 + g.r.IntN(63)
		if g.chance(5) {
			size += 63
		}
		size = max(1, min(size, n-len(b)))
		b = append(b, g.label(size)...)
	}
	if len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if g.chance(30) {
		switch g.r.IntN(5) {
		case 0:
			g.spoil(b, "-.", bad+upper+"_")
		case 1:
			if i := strings.IndexByte(string(b), '.'); i >= 0 {
				b = append(b[:i+1], b[i:]...) // an empty label
			}
		case 2:
			b = append(b, '.')
		case 3:
			if len(b) > 0 {
				b[g.r.IntN(len(b))] = g.pick(upper + "_")
			}
		default:
			if len(b) > 0 {
				b[g.r.IntN(len(b))] = g.pick(bad)
			}
		}
	}
	return string(b)
}

// key returns a name, prefix/name, or a form upstream refuses for its
// slashes: an empty prefix, an empty name, two slashes.
func (g nameGen) key(prefix string) string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.name()
	case 3:
		return "/" + g.name()
	case 4:
		return prefix + "/"
	case 5:
		return prefix + "/" + g.name() + "/" + g.name()
	default:
		return prefix + "/" + g.name()
	}
}

// spoil sometimes replaces the first or last byte of b with one of edge,
// or any byte with one of anywhere.
func (g nameGen) spoil(b []byte, edge, anywhere string) {
	if len(b) == 0 || !g.chance(40) {
		return
	}
	switch g.r.IntN(3) {
	case 0:
		b[0] = g.pick(edge)
	case 1:
		b[len(b)-1] = g.pick(edge)
	default:
		b[g.r.IntN(len(b))] = g.pick(anywhere)
	}
}
