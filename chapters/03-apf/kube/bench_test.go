package kube

import (
	"testing"
)

// BenchmarkClassify classifies a mix of requests against the default
// schemas; the classifications/s metric is what the chapter quotes.
func BenchmarkClassify(b *testing.B) {
	c := defaultConfig(b)
	sa := ServiceAccountUser("apf-lab", "runaway-operator")
	reqs := []Request{
		{User: "kubernetes-admin", Groups: []string{"system:masters", GroupAuthenticated}, Verb: "list", Resource: "pods", Namespace: "default"},
		{User: "system:node:pdb-1", Groups: []string{"system:nodes", GroupAuthenticated}, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease"},
		{User: sa, Groups: Impersonated(sa, nil), Verb: "list", Resource: "configmaps", Namespace: "apf-lab"},
		{User: "alice", Groups: []string{GroupAuthenticated}, Verb: "get", Resource: "pods", Namespace: "apf-lab"},
		{User: UserAnonymous, Groups: []string{GroupUnauthenticated}, Verb: "get", Path: "/version"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Classify(reqs[i%len(reqs)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "classifications/s")
}
