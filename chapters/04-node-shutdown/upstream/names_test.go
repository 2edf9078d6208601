package upstream

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"
	"k8s.io/component-base/metrics"
	kubeletevents "k8s.io/kubernetes/pkg/kubelet/events"
	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
)

// TestNamesMatchUpstream: the names the chapter tells a reader to search for
// are the values the kubelet and the controllers write at the release this
// module builds against: the event reason (the value of
// kubeletevents.NodeShutdown, not its name), the metrics as /metrics serves
// them (with their subsystem), the taint keys, and the least grace
// killContainer gives a container, an unexported constant read from the
// kubelet's source.
func TestNamesMatchUpstream(t *testing.T) {
	start := kubeletmetrics.GracefulShutdownStartTime
	end := kubeletmetrics.GracefulShutdownEndTime
	tests := []struct{ name, model, upstream string }{
		{"event reason", shutdown.ShutdownEventReason, kubeletevents.NodeShutdown},
		{"admission reason", shutdown.NotAdmittedReason, nodeshutdown.NodeShutdownNotAdmittedReason},
		{"pod reason", shutdown.StoppedPodReason, constValue(t, "k8s.io/kubernetes/pkg/kubelet/nodeshutdown", "nodeShutdownReason")},
		{"start metric", shutdown.MetricShutdownStart, metrics.BuildFQName(start.Namespace, start.Subsystem, start.Name)},
		{"end metric", shutdown.MetricShutdownEnd, metrics.BuildFQName(end.Namespace, end.Subsystem, end.Name)},
		{"out-of-service taint", shutdown.OutOfServiceTaint, v1.TaintNodeOutOfService},
		{"cloud shutdown taint", shutdown.CloudShutdownTaint, cloudproviderapi.TaintNodeShutdown},
		{"runtime's least grace", strconv.Itoa(shutdown.RuntimeMinimumGraceSeconds), constValue(t, "k8s.io/kubernetes/pkg/kubelet/kuberuntime", "minimumGracePeriodInSeconds")},
	}
	for _, tt := range tests {
		if tt.model != tt.upstream {
			t.Errorf("%s: the model says %q, upstream %q", tt.name, tt.model, tt.upstream)
		}
	}
}

// constValue returns the literal value of the constant name declared in
// package pkg's non-test source, unquoted when it is a string.
func constValue(t *testing.T, pkg, name string) string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	pkgs, err := parser.ParseDir(token.NewFileSet(), strings.TrimSpace(string(dir)), nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", pkg, err)
	}
	for pname, p := range pkgs {
		if strings.HasSuffix(pname, "_test") {
			continue
		}
		for _, f := range p.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if n.Name != name || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok {
							t.Fatalf("%s.%s is not a literal", pkg, name)
						}
						if v, err := strconv.Unquote(lit.Value); err == nil {
							return v
						}
						return lit.Value
					}
				}
			}
		}
	}
	t.Fatalf("%s declares no constant %s", pkg, name)
	return ""
}
