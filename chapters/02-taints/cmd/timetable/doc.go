// Timetable prints, for each pod of a namespace (or of YAML files) and a
// taint, the node the pod runs on, the toleration the taint eviction
// controller would use, and when the pod would leave: now, after N seconds,
// or never. Pods are listed soonest first.
//
// Usage:
//
//	timetable [-f FILE]... [--kubeconfig FILE] [--context NAME] [-n NAMESPACE] [--node NAME] [-o text|json|svg] TAINT...
//
// TAINT is written as kubectl taint writes it, key[=value]:Effect. Pods read
// from files go through the DefaultTolerationSeconds admission defaults
// first, as the API server would add them; a pod without spec.nodeName is
// assumed to run on the tainted node and is shown on node "-". It exits 2
// on a usage error and 1 on any other error. With -o svg it draws the
// timetable instead, one pod a row, as an SVG figure on standard output.
package main
