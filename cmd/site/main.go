// Site builds the course's web site from its Markdown and checks it against
// the code: stale quotes, missing tests and broken links fail the build.
//
// Usage:
//
//	site -out DIR [-root DIR] [-results FILE.json[,FILE.json...]] [-serve ADDR [-watch]]
//
// With -results, each proof link shows the result of its test from go test
// -json runs (one file, or several separated by commas: make site and make
// test write one per module and suite into .artifacts), and a failed or
// missing result fails the build. With -serve it serves the site on ADDR,
// and with -watch rebuilds it when a source changes.
package main

import "github.com/opslab/opslab/site/sitecmd"

func main() { sitecmd.Main() }
