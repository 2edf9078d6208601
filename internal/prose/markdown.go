package prose

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
)

// Markdown returns the course's Markdown: goldmark with GitHub's extensions
// (tables, strikethrough, autolinks, task lists) and footnotes, rendering
// with the given options added. Parse reads every document with its parser
// and the site renders those trees with its renderer; a caller can add
// renderers but not parsers, so the document the checks read is the one
// the site shows.
//
// Table cells are aligned with an attribute, not a style, so that a page
// needs no inline style under its Content-Security-Policy.
func Markdown(rendering ...renderer.Option) goldmark.Markdown {
	md := goldmark.New(goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough,
		extension.Linkify,
		extension.TaskList,
		extension.Footnote,
	))
	md.Renderer().AddOptions(rendering...)
	return md
}

// markdown parses every document: one parser, safe for concurrent use.
var markdown = Markdown()
