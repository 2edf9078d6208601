package prose

import (
	"testing"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// TestMarkdown checks that documents are parsed with GitHub's extensions
// and footnotes, which the site renders: a construct the parser did not know
// would be checked as plain text and shown as something else.
func TestMarkdown(t *testing.T) {
	src := []byte("| a | b |\n|---|:-:|\n| 1 | 2 |\n\n~~gone~~ https://kubernetes.io/ [^1]\n\n- [x] done\n\n[^1]: A note.\n")
	_, root := ParseTree("doc.md", src)
	want := []ast.NodeKind{east.KindTable, east.KindStrikethrough, ast.KindAutoLink, east.KindTaskCheckBox, east.KindFootnote, east.KindFootnoteLink}
	seen := map[ast.NodeKind]bool{}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		seen[n.Kind()] = true
		return ast.WalkContinue, nil
	})
	for _, k := range want {
		if !seen[k] {
			t.Errorf("ParseTree(%q) has no %s node", src, k)
		}
	}
}
