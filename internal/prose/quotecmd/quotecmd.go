// Package quotecmd is the quote command: it checks the Markdown of the
// course against the code it quotes, proves and links (see package prose),
// and with -w rewrites stale copies from their sources.
package quotecmd

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/opslab/opslab/internal/prose"
)

const usage = `usage: quote [-w | -check] FILE.md...

Quote checks that every quote in the Markdown files matches its source, that
every proof link names a test that exists and that every relative link and
anchor resolves. It prints one line per problem and exits 1 if there is any.

  -check  only check (the default)
  -w      first rewrite stale copies in place from their sources, then check
`

// Main runs the command with the process's arguments and exits.
func Main() { os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr)) }

// Run runs the command and returns its exit status: 0 when all is well, 1
// when a file has problems or cannot be read, 2 on a usage error.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quote", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	write := fs.Bool("w", false, "")
	check := fs.Bool("check", false, "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "quote: %v\n%s", err, usage)
		return 2
	}
	if *write && *check {
		fmt.Fprintf(stderr, "quote: -w and -check cannot be used together\n%s", usage)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "quote: no Markdown files given\n%s", usage)
		return 2
	}
	status := 0
	// One checker for every file: a test file or a heading many files
	// link is read once.
	c := prose.NewChecker()
	for _, name := range fs.Args() {
		if *write {
			changed, err := prose.Update(name)
			if err != nil {
				fmt.Fprintf(stderr, "quote: %v\n", err)
				status = 1
				continue
			}
			if changed {
				fmt.Fprintf(stdout, "rewrote %s\n", name)
			}
		}
		d, err := prose.Parse(name)
		if err != nil {
			fmt.Fprintf(stderr, "quote: %v\n", err)
			status = 1
			continue
		}
		for _, p := range c.Check(d) {
			fmt.Fprintln(stderr, p)
			status = 1
		}
	}
	return status
}
