package version

import (
	"bufio"
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOnePin: the pins are written once, in pins.env. Everything that
// decides what the course builds, runs or expects reads them from there:
// a Go string literal, a script, a Makefile, a YAML or web file that spells
// a pinned release fails here, with its file and line. The go.mod files
// are the copies Go needs; they must require exactly the pinned releases.
// What may name a release is what cites or records one: prose, comments,
// and the recordings under testdata/. The drift report lists those for an
// author to read after a bump (make bump-kubernetes).
func TestOnePin(t *testing.T) {
	root := "../.."
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the tracked files are unknown", err)
	}
	// The list comes from git, which go test's cache does not see: stat the
	// index, so that a file added to it runs the test again.
	if index, err := exec.Command("git", "-C", root, "rev-parse", "--git-path", "index").Output(); err == nil {
		p := strings.TrimSpace(string(index))
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		os.Stat(p)
	}
	read := func(name string) ([]byte, error) { return os.ReadFile(path.Join(root, name)) }
	for _, p := range SecondCopies(strings.Fields(string(out)), read, Pins()) {
		t.Error(p)
	}
}

// TestOnePinCatches: a copy of each pin in each kind of file that decides
// something is found, and a citation is not. Its pins are made up, so that
// its own strings are no copy of the course's.
func TestOnePinCatches(t *testing.T) {
	pins := map[string]string{"KUBE_VERSION": "v1.30.1", "ETCD_VERSION": "v3.5.9", "KWOK_VERSION": "v0.5.1"}
	files := map[string]string{
		"a/x.go":                       "package a\n// cites v1.30.1, fine\nconst k = \"kubectl/v1.30.1\"\n",
		"a/x_test.go":                  "package a\nvar s = `{\"gitVersion\":\"v0.30.1\"}`\n",
		"lab/scripts/s.sh":             "# comment v3.5.9 fine\nETCD=v3.5.9\n",
		"Makefile":                     "X := v0.5.1 # and here\n",
		"lab/k.yaml":                   "# from kwok v0.5.1\nimage: kwok:v0.5.1\n",
		"site/a.js":                    "// v1.30.1\nconst v = 'v1.30.1';\n",
		"README.md":                    "Kubernetes v1.30.1, line 88.\n",
		"chapters/01-a/plants/p.plant": "claim: c\nupstream: https://github.com/kubernetes/kubernetes/blob/v1.30.1/x.go#L1\n",
		"a/testdata/rec.jsonl":         "{\"userAgent\":\"kubectl/v1.30.1\"}\n",
		"go.mod":                       "module m\nrequire (\n\tk8s.io/api v0.30.0\n\tk8s.io/client-go v0.30.1\n)\n",
		"lab/tools/go.mod":             "module t\nrequire k8s.io/kubernetes v1.30.0\nreplace k8s.io/api => k8s.io/api v0.30.1\n",
		"other/go.mod":                 "module o\nrequire go.etcd.io/etcd/server/v3 v3.5.10\nrequire sigs.k8s.io/kwok v0.5.1\n",
		"labcheck/version/pins.env":    "KUBE_VERSION=v1.30.1\n",
	}
	read := func(name string) ([]byte, error) { return []byte(files[name]), nil }
	var names []string
	for n := range files {
		names = append(names, n)
	}
	got := strings.Join(SecondCopies(names, read, pins), "\n")
	for _, want := range []string{
		"a/x.go:3: ", "a/x_test.go:2: ", "lab/scripts/s.sh:2: ", "Makefile:1: ", "lab/k.yaml:2: ", "site/a.js:2: ",
		"go.mod:3: k8s.io/api v0.30.0", "lab/tools/go.mod:2: k8s.io/kubernetes v1.30.0", "other/go.mod:2: go.etcd.io/etcd/server/v3 v3.5.10",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("SecondCopies missed %q; it said:\n%s", want, got)
		}
	}
	for _, fine := range []string{"a/x.go:2", "s.sh:1", "k.yaml:1", "a.js:1", "README.md", "p.plant", "rec.jsonl", "labcheck/version/pins.env:", "client-go", "kwok v0.5.1", "replace"} {
		if strings.Contains(got, fine) {
			t.Errorf("SecondCopies named %q, which cites or is the pin; it said:\n%s", fine, got)
		}
	}
}

