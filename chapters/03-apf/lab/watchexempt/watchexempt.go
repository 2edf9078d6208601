// Package watchexempt is the lab's reference watcher: it watches the
// cluster's FlowSchemas and prints a line whenever one starts or stops
// pointing at the exempt priority level, whose requests no limit holds
// back. Only the level named exempt may be of type Exempt (the API
// refuses any other), so a schema is exempt when it names that level.
package watchexempt

import (
	"context"
	"fmt"
	"io"
	"sort"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Watch prints the schemas that point at exempt when it starts, sorted by
// name, as "exempt NAME", then one line per change, "+ NAME" or "- NAME",
// until ctx ends. It returns the set it saw last.
func Watch(ctx context.Context, kube kubernetes.Interface, out io.Writer) (map[string]bool, error) {
	fcs := kube.FlowcontrolV1().FlowSchemas()
	list, err := fcs.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	exempt := map[string]bool{}
	var names []string
	for _, fs := range list.Items {
		if pointsAtExempt(&fs) {
			exempt[fs.Name] = true
			names = append(names, fs.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(out, "exempt %s\n", n)
	}
	w, err := fcs.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return exempt, err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return exempt, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return exempt, nil
			}
			fs, isSchema := ev.Object.(*flowcontrol.FlowSchema)
			if !isSchema {
				continue
			}
			now := ev.Type != watch.Deleted && pointsAtExempt(fs)
			if now != exempt[fs.Name] {
				sign := "+"
				if !now {
					sign = "-"
				}
				fmt.Fprintf(out, "%s %s\n", sign, fs.Name)
			}
			if now {
				exempt[fs.Name] = true
			} else {
				delete(exempt, fs.Name)
			}
		}
	}
}

func pointsAtExempt(fs *flowcontrol.FlowSchema) bool {
	return fs.Spec.PriorityLevelConfiguration.Name == flowcontrol.PriorityLevelConfigurationNameExempt
}
