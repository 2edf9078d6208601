package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"sigs.k8s.io/yaml"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"apfctl": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the scenarios in testdata. Each starts with defaults.yaml,
// the mandatory and suggested objects of a new API server (from
// k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap), and the lab's
// manifests under lab/.
func TestScript(t *testing.T) {
	defaults := defaultsYAML(t)
	labFiles, err := filepath.Glob("../../lab/*.yaml")
	if err != nil || len(labFiles) == 0 {
		t.Fatalf("lab manifests: %v (found %d)", err, len(labFiles))
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			if err := os.WriteFile(filepath.Join(env.WorkDir, "defaults.yaml"), defaults, 0o644); err != nil {
				return err
			}
			os.Mkdir(filepath.Join(env.WorkDir, "lab"), 0o755)
			for _, f := range labFiles {
				b, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, "lab", filepath.Base(f)), b, 0o644); err != nil {
					return err
				}
			}
			// No cluster unless a scenario names one.
			env.Setenv("KUBECONFIG", filepath.Join(env.WorkDir, "no-kubeconfig"))
			return nil
		},
	})
}

func defaultsYAML(t *testing.T) []byte {
	var out []byte
	add := func(obj any) {
		b, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, "---\n"...)
		out = append(out, b...)
	}
	for _, list := range [][]*flowcontrol.PriorityLevelConfiguration{bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations} {
		for _, pl := range list {
			pl := pl.DeepCopy()
			pl.APIVersion, pl.Kind = flowcontrol.SchemeGroupVersion.String(), "PriorityLevelConfiguration"
			add(pl)
		}
	}
	for _, list := range [][]*flowcontrol.FlowSchema{bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas} {
		for _, fs := range list {
			fs := fs.DeepCopy()
			fs.APIVersion, fs.Kind = flowcontrol.SchemeGroupVersion.String(), "FlowSchema"
			add(fs)
		}
	}
	return out
}
