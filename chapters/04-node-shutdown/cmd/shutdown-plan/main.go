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
//	              [--logind-dir DIR [--logind-vendor-dir DIR]] [-o text|svg]
//
// -f reads pods from YAML or JSON files (a Pod, a List of them, or several
// documents); otherwise the pods on --node are read from the cluster. A file
// named - is standard input, for -f or for --config. --logind-dir is a
// directory laid out like /etc/systemd (logind.conf and logind.conf.d/), where
// a drop-in that is a link to /dev/null is masked; --logind-vendor-dir is laid
// out like /usr/lib/systemd. With -o svg it draws the plan instead, as an SVG
// Gantt chart of the groups and their pods, against what the kubelet asks
// logind for and, with --logind-dir, what logind grants.
//
// Exit status: 0 with a timeline, 1 when the configuration is refused, logind
// would cut the kubelet short, or an input cannot be read, 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/kube"
	"github.com/opslab/opslab/internal/cmdshell"
	"github.com/opslab/opslab/internal/kubeio"
)

const name = "shutdown-plan"

const usage = `usage: shutdown-plan --config kubelet.yaml (-f pods.yaml ... | [--kubeconfig FILE] [--context NAME] [-n NAMESPACE] --node NODE)
                     [--logind-dir DIR [--logind-vendor-dir DIR]] [-o text|svg]

Shutdown-plan prints the timeline of a node's graceful shutdown under a
kubelet configuration, or refuses the configuration with the kubelet's
reason (go doc ./chapters/04-node-shutdown/cmd/shutdown-plan). A file
named - is standard input.

`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command and returns its exit status: 0 with a timeline, 1
// when the configuration is refused, logind would cut the kubelet short or
// an input cannot be read, 2 on a usage error; each error is one line on
// stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdshell.Exit(name, plan(args, stdin, stdout, stderr), stderr)
}

// plan reads the configuration, the pods and logind's files args name and
// prints the shutdown's timeline. It writes stderr itself only for a
// refusal with several reasons, one line each.
func plan(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		config, kubeconfig, context, namespace, node string
		logindDir, vendorDir                         string
		podFiles                                     cmdshell.Strings
		output                                       string
	)
	fs.StringVar(&config, "config", "", "kubelet configuration `file` (KubeletConfiguration, kubelet.config.k8s.io/v1beta1)")
	fs.Var(&podFiles, "f", "pods from a YAML `file` (repeatable)")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig `file` (default $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&context, "context", "", "kubeconfig `context`")
	fs.StringVar(&namespace, "n", "", "only pods of this `namespace` (default all)")
	fs.StringVar(&node, "node", "", "the `node` whose pods are planned")
	fs.StringVar(&logindDir, "logind-dir", "", "`dir` laid out like /etc/systemd: logind.conf and logind.conf.d/")
	fs.StringVar(&vendorDir, "logind-vendor-dir", "", "`dir` laid out like /usr/lib/systemd")
	fs.StringVar(&output, "o", "text", "output `format`: text, or svg to draw the plan as a Gantt chart against logind's delay")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return cmdshell.Usagef("%v: see shutdown-plan -h", err)
	}
	switch {
	case fs.NArg() > 0:
		return cmdshell.Usagef("unexpected argument %q: see shutdown-plan -h", fs.Arg(0))
	case config == "":
		return cmdshell.Usagef("--config is required")
	case len(podFiles) == 0 && node == "":
		return cmdshell.Usagef("give pods with -f FILE or a node with --node NODE")
	case vendorDir != "" && logindDir == "":
		return cmdshell.Usagef("--logind-vendor-dir needs --logind-dir")
	case config == "-" && slices.Contains(podFiles, "-"):
		return cmdshell.Usagef("standard input can hold the configuration or the pods, not both")
	case output != "text" && output != "svg":
		return cmdshell.Usagef("-o %s: want text or svg", output)
	}

	kc, err := readKubeletConfig(config, stdin)
	if err != nil {
		return err
	}
	cfg, err := kube.Validate(kc)
	if err != nil {
		// One line for each reason the kubelet gives.
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "%s: the kubelet refuses %s: %s\n", name, config, line)
		}
		return cmdshell.Silent(1)
	}

	var pods []*corev1.Pod
	if len(podFiles) > 0 {
		pods, err = readPodFiles(podFiles, stdin)
	} else {
		pods, err = readClusterPods(kubeconfig, context, namespace, node)
	}
	if err != nil {
		return err
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
			return err
		}
	}

	p, err := kube.NewPlan(cfg, pods)
	if err != nil {
		return err
	}
	var r *shutdown.LogindReport
	if logindDir != "" && cfg.Enabled {
		rep := shutdown.CheckLogind(logind, cfg.Total())
		r = &rep
	}
	if output == "svg" {
		if _, err := stdout.Write(drawPlan(cfg, p, r)); err != nil {
			return err
		}
	} else {
		printPlan(stdout, cfg, p)
	}
	if logindDir == "" {
		return nil
	}
	if !cfg.Enabled {
		// Without a shutdown manager the kubelet never looks at logind.
		if output == "text" {
			fmt.Fprintln(stdout, "\nlogind: the kubelet asks for nothing: graceful shutdown is off")
		}
		return nil
	}
	if output == "text" {
		printLogind(stdout, *r)
	}
	if r.Conflict {
		if r.After.Infinite {
			return fmt.Errorf("logind's InhibitDelayMaxSec is infinity, which the kubelet reads as %v, less than the %v it asks for: its node shutdown manager will not start and the node will shut down without ending its pods; remove infinity from %s",
				r.After.Value, r.Requested, r.After.From)
		}
		return fmt.Errorf("logind allows %v, less than the %v the kubelet asks for: its node shutdown manager will not start and the node will shut down without ending its pods; mask or raise %s",
			r.After.Value, r.Requested, r.After.From)
	}
	return nil
}

