// Draws chapter 4's demo: the plan NewPlan returns, as a Gantt chart, and
// what CheckLogind says of logind's limit (main.go).
window.opslabDemoUI = function (root, api, h) {
  "use strict";
  var uid = 0;
  // The model counts in time.Duration (int64 nanoseconds) and priorities
  // in int32: a field keeps its number within what they hold, so a huge
  // entry cannot wrap around into a small or negative one.
  var SECONDS = [0, 1e9], PRIORITY = [-2147483648, 2147483647];
  function field(label, value, range) {
    var id = "shutdown-f" + (++uid);
    var input = h("input", { type: "number", id: id, value: value, step: 1, min: range[0], max: range[1], class: "demo-num", "data-key": id, onchange: update });
    return { input: input, range: range, name: label, label: h("label", { for: id, class: "sr-only", text: label }) };
  }
  // The configuration.
  function radio(value, text, checked) {
    var id = "shutdown-mode-" + value;
    return [h("input", { type: "radio", name: "shutdown-mode", id: id, value: value, checked: checked, "data-key": id, onchange: update }), h("label", { for: id, text: " " + text + " " })];
  }
  var mode = h("fieldset", { class: "demo-controls" }, [h("legend", { text: "The kubelet's grace periods" })]
    .concat(radio("table", "shutdownGracePeriodByPodPriority", true), radio("two", "shutdownGracePeriod and …CriticalPods", false)));
  var grace = field("shutdownGracePeriod, seconds", 30, SECONDS), critical = field("shutdownGracePeriodCriticalPods, seconds", 10, SECONDS);
  var two = h("p", { class: "demo-controls" }, [
    h("span", { text: "shutdownGracePeriod " }), grace.label, grace.input, h("span", { text: " s, shutdownGracePeriodCriticalPods " }), critical.label, critical.input, " s"]);
  var rows = [[0, 20], [100000, 30], [2000000000, 10], ["", ""]].map(function (r, i) {
    return { priority: field("Priority of table entry " + (i + 1) + " (empty: unused)", r[0], PRIORITY), seconds: field("Seconds of table entry " + (i + 1), r[1], SECONDS) };
  });
  var table = h("table", { class: "demo-table" }, [
    h("caption", { text: "The priority table: a pod joins the entry with the highest priority at or below its own" }),
    h("thead", {}, [h("tr", {}, [h("th", { scope: "col", text: "Priority" }), h("th", { scope: "col", text: "Seconds" })])]),
    h("tbody", {}, rows.map(function (r) {
      return h("tr", {}, [h("td", {}, [r.priority.label, r.priority.input]), h("td", {}, [r.seconds.label, r.seconds.input])]);
    })),
  ]);
  var pods = [["web", 0, 30], ["batch", 0, 60], ["db", 100000, 30], ["dns", 2000001000, 30]].map(function (p) {
    return { name: p[0], priority: field("Priority of pod " + p[0], p[1], PRIORITY), grace: field("terminationGracePeriodSeconds of pod " + p[0], p[2], SECONDS) };
  });
  var podTable = h("table", { class: "demo-table" }, [
    h("caption", { text: "The node's pods" }),
    h("thead", {}, [h("tr", {}, ["Pod", "Priority", "terminationGracePeriodSeconds"].map(function (c) { return h("th", { scope: "col", text: c }); }))]),
    h("tbody", {}, pods.map(function (p) {
      return h("tr", {}, [h("th", { scope: "row", text: p.name }), h("td", {}, [p.priority.label, p.priority.input]), h("td", {}, [p.grace.label, p.grace.input])]);
    })),
  ]);
  var dropIn = h("input", { type: "checkbox", id: "shutdown-dropin", checked: true, "data-key": "dropin", onchange: update });
  var dropInSeconds = field("InhibitDelayMaxSec of the drop-in, seconds", 30, SECONDS);
  var masked = h("input", { type: "checkbox", id: "shutdown-masked", "data-key": "masked", onchange: update });
  var logind = h("fieldset", { class: "demo-controls" }, [
    h("legend", { text: "logind on the node" }),
    dropIn, h("label", { for: "shutdown-dropin", text: " unattended-upgrades' drop-in sets InhibitDelayMaxSec=" }), dropInSeconds.label, dropInSeconds.input, " s ",
    masked, h("label", { for: "shutdown-masked", text: " masked by a link to /dev/null in /etc" }),
  ]);
  var error = h("p", { class: "demo-error", role: "alert" });
  var summary = h("p", { class: "demo-clock", role: "status" });
  var chart = h("div", { class: "demo-chart" });
  root.append(mode, two, table, podTable, logind, error, h("h3", { class: "demo-title", text: "The shutdown, from the moment logind announces it" }), summary, chart);

  var clamped = "";
  function num(f) {
    if (f.input.value === "") return null;
    var v = Math.trunc(+f.input.value);
    if (!isFinite(v) || v < f.range[0] || v > f.range[1]) {
      var kept = v < f.range[0] ? f.range[0] : f.range[1];
      clamped = f.name + ": " + f.input.value + " is beyond what the model holds; the demo uses " + kept + ".";
      f.input.value = kept;
      return kept;
    }
    return v;
  }
  function update() {
    clamped = "";
    var byTable = mode.querySelector("input:checked").value === "table";
    two.hidden = byTable;
    table.hidden = !byTable;
    var r = api.plan({
      mode: byTable ? "table" : "two",
      grace: num(grace) || 0, critical: num(critical) || 0,
      table: rows.filter(function (r) { return num(r.priority) !== null; }).map(function (r) { return { priority: num(r.priority), seconds: num(r.seconds) || 0 }; }),
      pods: pods.map(function (p) { return { name: p.name, priority: num(p.priority) || 0, grace: num(p.grace) || 0 }; }),
      dropIn: dropIn.checked, dropInSeconds: num(dropInSeconds) || 0, masked: masked.checked,
    });
    if (r.error) { error.textContent = r.error; return; }
    error.textContent = clamped;
    draw(r);
  }
  function groupLabel(g) { return "priority ≥ " + g.priority + ", " + g.seconds + " s" + (g.skipped ? ": skipped" : ""); }
  function draw(r) {
    var words;
    if (!r.enabled) {
      words = "Graceful shutdown is off: the kubelet asks logind for nothing and the pods are killed with the node.";
    } else {
      words = "The kubelet asks logind for " + r.requested + " s; if every pod uses all its grace the last group ends at " + r.end + " s. " +
        "logind allows " + r.limit.text + (r.kubeletWrites ? " once the kubelet has written its drop-in" : "") + ". ";
      if (r.conflict) words += "That is less than the kubelet needs, so its shutdown manager fails to start: no graceful shutdown at all. The timeline is cut at t=0s; the bars show what would have run.";
    }
    summary.textContent = words;
    summary.dataset.conflict = r.conflict ? "true" : "false";
    var end = Math.max(r.requested, r.end, 1);
    if (!r.limit.infinite && r.limit.seconds < end * 2) end = Math.max(end, r.limit.seconds);
    end = Math.ceil(end * 1.08);
    // The bars start right of the longest group label (about 7 px a
    // character), so a long priority or duration does not run into them.
    var longest = Math.max.apply(null, r.groups.map(function (g) { return groupLabel(g).length; }).concat([0]));
    var W = 640, L = Math.min(360, Math.max(200, 7 * longest + 12)), R = 16, rowH = 22;
    var lines = [];
    r.groups.forEach(function (g) {
      lines.push({ group: g });
      r.pods.filter(function (p) { return p.group === g.priority; }).forEach(function (p) { lines.push({ pod: p }); });
    });
    var H = lines.length * rowH + 40, x = function (t) { return L + (W - L - R) * t / end; };
    var cut = r.enabled && r.conflict, kids = [];
    lines.forEach(function (l, i) {
      var y = 6 + i * rowH;
      if (l.group) {
        var g = l.group;
        kids.push(h.svg("text", { x: 0, y: y + 14, class: "gantt-group" }, [groupLabel(g)]));
        if (!g.skipped) kids.push(h.svg("rect", { x: x(g.start), y: y + 4, width: Math.max(1, x(g.end) - x(g.start)), height: 10, class: cut ? "bar-cut" : "bar-lend", "data-group": g.priority }));
      } else {
        var p = l.pod;
        kids.push(h.svg("text", { x: 12, y: y + 14, class: "gantt-label" }, [p.name]));
        kids.push(h.svg("rect", { x: x(p.start), y: y + 2, width: Math.max(1, x(p.end) - x(p.start)), height: 14, class: cut ? "bar-cut" : "bar-on", "data-pod": p.name, "data-end": p.end }));
      }
    });
    var bottom = H - 28;
    if (!r.limit.infinite && r.enabled) {
      kids.push(h.svg("line", { x1: x(r.limit.seconds), x2: x(r.limit.seconds), y1: 0, y2: bottom, class: "mark-due" }));
      kids.push(h.svg("text", { x: x(r.limit.seconds), y: bottom + 12, class: "gantt-axis", "text-anchor": "middle" }, ["logind " + r.limit.seconds + "s"]));
    }
    if (cut) {
      kids.push(h.svg("line", { x1: x(0), x2: x(0), y1: 0, y2: bottom, class: "mark-cut", "data-cut": "0" }));
      kids.push(h.svg("text", { x: x(0) + 4, y: bottom + 24, class: "gantt-cut" }, ["cut at t=0s: no graceful shutdown"]));
    }
    kids.push(h.svg("text", { x: W - R, y: bottom + 24, class: "gantt-axis", "text-anchor": "end" }, ["t=" + end + "s"]));
    chart.replaceChildren(h.svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "data-cut": cut ? "true" : "false",
      "aria-label": "Gantt chart of the shutdown: groups and pods from t=0s" + (cut ? "; cut at t=0s because logind's limit is below what the kubelet asks" : "") }, kids));
  }
  update();
};
