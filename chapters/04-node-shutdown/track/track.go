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
		ID: "unplanned", Title: "A dead node's pod", Section: "the-unplanned-end",
		Funcs: []string{"unplanned.go#Simulate", "unplanned.go#world.apply", "unplanned.go#world.unneeded", "unplanned.go#world.remove"},
		Tests: []string{"TestUnplannedStaysTerminatingWithoutTaint"},
		Hints: []string{
			"Simulate walks a clock in steps of ReconcilerPeriod, up to and including Until; at each step it applies the events that are due, then lets the kubelet and the controllers act.",
			"Only a Ready node's kubelet finishes a deletion, once the pod's grace period is over; on a dead node the pod stays Terminating. Leave podGC and detach for the next steps.",
		},
	},
	{
		ID: "pod-gc", Title: "The pod garbage collector", Section: "the-out-of-service-taint",
		Funcs: []string{"unplanned.go#world.podGC"},
		Tests: []string{"TestUnplannedOutOfServiceNeedsNotReady", "TestUnplannedPodGCWithinOnePeriod", "TestUnplannedUntilIsInclusive"},
		Hints: []string{
			"A Terminating pod goes only when its node is not Ready and carries the out-of-service taint, both at the moment of the run.",
			"A Node object that is gone: note the first run that misses it, and remove the pod on the first run at least OrphanQuarantine later.",
		},
	},
	{
		ID: "detach", Title: "The attach/detach controller", Section: "other-ways-out",
		Funcs: []string{"unplanned.go#world.detach"},
		Tests: []string{"TestUnplannedVolumeDetach", "TestUnplannedDetachWhileTerminating", "TestUnplannedOrphanedPodGC"},
		Hints: []string{
			"A volume no pod needs is detached the normal way from a Ready node, at once under the out-of-service taint.",
			"Otherwise it waits more than MaxWaitForUnmount from the moment it stopped being needed, unless force detach on timeout is disabled.",
		},
	},
}}
