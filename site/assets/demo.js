// Starts a chapter's demo: the chapter's Go model compiled to WebAssembly
// (run by the Go distribution's wasm_exec.js) and the chapter's demo.js,
// which registered the function that draws it as window.opslabDemoUI.
// The wasm and wasm_exec.js are fetched only when the reader asks for the
// demo: a reader who only reads downloads neither.
(function () {
  "use strict";
  var section = document.querySelector("section.demo[data-wasm]");
  if (!section || typeof WebAssembly !== "object") return;
  var draw = window.opslabDemoUI;
  if (typeof draw !== "function") return;

  var bar = document.createElement("div");
  bar.className = "demo-bar";
  var start = document.createElement("button");
  start.type = "button";
  start.className = "demo-start";
  var mb = +section.dataset.bytes / 1e6;
  start.textContent = "Run the demo" + (mb ? " (" + (mb < 10 ? mb.toFixed(1) : Math.round(mb)) + " MB to download)" : "");
  var status = document.createElement("p");
  status.className = "demo-status";
  status.setAttribute("role", "status");
  status.textContent = "It runs this chapter's Go model in your browser; nothing leaves the page.";
  bar.appendChild(start);
  bar.appendChild(status);
  section.appendChild(bar);
  section.dataset.state = "idle";

  // h makes an element: h("button", {type: "button", text: "Evict"},
  // [children]); attributes, except text (its text) and on* (listeners).
  // h.svg makes SVG elements the same way. h.keep re-renders a region and
  // gives the keyboard focus back to the control that had it (data-key) or,
  // when that control is gone (an evicted pod's row), to the control now in
  // its place, so the focus never drops to the page. h.say announces one
  // sentence to screen readers: regions that are re-rendered whole are not
  // live, or every click would read them again from the start.
  function make(doc, tag, props, kids) {
    var e = doc(tag);
    Object.keys(props || {}).forEach(function (k) {
      var v = props[k];
      if (v === undefined || v === null || v === false) return;
      if (k === "text") e.textContent = v;
      else if (k.lastIndexOf("on", 0) === 0) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    });
    (kids || []).forEach(function (c) {
      if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function h(tag, props, kids) {
    return make(function (t) { return document.createElement(t); }, tag, props, kids);
  }
  h.svg = function (tag, props, kids) {
    return make(function (t) { return document.createElementNS("http://www.w3.org/2000/svg", t); }, tag, props, kids);
  };
  var controls = "button, input, select";
  h.keep = function (region, build) {
    var a = document.activeElement, had = a && region.contains(a);
    var key = had ? a.getAttribute("data-key") : null;
    var at = had ? Array.prototype.indexOf.call(region.querySelectorAll(controls), a) : -1;
    region.replaceChildren.apply(region, build());
    if (!had) return;
    var again = key && region.querySelector('[data-key="' + key + '"]');
    if (!again || again.disabled) {
      var all = Array.prototype.filter.call(region.querySelectorAll(controls), function (e) { return !e.disabled; });
      again = all[Math.min(at, all.length - 1)];
    }
    if (again) again.focus();
  };
  var announcer = document.createElement("p");
  announcer.className = "sr-only";
  announcer.setAttribute("role", "status");
  h.say = function (sentence) { announcer.textContent = sentence; };

  // runtime loads the Go distribution's wasm_exec.js, which defines Go.
  var runtime = null;
  function loadRuntime() {
    if (typeof Go === "function") return Promise.resolve();
    if (!runtime) {
      runtime = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = section.dataset.runtime;
        s.onload = function () { resolve(); };
        s.onerror = function () {
          // A later start tries again.
          runtime = null;
          s.remove();
          reject(new Error("fetching " + section.dataset.runtime + " failed"));
        };
        document.head.appendChild(s);
      });
    }
    return runtime;
  }
  function load() {
    var go;
    return loadRuntime()
      .then(function () {
        go = new Go();
        return fetch(section.dataset.wasm);
      })
      .then(function (r) {
        if (!r.ok) throw new Error("fetching " + section.dataset.wasm + ": HTTP " + r.status);
        return r.arrayBuffer();
      })
      .then(function (buf) {
        return WebAssembly.instantiate(buf, go.importObject);
      })
      .then(function (res) {
        // The Go program's main registers its functions and waits for calls:
        // run returns once it waits.
        go.run(res.instance).catch(function (e) { fail(e); });
        var api = window.opslabDemoAPI;
        delete window.opslabDemoAPI;
        if (!api) throw new Error("the model did not register its functions");
        return api;
      });
  }
  // A table or chart wider than the demo scrolls inside itself and says
  // so (site.js), after every redraw and resize.
  function signOverflow(live) {
    if (typeof window.opslabSignOverflow === "function") window.opslabSignOverflow(live, ".demo-table, .demo-chart");
  }
  function fail(e) {
    section.dataset.state = "failed";
    start.disabled = false;
    status.textContent = "The demo could not start: " + (e && e.message ? e.message : e);
  }
  start.addEventListener("click", function () {
    start.disabled = true;
    section.dataset.state = "loading";
    status.textContent = "Loading the model…";
    load().then(function (api) {
      var live = document.createElement("div");
      live.className = "demo-live";
      section.appendChild(announcer);
      section.appendChild(live);
      draw(live, api, h);
      signOverflow(live);
      var pending = false;
      var again = function () {
        if (pending) return;
        pending = true;
        requestAnimationFrame(function () { pending = false; signOverflow(live); });
      };
      new MutationObserver(again).observe(live, { childList: true, subtree: true });
      window.addEventListener("resize", again);
      bar.remove();
      section.dataset.state = "ready";
      var first = live.querySelector("button, input, select");
      if (first) first.focus();
    }).catch(fail);
  });
})();
