// Package upstream compares chapter 4's model (package shutdown and its API
// side, package kube) with the kubelet's own code, Kubernetes v1.37.2. It is
// a module of its own so that k8s.io/kubernetes and its replace block never
// reach the course's module.
//
// Its tests call the kubelet's functions directly: the exported ones
// (ValidateKubeletConfiguration, the feature gates, NewManager, the logind
// reader CurrentInhibitDelay) by import, and the unexported ones of package
// nodeshutdown (groupByPriority, migrateConfig, newPodManager, the pod
// manager's periodRequested and killPods, and the D-Bus connection the
// manager starts with) by //go:linkname, so that what is compared is the
// kubelet's code and not a copy of it. A release that renames one of them
// fails to link, which is the point: the comparison must then be looked at
// again.
//
//   - TestKubeletTables replays the inputs of the kubelet's own unit-test
//     tables (Test_migrateConfig, Test_groupByPriority, TestManager, the
//     shutdown cases of TestValidateKubeletConfiguration) on both sides.
//   - TestDifferential generates random configurations, feature gates, pods
//     and logind files from a seed, compares every answer, shrinks a mismatch
//     to a minimal case and writes it to testdata/differential/ as a replay
//     file; TestDifferentialReplay runs every replay file there.
//
// The seed and the number of cases come from OPSLAB_DIFF_SEED (unset: a fixed
// seed; "random": a new one, printed) and OPSLAB_DIFF_CASES.
//
// Run it from this directory: go test ./...
package upstream
