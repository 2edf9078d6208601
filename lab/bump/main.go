// Bump moves the course to another Kubernetes release and says what the move
// changed: which proofs now fail, which cited upstream files changed, moved
// or vanished, which controller flags' defaults differ from what the
// chapters state, which feature gates the chapters name changed stage, and
// which sentences name a release for an author to read again.
//
// make bump-kubernetes VERSION=vX.Y.Z runs it twice, around a build of the
// lab binaries and a run of the tests (lab/scripts/bump.sh):
//
//	bump pins -to v1.37.2 [-etcd v3.7.0] [-kwok v0.8.0]
//	bump report -from v1.36.3 [-results a.json,b.json] [-o UPSTREAM.md]
//
// pins rewrites labcheck/version/pins.env, every go.mod's Kubernetes, etcd
// and kwok requirements (then go mod tidy), and the versioned links to
// upstream's source in the prose. report writes the drift report, which the
// site shows; it reads the upstream sources of both releases from the Go
// module cache and the lab binaries' --help.
//
// Bump runs from the repository's root. It exits 1 when a step fails and 2
// on a usage error, with one line that names the problem and the fix.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/opslab/opslab/internal/cmdshell"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageLine = "usage: bump pins -to vX.Y.Z [-etcd vA.B.C] [-kwok vA.B.C] | bump report -from vX.Y.Z [-results FILES] [-o FILE]"

// run is the command; a mistake on the command line is one line that names
// it, then the usage.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	code := cmdshell.Exit("bump", err, stderr)
	if cmdshell.IsUsage(err) {
		fmt.Fprintln(stderr, usageLine)
	}
	return code
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cmdshell.Usagef("say pins or report")
	}
	fs := flag.NewFlagSet("bump "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository's root")
	switch args[0] {
	case "pins":
		to := fs.String("to", "", "the Kubernetes release to move to, vX.Y.Z")
		etcd := fs.String("etcd", "", "etcd's release (default: the pinned one, or the one Kubernetes requires if newer)")
		kwok := fs.String("kwok", "", "kwok's release (default: the pinned one)")
		if err := fs.Parse(args[1:]); err != nil {
			return cmdshell.Printed(err)
		}
		if !isRelease(*to) {
			return cmdshell.Usagef("-to %q is not a Kubernetes release vX.Y.Z", *to)
		}
		return movePins(*root, *to, *etcd, *kwok, stdout)
	case "report":
		from := fs.String("from", "", "the release the course moved from, vX.Y.Z")
		to := fs.String("to", "", "compare with this release instead of the pinned one, before a move (the binaries' defaults are then not read)")
		results := fs.String("results", "", "go test -json files, separated by commas (default: .artifacts/*-results.json)")
		bin := fs.String("bin", "", "the lab binaries of the new pins (default: lab/scripts/versions.sh's LAB_BIN)")
		out := fs.String("o", "UPSTREAM.md", "the report's file")
		date := fs.String("date", time.Now().UTC().Format("2006-01-02"), "the day the report says it was made")
		if err := fs.Parse(args[1:]); err != nil {
			return cmdshell.Printed(err)
		}
		if !isRelease(*from) {
			return cmdshell.Usagef("-from %q is not a Kubernetes release vX.Y.Z", *from)
		}
		r, err := makeReport(*root, *from, *to, *results, *bin, *date, stderr)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(*out, []byte(r.Markdown())); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "bump: wrote %s: %s\n", *out, r.Summary())
		return nil
	}
	return cmdshell.Usagef("unknown subcommand %q; say pins or report", args[0])
}

// isRelease reports whether v is a release vX.Y.Z.
func isRelease(v string) bool {
	var a, b, c int
	n, err := fmt.Sscanf(v, "v%d.%d.%d", &a, &b, &c)
	return err == nil && n == 3 && fmt.Sprintf("v%d.%d.%d", a, b, c) == v
}

// writeFileAtomic writes b to name through a temporary file, so a failure
// leaves the old file whole.
func writeFileAtomic(name string, b []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
