// Every page: the service worker (the app's own offline page), folding long texts, and forms
// pressed while the device is offline. Pages work without this script.
(function () {
  "use strict";
  const me = document.currentScript;
  const words = me ? me.dataset : {};

  if ("serviceWorker" in navigator && me && me.dataset.worker) {
    navigator.serviceWorker.register(me.dataset.worker).catch(function () { /* pages work without it */ });
  }

  // A long text folds to a few lines once saved; a button shows it all (and folds it again).
  const FOLD_PX = 160;
  // A text is measured only as it comes near the screen: measuring every text of a long story
  // at once laid the whole page out in one task of most of a second on a phone. Texts within two
  // screens of the one shown fold before they are seen (the browser keeps what is shown in place
  // when one above it folds).
  const near = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      near.unobserve(entry.target);
      foldOne(entry.target);
    });
  }, { rootMargin: "200% 0px 200% 0px" }) : null;

  function fold(root) {
    (root || document).querySelectorAll(".fold:not([data-folding])").forEach(function (box) {
      box.setAttribute("data-folding", "1");
      if (near) near.observe(box); else foldOne(box);
    });
  }

  function foldOne(box) {
    if (box.scrollHeight <= FOLD_PX * 1.5) return;
    box.classList.add("folded");
    if (!box.id) box.id = "fold-" + Math.random().toString(36).slice(2, 10);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fold-toggle quiet";
    button.setAttribute("aria-controls", box.id);
    button.setAttribute("aria-expanded", "false");
    button.textContent = words.showAll || "Show all";
    button.addEventListener("click", function () {
      const open = box.classList.toggle("folded") === false;
      button.setAttribute("aria-expanded", open ? "true" : "false");
      button.textContent = open ? (words.showLess || "Show less") : (words.showAll || "Show all");
    });
    box.insertAdjacentElement("afterend", button);
  }
  window.companionFold = fold;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { fold(); });
  else fold();

  // The story's contents fold away once a chapter is chosen, so the page shows it.
  document.addEventListener("click", function (event) {
    const link = event.target instanceof Element ? event.target.closest(".story-toc a") : null;
    const box = link ? link.closest("details") : null;
    if (box) box.open = false;
  });

  // Offline, a press is not sent: the page says so where it was pressed and offers to send it
  // once the device is back. Nothing is ever sent later by itself.
  document.addEventListener("submit", function (event) {
    if (navigator.onLine !== false) return;
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "post") return;
    event.preventDefault();
    event.stopPropagation();
    unsent(form, event.submitter || null);
  }, true);

  function unsent(form, submitter) {
    let note = form.querySelector(".unsent");
    if (!note) {
      note = document.createElement("div");
      note.className = "unsent flash flash-error";
      note.setAttribute("role", "alert");
      const text = document.createElement("p");
      text.textContent = words.unsent || "Offline: this was not sent. Your words are kept on this device.";
      const send = document.createElement("button");
      send.type = "button";
      send.className = "primary send-again";
      send.textContent = words.sendNow || "Send it now";
      note.append(text, send);
      form.append(note);
      send.addEventListener("click", function () {
        if (navigator.onLine === false) return;
        send.disabled = true;
        const pressed = note.pressed;
        note.remove();
        if (form.requestSubmit) form.requestSubmit(pressed && pressed.form === form ? pressed : undefined);
        else form.submit();
      });
    }
    note.pressed = submitter;
    const send = note.querySelector(".send-again");
    send.disabled = navigator.onLine === false;
    note.querySelector("p").textContent = navigator.onLine === false ?
      (words.unsent || "Offline: this was not sent.") : (words.back || "Back online: send it now?");
    send.focus();
  }
  function online() {
    document.querySelectorAll(".unsent").forEach(function (note) {
      note.querySelector(".send-again").disabled = navigator.onLine === false;
      note.querySelector("p").textContent = navigator.onLine === false ?
        (words.unsent || "Offline: this was not sent.") : (words.back || "Back online: send it now?");
    });
  }
  window.addEventListener("online", online);
  window.addEventListener("offline", online);
})();
