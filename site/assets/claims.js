// Claims: a claim's mark (a footnote's link without JavaScript) becomes a
// button that opens its evidence in a popover below its line: the
// counterfactual, the tests with their results, the upstream line. The
// content comes from claims.json beside the page, fetched on first use.
// Escape, the button again or a click outside closes it, and the focus goes
// back to the button.
(function () {
  "use strict";
  var marks = document.querySelectorAll("a.claim-mark[data-claim]");
  if (!marks.length) return;
  var data = null, open = null;
  function load() {
    if (!data) data = fetch("claims.json").then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .catch(function (e) { data = null; throw e; });
    return data;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function link(href, child) {
    var a = el("a");
    a.href = href;
    a.appendChild(child);
    return a;
  }
  var label = { passed: "passed", failed: "failed", skipped: "skipped", missing: "not run", tagged: "end-to-end" };
  function fill(pop, c) {
    pop.textContent = "";
    c.plants.forEach(function (p) {
      var line = el("span", "claim-if", "If " + p.if + ", ");
      p.tests.forEach(function (t, i) {
        if (i) line.appendChild(document.createTextNode(i === p.tests.length - 1 ? " and " : ", "));
        line.appendChild(el("code", "", t.name));
      });
      line.appendChild(document.createTextNode(p.tests.length > 1 ? " fail." : " fails."));
      pop.appendChild(line);
      p.tests.forEach(function (t) {
        var row = el("span", "claim-test");
        var name = el("code", "", t.name);
        row.appendChild(t.url ? link(t.url, name) : name);
        if (t.state) row.appendChild(el("span", "badge badge-" + t.state, label[t.state] || t.state));
        pop.appendChild(row);
      });
      var up = el("span", "claim-upstream", "Upstream: ");
      up.appendChild(link(p.upstream, document.createTextNode(p.upstream.replace(/^https:\/\/github\.com\/[^/]+\/[^/]+\/blob\//, "").replace(/#L(\d+)$/, " line $1"))));
      pop.appendChild(up);
    });
    if (c.evidence) pop.appendChild(link(c.evidence, document.createTextNode("How we know, in full")));
  }
  function close(refocus) {
    if (!open) return;
    open.pop.hidden = true;
    open.button.setAttribute("aria-expanded", "false");
    if (refocus) open.button.focus();
    open = null;
  }
  marks.forEach(function (a, i) {
    var button = el("button", "claim-mark", a.textContent);
    button.type = "button";
    button.setAttribute("aria-label", a.getAttribute("aria-label"));
    button.setAttribute("aria-expanded", "false");
    var pop = el("span", "claim-pop");
    pop.id = "claim-pop-" + (i + 1);
    pop.hidden = true;
    pop.setAttribute("role", "group");
    pop.setAttribute("aria-label", "Evidence for this claim");
    button.setAttribute("aria-controls", pop.id);
    var sup = a.parentNode;
    a.replaceWith(button);
    sup.after(pop);
    var me = { button: button, pop: pop };
    button.addEventListener("click", function () {
      if (open === me) { close(true); return; }
      close(false);
      load().then(function (claims) {
        fill(pop, claims[a.dataset.claim] || { plants: [] });
      }).catch(function () {
        pop.textContent = "The evidence could not be loaded: ";
        pop.appendChild(link(a.getAttribute("href"), document.createTextNode("read the note")));
      }).then(function () {
        pop.hidden = false;
        button.setAttribute("aria-expanded", "true");
        open = me;
      });
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && open) { e.preventDefault(); close(true); }
  });
  document.addEventListener("click", function (e) {
    if (open && !open.pop.contains(e.target) && !open.button.contains(e.target)) close(false);
  });
})();
