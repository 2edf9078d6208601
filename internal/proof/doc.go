// Package proof makes a claim's counterfactual executable: it breaks the
// model the way a claim says it is not, and checks that the claim's tests
// notice.
//
// # Claims
//
// A sentence of a chapter's path that claims something about Kubernetes
// ends with a footnote reference, its marker, [^id], whose definition at the
// end of the page links the claim's section of the chapter's evidence page.
// Markers finds them; CheckChapter holds a chapter to the rule that every
// marker of its README.md has a definition and at least one plant.
//
// # Plants
//
// A plant is the claim's counterfactual: a txtar file,
// chapters/NN-x/plants/NAME.plant, whose header names the claim, says the
// counterfactual in words, and names a file of the model, the tests that
// must fail, and the upstream line the claim follows; its two files, old
// and new, are the text to replace and its replacement:
//
//	claim: ready-only
//	if: the controller counted every pod it selects, Ready or not
//	file: budget.go
//	tests: TestStatus/unready-pods-do-not-count TestDrainWaitsForReplacement
//	upstream: https://github.com/kubernetes/kubernetes/blob/v1.37.2/pkg/controller/disruption/disruption.go#L931
//	-- old --
//			if p.Ready(now) {
//	-- new --
//			if true {
//
// file is relative to the chapter and must be a Go file; pkg (optional) is
// the directory, relative to the chapter, of the package whose tests prove
// the claim, when it is not the file's own; tags (optional) are build tags,
// e2e for a test against a cluster. old and new are the sections' text
// without their last newline, so a plant may change part of a line. Lines
// of the header that start with # are comments.
//
// # Verdicts
//
// Runner.Run applies a plant with go test -overlay, so the working tree is
// never touched, and runs only the plant's tests. Its verdict is Killed when
// every listed test failed in a test; Survived when one passed or was
// skipped (the claim is not proven); Broken when the package did not
// compile or a test did not run (a plant that does not compile proves
// nothing); Stale when old does not occur exactly once in the file (the
// model changed under the plant).
//
// # The verdict file
//
// Each chapter's plants/verdicts.sum, committed, keeps one line per plant,
// as go.sum keeps module hashes: the plant's name, the hash of its inputs
// (Key: the plant, the Go version, go.mod and go.sum, and every Go file,
// embedded file and, for the tested package, test file and testdata of the
// repository's packages its test builds) and the verdict. Check runs only the
// plants whose key is missing from the file or changed; a plant with a
// recorded key keeps its recorded verdict. A run whose verdict is not Killed
// fails, and so does a recorded verdict that is not Killed. A plant that
// ran because its entry was missing or stale and was killed passes: the
// check does not write the file (Write does), so a fresh clone whose file
// lacks an entry pays for that plant's run on every check, until someone
// records it.
package proof
