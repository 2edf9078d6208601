//go:build browser

package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/opslab/opslab/chapters"
)

// chapterDirs returns the directory of every chapter of the course, from the
// course's one list.
func chapterDirs() []string {
	var dirs []string
	for _, ch := range chapters.Course.Chapters() {
		dirs = append(dirs, ch.Dir)
	}
	return dirs
}

// startDemo opens a chapter's page, starts its demo from the keyboard (the
// start button, then Enter) and waits until the model has drawn it.
func startDemo(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	open(t, ctx, u)
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(".demo-start")), chromedp.KeyEvent("\r")); err != nil {
		t.Fatalf("%s: starting the demo from the keyboard: %v", u, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("opslab-demo").dataset.state === "ready"`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		state := eval[string](t, ctx, `document.getElementById("opslab-demo").dataset.state + ": " + document.querySelector("#opslab-demo").innerText.slice(0, 300)`)
		t.Fatalf("%s: the demo did not start (%s): %v", u, state, err)
	}
	// Every control is labelled for a screen reader and reachable by the
	// keyboard (no tabindex takes it out of the order).
	unlabelled := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#opslab-demo button, #opslab-demo input, #opslab-demo select")).filter(e => {
		const label = e.getAttribute("aria-label") || (e.id && document.querySelector('label[for="' + e.id + '"]')?.textContent) || (e.tagName === "BUTTON" && e.textContent);
		return !(label && label.trim()) || e.tabIndex < 0;
	}).map(e => e.outerHTML.slice(0, 120))`)
	for _, u := range unlabelled {
		t.Errorf("a demo control has no label or cannot be reached by the keyboard: %s", u)
	}
}

// shoot saves a screenshot of the demo under .artifacts/.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#opslab-demo")))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repoRoot, ".artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", filepath.Join(dir, name), len(png))
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// choose sets a select or an input as a reader would, and lets the demo
// hear of it.
func choose(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event("change")); return true })()`, sel, value))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q)?.textContent ?? %q`, sel, "(no "+sel+")"))
}

// press focuses a control and presses Enter, as a keyboard reader does,
// then checks that the focus stayed in the demo on a control.
func press(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent("\r")); err != nil {
		t.Fatalf("pressing %s: %v", sel, err)
	}
	if got := eval[string](t, ctx, `document.activeElement.closest("#opslab-demo") ? document.activeElement.tagName : "outside the demo: " + document.activeElement.tagName`); got != "BUTTON" && got != "SELECT" && got != "INPUT" {
		t.Errorf("after pressing %s the focus is %s, want a control of the demo", sel, got)
	}
}

// announced returns the sentence the demo last announced, and checks that
// it is the demo's only live region that is re-rendered whole.
func announced(t *testing.T, ctx context.Context) string {
	t.Helper()
	live := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#opslab-demo [aria-live], #opslab-demo [role="log"], #opslab-demo [role="status"], #opslab-demo [role="alert"]'), e => e.tagName + "." + e.className)`)
	for _, l := range live {
		if l != "P.sr-only" && l != "P.demo-error" {
			t.Errorf("the demo has a live region %s besides its announcer and its error line", l)
		}
	}
	return eval[string](t, ctx, `document.querySelector('#opslab-demo p.sr-only[role="status"]')?.textContent ?? ""`)
}

