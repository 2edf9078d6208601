// Quote checks the course's Markdown against the code it quotes, proves and
// links, and rewrites stale quotes.
//
// Usage:
//
//	quote [-w | -check] FILE.md...
//
// Without -w (or with -check) it prints one line per problem, file:line:
// message, and exits 1 if there is any. With -w it first rewrites every
// stale copy in place from its source. It exits 2 on a usage error.
package main

import "github.com/opslab/opslab/internal/prose/quotecmd"

func main() { quotecmd.Main() }
