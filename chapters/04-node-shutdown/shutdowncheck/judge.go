package shutdowncheck

import (
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	shutdown "github.com/opslab/opslab/chapters/04-node-shutdown"
	"github.com/opslab/opslab/chapters/04-node-shutdown/graceful"
	"github.com/opslab/opslab/labcheck"
)

// What the lab asks of the graceful-shutdown configuration.
const (
	// DatabasePriority is the priority the lab gives the database's pods.
	DatabasePriority int32 = 100000
	// SystemNodeCritical is the priority of system-node-critical pods.
	SystemNodeCritical = graceful.CriticalPriority + 1000
	wantRegular        = 20 * time.Second
	wantDatabase       = 30 * time.Second
	wantCritical       = 10 * time.Second
)

// Slack allows for the pod GC's own work and the StatefulSet controller's
// reaction after a run; the evidence has one-second resolution.
const Slack = 5 * time.Second

// nodeLogind is logind's configuration on the lab's nodes: Debian's
// logind.conf with every line commented out, and unattended-upgrades' drop-in.
func nodeLogind() []graceful.LogindFile {
	return []graceful.LogindFile{
		{Layer: graceful.Etc, Name: "logind.conf", Content: "[Login]\n#InhibitDelayMaxSec=5\n"},
		{Layer: graceful.Lib, Name: "unattended-upgrades-logind-maxdelay.conf", Content: "[Login]\nInhibitDelayMaxSec=30\n"},
	}
}

// judgeConfig validates the kubelet-shutdown ConfigMap's data with the model:
// kubelet.yaml must be accepted, use priorities, give regular pods, the
// database and system-node-critical pods their time in that order, and fit
// logind's delay on the lab's nodes once the learner's drop-ins ("*.conf" keys)
// and masks ("masked", one name per line) are in place.
func judgeConfig(data map[string]string) labcheck.Result {
	raw, ok := data["kubelet.yaml"]
	if !ok {
		return labcheck.Failf("ConfigMap kubelet-shutdown has no key kubelet.yaml")
	}
	var kc kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict([]byte(raw), &kc); err != nil {
		return labcheck.Failf("kubelet.yaml is not a KubeletConfiguration: %v", err)
	}
	if kc.Kind != "KubeletConfiguration" || kc.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		return labcheck.Failf("kubelet.yaml has kind %q, apiVersion %q; want KubeletConfiguration, kubelet.config.k8s.io/v1beta1", kc.Kind, kc.APIVersion)
	}
	cfg, err := shutdown.Validate(&kc)
	if err != nil {
		return labcheck.Failf("the kubelet refuses kubelet.yaml: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if !cfg.Enabled {
		return labcheck.Failf("kubelet.yaml leaves graceful node shutdown off: both periods are 0 and there is no shutdownGracePeriodByPodPriority")
	}
	if !cfg.ByPriority {
		return labcheck.Failf("kubelet.yaml uses shutdownGracePeriod/shutdownGracePeriodCriticalPods; the lab asks for shutdownGracePeriodByPodPriority so the database ends after the application")
	}
	var r labcheck.Result
	type ask struct {
		who      string
		priority int32
		want     time.Duration
	}
	asks := []ask{{"regular pods", 0, wantRegular}, {"the database", DatabasePriority, wantDatabase}, {"system-node-critical pods", SystemNodeCritical, wantCritical}}
	var groups []graceful.Group
	for _, a := range asks {
		g, _ := cfg.GroupFor(a.priority)
		got := time.Duration(g.Seconds) * time.Second
		r.Seen("%s (priority %d) join the group of %d with %v", a.who, a.priority, g.Priority, got)
		if got < a.want {
			r.Message = fmt.Sprintf("%s (priority %d) get %v from the group of %d; the lab asks for at least %v", a.who, a.priority, got, g.Priority, a.want)
			return r
		}
		groups = append(groups, g)
	}
	// The database must outlive its clients and stop before the node's own
	// critical pods, so it needs a group of its own.
	if groups[0] == groups[1] {
		r.Message = "the database shares a group with regular pods; give it a group of its own so it ends after them"
		return r
	}
	if groups[1] == groups[2] {
		r.Message = "the database shares a group with system-node-critical pods; give it a group of its own so it ends before them"
		return r
	}
	files := nodeLogind()
	for key, value := range data {
		switch {
		case key == "masked":
			for _, name := range strings.Fields(value) {
				files = append(files, graceful.LogindFile{Layer: graceful.Etc, Name: name, Masked: true})
				r.Seen("/etc/systemd/logind.conf.d/%s is a link to /dev/null", name)
			}
		case strings.HasSuffix(key, ".conf"):
			files = append(files, graceful.LogindFile{Layer: graceful.Etc, Name: key, Content: value})
			r.Seen("/etc/systemd/logind.conf.d/%s added", key)
		}
	}
	lr := graceful.CheckLogind(files, cfg.Total())
	r.Seen("the kubelet asks logind for %v; logind allows %v", lr.Requested, lr.After)
	if lr.Conflict {
		r.Message = fmt.Sprintf("logind allows %v, less than the %v the kubelet needs: its shutdown manager would not start (%s)", lr.After.Value, lr.Requested, lr.After.From)
		return r
	}
	r.Pass = true
	r.Message = fmt.Sprintf("the kubelet accepts the configuration, each group gets its time, and logind allows the %v it needs", lr.Requested)
	return r
}