// TestDemos clicks through each chapter's demo and checks that it shows
// what the chapter's model says: the demos are the models compiled to
// WebAssembly, so these are the chapters' claims seen in a browser.
func TestDemos(t *testing.T) {
	srv, out := serve(t, *courseRoot)
	// Four demos and their screenshots: over two minutes on a quiet
	// machine, and more beside make test's cluster lanes.
	ctx := browserFor(t, 10*time.Minute)
	con := watch(t, ctx, srv.URL)
	page := func(ch string) string { return srv.URL + "/chapters/" + ch + "/index.html" }
	clean := func(t *testing.T) {
		t.Helper()
		time.Sleep(150 * time.Millisecond)
		msgs, outside := con.take()
		for _, m := range msgs {
			t.Errorf("console %s", m)
		}
		for _, u := range outside {
			t.Errorf("requested %s, outside the site", u)
		}
	}

	t.Run("sizes", func(t *testing.T) {
		for _, ch := range chapterDirs() {
			fi, err := os.Stat(filepath.Join(out, "_demos", ch+".wasm"))
			if err != nil {
				t.Fatalf("the site has no demo for %s: %v", ch, err)
			}
			t.Logf("%s.wasm: %d bytes", ch, fi.Size())
		}
	})

	t.Run("the Go runtime loads only when a demo starts", func(t *testing.T) {
		fetched := func() []string {
			return eval[[]string](t, ctx, `performance.getEntriesByType("resource").map(e => e.name).filter(n => /wasm_exec\.js|\.wasm$/.test(n)).map(n => n.replace(/^.*\//, ""))`)
		}
		open(t, ctx, page("04-node-shutdown"))
		if got := fetched(); len(got) != 0 {
			t.Errorf("before the demo starts the page fetched %q, want nothing of the demo's runtime", got)
		}
		if got := eval[string](t, ctx, `typeof Go`); got != "undefined" {
			t.Errorf("before the demo starts Go is %s, want undefined (wasm_exec.js not run)", got)
		}
		startDemo(t, ctx, page("04-node-shutdown"))
		if got := fetched(); !slices.Contains(got, "wasm_exec.js") || !slices.Contains(got, "04-node-shutdown.wasm") {
			t.Errorf("after the demo starts the page fetched %q, want wasm_exec.js and the wasm", got)
		}
		clean(t)
	})

	t.Run("01-pdb floor 4 refuses, a container crash goes through", func(t *testing.T) {
		startDemo(t, ctx, page("01-pdb"))
		choose(t, ctx, "#pdb-floor", "4")
		press(t, ctx, `button[aria-label="Evict ledger-1"]`)
		if got := eval[string](t, ctx, `document.querySelector(".demo-log li:last-child").dataset.kind`); got != "refused" {
			t.Errorf("with a floor of 4 the eviction of ledger-1 is logged as %q, want refused; log ends %q", got, text(t, ctx, ".demo-log li:last-child"))
		}
		if got := text(t, ctx, ".demo-log li:last-child"); !strings.Contains(got, "refused 429") {
			t.Errorf("the refusal gives no reason from the model: %q", got)
		}
		said := announced(t, ctx)
		if last := text(t, ctx, ".demo-log li:last-child"); said != last {
			t.Errorf("after Evict the demo announces %q, want the model's one line %q", said, last)
		}
		press(t, ctx, `button[aria-label="Crash ledger-2"]`)
		if said := announced(t, ctx); !strings.Contains(said, "ledger-2") {
			t.Errorf("after Crash the demo announces %q, want its line about ledger-2", said)
		}
		log := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".demo-log li"), li => li.textContent)`)
		if !strings.Contains(strings.Join(log, "\n"), "ledger-2 on pdb-2: its container crashed and the kubelet restarted it in the same pod (restart 1): no budget was asked") {
			t.Errorf("the crash of ledger-2 is not in the log:\n%s", strings.Join(log, "\n"))
		}
		for sel, want := range map[string]string{`[data-count="allowed"]`: "Evictions allowed: 0", `[data-count="refused"]`: "refused: 1", `[data-count="crashed"]`: "crashes and power losses: 1"} {
			if got := text(t, ctx, sel); got != want {
				t.Errorf("count %s = %q, want %q", sel, got, want)
			}
		}
		if n := eval[int](t, ctx, `document.querySelectorAll(".demo-table tbody tr").length`); n != 4 {
			t.Errorf("after a container crash the table shows %d pods, want 4 (the container restarts in the same pod)", n)
		}
		shoot(t, ctx, "demo-01-pdb.png")
		axeDemoCheck(t, ctx, "01-pdb's demo")
		clean(t)
	})

	t.Run("02-taints the 30 s dispatcher leaves before the 600 s session", func(t *testing.T) {
		startDemo(t, ctx, page("02-taints"))
		click(t, ctx, `button[data-key="noschedule"]`)
		click(t, ctx, `button[data-key="adv60"]`)
		if got := eval[int](t, ctx, `document.querySelectorAll(".demo-log li[data-left-sec]").length`); got != 0 {
			t.Errorf("a NoSchedule taint removed %d running pods, want none", got)
		}
		click(t, ctx, `button[data-key="noexecute"]`)
		click(t, ctx, `button[data-key="adv10"]`)
		click(t, ctx, `button[data-key="adv10"]`)
		click(t, ctx, `button[data-key="adv10"]`)
		if said := announced(t, ctx); !strings.Contains(said, "dispatcher left") {
			t.Errorf("when the dispatcher leaves the demo announces %q", said)
		}
		left := func(pod string) string {
			return eval[string](t, ctx, fmt.Sprintf(`document.querySelector('.demo-log li[data-pod=%q]').dataset.leftSec ?? "on the node"`, pod))
		}
		if got := left("dispatcher"); got != "90" {
			t.Errorf("30 s after the NoExecute taint (added at t=60s) the dispatcher left at %s, want 90", got)
		}
		if got := left("session"); got != "on the node" {
			t.Errorf("session left at %s after 30 s, want still on the node", got)
		}
		click(t, ctx, `button[data-key="adv3600"]`)
		if got := left("session"); got != "660" {
			t.Errorf("session left at %s, want 660 (600 s after the taint)", got)
		}
		if got := left("cache"); got != "60" {
			t.Errorf("cache left at %s, want 60 (at once)", got)
		}
		if got := left("agent"); got != "on the node" {
			t.Errorf("agent left at %s, want never", got)
		}
		order := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".demo-log li"), li => li.dataset.pod)`)
		if strings.Join(order, " ") != "cache dispatcher session agent" {
			t.Errorf("the timeline lists %q, want the order the pods leave", order)
		}
		shoot(t, ctx, "demo-02-taints.png")
		axeDemoCheck(t, ctx, "02-taints's demo")
		clean(t)
	})

	t.Run("03-apf the runaway gets the 429s, the mice do not wait", func(t *testing.T) {
		startDemo(t, ctx, page("03-apf"))
		rows := func() int { return eval[int](t, ctx, `document.querySelectorAll('tr[data-flow]').length`) }
		field := func(flow, f string) int {
			return eval[int](t, ctx, fmt.Sprintf(`+document.querySelector('tr[data-flow$=%q] td[data-field=%q]').textContent`, flow, f))
		}
		if got := rows(); got != 5 {
			t.Fatalf("with the runaway off the plot shows %d flows, want the 5 mice", got)
		}
		for i := range 5 {
			if r := field(fmt.Sprintf("mouse-%d", i), "rejected"); r != 0 {
				t.Errorf("runaway off: mouse-%d has %d 429s, want 0", i, r)
			}
		}
		bars := eval[int](t, ctx, `document.querySelectorAll(".demo-chart svg rect").length`)
		click(t, ctx, "#apf-runaway")
		poll(t, ctx, "the plot shows the runaway", `document.querySelectorAll('tr[data-flow]').length === 6`)
		if r := field("runaway-operator", "rejected"); r == 0 {
			t.Errorf("runaway on: it has no 429s, want its excess refused")
		}
		for i := range 5 {
			m := fmt.Sprintf("mouse-%d", i)
			if r, w := field(m, "rejected"), field(m, "maxWait"); r != 0 || w > 130 {
				t.Errorf("runaway on: %s has %d 429s and waits up to %d ticks, want 0 and at most 130", m, r, w)
			}
		}
		if got := eval[int](t, ctx, `document.querySelectorAll(".demo-chart svg rect").length`); got <= bars {
			t.Errorf("turning the runaway on left %d bars in the plot (%d before)", got, bars)
		}
		// The seat sliders answer the keyboard: one more share for
		// workload-low gives it at least as many seats.
		before := eval[string](t, ctx, `document.querySelector('tr[data-level="workload-low"] [data-field="nominal"]').textContent`)
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#apf-shares-workload-low"))); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
				t.Fatal(err)
			}
		}
		after := eval[string](t, ctx, `document.querySelector('tr[data-level="workload-low"] [data-field="nominal"]').textContent`)
		if after == before {
			t.Errorf("50 more shares for workload-low left its seats at %q", after)
		}
		names := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#opslab-demo input[type="range"]'), e => e.labels[0].textContent)`)
		if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			t.Errorf("the sliders' names repeat: %q", names)
		}
		if got := eval[string](t, ctx, `document.activeElement.id`); got != "apf-shares-workload-low" {
			t.Errorf("after redrawing, the focus is on %q, want the slider the reader moved", got)
		}
		shoot(t, ctx, "demo-03-apf.png")
		axeDemoCheck(t, ctx, "03-apf's demo")
		clean(t)
	})

	t.Run("04-node-shutdown logind's limit cuts the chart", func(t *testing.T) {
		startDemo(t, ctx, page("04-node-shutdown"))
		if got := eval[string](t, ctx, `document.querySelector(".demo-chart svg").dataset.cut`); got != "true" {
			t.Errorf("60 s asked, logind allows 30 s: the chart's cut is %q, want true; summary %q", got, text(t, ctx, "#opslab-demo [data-conflict]"))
		}
		if n := eval[int](t, ctx, `document.querySelectorAll(".demo-chart .mark-cut").length`); n != 1 {
			t.Errorf("the chart draws %d cut lines, want 1", n)
		}
		if got := text(t, ctx, "#opslab-demo [data-conflict]"); !strings.Contains(got, "asks logind for 60 s") || !strings.Contains(got, "no graceful shutdown") {
			t.Errorf("the summary says %q", got)
		}
		shoot(t, ctx, "demo-04-node-shutdown-cut.png")
		// Masking the drop-in lets the kubelet's own win: no cut.
		click(t, ctx, "#shutdown-masked")
		if got := eval[string](t, ctx, `document.querySelector(".demo-chart svg").dataset.cut`); got != "false" {
			t.Errorf("with the drop-in masked the chart's cut is %q, want false", got)
		}
		if got := eval[string](t, ctx, `document.querySelector('.demo-chart rect[data-pod="dns"]').dataset.end`); got != "60" {
			t.Errorf("dns ends at %s, want 60 (after 20 s and 30 s groups, 10 s of its own)", got)
		}
		shoot(t, ctx, "demo-04-node-shutdown.png")
		axeDemoCheck(t, ctx, "04-node-shutdown's demo")
		clean(t)
	})

	t.Run("04-node-shutdown a huge duration neither wraps around nor runs into the chart", func(t *testing.T) {
		startDemo(t, ctx, page("04-node-shutdown"))
		eval[bool](t, ctx, `(() => {
			const e = Array.from(document.querySelectorAll("#opslab-demo input")).find(i => i.labels[0]?.textContent === "Seconds of table entry 2");
			e.value = "99999999999";
			e.dispatchEvent(new Event("change"));
			return true
		})()`)
		if got := eval[string](t, ctx, `Array.from(document.querySelectorAll("#opslab-demo input")).find(i => i.labels[0]?.textContent === "Seconds of table entry 2").value`); got != "1000000000" {
			t.Errorf("99999999999 s entered: the field holds %s, want the demo's limit 1000000000", got)
		}
		if got := text(t, ctx, "#opslab-demo [data-conflict]"); !strings.Contains(got, "asks logind for 1000000030 s") {
			t.Errorf("with 20 s, 1000000000 s and 10 s groups the summary says %q, want the kubelet to ask for 1000000030 s", got)
		}
		if got := text(t, ctx, ".demo-error"); !strings.Contains(got, "99999999999 is beyond what the model holds") {
			t.Errorf("the demo does not say it kept the entry within bounds: %q", got)
		}
		outside := eval[[]string](t, ctx, `(() => {
			const svg = document.querySelector(".demo-chart svg"), W = svg.viewBox.baseVal.width;
			const start = Math.min(...Array.from(svg.querySelectorAll("rect"), r => r.x.baseVal.value));
			return Array.from(svg.querySelectorAll("text"), e => [e, e.getBBox()]).filter(([e, b]) =>
				b.x < 0 || b.x + b.width > W || (e.classList.contains("gantt-group") && b.x + b.width > start)).map(([e, b]) => e.textContent + " at " + Math.round(b.x) + ".." + Math.round(b.x + b.width))
		})()`)
		for _, o := range outside {
			t.Errorf("the chart's text %s leaves the chart or runs into the bars", o)
		}
		clean(t)
	})

	t.Run("on a phone a demo scrolls inside itself", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900))
		for _, ch := range chapterDirs() {
			startDemo(t, ctx, page(ch))
			if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s: with the demo running the page is %.0f px wide on a 390 px screen", ch, w)
			}
			time.Sleep(100 * time.Millisecond) // the signs follow the next frame
			// A table or chart that does not fit scrolls inside itself and
			// says so; the demo as a whole hides nothing to its right.
			hidden := eval[[]string](t, ctx, `(() => {
				const live = document.querySelector(".demo-live"), bad = [];
				if (live.scrollWidth > live.clientWidth + 1) bad.push("the demo itself is " + live.scrollWidth + " px wide in " + live.clientWidth + " px");
				for (const e of live.querySelectorAll(".demo-table, .demo-chart")) {
					if (e.hidden || e.scrollWidth <= e.clientWidth + 1) continue;
					const hint = e.previousElementSibling;
					if (!hint || !hint.classList.contains("scroll-hint") || !hint.offsetHeight) bad.push(e.className + " hides " + (e.scrollWidth - e.clientWidth) + " px with no sign");
					if (e.tabIndex < 0) bad.push(e.className + " scrolls but takes no keyboard focus");
				}
				return bad
			})()`)
			for _, h := range hidden {
				t.Errorf("%s on a 390 px screen: %s", ch, h)
			}
			small := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".demo-chart svg text"), e => {
				const svg = e.ownerSVGElement, px = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width * parseFloat(getComputedStyle(e).fontSize);
				return px < 11 ? e.textContent + " (" + px.toFixed(1) + " px)" : "";
			}).filter(Boolean)`)
			if len(small) > 0 {
				t.Errorf("%s on a 390 px screen: the chart's text is smaller than 11 px: %q", ch, small)
			}
			axeCheck(t, ctx, ch+"'s demo on a phone")
		}
		clean(t)
	})

	t.Run("without JavaScript the static explanation shows", func(t *testing.T) {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		for _, ch := range chapterDirs() {
			if err := chromedp.Do(ctx, chromedp.Navigate(page(ch))); err != nil {
				t.Fatal(err)
			}
			static := eval[string](t, ctx, `document.querySelector("#opslab-demo .demo-static").innerText`)
			if !strings.Contains(static, "On the course site") {
				t.Errorf("%s without JavaScript: the static explanation reads %q", ch, static)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#opslab-demo button").length`); n != 0 {
				t.Errorf("%s without JavaScript: %d buttons that cannot work", ch, n)
			}
			if note := eval[string](t, ctx, `document.querySelector("#opslab-demo").innerText`); !strings.Contains(note, "needs JavaScript") {
				t.Errorf("%s without JavaScript: no note that the demo needs it: %q", ch, note)
			}
		}
		con.take()
	})
}
