package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Summary is the report in one line, for the terminal.
func (r *report) Summary() string {
	changedFiles, changedFlags, changedGates, movedLines := 0, 0, 0, 0
	for _, f := range r.Files {
		if strings.HasPrefix(f.Status, "**") {
			changedFiles++
		}
	}
	for _, f := range r.Flags {
		if f.Differs {
			changedFlags++
		}
	}
	for _, g := range r.Gates {
		if g.From != g.To {
			changedGates++
		}
	}
	for _, l := range r.Lines {
		if strings.HasPrefix(l.Status, "**") {
			movedLines++
		}
	}
	return fmt.Sprintf("%d failing proofs (%d other failed tests), %d of %d cited upstream files changed, %d of %d cited lines moved, %d of %d stated defaults differ, %d of %d named feature gates changed, %d sentences name another release",
		len(r.Failing), len(r.Other), changedFiles, len(r.Files), movedLines, len(r.Lines), changedFlags, len(r.Flags), changedGates, len(r.Gates), len(r.Names))
}

// Markdown is the report as the site shows it.
func (r *report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(unlink(s), "|", `\|`), "\n", " ") }
	p("# Checked against upstream\n\n")
	p("Checked against Kubernetes %s (etcd %s, kwok %s) on %s, moving from %s.\n\n", r.To, r.Etcd, r.Kwok, r.Date, r.From)
	p("`make bump-kubernetes` wrote this page (lab/bump): it moved the pins, built the lab's binaries, ran the tests, and compared what the chapters say with upstream's source and binaries of both releases. In one line: %s.\n\n", r.Summary())

	p("## Proofs that fail\n\n")
	if len(r.Failing) == 0 {
		p("No proof's test failed in the %d files of test results read (%s).\n\n", len(r.ResultFiles), strings.Join(r.ResultFiles, ", "))
	}
	for _, f := range r.Failing {
		p("- **%s** (`%s`), cited at %s:\n  > %s\n\n", f.Test, strings.TrimPrefix(f.Package, modulePath+"/"), f.Where, unlink(f.Sentence))
		if f.Output != "" {
			p("  ```\n%s\n  ```\n\n", indent(f.Output, "  "))
		}
	}
	if len(r.Other) > 0 {
		p("Other failed tests, which no sentence cites:\n\n")
		for _, f := range r.Other {
			p("- %s (`%s`)", f.Test, strings.TrimPrefix(f.Package, modulePath+"/"))
			if f.Output != "" {
				p(": %s", cell(clip(f.Output, 240)))
			}
			p("\n")
		}
		p("\n")
	}

	p("## Defaults the chapters state\n\n")
	p("Read from the lab binaries' `--help` at both releases.\n\n")
	p("| component | flag | the course says | %s | %s | where | |\n|---|---|---|---|---|---|---|\n", r.From, r.To)
	for _, f := range r.Flags {
		mark := "same"
		if f.Differs {
			mark = "**differs**"
		}
		p("| %s | `%s` | %s | %s | %s | %s | %s |\n", f.Component, f.Flag, f.Course, orUnread(f.From), orUnread(f.To), f.Where, mark)
	}
	p("\n")

	p("## Feature gates the chapters name\n\n")
	p("Read from `pkg/features/kube_features.go` and `k8s.io/apiserver/pkg/features/kube_features.go` at both releases.\n\n")
	p("| gate | %s | %s | first named at |\n|---|---|---|---|\n", r.From, r.To)
	for _, g := range r.Gates {
		to := g.To
		if g.To != g.From {
			to = "**" + g.To + "**"
		}
		p("| `%s` | %s | %s | %s |\n", g.Gate, g.From, to, g.Where)
	}
	p("\n")

	p("## Upstream files the prose cites\n\n")
	p("| file | status | first cited at |\n|---|---|---|\n")
	for _, f := range r.Files {
		p("| `%s` | %s | %s |\n", f.Path, cell(f.Status), f.Where)
	}
	p("\n")
	if len(r.Lines) > 0 {
		p("Citations of a line (\"`FILE`, line N\"), where the line's text went:\n\n")
		p("| citation | file | line at %s | at %s |\n|---|---|---|---|\n", r.From, r.To)
		for _, l := range r.Lines {
			p("| %s | `%s` | %d | %s |\n", l.Where, l.File, l.Line, cell(l.Status))
		}
		p("\n")
	}

	p("## Sentences that name another release\n\n")
	if len(r.Names) == 0 {
		p("None.\n\n")
	} else {
		p("Each was written of that release; read it again for %s.\n\n", r.To)
		for _, m := range r.Names {
			p("- %s: %s\n", m.Where, cell(m.Text))
		}
		p("\n")
	}
	if len(r.Unread) > 0 {
		p("## What the report could not read\n\n")
		for _, u := range r.Unread {
			p("- %s\n", cell(u))
		}
		p("\n")
	}
	return b.String()
}

func orUnread(s string) string {
	if s == "" {
		return "(not read)"
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

var linkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// unlink keeps a Markdown link's text and drops its target: a sentence
// quoted from a chapter links relative to the chapter, not to the report.
func unlink(s string) string { return linkRE.ReplaceAllString(s, "$1") }
