// Shutdown-plan prints the timeline of a node's graceful shutdown under a
// kubelet configuration, or refuses the configuration with the kubelet's
// reason.
//
// It prints the kubelet's priority groups, then every pod with its group, the
// grace period the kubelet asks it to stop in, its start, grace and end,
// measured from the moment logind announces the shutdown. A pod from a file
// gets the values the API server would have given it: 30 s when it sets no
// terminationGracePeriodSeconds, the built-in classes' priorities; a pod that
// names any other PriorityClass without spec.priority is refused. With
// --logind-dir it also reads logind's configuration and says whether the
// kubelet gets the time it asks for.
//
// Usage:
//
//	shutdown-plan --config kubelet.yaml (-f pods.yaml ... | [--kubeconfig FILE] [--context NAME] [-n NAMESPACE] --node NODE)
//	              [--logind-dir DIR [--logind-vendor-dir DIR]]
//
// -f reads pods from YAML files (a Pod, a List of them, or several documents);
// otherwise the pods on --node are read from the cluster. --logind-dir is a
// directory laid out like /etc/systemd (logind.conf and logind.conf.d/), where
// a drop-in that is a link to /dev/null is masked; --logind-vendor-dir is laid
// out like /usr/lib/systemd.
//
// Exit status: 0 with a timeline, 1 when the configuration is refused, logind
// would cut the kubelet short, or an input cannot be read, 2 on a usage error.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/kube"
)

const name = "shutdown-plan"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

// run runs the command and returns its exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		config, kubeconfig, context, namespace, node string
		logindDir, vendorDir                         string
		podFiles                                     files
	)
	fs.StringVar(&config, "config", "", "kubelet configuration `file` (KubeletConfiguration, kubelet.config.k8s.io/v1beta1)")
	fs.Var(&podFiles, "f", "pods from a YAML `file` (repeatable)")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig `file` (default $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&context, "context", "", "kubeconfig `context`")
	fs.StringVar(&namespace, "n", "", "only pods of this `namespace` (default all)")
	fs.StringVar(&node, "node", "", "the `node` whose pods are planned")
	fs.StringVar(&logindDir, "logind-dir", "", "`dir` laid out like /etc/systemd: logind.conf and logind.conf.d/")
	fs.StringVar(&vendorDir, "logind-vendor-dir", "", "`dir` laid out like /usr/lib/systemd")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s --config kubelet.yaml (-f pods.yaml ... | --node NODE) [--logind-dir DIR]\n", name)
		fs.PrintDefaults()
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "%s: %s\n", name, fmt.Sprintf(format, a...))
		fmt.Fprintf(stderr, "usage: %s --config kubelet.yaml (-f pods.yaml ... | --node NODE) [--logind-dir DIR]\n", name)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case config == "":
		return usage("--config is required")
	case len(podFiles) == 0 && node == "":
		return usage("give pods with -f FILE or a node with --node NODE")
	case vendorDir != "" && logindDir == "":
		return usage("--logind-vendor-dir needs --logind-dir")
	}
	fail := func(err error) int {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "%s: %s\n", name, line)
		}
		return 1
	}

	kc, err := readKubeletConfig(config)
	if err != nil {
		return fail(err)
	}
	cfg, err := kube.Validate(kc)
	if err != nil {
		var lines []string
		for _, line := range strings.Split(err.Error(), "\n") {
			lines = append(lines, "the kubelet refuses "+config+": "+line)
		}
		return fail(errors.New(strings.Join(lines, "\n")))
	}

	var pods []*corev1.Pod
	if len(podFiles) > 0 {
		pods, err = readPodFiles(podFiles)
	} else {
		pods, err = readClusterPods(kubeconfig, context, namespace, node)
	}
	if err != nil {
		return fail(err)
	}
	pods = active(pods, namespace, node)

	var logind []shutdown.LogindFile
	if logindDir != "" {
		logind, err = readLogindDir(logindDir, shutdown.Etc)
		if err == nil && vendorDir != "" {
			var vendor []shutdown.LogindFile
			vendor, err = readLogindDir(vendorDir, shutdown.Lib)
			logind = append(logind, vendor...)
		}
		if err != nil {
			return fail(err)
		}
	}

	plan, err := kube.NewPlan(cfg, pods)
	if err != nil {
		return fail(err)
	}
	printPlan(stdout, cfg, plan)
	if logindDir == "" {
		return 0
	}
	if !cfg.Enabled {
		// Without a shutdown manager the kubelet never looks at logind.
		fmt.Fprintln(stdout, "\nlogind: the kubelet asks for nothing: graceful shutdown is off")
		return 0
	}
	r := shutdown.CheckLogind(logind, cfg.Total())
	printLogind(stdout, r)
	if r.Conflict {
		if r.After.Infinite {
			fmt.Fprintf(stderr, "%s: logind's InhibitDelayMaxSec is infinity, which the kubelet reads as %v, less than the %v it asks for: its node shutdown manager will not start and the node will shut down without ending its pods; remove infinity from %s\n",
				name, r.After.Value, r.Requested, r.After.From)
			return 1
		}
		fmt.Fprintf(stderr, "%s: logind allows %v, less than the %v the kubelet asks for: its node shutdown manager will not start and the node will shut down without ending its pods; mask or raise %s\n",
			name, r.After.Value, r.Requested, r.After.From)
		return 1
	}
	return 0
}

