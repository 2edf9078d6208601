package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseHelp: a flag's default is read from pflag's usage text, also when
// its description wraps onto the next lines, and a flag without one has "".
func TestParseHelp(t *testing.T) {
	help := `Usage:
  kube-controller-manager [flags]

Node lifecycle controller flags:

      --large-cluster-size-threshold int32     Number of nodes from which node-lifecycle-controller treats the cluster as large for the eviction logic purposes. --secondary-node-eviction-rate is
                                               implicitly overridden to 0 for clusters this size or smaller. (default 50)
      --node-eviction-rate float32             Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy (see --unhealthy-zone-threshold for definition of
                                               healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters. (default 0.1)
      --node-monitor-grace-period duration     Amount of time which we allow running Node to be unresponsive before marking it unhealthy. (default 50s)
      --enable-taint-manager                   Deprecated.
  -v, --v Level                                number for the log level verbosity
`
	got := parseHelp(help)
	want := map[string]string{
		"large-cluster-size-threshold": "50",
		"node-eviction-rate":           "0.1",
		"node-monitor-grace-period":    "50s",
		"enable-taint-manager":         "",
		"v":                            "",
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("parseHelp: --%s = %q (found: %v), want %q", k, g, ok, v)
		}
	}
}

// TestSameValue: defaults compare as numbers and durations, so 0.10 is 0.1
// and 50s is 50 s, but 40s is not 50s.
func TestSameValue(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"0.1", "0.1", true}, {"0.10", "0.1", true}, {"50s", "50s", true}, {"50s", "0h0m50s", true},
		{"40s", "50s", false}, {"0.01", "0.1", false}, {"", "300", false}, {"300", "300", true},
	} {
		if got := sameValue(tt.a, tt.b); got != tt.same {
			t.Errorf("sameValue(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// TestMoveLinks: links into the old release of Kubernetes and of a staging
// repository move to the new one; other releases and other links stay.
func TestMoveLinks(t *testing.T) {
	in := `[a](https://github.com/kubernetes/kubernetes/blob/v1.30.1/pkg/x.go)
[b](https://github.com/kubernetes/kubernetes/tree/v1.30.1/pkg/kubelet)
[c](https://github.com/kubernetes/cloud-provider/blob/v0.30.1/controllers/y.go)
[d](https://github.com/kubernetes/kubernetes/blob/v1.29.0/pkg/x.go)
[e](https://github.com/kubernetes/autoscaler/blob/master/FAQ.md)
in v1.30.1, the text stays`
	want := `[a](https://github.com/kubernetes/kubernetes/blob/v1.31.0/pkg/x.go)
[b](https://github.com/kubernetes/kubernetes/tree/v1.31.0/pkg/kubelet)
[c](https://github.com/kubernetes/cloud-provider/blob/v0.31.0/controllers/y.go)
[d](https://github.com/kubernetes/kubernetes/blob/v1.29.0/pkg/x.go)
[e](https://github.com/kubernetes/autoscaler/blob/master/FAQ.md)
in v1.30.1, the text stays`
	if got := string(moveLinks([]byte(in), "v1.30.1", "v1.31.0")); got != want {
		t.Errorf("moveLinks:\n%s\nwant:\n%s", got, want)
	}
}

// TestSetPins: only the named pins change, comments stay.
func TestSetPins(t *testing.T) {
	in := "# KUBE_VERSION=v0 in a comment\nKUBE_VERSION=v1.30.1\nETCD_VERSION=v3.5.9\nKWOK_VERSION=v0.5.1\n"
	got := string(setPins([]byte(in), map[string]string{"KUBE_VERSION": "v1.31.0", "ETCD_VERSION": "v3.5.10"}))
	want := "# KUBE_VERSION=v0 in a comment\nKUBE_VERSION=v1.31.0\nETCD_VERSION=v3.5.10\nKWOK_VERSION=v0.5.1\n"
	if got != want {
		t.Errorf("setPins:\n%s\nwant:\n%s", got, want)
	}
}

// TestReadGates: a gate's stage at a release is its last spec from that
// release or before, read from the versioned specs as upstream writes them.
func TestReadGates(t *testing.T) {
	src := `package features

const (
	Shutdown featuregate.Feature = "GracefulNodeShutdown"
	Breaker featuregate.Feature = "NodeControllerLeaseCircuitBreaker"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Shutdown: {
		{Version: version.MustParse("1.20"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.21"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.38"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},
	Breaker: {
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.Beta},
	},
}
`
	p := filepath.Join(t.TempDir(), "kube_features.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	gates, err := readGates(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		gate  string
		minor int
		want  string
	}{
		{"GracefulNodeShutdown", 20, "alpha, off by default"},
		{"GracefulNodeShutdown", 37, "beta, on by default"},
		{"GracefulNodeShutdown", 38, "ga, on by default, locked"},
		{"NodeControllerLeaseCircuitBreaker", 36, "absent"},
		{"NodeControllerLeaseCircuitBreaker", 37, "beta, on by default"},
	} {
		if got := stageAt(gates[tt.gate], tt.minor); got != tt.want {
			t.Errorf("%s at 1.%d: %q, want %q", tt.gate, tt.minor, got, tt.want)
		}
	}
}

// TestLineChanges: lines count as added or deleted by content, so a block
// that moved counts as neither.
func TestLineChanges(t *testing.T) {
	a := "x\ny\nz\nw"
	b := "z\nw\nx\ny\nnew"
	if add, del := lineChanges([]byte(a), []byte(b)); add != 1 || del != 0 {
		t.Errorf("lineChanges = +%d −%d, want +1 −0", add, del)
	}
}

// TestUsage: a bad command line gets one line naming the problem and exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"pins"}, {"pins", "-to", "1.37"}, {"report"}, {"shout"}} {
		var out, errb strings.Builder
		if code := run(args, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), "bump: ") || strings.Count(errb.String(), "\n") != 2 {
			t.Errorf("bump %v: exit %d, stderr %q; want exit 2 and a line naming the problem, then the usage", args, code, errb.String())
		}
	}
}

// TestParagraph: a proof's sentence is its paragraph, or its list item.
func TestParagraph(t *testing.T) {
	lines := strings.Split("Intro line one\nline two.\n\n- first item\n  goes on\n- second item\n  cites it\n\nAfter.", "\n")
	for _, tt := range []struct {
		n    int
		want string
	}{
		{2, "Intro line one line two."},
		{5, "- first item goes on"},
		{7, "- second item cites it"},
		{6, "- second item cites it"},
		{9, "After."},
	} {
		if got := paragraph(lines, tt.n); got != tt.want {
			t.Errorf("paragraph(line %d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestSentence: of a paragraph, the sentence that links the proof.
func TestSentence(t *testing.T) {
	para := "One thing holds. The pins are written once ([`TestOnePin`](pins_test.go) fails otherwise). Reports record it."
	if got, want := sentence(para, "pins_test.go"), "The pins are written once ([`TestOnePin`](pins_test.go) fails otherwise)."; got != want {
		t.Errorf("sentence = %q, want %q", got, want)
	}
	if got := sentence(para, "other_test.go"); got != para {
		t.Errorf("sentence without the link = %q, want the paragraph", got)
	}
}
