// The site's behaviour: theme toggle, menu on small screens, search.
// No inline handlers: everything is attached here.
(function () {
  "use strict";
  var doc = document.documentElement;
  var root = doc.dataset.root || "./";

  // Theme: light or dark, following the system until the reader chooses.
  var toggle = document.getElementById("opslab-theme-toggle");
  var dark = window.matchMedia("(prefers-color-scheme: dark)");
  function current() {
    return doc.dataset.theme || (dark.matches ? "dark" : "light");
  }
  function label() {
    var t = current();
    toggle.querySelector(".theme-icon").textContent = t === "dark" ? "☀" : "☾";
    toggle.querySelector(".theme-label").textContent = t === "dark" ? "Light theme" : "Dark theme";
    toggle.setAttribute("aria-label", "Switch to the " + (t === "dark" ? "light" : "dark") + " theme");
  }
  if (toggle) {
    toggle.hidden = false;
    label();
    toggle.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      doc.dataset.theme = next;
      try { localStorage.setItem("opslab-theme", next); } catch (e) { /* not persisted */ }
      label();
    });
    dark.addEventListener("change", label);
  }

  // Menu: on small screens the sidebar slides in over the content. Open, it
  // takes the focus and everything behind it is inert, so Tab stays in the
  // menu; Escape, the button or a click outside closes it and gives the
  // focus back to the button. Closed, the stylesheet hides it (visibility),
  // so its links are no Tab stops.
  var menu = document.getElementById("opslab-menu-toggle");
  var sidebar = document.getElementById("opslab-sidebar");
  if (menu && sidebar) {
    var small = window.matchMedia("(max-width: 60rem)");
    var behind = Array.from(document.querySelectorAll(".skip, .brand, .search, #opslab-theme-toggle, main, footer.bottom"));
    var isOpen = function () { return document.body.classList.contains("menu-open"); };
    var setOpen = function (open, refocus) {
      document.body.classList.toggle("menu-open", open);
      menu.setAttribute("aria-expanded", open ? "true" : "false");
      behind.forEach(function (e) { e.inert = open; });
      if (open) {
        var first = sidebar.querySelector('a[aria-current="page"]') || sidebar.querySelector("a");
        if (first) first.focus();
      } else if (refocus) {
        menu.focus();
      }
    };
    menu.addEventListener("click", function () { setOpen(!isOpen(), true); });
    sidebar.addEventListener("click", function (e) {
      // A link leads away or to a heading: the focus follows it.
      if (e.target.closest("a")) setOpen(false, false);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && isOpen()) { e.preventDefault(); setOpen(false, true); }
    });
    document.addEventListener("click", function (e) {
      if (isOpen() && !sidebar.contains(e.target) && !menu.contains(e.target)) setOpen(false, true);
    });
    small.addEventListener("change", function () { if (!small.matches && isOpen()) setOpen(false, false); });
  }

  // Search: terms are words (lower case) and, for Chinese and Japanese, pairs
  // of adjacent characters, cut exactly as the site builder cut the text.
  var input = document.getElementById("opslab-search-input");
  var box = document.getElementById("opslab-search-results");
  var list = document.getElementById("opslab-search-list");
  // The status is announced from outside the panel: a live region inside a
  // panel that was hidden until now may not be read the first time.
  var status = document.getElementById("opslab-search-status");
  var count = document.getElementById("opslab-search-count");
  var form = input && input.closest(".search");
  if (!input || !box || !form) return;
  var index = null, loading = null;

  function load() {
    if (!loading) {
      loading = fetch(root + "search-index.json")
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
        .then(function (j) { index = j; index.keys = Object.keys(j.terms).sort(); return j; })
        // A failed load is tried again at the next search, not kept.
        .catch(function (e) { loading = null; throw e; });
    }
    return loading;
  }
  var cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u;
  var wordChar = /[\p{L}\p{N}\p{M}_]/u;
  function terms(text) {
    var out = [], word = "", run = [];
    function flush() {
      if (word.length >= 2) out.push({ t: word.toLowerCase(), prefix: true });
      if (run.length === 1) out.push({ t: run[0], prefix: true });
      for (var i = 0; i + 1 < run.length; i++) out.push({ t: run[i] + run[i + 1], prefix: false });
      word = ""; run = [];
    }
    for (var ch of text) {
      if (cjk.test(ch)) { if (word) flush(); run.push(ch); }
      else if (wordChar.test(ch)) { if (run.length) flush(); word += ch; }
      else flush();
    }
    flush();
    return out;
  }
  // postings returns section -> count for a term (every key it begins, for words).
  function postings(q) {
    var res = new Map(), keys = q.prefix ? index.keys : [q.t];
    var lo = 0;
    if (q.prefix) {
      var hi = keys.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (keys[mid] < q.t) lo = mid + 1; else hi = mid; }
    }
    for (var k = lo; k < keys.length; k++) {
      var key = keys[k];
      if (q.prefix && key.lastIndexOf(q.t, 0) !== 0) break;
      var p = index.terms[key];
      if (p) for (var i = 0; i < p.length; i += 2) res.set(p[i], (res.get(p[i]) || 0) + p[i + 1] * (key === q.t ? 2 : 1));
      if (!q.prefix) break;
    }
    return res;
  }
  function search(text) {
    var qs = terms(text);
    if (!qs.length) return [];
    var score = null;
    qs.forEach(function (q) {
      var p = postings(q);
      if (score === null) { score = p; return; }
      var next = new Map();
      score.forEach(function (v, s) { if (p.has(s)) next.set(s, v + p.get(s)); });
      score = next;
    });
    return Array.from(score.entries()).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; }).slice(0, 20);
  }
  function say(text) {
    status.textContent = text;
    count.textContent = text;
  }
  function show() {
    var text = input.value.trim();
    if (!text) { box.hidden = true; return; }
    load().then(function () {
      var hits = search(text);
      list.textContent = "";
      hits.forEach(function (h) {
        var s = index.sections[h[0]], pg = index.pages[s.p];
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = root + pg.u + (s.a ? "#" + s.a : "");
        a.textContent = s.t === pg.t ? pg.t : pg.t + " › " + s.t;
        var p = document.createElement("p");
        p.textContent = s.s;
        li.appendChild(a);
        li.appendChild(p);
        list.appendChild(li);
      });
      say(hits.length ? hits.length + (hits.length === 1 ? " section matches" : " sections match") + " “" + text + "”." : "Nothing matches “" + text + "”.");
      box.hidden = false;
    }).catch(function () {
      say("Search could not load its index; press Enter to try again.");
      box.hidden = false;
    });
  }
  var timer;
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(show, 120); });
  input.addEventListener("focus", function () { load().catch(function () {}); }, { once: true });
  document.addEventListener("click", function (e) {
    if (!box.hidden && !e.target.closest(".search")) box.hidden = true;
  });
  // The panel closes when the focus leaves the search (Tab, a click
  // elsewhere) and when a result leads to a heading of this page, which it
  // would cover; the focus goes to that heading.
  form.addEventListener("focusout", function (e) {
    if (!form.contains(e.relatedTarget)) box.hidden = true;
  });
  list.addEventListener("click", function (e) {
    var a = e.target.closest("a");
    // A server may show dir/index.html as dir/: both are this page.
    var page = function (p) { return p.replace(/\/index\.html$/, "/"); };
    if (!a || page(a.pathname) !== page(location.pathname) || a.search !== location.search) return;
    // Stay on this page (the link may spell it as the other of the two).
    e.preventDefault();
    box.hidden = true;
    var target = a.hash && document.getElementById(decodeURIComponent(a.hash.slice(1)));
    if (a.hash) location.hash = a.hash;
    if (target) {
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
    }
  });
  box.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { box.hidden = true; input.focus(); }
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { clearTimeout(timer); show(); }
    if (e.key === "Escape") { input.value = ""; box.hidden = true; }
  });
})();

