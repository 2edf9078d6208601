// Draws chapter 1's demo from the state its Go model returns (main.go).
// Every number and every line of the log comes from package pdb.
window.opslabDemoUI = function (root, api, h) {
  "use strict";
  var s = api.state();

  var floor = h("select", { id: "pdb-floor", "data-key": "floor", onchange: function () { act(api.setFloor(+floor.value)); } },
    [1, 2, 3, 4].map(function (n) { return h("option", { value: n, text: String(n), selected: n === 3 }); }));
  var controls = h("div", { class: "demo-controls" }, [
    h("label", { for: "pdb-floor", text: "Budget floor, minAvailable " }), floor,
    h("button", { type: "button", "data-key": "advance5", onclick: function () { act(api.advance(5)); } , text: "Advance the clock 5 s" }),
    h("button", { type: "button", "data-key": "advance15", onclick: function () { act(api.advance(15)); }, text: "Advance the clock 15 s" }),
    h("button", { type: "button", "data-key": "advance60", onclick: function () { act(api.advance(60)); }, text: "Advance the clock 1 min" }),
    h("button", { type: "button", "data-key": "reset", onclick: function () { act(api.reset(+floor.value)); }, text: "Start again" }),
  ]);
  var clock = h("p", { class: "demo-clock" });
  var pods = h("div", { class: "demo-region" });
  var counts = h("p", { class: "demo-counts" });
  var error = h("p", { class: "demo-error", role: "alert" });
  // The log is no live region: each action announces its own sentence (act).
  var log = h("ol", { class: "demo-log", tabindex: "0", "aria-label": "What happened, from the model's log" });
  root.append(controls, clock, pods, counts, error,
    h("h3", { class: "demo-title", text: "Log" }), log);

  function act(next) {
    if (next.error) { error.textContent = next.error; return; }
    error.textContent = "";
    var before = s.log.length;
    s = next;
    render();
    // One sentence per action: what the model logged for it.
    var added = s.log.length >= before ? s.log.slice(before) : [];
    if (added.length === 1) h.say(added[0].text);
    else if (added.length > 1) h.say(added.length + " things happened; the last: " + added[added.length - 1].text);
    else h.say(clock.textContent + ".");
  }
  function render() {
    clock.textContent = "Clock " + s.now + " · budget " + s.budget + " · status " + s.status;
    h.keep(pods, function () {
      return [h("table", { class: "demo-table" }, [
        h("caption", { text: "The pods of deployment ledger" }),
        h("thead", {}, [h("tr", {}, ["Pod", "Node", "Ready", "Act"].map(function (c) { return h("th", { scope: "col", text: c }); }))]),
        h("tbody", {}, s.pods.map(function (p) {
          return h("tr", { "data-pod": p.name }, [
            h("th", { scope: "row", text: p.name }),
            h("td", { text: p.node || "none (Pending)" }),
            h("td", { class: p.ready ? "demo-yes" : "demo-no", text: p.state }),
            h("td", {}, [
              h("button", { type: "button", class: "pdb-evict", "data-key": "evict-" + p.name, "aria-label": "Evict " + p.name, text: "Evict", onclick: function () { act(api.evict(p.name)); } }),
              " ",
              h("button", { type: "button", class: "pdb-crash", "data-key": "crash-" + p.name, "aria-label": "Crash " + p.name, text: "Crash its container", onclick: function () { act(api.crash(p.name)); } }),
              " ",
              h("button", { type: "button", class: "pdb-power", "data-key": "power-" + p.name, "aria-label": "Power off " + p.node, text: "Power off " + p.node, disabled: !p.node, onclick: function () { act(api.powerOff(p.node)); } }),
            ]),
          ]);
        })),
      ])];
    });
    counts.replaceChildren(
      h("span", { "data-count": "allowed", text: "Evictions allowed: " + s.allowed }), " · ",
      h("span", { "data-count": "refused", text: "refused: " + s.refused }), " · ",
      h("span", { "data-count": "crashed", text: "crashes and power losses: " + s.crashed }));
    log.replaceChildren.apply(log, s.log.map(function (e) {
      return h("li", { class: "log-" + e.kind, "data-kind": e.kind, text: e.text });
    }));
    log.scrollTop = log.scrollHeight;
  }
  render();
};
