// Package sitecmd is the site command: it builds the course site and, on
// request, serves it and rebuilds it when a source changes.
package sitecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/opslab/opslab/internal/tracks"
	"github.com/opslab/opslab/site"
)

const usage = `usage: site -out DIR [-root DIR] [-results FILE.json[,FILE.json...]] [-serve ADDR [-watch] [-demos-later]]

Site builds the course site into DIR. It fails, naming file and line, when a
quote is stale or missing, a proof names no test, or a link or anchor is
broken; given a go test -json results file, also when a proof failed or did
not run.

  -out DIR         where to write the site (replaced on every build)
  -root DIR        the repository (default ".")
  -results FILES   go test -json output whose results the proof badges show
                   (several files separated by commas)
  -serve ADDR      serve the site on ADDR (e.g. localhost:8080) after building
  -watch           with -serve: rebuild when a Markdown or Go file changes
  -demos-later     with -serve: serve the pages first, their demos marked as
                   still being built, then build again with the demos
`

// Main runs the command with the process's arguments and exits.
func Main() { os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr)) }

// Run runs the command and returns its exit status: 0 on success, 1 when the
// build fails, 2 on a usage error. With -serve it returns only when the
// server fails.
func Run(args []string, stdout, stderr io.Writer) int {
	return run(context.Background(), args, stdout, stderr)
}

// run is Run, serving until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := site.Config{Tracks: tracks.All}
	fs.StringVar(&cfg.Out, "out", "", "")
	fs.StringVar(&cfg.Root, "root", ".", "")
	fs.StringVar(&cfg.Results, "results", "", "")
	serve := fs.String("serve", "", "")
	watch := fs.Bool("watch", false, "")
	later := fs.Bool("demos-later", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "site: %v\n%s", err, usage)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "site: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	case cfg.Out == "":
		fmt.Fprintf(stderr, "site: -out DIR is required\n%s", usage)
		return 2
	case *watch && *serve == "":
		fmt.Fprintf(stderr, "site: -watch needs -serve ADDR\n%s", usage)
		return 2
	case *later && *serve == "":
		fmt.Fprintf(stderr, "site: -demos-later needs -serve ADDR\n%s", usage)
		return 2
	}
	first := cfg
	first.DemosLater = *later
	built := build(first, stdout, stderr)
	if *serve == "" {
		if !built {
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", *serve)
	if err != nil {
		fmt.Fprintf(stderr, "site: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "serving the course at http://%s/\n", ln.Addr())
	if *later {
		// The demos are compiled while the pages are read; the build that
		// brings them replaces the site in place, as a watched change does.
		go func() {
			fmt.Fprintln(stdout, "site: compiling the chapters' demos while the course is served")
			build(cfg, stdout, stderr)
			if *watch {
				watchLoop(ctx, cfg, stdout, stderr)
			}
		}()
	} else if *watch {
		go watchLoop(ctx, cfg, stdout, stderr)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(cfg.Out)), ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "site: %v\n", err)
		return 1
	}
	return 0
}

func build(cfg site.Config, stdout, stderr io.Writer) bool {
	start := time.Now()
	st, err := site.Build(cfg)
	if err != nil {
		var be *site.BuildError
		if errors.As(err, &be) {
			for _, p := range be.Problems {
				fmt.Fprintln(stderr, p)
			}
			fmt.Fprintf(stderr, "site: the build failed with %s\n", count(len(be.Problems), "problem"))
		} else {
			fmt.Fprintf(stderr, "site: %v\n", err)
		}
		return false
	}
	fmt.Fprintf(stdout, "built %s (%s, %s) into %s in %v\n", count(len(st.Pages), "page"), count(st.Files, "file"), count(st.Proofs, "proof"), cfg.Out, time.Since(start).Round(time.Millisecond))
	for _, d := range st.Demos {
		how := "compiled"
		if d.Cached {
			how = "from the cache"
		}
		fmt.Fprintf(stdout, "demo %s: %.1f MB of wasm, %s\n", d.Name, float64(d.Bytes)/1e6, how)
	}
	return true
}

// count returns "1 page", "2 pages".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// watchLoop rebuilds the site when a source file changes. It polls, which
// needs no platform-specific code and is cheap for a repository this size.
func watchLoop(ctx context.Context, cfg site.Config, stdout, stderr io.Writer) {
	last := stamp(cfg)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if s := stamp(cfg); s != last {
			last = s
			build(cfg, stdout, stderr)
		}
	}
}

// stamp summarises the names, sizes and times of the files the site is
// built from.
func stamp(cfg site.Config) string {
	var b strings.Builder
	out, _ := filepath.Abs(cfg.Out)
	filepath.WalkDir(cfg.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			abs, _ := filepath.Abs(p)
			name := d.Name()
			if abs == out || strings.HasPrefix(filepath.Base(abs), "."+filepath.Base(out)+".build-") ||
				(p != cfg.Root && (strings.HasPrefix(name, ".") || name == "out")) {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
