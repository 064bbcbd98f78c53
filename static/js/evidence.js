// Selecting text of a source in the side panel (evidence_source.html) fills the add-evidence form of
// the [证据不足] item it was opened for (partials/add_evidence.html): the source and the span's first
// and last characters, counted as Python counts them (code points, not UTF-16 units).
(function () {
  "use strict";

  function element(node) {
    return node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
  }

  function offset(snapshot, node, at) {
    const line = element(node) && element(node).closest("[data-start]");
    if (!line || !snapshot.contains(line)) return null;
    const before = document.createRange();
    before.setStart(line, 0);
    before.setEnd(node, at);
    return Number(line.dataset.start) + Array.from(before.toString()).length;
  }

  function fill() {
    const selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return;
    const range = selection.getRangeAt(0);
    const snapshot = element(range.commonAncestorContainer).closest("[data-snapshot]");
    if (!snapshot) return;
    const start = offset(snapshot, range.startContainer, range.startOffset);
    const end = offset(snapshot, range.endContainer, range.endOffset);
    if (start === null || end === null || end <= start) return;
    const form = document.querySelector('form[data-manual-evidence="' + snapshot.dataset.finding + '"]');
    if (!form) return;
    form.elements.source.value = snapshot.dataset.source;
    form.elements.start.value = String(start);
    form.elements.end.value = String(end);
    form.elements.quote.value = "";
    const shown = form.querySelector("[data-selection]");
    if (shown) shown.textContent = "“" + selection.toString() + "”";
  }

  document.addEventListener("mouseup", fill);
  document.addEventListener("keyup", fill);
})();
