// Package cli is the labcheck command: it checks a learner's lab on their
// cluster and prints, per check, ✓ or ✗ with the evidence it read, the hint
// for each failure, and the score; and it grades a class for instructors,
// in the same report (see Reports below).
//
// Usage:
//
//	labcheck [--chapter N|all] [--kubeconfig FILE] [--context NAME] [--audit-log FILE] [--timeout D] [--only IDS] [--skip IDS] [-o text|json] [--expect pass|fail]
//	labcheck list [--chapter N|all]
//	labcheck hint [--reset] CHECK
//	labcheck grade --roster FILE [--chapter N|all] [--parallel N] [--format F,...] [--out DIR] [--sign-key FILE]
//	labcheck verify [--sign-key FILE] REPORT.json
//	labcheck version
//
// The checks read what happened from the API server and, where it can be
// read, from its audit log: the one record of who evicted, deleted or wrote
// an event that a learner cannot write. labcheck finds the log of a kwokctl
// cluster on this machine by its context (kwok-NAME); --audit-log names
// another. Before it trusts a log, labcheck proves it is the cluster's live
// log: it sends a dry-run request named with a fresh nonce and finds it
// there, and refuses a log without it ("not this cluster's log") before
// judging anything. It reads the API server's rotated segments first. The
// report's header names the evidence (the log, its span, whether it is empty
// or partial) and its custody: on the learner's own disk, a self-assessment,
// or, in grade, held by the host. Without a log the checks judge from the
// API alone, and the report says so in its first line.
//
// --only and --skip choose checks by ID or by a pattern of path.Match,
// comma-separated: labcheck --chapter 2 --only taints-my-timetable checks
// one thing again, and --skip 'outage-*' leaves out the zone-outage lab. A
// check keeps its number in its chapter, the score counts only the checks
// that ran, and the report warns that it is not the lab's. A pattern that
// matches no check is refused, so a misspelt one cannot pass for a pass.
//
// A roster has one line per student: NAME KUBECONFIG [CONTEXT [AUDIT-LOG]],
// with - for the kubeconfig's current context. grade writes,
// per student, a report in each format asked (text; json, labcheck's own,
// which verify reads; Exercism v3 and Gradescope results.json; JUnit XML) and
// a class summary. Each report carries the evidence each check read, the
// cluster's identity (server version, kube-system UID), the time of grading,
// the labcheck version that graded it, and a digest, an HMAC with
// --sign-key.
//
// labcheck --version, or labcheck version, prints the course's version, the
// Kubernetes version it teaches and, when the binary knows it, the commit
// (go build in a checkout) or module version (go install) it was built from:
//
//	labcheck opslab v0.1.0 (teaches Kubernetes v1.36.3; built from commit 7d893b5abcde)
//
// The course's version is version.Course in package
// github.com/opslab/opslab/labcheck/version; the Kubernetes version is
// version.Kubernetes there, which a test holds to the lab cluster's pin
// (lab/scripts/versions.sh) and to go.mod's k8s.io/api. When the cluster's
// API server runs another version, the report says so in a warning (see
// Reports); the score is the checks' alone.
//
// Exit status: 0 when every check passes, 1 when some fail, 2 when labcheck
// cannot run or cannot see (a bad flag, no cluster, a check that could not
// read the cluster within --timeout). grade exits 1 when some student could
// not be graded; the others' reports are written all the same. With --expect, 0 means every check had
// the expected outcome; the course's own test suite uses it to show every
// check failing on an untouched cluster and passing after the reference
// solution.
//
// # Reports
//
// A learner's run and a grader's report are one report (labcheck.Report),
// written by the same writers. A grader's names the student and the time
// of grading and ends with a digest; a learner's has none of the three.
//
// As text, a report says what the checks judged from ("Evidence: …", a
// learner's first line, after "Student NAME, graded TIME by labcheck
// VERSION" in a grader's), the cluster, each warning ("Warning: …"), then
// each check under its chapter: ✓ passed, ✗ failed or !
// could not check, its number, title, points and ID, its message and its
// evidence. A learner's run also shows each failure's hint and, when the
// check has more, the labcheck hint command that gives the next; a grader's
// report.txt does not, as it is read for what was done (its JSON has them).
// Then the score of each chapter, when there are several, "Score: N/M", and
// a grader's "Digest: …".
//
// As JSON (labcheck -o json, and a grader's report.json, which verify reads),
// a report is one object:
//
//	schema       "opslab.labcheck/v1" (labcheck.ReportSchema); a change a reader would trip on changes it
//	labcheck     the labcheck that made the report: "v0.1.0 (commit 7d893b5abcde)", "v0.1.0 (module version
//	             v0.1.0)", or the course's version alone when the binary does not know its source;
//	             absent from reports of labchecks before it
//	student      the roster's name; absent from a learner's run
//	graded_at    when grading began, RFC 3339 in UTC, to the second; absent from a learner's run
//	cluster      server: the API server's URL; version: its Kubernetes version;
//	             kube_system_uid: the UID of namespace kube-system, which no other cluster has
//	             (version and kube_system_uid are absent when they could not be read)
//	evidence     what the checks judged from: the API server and its audit log, or the API server alone and why
//	warnings     what a reader should know that is no check's outcome and changes no score, one line each:
//	             the cluster runs another Kubernetes version than the labcheck teaches, and the fix;
//	             absent when none
//	chapters     the chapters the run covers: [{number, title}]
//	checks       one object per check, in the course's order:
//	  number       "1.2": chapter 1's second check
//	  chapter      its chapter's number
//	  id           the check's ID, as labcheck list and labcheck hint name it
//	  title, claim what it checks, and the chapter's claim it verifies
//	  status       pass, fail, or error: it could not read the cluster
//	  points       earned: max_points when it passed, else 0
//	  max_points   what it is worth
//	  message      one sentence: why it passed or failed, or "could not check: …"
//	  evidence     what it read and saw, one line each; absent when nothing
//	  hint         for a failure: the hint to show first; absent otherwise
//	  more_hints   true when labcheck hint ID has a hint that hint is not; absent when false
//	  seconds      how long it took
//	score        the points earned
//	max_score    the points available
//	seconds      how long the run took, from reaching the cluster
//	error        why the cluster could not be graded at all (grade only); checks is then []
//	digest       "sha256:HEX" of the report's JSON without its digest, or "hmac-sha256:HEX"
//	             with --sign-key; every other field, schema included, is under it;
//	             absent from a learner's run
//
// A learner's run and a grader's report of the same outcomes differ only in
// student, graded_at and digest. labcheck verify refuses a report without a
// digest (a learner's run) or of another schema.
package cli
