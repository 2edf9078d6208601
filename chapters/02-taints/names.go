package taints

import (
	"strconv"
	"strings"
)

// A taint's key follows the rules of a label key and its value those of a
// label value: IsQualifiedName and IsValidLabelValue in
// k8s.io/apimachinery/pkg/util/validation, v0.37.2, which are IsLabelKey and
// IsLabelValue in k8s.io/apimachinery/pkg/api/validate/content. They are
// written out here, byte by byte instead of with regular expressions, because
// that package and what it imports would take the chapter's WebAssembly demo
// past the course site's 3 MB budget. The functions return upstream's
// messages, in upstream's order, and TestNamesMatchUpstream holds them to
// upstream's results.

// The patterns upstream matches with, quoted in its messages.
const (
	labelKeyFmt         = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + labelKeyFmt + ")?"
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
)

// Upstream's messages, and the examples it gives with them.
const (
	labelKeyErrMsg           = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueErrMsg         = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dns1123SubdomainErrorMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
)

// Lengths in bytes.
const (
	labelNameMaxLength        = 63  // the name part of a key, and a value
	dns1123SubdomainMaxLength = 253 // the prefix part of a key
)

// isQualifiedName returns why key is not a valid label key, or nil: an
// optional DNS subdomain prefix and '/', then a name of at most 63 bytes.
func isQualifiedName(key string) []string {
	var errs []string
	var name string
	switch parts := strings.Split(key, "/"); len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part "+emptyError())
		} else {
			for _, msg := range isDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		return []string{"a valid label key " + regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	// Upstream checks the pattern even after an empty or long name, so
	// such a name gets two messages.
	if name == "" {
		errs = append(errs, "name part "+emptyError())
	} else if len(name) > labelNameMaxLength {
		errs = append(errs, "name part "+maxLenError(labelNameMaxLength))
	}
	if !isLabelName(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// isLabelValue returns why value is not a valid label value, or nil: empty,
// or a label name of at most 63 bytes.
func isLabelValue(value string) []string {
	var errs []string
	if len(value) > labelNameMaxLength {
		errs = append(errs, maxLenError(labelNameMaxLength))
	}
	if value != "" && !isLabelName(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// isDNS1123Subdomain returns why s is not a lowercase RFC 1123 subdomain of
// at most 253 bytes, or nil. It is content.IsDNS1123Subdomain, which
// IsQualifiedName uses for the prefix; validation.IsDNS1123Subdomain is a
// second copy whose length message says "characters" instead of "bytes".
func isDNS1123Subdomain(s string) []string {
	var errs []string
	if len(s) > dns1123SubdomainMaxLength {
		errs = append(errs, maxLenError(dns1123SubdomainMaxLength))
	}
	if !isSubdomain(s) {
		errs = append(errs, regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// isLabelName reports whether s matches labelKeyFmt: ASCII letters, digits,
// '-', '_' and '.', starting and ending with a letter or digit. Every
// allowed character is ASCII, so bytes stand for characters.
func isLabelName(s string) bool {
	if s == "" || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isSubdomain reports whether s matches dns1123SubdomainFmt: non-empty
// labels joined by single dots, each of lower-case letters, digits and '-',
// starting and ending with a letter or digit.
func isSubdomain(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || !isLowerAlphanumeric(label[0]) || !isLowerAlphanumeric(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlphanumeric(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return isLowerAlphanumeric(c) || 'A' <= c && c <= 'Z'
}

func isLowerAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

func emptyError() string { return "must be non-empty" }

func maxLenError(n int) string { return "must be no more than " + strconv.Itoa(n) + " bytes" }

// regexError builds upstream's message for a value that does not match the
// pattern re, examples included, in upstream's punctuation.
func regexError(msg, re string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}
