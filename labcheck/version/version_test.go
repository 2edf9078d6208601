package version

import (
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestKubernetesIsThePinnedRelease: the Kubernetes version the course says
// it teaches (pins.env, which the lab scripts source too) is the one its Go
// code is built against (k8s.io/api in go.mod, whose v0.X.Y is Kubernetes
// v1.X.Y). A hand edit of either that forgets the other fails here.
func TestKubernetesIsThePinnedRelease(t *testing.T) {
	for _, name := range []string{"KUBE_VERSION", "ETCD_VERSION", "KWOK_VERSION"} {
		if v := Pin(name); !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(v) {
			t.Errorf("pins.env: %s=%s is not a release (vX.Y.Z)", name, v)
		}
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+k8s.io/api (v0\.\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no k8s.io/api v0.X.Y")
	}
	if got := strings.Replace(string(m[1]), "v0.", "v1.", 1); got != Kubernetes {
		t.Errorf("go.mod requires k8s.io/api %s (Kubernetes %s), but version.Kubernetes is %s", m[1], got, Kubernetes)
	}
}

// TestString: the version line says the course's version and the Kubernetes
// version it teaches, and then where the binary came from, as far as the
// binary knows it.
func TestString(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "7d893b5abcdef0123456789abcdef0123456789a"
	tests := []struct {
		name        string
		bi          *debug.BuildInfo
		want, short string
		reason      string
	}{
		{
			name: "built in a checkout", bi: &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.0.0-20261201195656-7d893b5abcde"}, Settings: vcs(rev, "false")},
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + "; built from commit 7d893b5abcde)",
			short:  Course + " (commit 7d893b5abcde)",
			reason: "the commit names the source exactly; the pseudo-version the go command made from it adds nothing",
		},
		{
			name: "built in a checkout with changes", bi: &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.1.1-0.20261201195656-7d893b5abcde+dirty"}, Settings: vcs(rev, "true")},
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + "; built from commit 7d893b5abcde, with local changes)",
			short:  Course + " (commit 7d893b5abcde, with local changes)",
			reason: "a commit is not the whole source when the checkout had changes",
		},
		{
			name: "go install'ed", bi: &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.1.0"}},
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + "; built from module version v0.1.0)",
			short:  Course + " (module version v0.1.0)",
			reason: "go install records the module's version, and no VCS settings",
		},
		{
			name: "go install'ed at a commit", bi: &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.0.0-20261201205449-fc6752d25998"}},
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + "; built from commit fc6752d25998)",
			short:  Course + " (commit fc6752d25998)",
			reason: "go install module@commit records no VCS settings, but its pseudo-version ends with the commit",
		},
		{
			name: "a test binary", bi: &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}},
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + ")",
			short:  Course,
			reason: "nothing more is known than what the source says",
		},
		{
			name: "no build information", bi: nil,
			want:   "opslab " + Course + " (teaches Kubernetes " + Kubernetes + ")",
			short:  Course,
			reason: "a binary built without modules still knows the constants",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := FromBuildInfo(tt.bi)
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if got := b.Short(); got != tt.short {
				t.Errorf("Short() = %q, want %q (%s)", got, tt.short, tt.reason)
			}
		})
	}
}

// TestCourseIsASemanticVersion: the course's version is a tag a go install
// can name.
func TestCourseIsASemanticVersion(t *testing.T) {
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(Course) {
		t.Errorf("Course = %q, want vMAJOR.MINOR.PATCH", Course)
	}
}
