// Sets the theme the reader chose before the page is painted; without a
// choice the stylesheet follows the system (prefers-color-scheme).
(function () {
  try {
    var t = localStorage.getItem("opslab-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) { /* storage disabled: follow the system */ }
})();
