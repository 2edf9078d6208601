// Package track is chapter 2's build-along track: the steps in which a
// learner writes the taint model's heart, from Tolerates to the timetable,
// in the order the README explains them (make learn-chapter-2).
package track

import "github.com/opslab/opslab/internal/learn"

// Track is the chapter's steps.
var Track = learn.Track{Dir: "02-taints", Steps: []learn.Step{
	{
		ID: "tolerates", Title: "Does a toleration match a taint?", Section: "taints-and-tolerations",
		Funcs:  []string{"taint.go#Toleration.Tolerates"},
		Tests:  []string{"TestTolerates", "TestToleratesMatchesUpstream"},
		Oracle: "TestToleratesOracle",
		Hints: []string{
			"Compare the effect first: an empty effect in the toleration matches every effect.",
			"Then the key: an empty key matches every key. Then the operator: Exists ignores the value, Equal (or no operator) wants the same value.",
			"Lt, Gt and any other operator tolerate nothing while their feature gate is off.",
		},
	},
	{
		ID: "placeable", Title: "May the scheduler place the pod?", Section: "placement-reads-taints-with-the-same-matching",
		Funcs: []string{"schedule.go#Placeable", "eviction.go#firstTolerating"},
		Tests: []string{"TestPlaceable"},
		Hints: []string{
			"firstTolerating walks the tolerations in order and returns the first that Tolerates the taint.",
			"Placeable skips PreferNoSchedule taints and returns the first other taint nothing tolerates.",
		},
	},
	{
		ID: "min-toleration-time", Title: "How long may a pod stay?", Section: "when-a-pod-leaves",
		Funcs: []string{"eviction.go#MinTolerationTime", "eviction.go#minTolerationTime"},
		Tests: []string{"TestMinTolerationTimeUpstream"},
		Hints: []string{
			"An empty list means at once; a toleration without seconds does not bound the stay.",
			"Any seconds of zero or less mean at once; otherwise the smallest seconds decide. No seconds at all: never.",
		},
	},
	{
		ID: "evict", Title: "When does the pod leave?", Section: "when-a-pod-leaves",
		Funcs: []string{"eviction.go#Evict"},
		Tests: []string{"TestEvict", "TestEvictNamesUntoleratedTaint", "TestEvictUpstreamCases", "TestTimetableSoonestFirst",
			"TestOneRuleForPlacementAndEviction", "TestPlacedThenDeletedAtOnce", "TestEvictPodRefusesWhatTheServerRefuses", "TestEvictByFirstOfEqualSeconds"},
		Hints: []string{
			"Only NoExecute taints count. One that no toleration tolerates means at once, and the Verdict names it.",
			"Collect, for each NoExecute taint, the first toleration that tolerates it; no such taint at all means never.",
			"minTolerationTime over the used tolerations gives Leave and the index of the use that decided (By).",
		},
	},
	{
		ID: "timer", Title: "The controller's timer", Section: "the-clock-starts-when-the-controller-looks",
		Funcs: []string{"timer.go#Timer.Observe"},
		Tests: []string{"TestTimerStartsWhenObserved", "TestTimerCancelledWhenTaintGoesFirst", "TestTimerNotPushedLater",
			"TestTimerNotPulledEarlier", "TestTimerUntoleratedReplacesSchedule", "TestTimerForeverCancels",
			"TestTimerStartsAgainAfterRestart", "TestTainterSingleZoneStaggeredFailures"},
		Hints: []string{
			"Ask Evict. An untolerated taint arms the timer to fire now; Never disarms it.",
			"Otherwise fire at now + Leave.After, unless a timer is already armed: it keeps its first start, and a later trigger does not move it.",
		},
	},
	{
		ID: "admission", Title: "Who wrote the 300 seconds", Section: "who-wrote-the-300-seconds",
		Funcs: []string{"admission.go#AdmitDefaults", "admission.go#coversKeyNoExecute"},
		Tests: []string{"TestAdmitDefaults", "TestAdmitDefaultsOnUpdate", "TestDefaultPodLeavesAfterFiveMinutes",
			"TestOneNumberTwoIncidents"},
		Hints: []string{
			"The admission plugin adds not-ready and unreachable tolerations for seconds, each only when the pod has none covering that key for NoExecute.",
			"A toleration counts when its key is that key or empty and its effect NoExecute or empty; its operator, value and seconds do not matter.",
		},
	},
	{
		ID: "daemonset", Title: "DaemonSet pods outlast a failing node", Section: "daemonset-pods-outlast-a-failing-node",
		Funcs: []string{"daemonset.go#DaemonSetTolerations", "daemonset.go#addOrUpdate"},
		Tests: []string{"TestDaemonSetTolerations", "TestDaemonSetPodsOutlastNodeFailure",
			"TestDaemonSetPodWithEqualTolerationLeaves", "TestDaemonSetPodLeavesUnderOtherNoExecute"},
		Hints: []string{
			"The DaemonSet controller adds Exists tolerations without seconds for not-ready and unreachable (NoExecute), and more for NoSchedule.",
			"addOrUpdate replaces a toleration with the same key, operator, value and effect, or appends it.",
		},
	},
	{
		ID: "my-timetable", Title: "Your own timetable (lab step 7)", Section: "step-7-stretch-your-own-timetable",
		Funcs: []string{"lab/mytimetable/main.go#print", "lab/mytimetable/main.go#leaves", "lab/mytimetable/main.go#matches"},
		Tests: []string{"TestReferenceAnswerMatchesModel"},
		Hints: []string{
			"This is step 7 of the lab, written without the model: matches is Tolerates for one taint, leaves the rule of When a pod leaves for the first toleration that matches.",
			"print leaves out pods on no node, on another node than --node, or being deleted; it sorts by when they leave (never last), then by name.",
			"Then run it on your cluster, go run ./_learn/chapter-2/lab/mytimetable node.kubernetes.io/unreachable:NoExecute, and record it as the lab's step 7 says: the check compares it with the chapter's timetable of your pods.",
		},
	},
}}
