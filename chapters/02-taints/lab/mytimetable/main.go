// Mytimetable is the reference answer to the last step of chapter 2's lab,
// where the learner writes a timetable of their own: for the pods of a
// namespace, and a taint, it prints when the taint eviction controller would
// remove each pod. It does not use the chapter's model: it is the rule
// written again, from the chapter's prose, in one small file, and the lab
// check taints-my-timetable compares its output with the model's.
//
// It prints one line per pod on a node, "POD LEAVES", where LEAVES is now,
// after Ns or never; soonest first, ties by name.
//
// Usage:
//
//	mytimetable [--context NAME] [-n NAMESPACE] [--node NAME] KEY[=VALUE]:NoExecute
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	ctxName := flag.String("context", "", "kubeconfig context")
	ns := flag.String("n", "taints-lab", "namespace")
	node := flag.String("node", "", "only the pods on this node")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mytimetable [--context NAME] [-n NAMESPACE] [--node NAME] KEY[=VALUE]:NoExecute")
		os.Exit(2)
	}
	taint, err := parseTaint(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "mytimetable: %v\n", err)
		os.Exit(2)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: *ctxName}).ClientConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mytimetable: %v\n", err)
		os.Exit(1)
	}
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mytimetable: %v\n", err)
		os.Exit(1)
	}
	pods, err := k.CoreV1().Pods(*ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "mytimetable: %v\n", err)
		os.Exit(1)
	}
	print(os.Stdout, pods.Items, *node, taint)
}

func parseTaint(s string) (corev1.Taint, error) {
	kv, effect, ok := strings.Cut(s, ":")
	if !ok {
		return corev1.Taint{}, fmt.Errorf("taint %q has no effect: write key[=value]:Effect", s)
	}
	key, value, _ := strings.Cut(kv, "=")
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffect(effect)}, nil
}

// A row is one pod and when it leaves: at (seconds) when after is true,
// else now (at 0) or never (at -1).
type row struct {
	pod   string
	at    int64
	never bool
}

func (r row) String() string {
	switch {
	case r.never:
		return r.pod + " never"
	case r.at <= 0:
		return r.pod + " now"
	default:
		return fmt.Sprintf("%s after %ds", r.pod, r.at)
	}
}

func print(w io.Writer, pods []corev1.Pod, node string, taint corev1.Taint) {
	var rows []row
	for _, p := range pods {
		if p.Spec.NodeName == "" || (node != "" && p.Spec.NodeName != node) || p.DeletionTimestamp != nil {
			continue
		}
		r := leaves(p.Spec.Tolerations, taint)
		r.pod = p.Name
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.never != b.never {
			return b.never
		}
		if a.at != b.at {
			return a.at < b.at
		}
		return a.pod < b.pod
	})
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
}

// leaves is the rule of the chapter for one NoExecute taint: the first
// toleration that matches decides; none means now, no seconds means never,
// seconds of zero or less mean now.
func leaves(tols []corev1.Toleration, taint corev1.Taint) row {
	if taint.Effect != corev1.TaintEffectNoExecute {
		return row{never: true}
	}
	for _, t := range tols {
		if !matches(t, taint) {
			continue
		}
		switch {
		case t.TolerationSeconds == nil:
			return row{never: true}
		case *t.TolerationSeconds <= 0:
			return row{}
		default:
			return row{at: *t.TolerationSeconds}
		}
	}
	return row{}
}

// matches: an empty effect or key is a wildcard; Exists takes any value,
// Equal (or no operator) the same value; any other operator matches nothing.
func matches(t corev1.Toleration, taint corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpEqual, "":
		return t.Value == taint.Value
	}
	return false
}