// Wide tables: on a narrow screen a table (or a demo's chart) wider than
// the text scrolls sideways inside itself, never silently: a line above it
// says so, and it takes the keyboard focus, so that it scrolls without a
// pointer. demo.js calls opslabSignOverflow for a demo's tables and charts.
(function () {
  "use strict";
  function sign(root, sel) {
    root.querySelectorAll(sel).forEach(function (e) {
      var over = !e.hidden && e.scrollWidth > e.clientWidth + 1;
      var hint = e.previousElementSibling;
      var has = !!hint && hint.classList.contains("scroll-hint");
      if (over && !has) {
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.setAttribute("aria-hidden", "true");
        hint.textContent = (e.classList.contains("demo-chart") ? "The chart is wider than the screen" : "The table has more columns") + ": scroll it sideways →";
        e.parentNode.insertBefore(hint, e);
      } else if (!over && has) {
        hint.remove();
      }
      if (over) {
        e.dataset.overflow = "true";
        if (!e.hasAttribute("tabindex")) e.tabIndex = 0;
      } else if (e.dataset.overflow) {
        delete e.dataset.overflow;
        e.removeAttribute("tabindex");
      }
    });
  }
  window.opslabSignOverflow = sign;
  var pending = false;
  function again() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; sign(document, ".prose table"); });
  }
  again();
  window.addEventListener("resize", again);
})();
