package prose

import (
	"strconv"
	"strings"
	"unicode"
)

// Slug returns the heading ID GitHub gives a heading with text t: lower
// case, each space a '-', and punctuation dropped (letters, digits, marks,
// '-' and '_' are kept, in any script).
func Slug(t string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(t) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// IDs hands out unique heading IDs the way GitHub does: the second "x"
// becomes "x-1", the third "x-2".
type IDs struct{ seen map[string]bool }

// NewIDs returns an empty set of IDs.
func NewIDs() *IDs { return &IDs{seen: map[string]bool{}} }

// Unique returns id, or id-N for the smallest N that is not taken yet, and
// takes it.
func (s *IDs) Unique(id string) string {
	u := id
	for n := 1; s.seen[u]; n++ {
		u = id + "-" + strconv.Itoa(n)
	}
	s.seen[u] = true
	return u
}
