// Package browsertest tests the course site as a reader meets it: in real
// headless Chromium (Debian's chromium package at /usr/bin/chromium), driven
// by chromedp. The tests carry the build tag browser:
//
//	go test -tags browser ./site/browsertest
//
// They build the course and a small test course of their own, serve each
// on localhost, and check that every page loads with no console error, that
// the sidebar navigates, that search finds a word only chapter 1 has (and
// Japanese text), that code is highlighted, that the theme follows the
// system until the reader toggles it and is remembered then, that printing
// leaves the navigation out, and that the menu works on a phone's screen
// by keyboard (closed, its links are no Tab stops; open, it takes the focus,
// the content behind is inert, and Escape closes it and gives the focus
// back) and without JavaScript (the pages are listed instead). A screenshot of chapter 1 is written to .artifacts/ at the repository root.
//
// TestDemos starts each chapter's demo from the keyboard, checks that every
// control is labelled, clicks through it and asserts what the chapter's
// model says (a floor of 3 refuses an eviction and a crash goes through;
// the 20 s pod leaves before the 3600 s pod; the runaway alone receives
// 429s; logind's limit cuts the Gantt chart; a huge duration neither
// wraps around nor runs into the chart), that the Go runtime is fetched
// only when a demo starts, that a running demo fits a phone's screen (a
// table or chart that does not fit scrolls inside itself and says so, the
// charts' text stays 11 px or more, and axe finds nothing there), and that
// without JavaScript the static explanation shows; each demo's screenshot
// is written to .artifacts/ too. After a keyboard action the focus stays
// on a control of the demo, and the demo announces one sentence instead of
// re-reading whole live regions.
//
// TestSubPath serves the built course under /opslab/ only, as a project
// page is published, and checks that a chapter loads its stylesheet and
// scripts, that the index's links reach a chapter and the licences, that
// search's results stay under the prefix and that a demo loads its
// WebAssembly, with no request outside the prefix; a page naming a
// stylesheet by an absolute path shows that such a mistake is seen.
//
// TestAccessibility runs axe-core (WCAG 2.2 A and AA) on every page, in
// both themes: every rule on the whole page, and color-contrast on each
// kind of text (an element's tags and classes up to the root) the first
// time a page shows it, as the stylesheet gives every element of a kind the
// same colours; TestDemos runs it on each demo running, in both themes.
// axe-core is read once from the npm registry (its checksum pinned in
// axe_test.go) and kept under .cache/ at the repository root;
// TestAxeSeesViolations shows the check is not blind. With
// $OPSLAB_AXE_CACHE set (make test sets it), a page whose HTML, the site
// files it loads, axe-core, Chromium and the audit's code are as when it
// last passed is not audited again (TestAxeVerdictKeys).
package browsertest
