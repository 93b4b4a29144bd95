// The play page, improved: live updates (static/js/live.js), drafts saved as you type, Markdown preview.
// Every action still works as a plain form post without this script.
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live) return;
  const dirty = new Map(); // text field name -> value the viewer typed but has not sent
  // Every other control the viewer set (a keystone's radio, a die's face, a box ticked, a
  // list's choice), by its place: its form, its name (and value for a box) and its rank among
  // its like; a radio group by its form and name, holding the value chosen.
  const touched = new Map();
  let version = Number(live.dataset.version);
  let knownDrafts = null; // the drafts' signature last seen: it changes as anyone types
  let busy = false;
  // While the viewer types (an input method composing Japanese above all), a refresh for
  // someone else's typing waits: replacing the field would break the composition.
  let composing = false;
  let lastInput = 0;
  const TYPING_MS = 1500;

  function csrfToken() {
    const input = document.querySelector("input[name=csrf_token]");
    return input ? input.value : "";
  }

  function post(url, data) {
    const body = new URLSearchParams(data);
    body.set("csrf_token", csrfToken());
    return fetch(url, { method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "Accept": "application/json" } });
  }

  // Drafts: saved to the server (shared by every device) and to this browser.
  const timers = new Map();
  let saving = 0; // drafts of this page on their way to the server
  function turnNo() {
    const layout = live.querySelector(".table-layout");
    return layout ? layout.dataset.turn : "0";
  }
  function storageKey(name) { return "draft:" + location.pathname + ":" + turnNo() + ":" + name; }
  // "Saved" is shown only when the server says it stored the text; otherwise the text stays in
  // the field and is sent again (after the server's Retry-After, when it gives one).
  function saveDraft(field) {
    const url = live.dataset.draftUrl;
    const status = field.form && field.form.querySelector(".save-status");
    function say(message) { if (status) status.textContent = message || ""; }
    try { localStorage.setItem(storageKey(field.name), field.value); } catch (e) { /* private mode */ }
    if (!url) return;
    saving += 1;
    post(url, { field: field.name, text: field.value, turn: turnNo(), version: version }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.ok && data.saved === true) {
          say(live.dataset.draftSaved);
          if (typeof data.drafts === "string") { // our own typing: nothing to refresh for
            knownDrafts = data.drafts;
            if (pendingDrafts === data.drafts) pendingDrafts = null;
          }
          if (data.kept === true) { // the turn moved on: the words wait beside it
            pendingDrafts = data.drafts || "";
            refresh({ version: wanted });
          }
          return;
        }
        // Refused for good (too long, not this link's turn, the chronicle full): said, not
        // sent again. Too fast (429) or a server away for a moment: sent again.
        if (r.status === 400 || r.status === 403) { say(data.error || live.dataset.draftUnsaved); return; }
        say(live.dataset.draftUnsaved);
        retryDraft(field, r.headers.get("Retry-After"));
      });
    }).catch(function () {
      say(live.dataset.draftOffline);
      retryDraft(field, null);
    }).finally(function () { saving -= 1; });
  }
  function retryDraft(field, retryAfter) {
    const seconds = Math.min(Math.max(Number(retryAfter) || 5, 1), 60);
    clearTimeout(timers.get(field.name));
    timers.set(field.name, setTimeout(function () { saveDraft(field); }, seconds * 1000));
  }
  live.addEventListener("input", function (event) {
    const field = event.target;
    if (field.name && isChoice(field)) touch(field);
    if (!field.name || !(field.matches("textarea, input[type=text]"))) return;
    lastInput = Date.now();
    dirty.set(field.name, field.value);
    if (!field.hasAttribute("data-draft")) return;
    clearTimeout(timers.get(field.name));
    // Soon after a pause in typing: every other device shows the words as they stand.
    timers.set(field.name, setTimeout(function () { saveDraft(field); }, 300));
    if (field.hasAttribute("data-preview")) schedulePreview(field);
  });
  // The prompt chosen is a draft too: a reload, another device or a refused form keeps it.
  live.addEventListener("change", function (event) {
    const field = event.target;
    if (field.name && isChoice(field)) touch(field);
    if (field.name && field.matches("select")) { dirty.set(field.name, field.value); return; }
    if (!field.name || !field.matches("input[type=radio][data-draft]") || !field.checked) return;
    dirty.set(field.name, field.value);
    saveDraft(field);
  });
  // This page's own move reloads it: the focus then goes to the turn's title, so that the next
  // Tab reaches the new step's controls rather than the site's navigation.
  const movedKey = "moved:" + location.pathname;
  live.addEventListener("compositionstart", function () { composing = true; });
  live.addEventListener("compositionend", function () { composing = false; lastInput = Date.now(); });
  live.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return; // not sent (offline): what was typed stays
    dirty.clear();
    touched.clear();
    try { sessionStorage.setItem(movedKey, "1"); } catch (e) { /* private mode */ }
  });
  function focusTurn() {
    const title = document.getElementById("turn-title");
    if (!title) return;
    title.setAttribute("tabindex", "-1");
    title.focus();
  }
  // After the dice the page opens at their outcome (the address names it): the focus goes there,
  // where the next Tab reaches what to do now, and the page stays where it opened.
  function focusAfterOwnMove() {
    let moved = null;
    try { moved = sessionStorage.getItem(movedKey); sessionStorage.removeItem(movedKey); }
    catch (e) { /* private mode */ }
    if (!moved) return;
    const landing = location.hash && document.getElementById(location.hash.slice(1));
    if (landing && landing.id !== "turn") landing.focus({ preventScroll: true });
    else focusTurn();
  }

  // Markdown preview, rendered and cleaned by the server exactly as the story shows it.
  const previewTimers = new Map();
  function schedulePreview(field) {
    const box = field.parentElement.querySelector(".preview");
    if (!box) return;
    clearTimeout(previewTimers.get(field.name));
    previewTimers.set(field.name, setTimeout(function () {
      if (!field.value.trim()) { box.hidden = true; return; }
      post(live.dataset.previewUrl, { text: field.value }).then(function (r) { return r.json(); })
        .then(function (data) {
          if (typeof data.html !== "string") return; // refused: keep the last preview
          box.innerHTML = data.html; box.hidden = false;
        })
        .catch(function () { /* preview is a nicety */ });
    }, 400));
  }

  // Restore what this browser kept if the server had nothing (offline typing, closed tab).
  function restoreLocal(root) {
    root.querySelectorAll("input[type=radio][data-draft]:not(:disabled)").forEach(function (radio) {
      if (root.querySelector("input[type=radio][name='" + radio.name + "']:checked")) return;
      try { if (localStorage.getItem(storageKey(radio.name)) === radio.value) radio.checked = true; }
      catch (e) { /* ignore */ }
    });
    root.querySelectorAll("textarea[data-draft]").forEach(function (field) {
      if (field.value) return;
      try {
        const kept = localStorage.getItem(storageKey(field.name));
        if (kept) field.value = kept;
      } catch (e) { /* ignore */ }
    });
  }

  // Where the focus was before a live refresh, so the same control gets it back afterwards.
  // A field without an id is known by its name and its form's action (dice faces are in
  // several forms of the failure step).
  function formAction(el) {
    const form = el.closest("form");
    const action = form && form.querySelector("button[name=action]");
    return action ? action.value : "";
  }
  // A control the viewer sets other than by typing words: its setting is kept by place.
  function isChoice(el) {
    return el.matches("select, input") && !el.matches("input[type=text], input[type=hidden], input[type=submit], input[type=button]");
  }
  function controlKey(el, root) {
    const form = formAction(el);
    if (el.type === "radio") return "radio|" + form + "|" + el.name;
    const box = el.type === "checkbox";
    const like = Array.from(root.querySelectorAll("[name]")).filter(function (other) {
      return other.name === el.name && other.type === el.type && formAction(other) === form &&
        (!box || other.value === el.value);
    });
    return el.type + "|" + form + "|" + el.name + (box ? "|" + el.value : "") + "|" + like.indexOf(el);
  }
  function touch(el) {
    touched.set(controlKey(el, live), { value: el.value, checked: el.checked, keep: el.hasAttribute("data-keep") });
  }
  function settle(root) {
    root.querySelectorAll("select, input").forEach(function (el) {
      if (!el.name || !isChoice(el)) return;
      const set = touched.get(controlKey(el, root));
      if (!set) return;
      if (el.type === "radio") el.checked = set.value === el.value;
      else if (el.type === "checkbox") el.checked = set.checked;
      else el.value = set.value;
    });
  }
  function focusKey() {
    const el = document.activeElement;
    if (!el || el === document.body || !live.contains(el)) return null;
    const key = { id: el.id, name: el.name, value: el.value, tag: el.tagName,
      form: formAction(el), selection: null };
    if (el.matches("textarea, input[type=text]")) key.selection = [el.selectionStart, el.selectionEnd];
    return key;
  }
  function refocus(key) {
    let again = key.id ? document.getElementById(key.id) : null;
    if (!again && key.name) {
      again = Array.from(live.querySelectorAll("[name]")).find(function (el) {
        return el.name === key.name && el.tagName === key.tag && formAction(el) === key.form &&
          (el.matches("textarea, input[type=text], input[type=number], select") || el.value === key.value);
      });
    }
    if (!again || again.disabled) { focusTurn(); return; } // its step is over: the new one's title
    again.focus();
    if (key.selection && again.setSelectionRange) again.setSelectionRange(key.selection[0], key.selection[1]);
  }
  // A disclosure the viewer opened stays open through a refresh: known by its form's action.
  function detailsKey(details) { return details.className + "|" + formAction(details); }

  // Live updates: when the version changes, swap the fragment and keep typed text.
  // A half-made choice at a card table (the steps opened so far) survives a refresh when the
  // same steps are still offered.
  function openSteps() {
    return Array.from(live.querySelectorAll("details.step[open]"), function (d) { return d.dataset.step; });
  }
  function reopenSteps(root, keys, focusedStep) {
    root.querySelectorAll("details.step").forEach(function (d) {
      if (keys.indexOf(d.dataset.step) >= 0) d.open = true;
      if (focusedStep && d.dataset.step === focusedStep) d.querySelector("summary").focus();
    });
  }
  function swap(html) {
    const focused = focusKey();
    const summary = document.activeElement && document.activeElement.closest("details.step > summary");
    const focusedStep = summary ? summary.parentElement.dataset.step : null;
    const openedSteps = openSteps();
    const template = document.createElement("template");
    template.innerHTML = html;
    // Someone decided what the forms were for (a move, an undo): they start afresh. Typed words
    // are not lost: every draft is on the server, and one that came too late is kept beside the
    // story. Words kept on this device (data-keep) and the field the viewer is in stay.
    const before = live.querySelector(".table-layout");
    const after = template.content.querySelector(".table-layout");
    if (before && after && before.dataset.decision !== after.dataset.decision) {
      touched.forEach(function (set, key) { if (!set.keep) touched.delete(key); });
      const keepers = new Set(Array.from(live.querySelectorAll("[data-keep]"), function (el) { return el.name; }));
      if (document.activeElement && live.contains(document.activeElement)) keepers.add(document.activeElement.name);
      Array.from(dirty.keys()).forEach(function (name) { if (!keepers.has(name)) dirty.delete(name); });
    }
    settle(template.content);
    reopenSteps(template.content, openedSteps, null);
    // The field the viewer is in keeps what it holds, typed or not: words another device typed
    // meanwhile never land under the viewer's caret (they show once the viewer leaves the field).
    const holding = document.activeElement && live.contains(document.activeElement) &&
      document.activeElement.matches("textarea, input[type=text]") ? document.activeElement : null;
    template.content.querySelectorAll("textarea, input[type=text]").forEach(function (field) {
      if (dirty.has(field.name)) field.value = dirty.get(field.name);
      else if (holding && field.name === holding.name && field.id === holding.id &&
        formAction(field) === formAction(holding)) field.value = holding.value;
    });
    template.content.querySelectorAll("input[type=radio][data-draft]").forEach(function (radio) {
      if (dirty.has(radio.name)) radio.checked = dirty.get(radio.name) === radio.value;
    });
    template.content.querySelectorAll("select").forEach(function (select) {
      if (dirty.has(select.name)) select.value = dirty.get(select.name);
    });
    // What a form said of this page's own drafts ("saved", "not saved") stays said: its words stay.
    const said = new Map();
    live.querySelectorAll(".save-status").forEach(function (status) {
      if (status.textContent && status.closest("form")) said.set(formAction(status), status.textContent);
    });
    template.content.querySelectorAll(".save-status").forEach(function (status) {
      if (status.closest("form") && said.has(formAction(status))) status.textContent = said.get(formAction(status));
    });
    const opened = new Set(Array.from(live.querySelectorAll("details[open]:not(.step)")).map(detailsKey));
    template.content.querySelectorAll("details:not(.step)").forEach(function (details) {
      if (opened.has(detailsKey(details))) details.open = true;
    });
    live.replaceChildren(template.content);
    const fresh = live.querySelector(".table-layout");
    if (fresh) version = Number(fresh.dataset.version);
    // Someone else moved (this page's own moves reload it): say what happened, politely.
    const news = document.getElementById("announce");
    if (news && fresh && fresh.dataset.news) news.textContent = fresh.dataset.news;
    live.querySelectorAll("form input[name=version]").forEach(function (input) { input.value = version; });
    if (focusedStep) reopenSteps(live, [], focusedStep);
    else if (focused) refocus(focused);
    animateDice(live);
    if (window.companionFold) window.companionFold(live);
  }
  // A link that was revoked (404) never opens again: stop asking and say so.
  function gone() {
    if (follower) follower.stop();
    if (document.getElementById("link-gone")) return;
    const note = document.createElement("p");
    note.id = "link-gone";
    note.className = "flash flash-error";
    note.setAttribute("role", "alert");
    note.textContent = live.dataset.goneMessage;
    live.parentNode.insertBefore(note, live);
  }
  // Only a 200 fragment replaces the live part; any other answer leaves it and says so.
  function unrefreshed(show) {
    let note = document.getElementById("live-stale");
    if (!show) { if (note) note.remove(); return; }
    if (note) return;
    note = document.createElement("p");
    note.id = "live-stale";
    note.className = "flash flash-error";
    note.setAttribute("role", "status");
    note.textContent = live.dataset.staleMessage;
    live.parentNode.insertBefore(note, live);
  }
  // Each version answer (pushed, or polled when no feed can be held) fetches the fragment
  // when the version changed, or when someone's typing changed the drafts (``drafts``); one that
  // could not be fetched is asked for again a little later. While the viewer types, a refresh
  // for someone else's typing waits (and while an input method composes, every refresh waits).
  let wanted = version;
  let pendingDrafts = null; // a drafts signature the page does not show yet
  let pushed = null; // the newest live part the feed carried with a change
  let waiting = null;
  function onAnswer(answer) {
    if (!answer) return;
    if (typeof answer.drafts === "string") {
      if (knownDrafts === null) knownDrafts = answer.drafts; // what the page was made with
      else if (answer.drafts !== knownDrafts) pendingDrafts = answer.drafts;
    }
    refresh(answer);
  }
  function later(ms) {
    clearTimeout(waiting);
    waiting = setTimeout(function () { refresh({ version: wanted }); }, ms);
  }
  function refresh(answer) {
    wanted = answer.version;
    const forDrafts = pendingDrafts !== null && wanted === version;
    if (busy || (wanted === version && !forDrafts)) return;
    // A drafts change heard while this page's own draft is on its way may be that draft: its
    // answer says so (then nothing is refreshed), so the refresh waits for it.
    if (composing || (forDrafts && (saving > 0 || Date.now() - lastInput < TYPING_MS))) {
      later(TYPING_MS);
      return;
    }
    if (pendingDrafts !== null) knownDrafts = pendingDrafts;
    pendingDrafts = null;
    // The part pushed with this change, when the feed carried it: no request needed.
    const html = window.CompanionLive.partHtml(pushed, { version: wanted, drafts: knownDrafts }, live);
    pushed = null;
    if (html !== null) {
      unrefreshed(false);
      swap(html);
      if (wanted !== version && !document.getElementById("link-gone")) later(0);
      return;
    }
    busy = true;
    let ok = false;
    fetch(live.dataset.fragmentUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (r.status === 404) { gone(); return; }
        if (!r.ok) { unrefreshed(true); return; }
        return r.text().then(function (html) { ok = true; unrefreshed(false); swap(html); });
      })
      .catch(function () { unrefreshed(true); })
      .finally(function () {
        busy = false;
        if ((wanted === version && pendingDrafts === null) || document.getElementById("link-gone")) return;
        later(ok ? 0 : 5000);
      });
  }

  function animateDice(root) {
    const rolls = root.querySelectorAll(".rolls .roll");
    const last = rolls[rolls.length - 1];
    if (!last || last.dataset.seen) return;
    last.dataset.seen = "1";
    last.classList.add("rolling");
    setTimeout(function () { last.classList.remove("rolling"); }, 700);
  }

  restoreLocal(live);
  focusAfterOwnMove();
  animateDice(live);
  const follower = window.CompanionLive.follow({ element: live, eventsUrl: live.dataset.eventsUrl,
    versionUrl: live.dataset.versionUrl, onAnswer: onAnswer, onGone: gone,
    onPart: function (part) { pushed = part; } });
})();