func readKubeletConfig(path string) (*kubeletv1beta1.KubeletConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read kubelet configuration: %w", err)
	}
	var kc kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict(data, &kc); err != nil {
		return nil, fmt.Errorf("%s is not a KubeletConfiguration: %v", path, err)
	}
	if kc.Kind != "KubeletConfiguration" || kc.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		return nil, fmt.Errorf("%s has kind %q, apiVersion %q; want KubeletConfiguration, kubelet.config.k8s.io/v1beta1", path, kc.Kind, kc.APIVersion)
	}
	return &kc, nil
}

func readPodFiles(paths []string) ([]*corev1.Pod, error) {
	var pods []*corev1.Pod
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read pods: %w", err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for doc := 1; ; doc++ {
			raw, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(raw, &meta); err != nil {
				return nil, fmt.Errorf("%s: document %d is not YAML: %v", path, doc, err)
			}
			switch meta.Kind {
			case "Pod":
				var p corev1.Pod
				if err := yaml.UnmarshalStrict(raw, &p); err != nil {
					return nil, fmt.Errorf("%s: document %d is not a Pod: %v", path, doc, err)
				}
				pods = append(pods, &p)
			case "List", "PodList":
				var l corev1.PodList
				if err := yaml.Unmarshal(raw, &l); err != nil {
					return nil, fmt.Errorf("%s: document %d is not a list of Pods: %v", path, doc, err)
				}
				for i := range l.Items {
					if l.Items[i].Kind != "" && l.Items[i].Kind != "Pod" {
						return nil, fmt.Errorf("%s: document %d holds a %s; want only Pods", path, doc, l.Items[i].Kind)
					}
					pods = append(pods, &l.Items[i])
				}
			default:
				return nil, fmt.Errorf("%s: document %d has kind %q; want Pod or List", path, doc, meta.Kind)
			}
		}
	}
	return pods, nil
}

func readClusterPods(kubeconfig, context, namespace, node string) ([]*corev1.Pod, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster: %v", err)
	}
	rc.Timeout = 20 * time.Second
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster: %v", err)
	}
	ctx, cancel := contextWithTimeout(20 * time.Second)
	defer cancel()
	if _, err := kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		return nil, fmt.Errorf("cannot read node %q: %v", node, err)
	}
	list, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, fmt.Errorf("cannot list pods on %s: %v", node, err)
	}
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	return pods, nil
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// active keeps the pods the kubelet would end: those on the node (when one is
// named), in the namespace (when one is named), not finished yet.
func active(pods []*corev1.Pod, namespace, node string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if node != "" && p.Spec.NodeName != node {
			continue
		}
		if namespace != "" && p.Namespace != namespace {
			continue
		}
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	return out
}

