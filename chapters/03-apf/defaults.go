package apf

// DefaultLevels returns the priority levels a new API server creates, the
// mandatory and suggested PriorityLevelConfigurations of
// k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap (default.go), in name
// order. None has a borrowing limit. TestDefaultLevelsAreBootstrap in
// package kube compares them with upstream's objects field by field.
func DefaultLevels() []Level {
	return []Level{
		{Name: "catch-all", Shares: 5, LendablePercent: 0},
		{Name: "exempt", Exempt: true, Shares: 0, LendablePercent: 0},
		{Name: "global-default", Shares: 20, LendablePercent: 50, Queuing: &Queuing{Queues: 128, HandSize: 6, QueueLengthLimit: 50}},
		{Name: "leader-election", Shares: 10, LendablePercent: 0, Queuing: &Queuing{Queues: 16, HandSize: 4, QueueLengthLimit: 50}},
		{Name: "node-high", Shares: 40, LendablePercent: 25, Queuing: &Queuing{Queues: 64, HandSize: 6, QueueLengthLimit: 50}},
		{Name: "system", Shares: 30, LendablePercent: 33, Queuing: &Queuing{Queues: 64, HandSize: 6, QueueLengthLimit: 50}},
		{Name: "workload-high", Shares: 40, LendablePercent: 50, Queuing: &Queuing{Queues: 128, HandSize: 6, QueueLengthLimit: 50}},
		{Name: "workload-low", Shares: 100, LendablePercent: 90, Queuing: &Queuing{Queues: 128, HandSize: 6, QueueLengthLimit: 50}},
	}
}