// SecondCopies returns, as "file:line: problem", every place among files
// (slash-separated, relative to the repository) that spells a pin where it
// would decide something, and every go.mod requirement of a pinned module
// at another release than the pin.
func SecondCopies(files []string, read func(string) ([]byte, error), pins map[string]string) []string {
	kube := pins["KUBE_VERSION"]
	staging := strings.Replace(kube, "v1.", "v0.", 1)
	spelled := regexp.MustCompile(`\b` + strings.Join([]string{
		regexp.QuoteMeta(kube), regexp.QuoteMeta(staging),
		regexp.QuoteMeta(pins["ETCD_VERSION"]), regexp.QuoteMeta(pins["KWOK_VERSION"]),
	}, "|") + `\b`)
	// module path → the release a go.mod must require or replace it with.
	want := func(module string) string {
		switch {
		case module == "k8s.io/kubernetes":
			return kube
		case module == "go.etcd.io/etcd/server/v3":
			return pins["ETCD_VERSION"]
		case module == "sigs.k8s.io/kwok":
			return pins["KWOK_VERSION"]
		case stagingModules[module]:
			return staging
		}
		return ""
	}
	var problems []string
	add := func(file string, line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", file, line)+fmt.Sprintf(format, args...))
	}
	for _, f := range files {
		base := path.Base(f)
		// A plant (chapters/*/plants) cites the upstream line its claim
		// follows, as prose does.
		if f == "labcheck/version/pins.env" || strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".txtar") ||
			strings.HasSuffix(f, ".plant") || base == "go.sum" || strings.Contains("/"+f, "/testdata/") {
			continue
		}
		src, err := read(f)
		if err != nil {
			add(f, 0, "%v", err)
			continue
		}
		switch {
		case base == "go.mod":
			// A replaced module's requirement does not count: its
			// replacement is what the build uses.
			type use struct {
				version string
				line    int
			}
			required, replaced := map[string]use{}, map[string]use{}
			block := ""
			for i, line := range strings.Split(string(src), "\n") {
				fields := strings.Fields(line)
				if len(fields) > 0 && (fields[0] == "require" || fields[0] == "replace") {
					block = fields[0]
					fields = fields[1:]
					if len(fields) > 0 && fields[0] == "(" {
						continue
					}
				}
				if len(fields) > 0 && fields[0] == ")" {
					block = ""
					continue
				}
				switch {
				case block == "replace" && len(fields) >= 4 && fields[1] == "=>":
					replaced[fields[0]] = use{fields[3], i + 1}
				case block == "require" && len(fields) >= 2:
					required[fields[0]] = use{fields[1], i + 1}
				}
				if !strings.HasSuffix(strings.TrimSpace(line), "(") && (strings.HasPrefix(line, "require ") || strings.HasPrefix(line, "replace ")) {
					block = ""
				}
			}
			for module, u := range required {
				if r, ok := replaced[module]; ok {
					u = r
				}
				if v := want(module); v != "" && u.version != v {
					add(f, u.line, "%s %s: the pin is %s (labcheck/version/pins.env); make bump-kubernetes moves every go.mod with it", module, u.version, v)
				}
			}
		case strings.HasSuffix(f, ".go"):
			fset := token.NewFileSet()
			file := fset.AddFile(f, -1, len(src))
			var s scanner.Scanner
			s.Init(file, src, nil, 0) // comments are skipped: they cite
			for {
				pos, tok, lit := s.Scan()
				if tok == token.EOF {
					break
				}
				if tok == token.STRING && spelled.MatchString(lit) {
					add(f, fset.Position(pos).Line, "a string spells the pin %s; read it from package version (labcheck/version) instead", spelled.FindString(lit))
				}
			}
		case looksLikeText(src):
			comment := "#"
			if strings.HasSuffix(f, ".js") || strings.HasSuffix(f, ".css") {
				comment = "//"
			}
			sc := bufio.NewScanner(bytes.NewReader(src))
			sc.Buffer(nil, 1<<20)
			for n := 1; sc.Scan(); n++ {
				line := sc.Text()
				if i := strings.Index(line, comment); i >= 0 && (comment != "#" || i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
					line = line[:i]
				}
				if v := spelled.FindString(line); v != "" {
					add(f, n, "spells the pin %s; read it from lab/scripts/versions.sh (which sources labcheck/version/pins.env) instead", v)
				}
			}
		}
	}
	return problems
}

// stagingModules are the modules published from Kubernetes' staging tree,
// whose v0.X.Y is Kubernetes v1.X.Y, that the course's go.mod files name.
var stagingModules = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
		cloud-provider cluster-bootstrap code-generator component-base component-helpers controller-manager
		cri-api cri-client cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt
		kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils
		pod-security-admission sample-apiserver sample-cli-plugin sample-controller streaming`) {
		stagingModules["k8s.io/"+m] = true
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// looksLikeText reports whether src is text: no NUL in its first 8 KiB.
func looksLikeText(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8192)], 0) < 0
}
