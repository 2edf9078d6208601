package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	taints "github.com/opslab/opslab/chapters/02-taints"
	"github.com/opslab/opslab/chapters/02-taints/check"
	"github.com/opslab/opslab/chapters/02-taints/kube"
)

// TestReferenceAnswerMatchesModel holds the lab's reference answer to the
// chapter's model: on 2,000 generated namespaces of pods with tolerations
// the API accepts, its output is the check's, line for line.
func TestReferenceAnswerMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for n := range 2000 {
		taint := corev1.Taint{Key: pick("a", "b"), Value: pick("", "v"), Effect: corev1.TaintEffect(pick("NoExecute", "NoExecute", "NoSchedule"))}
		var pods []corev1.Pod
		var model []taints.Pod
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
				if taints.ValidateToleration(kube.Tolerations([]corev1.Toleration{tl})[0]) != nil {
					continue
				}
				p.Spec.Tolerations = append(p.Spec.Tolerations, tl)
			}
			pods = append(pods, p)
			model = append(model, kube.Pod(&p))
		}
		var got strings.Builder
		print(&got, pods, "", taint)
		want := check.TimetableLines(taints.Timetable(model, []taints.Taint{kube.Taint(taint)}))
		if got.String() != want {
			t.Fatalf("namespace %d under %v: mytimetable printed\n%s\nthe model's timetable is\n%s", n, taint, got.String(), want)
		}
	}
}
