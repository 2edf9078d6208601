// Sets the theme the reader chose before the page is painted; without a
// choice the stylesheet follows the system (prefers-color-scheme). The js
// class tells the stylesheet that site.js will run: without it, a phone
// shows the pages as a list instead of a menu button that cannot work.
(function () {
  document.documentElement.classList.add("js");
  try {
    var t = localStorage.getItem("opslab-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) { /* storage disabled: follow the system */ }
})();
