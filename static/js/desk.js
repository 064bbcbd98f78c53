// The desk's keyboard and its one side panel (no inline script: the CSP allows 'self' only).
//
// Keys (not while typing in a field): j / k move focus to the next / previous item card
// ([data-item]); a card's buttons carry their key in data-shortcut, pressed while focus is in that
// card (a field with a data-shortcut is focused instead: "r" focuses the rejection's feedback);
// "?" opens the help dialog listing the keys, Esc closes it and focus returns where it was.
// The side panel (#side-panel) shows a quote in its source: focus moves into it when it opens and
// back to the link that opened it when it closes (Close or Esc).
(function () {
  "use strict";
  var opener = null; // the link that filled the side panel
  var helpOpener = null;

  function panel() { return document.getElementById("side-panel"); }
  function help() { return document.getElementById("shortcut-help"); }

  function closePanel() {
    var side = panel();
    if (!side || !side.firstElementChild) { return false; }
    side.replaceChildren();
    if (opener && document.contains(opener)) { opener.focus(); }
    opener = null;
    return true;
  }

  function isTyping(target) {
    if (!target || !target.closest) { return false; }
    return Boolean(target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  }

  function visible(element) { return element.getClientRects().length > 0; }

  function cards() {
    return Array.prototype.filter.call(document.querySelectorAll("[data-item]"), visible);
  }

  function currentCard() {
    var active = document.activeElement;
    return active && active.closest ? active.closest("[data-item]") : null;
  }

  function focusCard(card) {
    if (!card.hasAttribute("tabindex")) { card.setAttribute("tabindex", "-1"); }
    card.focus();
    card.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var all = cards();
    if (!all.length) { return; }
    var at = all.indexOf(currentCard());
    var next = at < 0 ? (step > 0 ? 0 : all.length - 1) : Math.min(Math.max(at + step, 0), all.length - 1);
    focusCard(all[next]);
  }

  function shortcutIn(card, key) {
    var found = card.querySelectorAll("[data-shortcut]");
    for (var i = 0; i < found.length; i += 1) {
      // a nested card's buttons belong to that card
      if (found[i].getAttribute("data-shortcut") === key && found[i].closest("[data-item]") === card) {
        return found[i];
      }
    }
    return null;
  }

  function press(card, key) {
    var control = shortcutIn(card, key);
    if (!control || control.disabled) { return false; }
    if (isTyping(control)) { control.focus(); } else { control.click(); }
    return true;
  }

  // What a key does, for the help: the control's own words without its screen-reader-only
  // suffix ("— item 12"), or a field's label.
  function label(control) {
    var text = control.getAttribute("data-shortcut-label");
    if (!text && control.labels && control.labels.length) { text = control.labels[0].textContent; }
    if (!text) {
      var copy = control.cloneNode(true);
      copy.querySelectorAll(".visually-hidden").forEach(function (hidden) { hidden.remove(); });
      text = copy.textContent || control.getAttribute("aria-label") || "";
    }
    return text.replace(/\s+/g, " ").trim();
  }

  function fillHelp(dialog) {
    var list = dialog.querySelector("[data-shortcut-list]");
    if (!list) { return; }
    list.replaceChildren();
    var seen = {};
    document.querySelectorAll("[data-item] [data-shortcut]").forEach(function (control) {
      var key = control.getAttribute("data-shortcut");
      if (seen[key] || !visible(control)) { return; }
      seen[key] = true;
      var row = document.createElement("div");
      var term = document.createElement("dt");
      var kbd = document.createElement("kbd");
      var what = document.createElement("dd");
      kbd.textContent = key;
      what.textContent = label(control);
      term.appendChild(kbd);
      row.appendChild(term);
      row.appendChild(what);
      row.setAttribute("data-testid", "shortcut-row");
      list.appendChild(row);
    });
    var none = dialog.querySelector("[data-no-shortcuts]");
    if (none) { none.hidden = Object.keys(seen).length > 0; }
  }

  function openHelp() {
    var dialog = help();
    if (!dialog || dialog.open) { return; }
    helpOpener = document.activeElement;
    fillHelp(dialog);
    dialog.showModal();
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.closest("[data-close-panel]")) { closePanel(); return; }
    if (target.closest("[data-open-shortcuts]")) { openHelp(); return; }
    var link = target.closest("[hx-target='#side-panel']");
    if (link) { opener = link; }
  });

  // Focus into the panel once htmx has put the quote there.
  document.addEventListener("htmx:afterSwap", function (event) {
    var side = panel();
    if (!side || event.detail.target !== side || !side.firstElementChild) { return; }
    var heading = side.querySelector("h1, h2, h3") || side;
    if (!heading.hasAttribute("tabindex")) { heading.setAttribute("tabindex", "-1"); }
    heading.focus();
  });

  // A decision on an item card (a finding: [data-item][data-resolution]) swaps the list of items for
  // the fresh one. The page must not jump: the card decided stays at the height it was on screen. Focus
  // then goes to the control the server marked (data-focus-here: the field of a refused form, its
  // error beside it, what was typed kept), or else to the next item still to decide.
  var decided = null;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig || {};
    var elt = config.elt;
    if (config.verb !== "post" || !elt || !elt.closest) { decided = null; return; }
    var card = elt.closest("[data-item][data-resolution]");
    decided = card && card.id && event.detail.target.contains(card)
      ? { id: card.id, top: card.getBoundingClientRect().top, y: window.scrollY }
      : { id: "", top: 0, y: window.scrollY };
  });

  function nextToDecide(card) {
    var pending = Array.prototype.filter.call(
      document.querySelectorAll("[data-item][data-resolution='']"), visible);
    for (var i = 0; i < pending.length; i += 1) {
      if (!card || (card.compareDocumentPosition(pending[i]) & Node.DOCUMENT_POSITION_FOLLOWING)) {
        return pending[i];
      }
    }
    return pending.length ? pending[0] : null;
  }

  function inView(element) {
    var box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  }

  document.addEventListener("htmx:afterSettle", function () {
    if (!decided) { return; }
    var was = decided;
    decided = null;
    var card = was.id ? document.getElementById(was.id) : null;
    if (was.id) {
      window.scrollTo(0, card ? window.scrollY + card.getBoundingClientRect().top - was.top : was.y);
    }
    var here = document.querySelector("[data-focus-here]");
    if (here) {
      here.focus({ preventScroll: true });
      if (!inView(here)) { here.scrollIntoView({ block: "center" }); }
      return;
    }
    if (!was.id) { return; } // not a decision on an item card: focus stays where htmx left it
    var next = nextToDecide(card);
    if (next) {
      if (!next.hasAttribute("tabindex")) { next.setAttribute("tabindex", "-1"); }
      next.focus({ preventScroll: true });
    }
  });

  // Preferences: a person who has not chosen a time zone (the select carries data-browser-zone-label)
  // is offered this browser's zone first, selected, under that label; the regions' list is unchanged.
  function offerBrowserZone() {
    var select = document.querySelector("select[data-browser-zone-label]");
    if (!select || select.value !== "") { return; }
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { return; }
    var known = Array.prototype.some.call(select.options, function (option) { return option.value === zone; });
    if (!zone || !known) { return; }
    var group = document.createElement("optgroup");
    group.label = select.getAttribute("data-browser-zone-label");
    group.setAttribute("data-testid", "browser-zone");
    group.appendChild(new Option(zone, zone, true, true));
    select.insertBefore(group, select.firstChild);
    select.value = zone;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var refused = document.querySelector("[data-focus-here]"); // a refused form shown again, without htmx
    if (refused) { refused.focus(); }
    offerBrowserZone();
    var dialog = help();
    if (dialog) {
      dialog.addEventListener("close", function () {
        if (helpOpener && document.contains(helpOpener) && helpOpener.focus) { helpOpener.focus(); }
        helpOpener = null;
      });
    }
  });

  document.addEventListener("keydown", function (event) {
    var dialog = help();
    if (dialog && dialog.open) { return; } // the dialog handles Esc itself (and its close event)
    if (event.key === "Escape") {
      if (closePanel()) { event.preventDefault(); }
      return;
    }
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) {
      return;
    }
    if (event.key === "?") { openHelp(); event.preventDefault(); return; }
    if (event.key === "j" || event.key === "k") { move(event.key === "j" ? 1 : -1); event.preventDefault(); return; }
    var card = currentCard();
    if (card && event.key.length === 1 && press(card, event.key)) { event.preventDefault(); }
  });
})();
