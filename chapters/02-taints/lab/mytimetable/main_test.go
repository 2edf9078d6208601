package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/check"
	"github.com/opslab/opslab/chapters/02-taints/kube"
	"github.com/opslab/opslab/internal/prop"
)

// A namespace is one generated case: pods with tolerations the API
// accepts, and the taint the timetable is asked about.
type namespace struct {
	taint corev1.Taint
	pods  []corev1.Pod
}

func (c namespace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "taint %s", taintString(c.taint))
	if len(c.pods) == 0 {
		b.WriteString(", no pods")
	}
	for _, p := range c.pods {
		fmt.Fprintf(&b, "\n  pod %s", p.Name)
		if p.Spec.NodeName == "" {
			b.WriteString(" (on no node)")
		}
		if len(p.Spec.Tolerations) == 0 {
			b.WriteString(", no tolerations")
		}
		for _, t := range p.Spec.Tolerations {
			fmt.Fprintf(&b, ", toleration {key: %q, operator: %q, value: %q, effect: %q", t.Key, t.Operator, t.Value, t.Effect)
			if t.TolerationSeconds != nil {
				fmt.Fprintf(&b, ", tolerationSeconds: %d", *t.TolerationSeconds)
			}
			b.WriteString("}")
		}
	}
	return b.String()
}

func taintString(t corev1.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

func genNamespace(r *rand.Rand) namespace {
	pick := func(xs ...string) string { return prop.Pick(r, xs...) }
	c := namespace{taint: corev1.Taint{Key: pick("a", "b"), Value: pick("", "v"), Effect: corev1.TaintEffect(pick("NoExecute", "NoExecute", "NoSchedule"))}}
	for i := range r.IntN(6) {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: string(rune('a'+i)) + "-pod", Namespace: "taints-lab"}, Spec: corev1.PodSpec{NodeName: pick("n1", "n2", "")}}
		for range r.IntN(3) {
			tl := corev1.Toleration{Key: pick("", "a", "b"), Operator: corev1.TolerationOperator(pick("Exists", "Equal", "")), Effect: corev1.TaintEffect(pick("", "NoExecute", "NoSchedule"))}
			if tl.Operator != corev1.TolerationOpExists {
				tl.Value = pick("", "v")
			}
			if tl.Effect == corev1.TaintEffectNoExecute && r.IntN(2) == 0 {
				s := int64(r.IntN(5) - 1)
				tl.TolerationSeconds = &s
			}
			if valid(tl) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, tl)
			}
		}
		c.pods = append(c.pods, p)
	}
	return c
}

func valid(tl corev1.Toleration) bool {
	return taints.ValidateToleration(kube.Tolerations([]corev1.Toleration{tl})[0]) == nil
}

// shrinkNamespace proposes simpler namespaces: a pod fewer, a toleration
// fewer, or one field of a toleration or of the taint made simpler, every
// toleration still one the API accepts.
func shrinkNamespace(c namespace) []namespace {
	var out []namespace
	with := func(edit func(*namespace)) {
		n := namespace{taint: c.taint, pods: make([]corev1.Pod, len(c.pods))}
		for i, p := range c.pods {
			n.pods[i] = *p.DeepCopy()
		}
		edit(&n)
		for _, p := range n.pods {
			if !slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool { return !valid(t) }) {
				continue
			}
			return
		}
		out = append(out, n)
	}
	for i := range c.pods {
		with(func(n *namespace) { n.pods = slices.Delete(n.pods, i, i+1) })
	}
	for i, p := range c.pods {
		for j, t := range p.Spec.Tolerations {
			tol := func(n *namespace) *corev1.Toleration { return &n.pods[i].Spec.Tolerations[j] }
			with(func(n *namespace) { n.pods[i].Spec.Tolerations = slices.Delete(n.pods[i].Spec.Tolerations, j, j+1) })
			for _, k := range prop.Simpler(t.Key, "", "a", "b") {
				with(func(n *namespace) { tol(n).Key = k })
			}
			for _, v := range prop.Simpler(t.Value, "", "v") {
				with(func(n *namespace) { tol(n).Value = v })
			}
			for _, e := range prop.Simpler(t.Effect, "", corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule) {
				with(func(n *namespace) { tol(n).Effect = e })
			}
			if t.TolerationSeconds != nil {
				with(func(n *namespace) { tol(n).TolerationSeconds = nil })
			}
		}
		if p.Spec.NodeName != "n1" && p.Spec.NodeName != "" {
			with(func(n *namespace) { n.pods[i].Spec.NodeName = "n1" })
		}
	}
	for _, v := range prop.Simpler(c.taint.Value, "", "v") {
		with(func(n *namespace) { n.taint.Value = v })
	}
	for _, k := range prop.Simpler(c.taint.Key, "a", "b") {
		with(func(n *namespace) { n.taint.Key = k })
	}
	return out
}

// TestReferenceAnswerMatchesModel holds the lab's program to the chapter's
// model: on 2,000 generated namespaces of pods with tolerations the API
// accepts, its output is the check's, line for line. A difference is shown
// on the smallest namespace that still has one.
func TestReferenceAnswerMatchesModel(t *testing.T) {
	prop.Check(t, 2000, 2, genNamespace, shrinkNamespace, func(c namespace) string {
		var model []taints.Pod
		for i := range c.pods {
			model = append(model, kube.Pod(&c.pods[i]))
		}
		var got strings.Builder
		print(&got, c.pods, "", c.taint)
		want := check.TimetableLines(taints.Timetable(model, []taints.Taint{kube.Taint(c.taint)}))
		if got.String() == want {
			return ""
		}
		return fmt.Sprintf("for %s\nyour program prints\n%sthe chapter's timetable is\n%s", c, orNothing(got.String()), orNothing(want))
	})
}

func orNothing(s string) string {
	if s == "" {
		return "  (nothing)\n"
	}
	return s
}
