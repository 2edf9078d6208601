package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
)

// A gateSpec is a feature gate's setting from one release on.
type gateSpec struct {
	Minor      int // 36 for "1.36"
	Default    bool
	PreRelease string // Alpha, Beta, GA, Deprecated
	Locked     bool
}

// readGates reads the versioned feature gates that a kube_features.go
// declares (defaultVersionedKubernetesFeatureGates), by gate name, each with
// its specs in the order written.
func readGates(path string) (map[string][]gateSpec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		return nil, err
	}
	// The gates' names: const X featuregate.Feature = "X".
	names := map[string]string{}
	gates := map[string][]gateSpec{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					names[vs.Names[0].Name] = s
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "defaultVersionedKubernetesFeatureGates" || len(vs.Values) != 1 {
			return true
		}
		m, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		for _, e := range m.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			var key string
			switch k := kv.Key.(type) {
			case *ast.Ident:
				key = k.Name
			case *ast.SelectorExpr:
				key = k.Sel.Name
			}
			name := names[key]
			if name == "" {
				name = key
			}
			list, ok := kv.Value.(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, el := range list.Elts {
				spec, ok := el.(*ast.CompositeLit)
				if !ok {
					continue
				}
				gates[name] = append(gates[name], readSpec(spec))
			}
		}
		return false
	})
	if len(gates) == 0 {
		return nil, fmt.Errorf("%s declares no defaultVersionedKubernetesFeatureGates", path)
	}
	return gates, nil
}

func readSpec(spec *ast.CompositeLit) gateSpec {
	var g gateSpec
	for _, el := range spec.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		field, _ := kv.Key.(*ast.Ident)
		if field == nil {
			continue
		}
		switch field.Name {
		case "Version": // version.MustParse("1.36")
			if call, ok := kv.Value.(*ast.CallExpr); ok && len(call.Args) == 1 {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					g.Minor = minorOf(s)
				}
			}
		case "Default":
			if id, ok := kv.Value.(*ast.Ident); ok {
				g.Default = id.Name == "true"
			}
		case "PreRelease":
			if sel, ok := kv.Value.(*ast.SelectorExpr); ok {
				g.PreRelease = sel.Sel.Name
			}
		case "LockToDefault":
			if id, ok := kv.Value.(*ast.Ident); ok {
				g.Locked = id.Name == "true"
			}
		}
	}
	return g
}

// minorOf returns 36 for "1.36", "v1.36.3" or "v0.36.3", and -1 for
// anything else.
func minorOf(v string) int {
	v = strings.TrimPrefix(v, "v")
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return -1
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return -1
	}
	return n
}

// stageAt is the gate's setting in the release of the given minor: the last
// spec from that release or before, "absent" when it had none yet or the
// gate is gone.
func stageAt(specs []gateSpec, minor int) string {
	var cur *gateSpec
	for i := range specs {
		if specs[i].Minor <= minor {
			cur = &specs[i]
		}
	}
	if cur == nil {
		return "absent"
	}
	s := strings.ToLower(cur.PreRelease)
	if cur.Default {
		s += ", on by default"
	} else {
		s += ", off by default"
	}
	if cur.Locked {
		s += ", locked"
	}
	return s
}
