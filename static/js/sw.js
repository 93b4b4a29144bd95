// The companion's service worker. It installs the app's shell once: the files every page is
// made of, under names that hold their content (css/app.3f9c2a7b1e04.css), and the app's own
// offline page. Those files are served from its cache first; the screen's font slices a page
// asks for are kept there as they come. It never keeps a page under a link (every chronicle
// and table is one) nor any answer but those. The server writes the shell's list and version
// in below (/sw.js): a new version of any file is a new worker, which installs its own shell
// and deletes the old one. When a page cannot be reached it answers with the offline page; a
// form that could not be sent comes back on it with a button to send it, never by itself.
"use strict";
const VERSION = /*VERSION*/"dev";
const SHELL_FILES = /*SHELL*/[];
const CACHE = "companion-shell-" + VERSION;
const scope = new URL(self.registration.scope);
const OFFLINE = new URL("offline", scope).href;
const STATIC = new URL("static/", scope).href;
const SHELL = [OFFLINE].concat(SHELL_FILES.map(function (path) { return new URL(path, scope).href; }));
// A name that holds its content's digest never changes: safe to keep for as long as the shell.
const VERSIONED = /\.[0-9a-f]{12}\.\w+$/;
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
  "frame-ancestors 'none'; form-action 'self'; worker-src 'self'; manifest-src 'self'";
// Fields a form sends that are not words a person typed.
const QUIET = ["csrf_token", "version", "action", "turn", "field", "how", "seat", "target_seq", "anchor",
  "prompt", "keystone", "loss_keystone", "card", "lang", "next"];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name !== CACHE; })
      .map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(request));
  } else if (request.method === "GET" && url.href.indexOf(STATIC) === 0 && VERSIONED.test(url.pathname)) {
    event.respondWith(kept(request));
  }
  // Everything else (pages, live updates, drafts, previews) goes to the network as if no worker
  // ran.
});

function navigate(request) {
  const copy = request.method === "POST" ? request.clone() : null;
  return fetch(request).catch(function () { return offline(request, copy); });
}

// A file named by its content: from the shell's cache, else from the network, kept for next
// time (only a whole, good answer: a name whose digest is stale is answered "no-cache").
function kept(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreVary: true }).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        const lasting = /immutable/.test(response.headers.get("Cache-Control") || "");
        if (response.ok && response.status === 200 && lasting) cache.put(request, response.clone());
        return response;
      });
    });
  });
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, function (ch) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch];
  });
}

function offline(request, copy) {
  return caches.open(CACHE)
    .then(function (cache) { return cache.match(OFFLINE, { ignoreVary: true, ignoreSearch: true }); })
    .then(function (page) { return page ? page.text() : fallback(); })
    .then(function (html) {
      if (!copy) return html;
      return copy.formData().then(function (data) { return resend(html, request.url, data); },
        function () { return resend(html, request.url, null); });
    })
    .then(function (html) {
      return new Response(html, { status: 503, headers: {
        "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": CSP } });
    });
}

// The offline page for a form that was not sent: the same fields, ready to send again.
function resend(html, action, data) {
  let fields = "";
  let shown = "";
  if (data) {
    data.forEach(function (value, name) {
      if (typeof value !== "string") return; // a chosen file cannot be sent again from here
      fields += '<input type="hidden" name="' + escapeHtml(name) + '" value="' + escapeHtml(value) + '">';
      if (value.trim() && QUIET.indexOf(name) < 0 && !/^face-/.test(name)) {
        shown += '<blockquote class="kept-text">' + escapeHtml(value) + "</blockquote>";
      }
    });
  }
  const page = new URL(".", action).href;
  return html
    .replace(/class="when-page"/g, 'class="when-page" hidden')
    .replace(/class="when-sent" hidden/g, 'class="when-sent"')
    .replace('<form method="post" class="resend card-panel" hidden>',
      '<form method="post" class="resend card-panel" action="' + escapeHtml(action) + '">')
    .replace("<!--resend-fields-->", fields + shown)
    .replace('<a class="button" href="">', '<a class="button" href="' + escapeHtml(page) + '">');
}

function fallback() {
  return '<!doctype html><html lang="ja"><meta charset="utf-8"><title>オフライン / Offline</title>' +
    '<p class="when-page">オフラインです。 / This device is offline.</p>' +
    '<p class="when-sent" hidden>送っていません。 / Not sent.</p>' +
    '<form method="post" class="resend card-panel" hidden><!--resend-fields-->' +
    '<button type="submit">送る / Send</button></form><a class="button" href="">↻</a></html>';
}
