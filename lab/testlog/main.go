// Testlog copies a go test -json stream from its standard input to a file
// and prints the tests' own output, as go test would without -json. The
// course's test script runs the suites through it so that a reader sees
// ordinary test output while the site gets the results for its proof badges.
//
// Usage:
//
//	go test -json ./... | go run ./lab/testlog FILE.json
//
// It exits 1 when any test or package failed, as go test would.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
)

func main() {
	log.SetPrefix("testlog: ")
	log.SetFlags(0)
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ... | testlog FILE.json")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	failed := false
	// A test's output is held until the test ends: printed if it failed,
	// dropped if it passed, as go test prints it.
	held := map[string][]string{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		f.Write(line)
		f.Write([]byte("\n"))
		var ev struct {
			Action, Package, Test, Output string
		}
		if json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: a build error
			out.Flush()
			continue
		}
		key := ev.Package + " " + ev.Test
		switch {
		case ev.Action == "output" && ev.Test == "":
			out.WriteString(ev.Output)
		case ev.Action == "output":
			held[key] = append(held[key], ev.Output)
		case ev.Action == "fail" && ev.Test != "":
			for _, s := range held[key] {
				out.WriteString(s)
			}
			delete(held, key)
		case ev.Action == "pass" || ev.Action == "skip":
			delete(held, key)
		}
		if ev.Action == "fail" {
			failed = true
		}
		out.Flush()
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	if failed {
		os.Exit(1)
	}
}