// history is what the cluster shows about db-0's move.
type history struct {
	// Old is the pod that ran on the powered-off node; OldNode where.
	OldUID, OldNode string
	// Taint is the out-of-service taint's arrival; TaintFrom says what showed it.
	TaintAt   time.Time
	TaintFrom string
	// NewCreated is the current db-0's creation; NewNode where it runs.
	NewUID     string
	NewCreated time.Time
	NewNode    string
}

// judgePodGC decides whether the old db-0 was removed by the pod GC. The pod GC
// leaves no event of its own; what tells it apart from a person's
// kubectl delete --force is timing: it only deletes once the node carries the
// taint, and it runs every 20 s.
func judgePodGC(h history) labcheck.Result {
	var r labcheck.Result
	if h.OldUID == "" {
		return labcheck.Failf("no earlier db-0 seen: power off the node db-0 runs on first (events last one hour)")
	}
	if h.NewUID == "" {
		return labcheck.Failf("db-0 has not come back yet")
	}
	r.Seen("old db-0 (uid %s) ran on %s", short(h.OldUID), h.OldNode)
	r.Seen("new db-0 (uid %s) created at %s on %s", short(h.NewUID), clock(h.NewCreated), h.NewNode)
	if h.TaintAt.IsZero() {
		r.Message = fmt.Sprintf("no out-of-service taint on %s: without it the pod GC never removes a Terminating pod, so db-0 was removed another way (kubectl delete --force, or the node came back)", h.OldNode)
		return r
	}
	r.Seen("out-of-service taint on %s at %s (%s)", h.OldNode, clock(h.TaintAt), h.TaintFrom)
	after := h.NewCreated.Sub(h.TaintAt)
	switch {
	case after < 0:
		r.Message = fmt.Sprintf("db-0 was recreated at %s, %v before the out-of-service taint: the old pod was force-deleted by hand (kubectl delete --force), which skips the pod GC's test that the node is really off", clock(h.NewCreated), -after)
	case after > shutdown.PodGCPeriod+Slack:
		r.Message = fmt.Sprintf("db-0 was recreated %v after the taint; the pod GC runs every %v, so something else removed the old pod", after, shutdown.PodGCPeriod)
	default:
		r.Pass = true
		r.Message = fmt.Sprintf("db-0 was recreated %v after the out-of-service taint, within one pod GC period (%v): the pod GC force-deleted the old pod", after, shutdown.PodGCPeriod)
	}
	return r
}

func short(uid string) string {
	if len(uid) > 8 {
		return uid[:8]
	}
	return uid
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05") }
