// Draws chapter 3's demo from what its Go model returns (main.go): seats
// from apf.Seats, waits and 429s from apf.Simulate.
window.opslabDemoUI = function (root, api, h) {
  "use strict";
  var changes = {};
  var seats = api.seats(changes);
  var error = h("p", { class: "demo-error", role: "alert" });
  var seatRegion = h("div", { class: "demo-region" });
  var runaway = h("input", { type: "checkbox", id: "apf-runaway", "data-key": "runaway", onchange: function () { simulate(); } });
  var simStatus = h("p", { class: "demo-clock", role: "status" });
  var plot = h("div", { class: "demo-chart" });
  var simTable = h("div", { class: "demo-region" });
  root.append(
    h("h3", { class: "demo-title", text: "Seats per priority level (" + seats.server + " seats on the server)" }),
    error, seatRegion,
    h("h3", { class: "demo-title", text: "A runaway on a level of 10 seats" }),
    h("div", { class: "demo-controls" }, [runaway, h("label", { for: "apf-runaway", text: " The runaway operator is on: one request every tick, ten times what the level serves" })]),
    simStatus, plot, simTable);

  function setLevel(name, field, value) {
    var cur = seats.levels.filter(function (l) { return l.name === name; })[0];
    changes[name] = changes[name] || { shares: cur.shares, lendable: cur.lendablePercent };
    changes[name][field] = value;
    var next = api.seats(changes);
    if (next.error) { error.textContent = next.error; return; }
    error.textContent = "";
    seats = next;
    renderSeats();
  }
  function slider(l, field, min, max, label) {
    var id = "apf-" + field + "-" + l.name;
    var value = field === "shares" ? l.shares : l.lendablePercent;
    var input = h("input", { type: "range", id: id, min: min, max: max, step: 1, value: value, "data-key": id,
      oninput: function () { setLevel(l.name, field, +input.value); } });
    // The visible word, then the level: every slider has its own name.
    return h("div", {}, [h("label", { for: id }, [label, h("span", { class: "sr-only", text: " of " + l.name })]), input, h("output", { for: id, text: value + (field === "shares" ? "" : " %") })]);
  }
  function renderSeats() {
    var total = 0;
    seats.levels.forEach(function (l) { total = Math.max(total, l.nominal); });
    h.keep(seatRegion, function () {
      return [h("table", { class: "demo-table" }, [
        h("caption", { text: "Nominal seats: ceil(600 × shares / Σshares); the lendable part may be lent when the level is idle" }),
        h("thead", {}, [h("tr", {}, ["Level", "Shares and lendable percent", "Seats"].map(function (c) { return h("th", { scope: "col", text: c }); }))]),
        h("tbody", {}, seats.levels.map(function (l) {
          var limited = l.type === "Limited";
          var W = 240, k = W / Math.max(total, 1);
          var bar = h.svg("svg", { viewBox: "0 0 " + (W + 4) + " 16", class: "seat-bar", role: "img",
            "aria-label": l.name + ": " + l.nominal + " nominal seats, " + l.lendable + " of them lendable" }, [
            h.svg("rect", { x: 0, y: 2, width: Math.max(0, (l.nominal - l.lendable) * k), height: 12, class: "bar-on" }),
            h.svg("rect", { x: (l.nominal - l.lendable) * k, y: 2, width: Math.max(0, l.lendable * k), height: 12, class: "bar-lend" }),
          ]);
          return h("tr", { "data-level": l.name }, [
            h("th", { scope: "row", text: l.name + (limited ? "" : " (" + l.type + ")") }),
            h("td", { class: "demo-sliders" }, limited ? [slider(l, "shares", 1, 200, "shares"), slider(l, "lendable", 0, 100, "lendable")] : ["not limited"]),
            h("td", {}, [h("div", { class: "seat-cell" }, [bar, h("span", { "data-field": "nominal", text: l.nominal + " nominal, " + l.lendable + " lendable" })])]),
          ]);
        })),
      ])];
    });
  }
  function simulate() {
    simStatus.textContent = "Simulating 20,000 ticks…";
    var r = api.simulate(runaway.checked);
    if (r.error) { error.textContent = r.error; return; }
    simStatus.textContent = (r.runaway ? "Runaway on" : "Runaway off") + ": " + r.flows.length + " flows, last request done at tick " + r.end + ".";
    var W = 640, L = 250, rowH = 22, H = r.flows.length * rowH + 24, maxWait = 1, maxRej = 1;
    r.flows.forEach(function (f) { maxWait = Math.max(maxWait, f.maxWait); maxRej = Math.max(maxRej, f.rejected); });
    var half = (W - L) / 2 - 10, kids = [
      h.svg("text", { x: L, y: 12, class: "gantt-axis" }, ["mean and longest wait (ticks)"]),
      h.svg("text", { x: L + half + 20, y: 12, class: "gantt-axis" }, ["429s"]),
    ];
    r.flows.forEach(function (f, i) {
      var y = 20 + i * rowH, short = f.name.replace("system:serviceaccount:apf-lab:", "");
      kids.push(h.svg("text", { x: 0, y: y + 13, class: "gantt-label" }, [short]));
      kids.push(h.svg("rect", { x: L, y: y + 2, width: Math.max(1, half * f.maxWait / maxWait), height: 14, class: "bar-lend" }));
      kids.push(h.svg("rect", { x: L, y: y + 5, width: Math.max(1, half * f.meanWait / maxWait), height: 8, class: "bar-on" }));
      kids.push(h.svg("rect", { x: L + half + 20, y: y + 2, width: f.rejected ? Math.max(1, half * f.rejected / maxRej) : 0, height: 14, class: "bar-cut" }));
    });
    plot.replaceChildren(h.svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "Waits and 429s of each flow; the table below gives the numbers" }, kids));
    simTable.replaceChildren(h("table", { class: "demo-table" }, [
      h("caption", { text: "What each flow saw" }),
      h("thead", {}, [h("tr", {}, ["Flow", "Sent", "Served", "429s", "Mean wait", "Longest wait"].map(function (c) { return h("th", { scope: "col", text: c }); }))]),
      h("tbody", {}, r.flows.map(function (f) {
        return h("tr", { "data-flow": f.name }, [
          h("th", { scope: "row", text: f.name.replace("system:serviceaccount:apf-lab:", "") }),
          h("td", { "data-field": "sent", text: String(f.sent) }),
          h("td", { "data-field": "served", text: String(f.served) }),
          h("td", { "data-field": "rejected", text: String(f.rejected) }),
          h("td", { "data-field": "meanWait", text: f.meanWait.toFixed(1) }),
          h("td", { "data-field": "maxWait", text: String(f.maxWait) }),
        ]);
      })),
    ]));
  }
  renderSeats();
  simulate();
};
