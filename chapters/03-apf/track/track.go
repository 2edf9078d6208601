// Package track is chapter 3's build-along track: the steps in which a
// learner writes API Priority and Fairness's shuffle sharding, its seats
// and its wait limit, in the order the README explains them (make
// learn-chapter-3).
package track

import "github.com/opslab/opslab/internal/learn"

// Track is the chapter's steps.
var Track = learn.Track{Dir: "03-apf", Steps: []learn.Step{
	{
		ID: "dealer", Title: "Dealing a hand", Section: "dealing-a-hand",
		Funcs:  []string{"shard.go#NewDealer", "shard.go#Dealer.Deal"},
		Tests:  []string{"TestDealerRefusesWhatUpstreamRefuses", "TestDealDistinctCards", "TestDealerMatchesUpstream", "TestSimulateRefusesBadLevels"},
		Oracle: "TestDealOracle",
		Hints: []string{
			"NewDealer refuses sizes that are not positive, a hand above the deck, a deck above 2^26, and ceil(log2(deck) × hand) above 60 bits.",
			"Deal reads the hash as a mixed-radix number: digit i, in base deck−i, picks the i-th card among those not yet dealt.",
			"Turn each pick into a card number by walking back over the earlier picks and stepping over every card already taken.",
		},
	},
	{
		ID: "flow-hash", Title: "The flow's hash", Section: "queues-and-shuffle-sharding",
		Funcs:  []string{"shard.go#FlowHash"},
		Tests:  []string{"TestFlowHashMatchesUpstream"},
		Oracle: "TestFlowHashOracle",
		Hints: []string{
			"sha256 of the schema's name, one zero byte, and the distinguisher.",
			"The first 8 bytes of the sum, read little endian (encoding/binary).",
		},
	},
	{
		ID: "choose-queue", Title: "Choosing a queue", Section: "choosing-a-queue",
		Funcs: []string{"shard.go#ChooseQueue"},
		Tests: []string{"TestChooseQueue", "TestRunawayContained", "TestRunawayFillsItsHandExactly", "TestFasterRunawayOnlyMore429s", "TestRefusedRequestsMoveTheOffset", "TestWideHeadKeepsItsTurn"},
		Hints: []string{
			"Visit the hand from position placed mod len(hand), wrapping around.",
			"Keep the queue with the least waiting work; between equals, the first visited wins (compare with <, not <=).",
		},
	},
	{
		ID: "collisions", Title: "Elephants and mice", Section: "elephants-and-mice",
		Funcs: []string{"collision.go#CollisionProbability", "collision.go#CountCollisions"},
		Tests: []string{"TestCollisionProbabilityOneElephant", "TestCollisionExperimentMatchesProbability", "TestSimulatedMiceCollideAsPredicted"},
		Hints: []string{
			"A mouse is hurt when every card of its hand is in the elephants' queues; with one elephant, that is 1 / C(deck, hand).",
			"CountCollisions deals hands from a seeded generator and counts the mice whose whole hand the elephants cover.",
		},
	},
	{
		ID: "work", Title: "What a request costs", Section: "what-a-request-costs",
		Funcs: []string{"work.go#MaxSeats", "work.go#capSeats", "work.go#ListSeats", "work.go#MutatingSeats"},
		Tests: []string{"TestMaxSeats", "TestListSeats", "TestMutatingSeats", "TestWorkEstimateMatchesUpstream", "TestWriteHoldsItsWidestSeatsThroughout"},
		Hints: []string{
			"MaxSeats: max(1, min(ceil(0.15 × nominal), nominal / handSize)), with an integer division; 0 for a level without queues.",
			"ListSeats and MutatingSeats read their doc comments: the estimator's constants are at the top of work.go, and capSeats picks the level's cap or the estimator's.",
		},
	},
	{
		ID: "wait-limit", Title: "How long a request may queue", Section: "what-the-server-tells-you",
		Funcs: []string{"work.go#QueueWaitLimit"},
		Tests: []string{"TestQueueWaitLimit"},
		Hints: []string{
			"A quarter of the remaining deadline, or the default without one.",
			"Never more than a minute.",
		},
	},
	{
		ID: "watch-exempt", Title: "A watcher for the exempt list: the lab's program", Section: "step-7-a-watcher-for-the-exempt-list",
		Funcs: []string{"lab/watchexempt/watchexempt.go#Watch", "lab/watchexempt/watchexempt.go#pointsAtExempt"},
		Tests: []string{"TestWatcherMatchesModel"},
		Hints: []string{
			"This is step 7 of the lab. List the FlowSchemas, print \"exempt NAME\" for each that points at the level exempt, sorted by name, then watch from the list's resourceVersion.",
			"Keep the set of names you printed. On each event a schema is exempt when it was not deleted and names the level exempt; print \"+ NAME\" or \"- NAME\" only when that differs from the set.",
			"To see it on your cluster, call it from a main of your own as chapters/03-apf/cmd/watch-exempt calls the reference, and set its first lines beside apfctl exempt.",
		},
	},
}}