// readKubeletConfig reads the one KubeletConfiguration in the file path
// ("-" is stdin), refusing fields it does not have.
func readKubeletConfig(path string, stdin io.Reader) (*kubeletv1beta1.KubeletConfiguration, error) {
	docs, err := kubeio.ReadFiles([]string{path}, stdin)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s holds %d objects; want one KubeletConfiguration", path, len(docs))
	}
	d := docs[0]
	if d.Kind != "KubeletConfiguration" || d.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		return nil, fmt.Errorf("%s is not a KubeletConfiguration: it has kind %s, apiVersion %q; want KubeletConfiguration, kubelet.config.k8s.io/v1beta1", d.Source, d.Kind, d.APIVersion)
	}
	var kc kubeletv1beta1.KubeletConfiguration
	if err := d.Decode(&kc); err != nil {
		return nil, err
	}
	return &kc, nil
}

// readPodFiles reads the pods of the files ("-" is stdin): Pods, Lists and
// PodLists, several documents to a file.
func readPodFiles(names []string, stdin io.Reader) ([]*corev1.Pod, error) {
	docs, err := kubeio.ReadFiles(names, stdin)
	if err != nil {
		return nil, err
	}
	list, err := kubeio.Pods(docs)
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, len(list))
	for i := range list {
		pods[i] = &list[i]
	}
	return pods, nil
}

// readClusterPods reads the pods bound to node (in namespace, or in every
// namespace when it is "").
func readClusterPods(kubeconfig, kubeContext, namespace, node string) ([]*corev1.Pod, error) {
	c, err := kubeio.Connect(kubeconfig, kubeContext)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubeio.Timeout)
	defer cancel()
	if _, err := c.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		return nil, fmt.Errorf("cannot read node %q: %v", node, err)
	}
	list, err := c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, fmt.Errorf("cannot list pods on %s: %v", node, err)
	}
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	return pods, nil
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
