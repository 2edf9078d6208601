// Pdbsim plays a scenario on chapter 1's model of PodDisruptionBudgets and
// prints what happened, one line per event, each stamped with the logical
// clock: every eviction asked and its answer, every pod created, Ready,
// crashed or deleted, and how each drain ended:
//
//	t=0s evict ledger-1 on pdb-1: allowed (budget ledger allowed 1 disruption, 0 left)
//	t=0s ledger-5 created on pdb-1, Ready at t=15s
//
// Usage:
//
//	pdbsim [-svg FILE] SCENARIO
//
// SCENARIO is a file, or - for standard input. With -svg, pdbsim also draws
// the run into FILE: for each budget, its Ready pods and its floor over
// time, and under them every eviction asked, allowed or refused. pdbsim exits 2 on a usage
// error and 1 when the scenario cannot be read or played, naming the line.
//
// # Scenarios
//
// A scenario is a text file, one statement a line; # starts a comment.
// Words after the statement's arguments come in pairs, a key and its value.
// Setting up:
//
//	node NAME...                           schedulable nodes
//	deployment NAME replicas N [ready-after D] [labels K=V,...]
//	                                       its first pods are Ready at once;
//	                                       later ones D after they are placed
//	budget NAME selector SEL (min-available V | max-unavailable V) [policy P]
//	                                       SEL is K=V,..., {} (every pod) or
//	                                       none (no selector); V is 2 or 50%;
//	                                       P is IfHealthyBudget or AlwaysAllow
//	pod NAME [node N] [phase P] [labels K=V,...] [terminating yes]
//	                                       a pod no controller owns
//
// Acting, at the current time:
//
//	evict POD                              ask the eviction subresource
//	dry-run POD                            the same with dryRun: All
//	race POD POD...                        evictions whose requests all read the
//	                                       budget before any writes, then write
//	                                       in the order given
//	crash POD                              its container crashes; the kubelet
//	                                       restarts it in the same pod; no
//	                                       budget is asked
//	power-off NODE                         the node loses power; its pods are
//	                                       marked not Ready 50s later and
//	                                       deleted 300s after that
//	delete POD                             deleted directly; no budget is asked
//	drain NODE... [timeout D]              kubectl drain NODE... --timeout D
//	cordon NODE / uncordon NODE
//	scale DEPLOYMENT N
//	rollout DEPLOYMENT [surge N] [unavailable N] [min-ready D]
//	                                       a rolling update to a new
//	                                       ReplicaSet, DEPLOYMENT-v2 (by
//	                                       default surge 1, unavailable 0)
//	set BUDGET (min-available V | max-unavailable V | policy P)
//	unready POD / ready POD                its readiness probe fails / passes
//	controller stop / controller start     the disruption controller
//	controller picks BUDGET                the budget it syncs when a pod that
//	                                       several select changes (by default
//	                                       the oldest)
//	resync BUDGET                          an update of the budget that leaves
//	                                       its spec alone: the controller syncs it
//	status [budgets | pods]                print every budget's status, every
//	                                       pod, or both
//
// Moving the clock:
//
//	after D                                advance by D (a Go duration: 15s, 2m)
//	at D                                   advance to D since the start
//
// A drain moves the clock itself, retrying every 5 s until its timeout (none
// by default, in which case it stops as soon as nothing can change).
package main
