// The side panel shows a quote in its source (loaded by htmx); Close or Escape empties it.
(function () {
  "use strict";
  function closePanel() {
    var panel = document.getElementById("side-panel");
    if (panel) { panel.replaceChildren(); }
  }
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-close-panel]")) { closePanel(); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { closePanel(); }
  });
})();
