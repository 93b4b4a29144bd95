// Every page: words typed in a text box are kept as they are typed, so a reload, a closed tab or
// a lost connection loses nothing. Each box says how (tests/test_text_boxes.py holds every box
// of the app to it):
// - data-draft, in a form whose data-draft-url names a chronicle's draft address: saved to the
//   server as the words stand (every device of the group gets them back) and on this device;
// - data-keep: kept on this device, and put back when the page opens again.
// The play page's own script (play.js) keeps the boxes of its live part; this one keeps every
// other box. A box's words on this device are forgotten once its form is sent. Pages work
// without this script.
(function () {
  "use strict";
  const timers = new Map();
  // One save of a box at a time: a save asked for while one is on its way follows it, so the
  // server never takes an older text after a newer one.
  const sending = new Set();
  const followUp = new Set();

  function owned(field) {
    if (!field.name || !field.matches("textarea, input")) return false;
    return field.hasAttribute("data-keep") || (field.hasAttribute("data-draft") && !field.closest("#live"));
  }
  function storageKey(field) {
    const form = field.form;
    const action = form ? (form.getAttribute("action") || "") : "";
    return "keep:" + location.pathname + ":" + action + ":" + field.name;
  }
  function remember(field) {
    try { localStorage.setItem(storageKey(field), field.value); } catch (e) { /* private mode */ }
  }
  function recalled(field) {
    try { return localStorage.getItem(storageKey(field)); } catch (e) { return null; }
  }
  function forget(field) {
    try { localStorage.removeItem(storageKey(field)); } catch (e) { /* private mode */ }
  }

  function say(field, key) {
    const form = field.form;
    const status = form && form.querySelector(".save-status");
    if (status) status.textContent = key ? (form.dataset[key] || "") : "";
  }
  function save(field) {
    const form = field.form;
    const url = form && form.dataset.draftUrl;
    if (!url || !field.hasAttribute("data-draft")) return;
    if (sending.has(field)) { followUp.add(field); return; }
    sending.add(field);
    const sent = field.value;
    const body = new URLSearchParams();
    const csrf = form.querySelector("input[name=csrf_token]");
    const version = form.querySelector("input[name=version]");
    body.set("field", field.name);
    body.set("text", sent);
    body.set("turn", form.dataset.turn || "-1");
    if (version) body.set("version", version.value);
    if (csrf) body.set("csrf_token", csrf.value);
    fetch(url, { method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": csrf ? csrf.value : "" } })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (data) {
          // "Saved" says the box's words as they stand are on the server.
          if (r.ok && data.saved === true) { if (field.value === sent) say(field, "draftSaved"); return; }
          say(field, "draftUnsaved");
          if (r.status !== 400) later(field, r.headers.get("Retry-After"));
        });
      })
      .catch(function () { say(field, "draftOffline"); later(field, null); })
      .finally(function () {
        sending.delete(field);
        if (followUp.delete(field)) save(field);
      });
  }
  function later(field, retryAfter) {
    const seconds = Math.min(Math.max(Number(retryAfter) || 5, 1), 60);
    clearTimeout(timers.get(field));
    timers.set(field, setTimeout(function () { save(field); }, seconds * 1000));
  }

  document.addEventListener("input", function (event) {
    const field = event.target;
    if (!(field instanceof HTMLElement) || !owned(field)) return;
    remember(field);
    if (field.hasAttribute("data-draft")) say(field, null);  // not saved as it now stands
    clearTimeout(timers.get(field));
    timers.set(field, setTimeout(function () { save(field); }, 300));
  });
  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return; // not sent (offline): the words stay kept
    event.target.querySelectorAll("textarea, input").forEach(function (field) {
      if (owned(field)) forget(field);
    });
  });

  // Put back what this device kept: a box the server filled keeps the server's words, except
  // a data-keep box, whose server words are only where its typing started.
  function restore() {
    document.querySelectorAll("textarea, input").forEach(function (field) {
      if (!owned(field) || field.disabled || field.readOnly) return;
      const kept = recalled(field);
      if (kept === null || kept === field.value) return;
      if (field.hasAttribute("data-draft") && field.value) return;
      field.value = kept;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", restore);
  else restore();
})();
