// Package track is chapter 4's build-along track: the steps in which a
// learner writes the kubelet's shutdown plan, its configuration's rules and
// logind's delay, in the order the README explains them (make
// learn-chapter-4).
//
// Its upstream oracle, the kubelet's groupByPriority, lives in k8s.io/kubernetes,
// which only the chapter's nested upstream module imports; the steps are
// checked by the chapter's own tests, which replay the kubelet's test tables.
package track

import "github.com/opslab/opslab/internal/learn"

// Track is the chapter's steps.
var Track = learn.Track{Dir: "04-node-shutdown", Steps: []learn.Step{
	{
		ID: "validate", Title: "What the kubelet refuses", Section: "what-the-kubelet-refuses",
		Funcs: []string{"config.go#Validate", "config.go#migrateConfig"},
		Tests: []string{"TestValidateBothZeroIsOff", "TestValidateTwoValues", "TestValidateCriticalAboveTotalRefused",
			"TestValidateRefusals", "TestValidateFeatureGates", "TestValidateAcceptsWhatTheKubeletAccepts", "TestValidatePriorityTableSorted"},
		Hints: []string{
			"Two numbers (total, critical) become two groups: the critical pods' and everyone else's, migrateConfig.",
			"Refuse what the kubelet refuses: the doc comment of Validate lists it, and the feature gates decide whether shutdown runs at all.",
		},
	},
	{
		ID: "group-by-priority", Title: "Which group takes a pod?", Section: "shutdown-by-pod-priority",
		Funcs: []string{"plan.go#groupByPriority"},
		Tests: []string{"TestGroupByPriorityUpstream", "TestGroupByPriorityJoinsHighestAtOrBelow", "TestGroupByPriorityRepeatedPriority"},
		Hints: []string{
			"A pod joins the group with the largest priority at or below its own; a pod below every group joins the lowest.",
			"Use sort.Search for the first group whose priority is >= the pod's, as the kubelet does: past the end means the highest group, and a group above the pod means the one before it.",
		},
	},
	{
		ID: "group-for", Title: "One pod's group", Section: "shutdown-by-pod-priority",
		Funcs: []string{"plan.go#Config.GroupFor"},
		Tests: []string{"TestGroupFor"},
		Hints: []string{
			"Graceful shutdown off, or no group: false.",
			"Otherwise the same rule as groupByPriority, for one priority.",
		},
	},
	{
		ID: "plan", Title: "The shutdown's timeline", Section: "what-the-kubelet-does",
		Funcs: []string{"plan.go#NewPlan"},
		Tests: []string{"TestPlanTwoPhases", "TestPlanGraceIsSmallerOfGroupAndPod", "TestPlanNegativeSeconds",
			"TestPlanComparesSeconds", "TestPlanSkipsEmptyGroups", "TestPlanGroupEndsWhenPodsGone", "TestPlanOff"},
		Hints: []string{
			"Groups run one after another in ascending priority; a group without pods is skipped and takes no time.",
			"A pod's grace is its group's seconds, or its own terminationGracePeriodSeconds when smaller or equal, and at least two seconds (the runtime's floor).",
			"A group ends when its longest pod is done or its seconds pass, whichever is first; seconds of zero or less mean the next group starts at once.",
		},
	},
	{
		ID: "logind", Title: "Which logind file wins", Section: "when-logind-says-no",
		Funcs: []string{"logind.go#EffectiveInhibitDelay"},
		Tests: []string{"TestEffectiveInhibitDelay", "TestCheckLogindUnattendedUpgrades", "TestCheckLogindInfinity", "TestCheckLogindLongDelays"},
		Hints: []string{
			"The main file is the first logind.conf by layer; drop-ins are the *.conf files, a name in a higher layer hiding the same name below.",
			"Read the main file, then the drop-ins in lexical order of their names whatever their layer; the last assignment wins; a masked file is skipped.",
		},
	},
	{
		ID: "unplanned", Title: "The unplanned end", Section: "the-unplanned-end",
		Funcs: []string{"unplanned.go#Simulate"},
		Tests: []string{"TestUnplannedStaysTerminatingWithoutTaint", "TestUnplannedOutOfServiceNeedsNotReady",
			"TestUnplannedPodGCWithinOnePeriod", "TestUnplannedVolumeDetach", "TestUnplannedDetachWhileTerminating",
			"TestUnplannedOrphanedPodGC", "TestUnplannedUntilIsInclusive"},
		Hints: []string{
			"Without the out-of-service taint, a pod on a dead node stays Terminating: nobody confirms it is gone.",
			"Read Scenario's fields and Outcome's moments: each controller acts at the first moment its own conditions hold.",
		},
	},
}}
