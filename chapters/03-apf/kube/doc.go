// Package kube is the side of chapter 3's model of API Priority and
// Fairness (https://kubernetes.io/docs/concepts/cluster-administration/flow-control/)
// that speaks the Kubernetes API: it classifies requests on the FlowSchema
// and PriorityLevelConfiguration objects of k8s.io/api/flowcontrol/v1, reads
// those objects from a cluster or from files, and asks a live API server
// where it put a request. The arithmetic and the queuing below
// classification live in the chapter's model, on plain numbers (see "The
// core" below).
//
// # Classification
//
// [NewConfig] digests FlowSchema and PriorityLevelConfiguration objects of
// k8s.io/api/flowcontrol/v1 the way apf_controller.go in
// k8s.io/apiserver/pkg/util/flowcontrol does: a level whose spec is broken is
// treated as absent; a schema naming an absent level dangles and takes no
// part in matching; the mandatory exempt and catch-all objects are supplied
// when missing; the schemas are sorted by matchingPrecedence and then by
// name. [Config.Classify] walks them and stops at the first schema with a
// rule whose subjects and resource or non-resource rules match the request
// (rule.go upstream), then computes the flow distinguisher.
//
// # Requests
//
// [ParseRequest] reads a request from its method and path as the API
// server's RequestInfoFactory does (a Namespace fetched by name is in its
// own namespace), and [Impersonated] gives the groups impersonation adds.
//
// # The ensurer
//
// [Ensure] says what kube-apiserver's configuration ensurer does, once a
// minute, to a default object or to one carrying the annotation
// apf.kubernetes.io/autoupdate-spec.
//
// # Seats
//
// [Config.Seats] reads each level's shares, lendable percent and borrowing
// limit percent from its spec and divides the server's concurrency limit
// among the levels with [apf.Seats], as finishQueueSetReconfigsLocked
// does.
//
// # A cluster and files
//
// [Load] lists a cluster's FlowSchemas and PriorityLevelConfigurations, and
// [ReadFiles] reads them from YAML or JSON files (the course's manifest
// reader, package kubeio, splits and decodes them; [Decode] gives them the
// server's defaults and validation). [NominalSeats] reads the seats the server reports in
// apiserver_flowcontrol_nominal_limit_seats. [Send] sends a request as its
// user, by impersonation, and returns the schema and level the server chose
// for it, which it reports in the response headers
// X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID;
// [Seen] is the request the server reads from the request line Send sends.
//
// # The core
//
// Everything after classification works on plain numbers and lives in
// package apf, the chapter's model, which imports nothing from Kubernetes:
// the seat arithmetic, shuffle sharding (the flow hash, the dealer, the
// choice of a queue), the simulation of one priority level and the
// collision probability. This package uses it for the flow hash and for
// checking a level's queues, and its tests check apf's table of default
// levels against upstream's bootstrap objects.
package kube
