//go:build e2e

package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// metrics is one reading of the server's /metrics: each sample by its
// name and labels.
type metrics []sample

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

func readMetrics(ctx context.Context, t testing.TB, client kubernetes.Interface) metrics {
	t.Helper()
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("reading /metrics: %v", err)
	}
	var out metrics
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		s := sample{labels: map[string]string{}}
		head, value, ok := strings.Cut(line, " ")
		if i := strings.LastIndex(line, " "); i > 0 {
			head, value, ok = line[:i], line[i+1:], true
		}
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		s.value = v
		name, labels, hasLabels := strings.Cut(head, "{")
		s.name = name
		if hasLabels {
			labels = strings.TrimSuffix(labels, "}")
			for _, kv := range splitLabels(labels) {
				k, v, _ := strings.Cut(kv, "=")
				s.labels[k] = strings.Trim(v, `"`)
			}
		}
		out = append(out, s)
	}
	return out
}

// splitLabels splits k="v",k2="v2" at the commas outside quotes.
func splitLabels(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// get returns the value of the sample of name whose labels include all of
// want, and whether there is one.
func (m metrics) get(name string, want map[string]string) (float64, bool) {
	for _, s := range m {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
				break
			}
		}
		if match {
			return s.value, true
		}
	}
	return 0, false
}

// value is get without the presence flag: absent reads as 0.
func (m metrics) value(name string, want map[string]string) float64 {
	v, _ := m.get(name, want)
	return v
}