func readLogindDir(dir string, layer shutdown.Layer) ([]shutdown.LogindFile, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("logind directory %s: not a directory", dir)
	}
	var out []shutdown.LogindFile
	add := func(path, name string) error {
		st, err := os.Lstat(path)
		if err != nil {
			return fmt.Errorf("cannot read %s: %v", path, err)
		}
		if st.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(path); err == nil && target == "/dev/null" {
				out = append(out, shutdown.LogindFile{Layer: layer, Name: name, Masked: true})
				return nil
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("cannot read %s: %v", path, err)
		}
		out = append(out, shutdown.LogindFile{Layer: layer, Name: name, Content: string(data)})
		return nil
	}
	if _, err := os.Lstat(filepath.Join(dir, "logind.conf")); err == nil {
		if err := add(filepath.Join(dir, "logind.conf"), "logind.conf"); err != nil {
			return nil, err
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "logind.conf.d"))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("cannot read %s: %v", filepath.Join(dir, "logind.conf.d"), err)
	}
	for _, e := range entries {
		if err := add(filepath.Join(dir, "logind.conf.d", e.Name()), e.Name()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func printPlan(w io.Writer, cfg shutdown.Config, plan shutdown.Plan) {
	if !cfg.Enabled {
		fmt.Fprintln(w, "graceful node shutdown is off: shutdownGracePeriod and shutdownGracePeriodCriticalPods are both 0 and there is no shutdownGracePeriodByPodPriority")
		return
	}
	form := "shutdownGracePeriod/shutdownGracePeriodCriticalPods"
	if cfg.ByPriority {
		form = "shutdownGracePeriodByPodPriority"
	}
	fmt.Fprintf(w, "graceful node shutdown: %d groups from %s; the kubelet asks logind for %v\n\n", len(cfg.Groups), form, plan.Requested)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tSECONDS\tPODS\tSTART\tEND")
	for _, g := range plan.Groups {
		if g.Skipped {
			fmt.Fprintf(tw, "%d\t%d\t0\t-\tskipped\n", g.Priority, g.Seconds)
			continue
		}
		end := g.End.String()
		if g.NoWait {
			// The group's timer is zero or less: the kubelet moves on at once.
			end += ", no wait"
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%v\t%s\n", g.Priority, g.Seconds, g.Pods, g.Start, end)
	}
	tw.Flush()
	if len(plan.Pods) == 0 {
		fmt.Fprintln(w, "\nno pods to end")
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POD\tPRIORITY\tGROUP\tASKED\tSTART\tGRACE\tEND")
	for _, p := range plan.Pods {
		pod := p.Name
		if p.Namespace != "" {
			pod = p.Namespace + "/" + p.Name
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%ds\t%v\t%v\t%v\n", pod, p.Priority, p.Group, p.GracePeriodSeconds, p.Start, p.Grace, p.End)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nevery pod is gone by %v if each uses all of its grace\n", plan.End)
}

func printLogind(w io.Writer, r shutdown.LogindReport) {
	fmt.Fprintln(w)
	for _, n := range r.Before.Notes {
		fmt.Fprintf(w, "logind: %s\n", n)
	}
	fmt.Fprintf(w, "logind: InhibitDelayMaxSec is %v\n", r.Before)
	if r.Before.Infinite {
		fmt.Fprintf(w, "logind: the kubelet reads infinity as %v\n", r.Before.Value)
	}
	if r.KubeletWrites {
		fmt.Fprintf(w, "logind: the kubelet needs %v and writes /etc/systemd/logind.conf.d/%s\n", r.Requested, shutdown.KubeletDropIn)
		fmt.Fprintf(w, "logind: then InhibitDelayMaxSec is %v\n", r.After)
	}
	if !r.Conflict {
		fmt.Fprintf(w, "logind: the kubelet gets the %v it asks for\n", r.Requested)
	}
}
