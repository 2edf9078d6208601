// Draws chapter 2's demo from the state its Go model returns (main.go):
// when each pod leaves taints-3 is decided by package taints.
window.opslabDemoUI = function (root, api, h) {
  "use strict";
  var s = api.state();
  function button(key, text, fn) {
    return h("button", { type: "button", "data-key": key, text: text, onclick: function () { act(fn()); } });
  }
  var controls = h("div", { class: "demo-controls" }, [
    button("noschedule", "Add a NoSchedule taint", function () { return api.taint("NoSchedule"); }),
    button("noexecute", "Add a NoExecute taint", function () { return api.taint("NoExecute"); }),
    button("untaint", "Remove the taints", function () { return api.untaint(); }),
  ]);
  var clockControls = h("div", { class: "demo-controls" }, [
    button("adv10", "Advance 10 s", function () { return api.advance(10); }),
    button("adv60", "Advance 1 min", function () { return api.advance(60); }),
    button("adv3600", "Advance 1 h", function () { return api.advance(3600); }),
    button("reset", "Start again", function () { return api.reset(); }),
  ]);
  var clock = h("p", { class: "demo-clock" });
  var table = h("div", { class: "demo-region" });
  var error = h("p", { class: "demo-error", role: "alert" });
  var chart = h("div", { class: "demo-chart" });
  // The timeline is no live region: each action announces its own sentence (act).
  var timeline = h("ol", { class: "demo-log", tabindex: "0", "aria-label": "When each pod leaves" });
  root.append(controls, clockControls, clock, error, table,
    h("h3", { class: "demo-title", text: "Timeline" }), chart, timeline);

  function act(next) {
    if (next.error) { error.textContent = next.error; return; }
    error.textContent = "";
    var gone = {};
    s.pods.forEach(function (p) { if (p.leftAt) gone[p.name] = true; });
    s = next;
    render();
    // One sentence per action: the clock, the taints and who left.
    var left = s.pods.filter(function (p) { return p.leftAt && !gone[p.name]; }).map(function (p) { return p.name; });
    h.say(clock.textContent + (left.length ? "; " + left.join(", ") + (left.length === 1 ? " left." : " left.") : "; no pod left."));
  }
  function tolerationControl(p) {
    var kind = p.toleration === "none" || p.toleration === "forever" ? p.toleration : "seconds";
    var id = "taints-tol-" + p.name, sid = "taints-sec-" + p.name;
    var sel = h("select", { id: id, "data-key": "kind-" + p.name, onchange: function () {
      act(api.tolerate(p.name, sel.value === "seconds" ? "300" : sel.value));
    } }, [
      h("option", { value: "none", text: "no toleration", selected: kind === "none" }),
      h("option", { value: "seconds", text: "tolerationSeconds", selected: kind === "seconds" }),
      h("option", { value: "forever", text: "tolerate for good (no seconds)", selected: kind === "forever" }),
    ]);
    var kids = [h("label", { for: id, class: "sr-only", text: "How " + p.name + " tolerates the taint" }), sel];
    if (kind === "seconds") {
      var num = h("input", { type: "number", min: "0", step: "1", id: sid, value: p.toleration, class: "demo-num",
        "data-key": "sec-" + p.name, onchange: function () { act(api.tolerate(p.name, num.value)); } });
      kids.push(" ", h("label", { for: sid, class: "sr-only", text: "tolerationSeconds of " + p.name }), num, " s");
    }
    return kids;
  }
  function render() {
    clock.textContent = "Clock t=" + s.nowSec + "s · node " + s.node + " taints: " + (s.taints ? s.taints.join(", ") : "none");
    h.keep(table, function () {
      return [h("table", { class: "demo-table" }, [
        h("caption", { text: "Pods on " + s.node }),
        h("thead", {}, [h("tr", {}, ["Pod", "Toleration of opslab.dev/link-down:NoExecute", "Leaves", "A new one could be placed"].map(function (c) { return h("th", { scope: "col", text: c }); }))]),
        h("tbody", {}, s.pods.map(function (p) {
          return h("tr", { "data-pod": p.name }, [
            h("th", { scope: "row", text: p.name }),
            h("td", {}, tolerationControl(p)),
            h("td", { text: p.leftAt ? "left at " + p.leftAt : p.fireAt ? "deletion scheduled at " + p.fireAt : s.taints ? p.verdict : "no taint" }),
            h("td", { text: p.placeable || "yes" }),
          ]);
        })),
      ])];
    });
    // The chart: time runs right; each pod's bar is its time on the node.
    var end = Math.max(s.nowSec, 60);
    s.pods.forEach(function (p) { if (p.fireSec !== undefined) end = Math.max(end, p.fireSec); });
    var W = 640, L = 110, R = 20, rowH = 26, H = s.pods.length * rowH + 30;
    var x = function (t) { return L + (W - L - R) * t / end; };
    var kids = [];
    s.pods.forEach(function (p, i) {
      var y = 8 + i * rowH, stop = p.leftSec !== undefined ? p.leftSec : s.nowSec;
      kids.push(h.svg("text", { x: 0, y: y + 14, class: "gantt-label" }, [p.name]));
      kids.push(h.svg("rect", { x: x(0), y: y, width: Math.max(1, x(stop) - x(0)), height: rowH - 8, class: p.leftSec !== undefined ? "bar-gone" : "bar-on" }));
      if (p.fireSec !== undefined && p.leftSec === undefined) {
        kids.push(h.svg("line", { x1: x(p.fireSec), x2: x(p.fireSec), y1: y - 2, y2: y + rowH - 6, class: "mark-due" }));
      }
    });
    kids.push(h.svg("line", { x1: x(s.nowSec), x2: x(s.nowSec), y1: 0, y2: H - 20, class: "mark-now" }));
    kids.push(h.svg("text", { x: L, y: H - 4, class: "gantt-axis" }, ["t=0s"]));
    kids.push(h.svg("text", { x: W - R, y: H - 4, class: "gantt-axis", "text-anchor": "end" }, ["t=" + end + "s"]));
    chart.replaceChildren(h.svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "Each pod's time on the node, from t=0s to t=" + end + "s; the vertical line is now" }, kids));
    // The same, in words, in the order the pods leave.
    var order = s.pods.slice().sort(function (a, b) {
      var ka = a.leftSec !== undefined ? a.leftSec : a.fireSec !== undefined ? a.fireSec + 1e9 : 2e9;
      var kb = b.leftSec !== undefined ? b.leftSec : b.fireSec !== undefined ? b.fireSec + 1e9 : 2e9;
      return ka - kb;
    });
    timeline.replaceChildren.apply(timeline, order.map(function (p) {
      var text = p.name + (p.leftAt ? " left at " + p.leftAt : p.fireAt ? " is on the node; its deletion is scheduled at " + p.fireAt : " is on the node" + (s.taints ? " (" + p.verdict + ")" : ""));
      return h("li", { "data-pod": p.name, "data-left-sec": p.leftSec, text: text });
    }));
  }
  render();
};
