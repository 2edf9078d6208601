// Package track is chapter 1's build-along track: the steps in which a
// learner writes the disruption budget's arithmetic and the eviction
// subresource's answers, in the order the README explains them (make
// learn-chapter-1).
package track

import "github.com/opslab/opslab/internal/learn"

// Track is the chapter's steps.
var Track = learn.Track{Dir: "01-pdb", Steps: []learn.Step{
	{
		ID: "scaled", Title: "How many pods is 50%?", Section: "what-a-budget-counts",
		Funcs: []string{"intorpercent.go#IntOrPercent.Scaled"},
		// The chapter proves the rounding through whole scenarios, which
		// need the later steps; the oracle needs only Scaled.
		Tests: []string{"TestScaledOracle"},
		Hints: []string{
			"An integer stands for itself, whatever the total.",
			"A percentage of total is rounded up, computed in floating point as upstream does: math.Ceil.",
		},
	},
	{
		ID: "selector", Title: "Which pods does a budget protect?", Section: "what-a-budget-counts",
		Funcs: []string{"budget.go#Selector.Matches"},
		Tests: []string{"TestSelector"},
		Hints: []string{
			"A nil selector selects nothing; an empty one selects every pod.",
			"Every label of the selector must be on the pod with the same value.",
		},
	},
	{
		ID: "healthy", Title: "Who counts as healthy", Section: "what-a-budget-counts",
		Funcs: []string{"budget.go#disrupted", "budget.go#countHealthy"},
		Tests: []string{"TestDisruptedPodsExpireAfterTwoMinutes"},
		Hints: []string{
			"disrupted keeps the entries of pods that still exist, are not terminating, and were approved no more than DeletionTimeout ago.",
			"countHealthy counts pods that are Ready at now, not terminating, and not in disruptedPods within DeletionTimeout.",
		},
	},
	{
		ID: "status", Title: "The budget's status", Section: "what-a-budget-counts",
		Funcs: []string{"budget.go#expected", "budget.go#computeStatus"},
		Tests: []string{"TestStatus", "TestAutoscalerSkipsNodeUnderStrictBudget", "TestOverlappingBudgetsCreatedBeforeTheirPods"},
		Hints: []string{
			"expected: maxUnavailable and a percentage of minAvailable read the controllers' scales, each controller once (owner names a rollout's two ReplicaSets as their one Deployment); an integer minAvailable counts the pods that exist.",
			"desiredHealthy is expectedPods minus maxUnavailable scaled (never below 0), or minAvailable scaled.",
			"computeStatus: allowed is currentHealthy minus desiredHealthy, and 0 when that is negative or when expectedPods is 0.",
		},
	},
	{
		ID: "evict", Title: "The eviction subresource's answer", Section: "what-the-eviction-api-answers",
		Funcs: []string{"eviction.go#checkAndDecrement", "eviction.go#Eviction.decide"},
		Tests: []string{"TestEvictRefusedAtFloorThenAllowedOnceReplacementReady", "TestEvictForbidden",
			"TestEvictGenerationNotObserved", "TestEvictTrustsStatus", "TestEvictIgnoresBudgetsForPodsNotRunning", "TestKubectlPrintsTheMessageOnly",
			"TestEvictWithoutBudget", "TestEvictSeveralBudgets", "TestUnhealthyPodEvictionPolicy",
			"TestEvictUnreadyPodSkipsGenerationCheck", "TestEvictDryRunChangesNothing", "TestEvictUnknownPod",
			"TestConcurrentEvictionsConflict", "TestPercentRoundsUp", "TestSelectorDecidesWhatIsProtected",
			"TestMaxUnavailableFollowsReplicaCount", "TestDisruptedPodsHoldTheApproval",
			"TestOverlappingBudgetsKeepStaleStatus", "TestOverlappingBudgetsStaleStatusBreaksFloor",
			"TestStrictBudgetStillLetsSomeGo", "TestRolloutCountsAgainstBudget", "TestRemoversWithoutBudgetRemoveEveryReplica",
			"TestNodeFailureKeepsPodsUntilTaintEviction", "TestCrashGoesBelowFloor"},
		Hints: []string{
			"decide: a missing pod is 404; a terminating, pending, succeeded or failed pod is evicted without reading budgets. No budget: allowed; several: 500.",
			"A pod that is not Ready may go under AlwaysAllow, or when the budget is healthy. Then checkAndDecrement; unless dry run, write the status back, reading the budget again on a conflict.",
			"checkAndDecrement: 429 while the observed generation is behind or nothing is allowed; 403 for a negative allowance or too many disrupted pods; else one disruption fewer and the pod in DisruptedPods at now.",
		},
	},
	{
		ID: "drain", Title: "kubectl drain asks again", Section: "how-kubectl-drain-behaves",
		Funcs: []string{"drain.go#Cluster.drain"},
		Tests: []string{"TestDrainWaitsForReplacements", "TestDrainStallsWhenFloorEqualsReplicas", "TestLooserFloorLetsDrainFinish",
			"TestDrainFailsOnSeveralBudgets", "TestDrainNodesOneAfterAnother", "TestDrainPaceFollowsStartupTime",
			"TestBrokenReplicaBlocksDrains", "TestDrainCordonsTheNode", "TestAlwaysAllowFreesOnlyTheUnreadyPod"},
		Hints: []string{
			"Evict every pod on the node; allowed or already gone counts as evicted, 429 is retried, anything else fails the pod.",
			"Retry the refused ones every RetryDelay until none is left, the timeout passes, or nothing can change any more (stalled).",
		},
	},
}}
