// Live updates: the stream's version answer, pushed by the server over server-sent events, or
// polled when a feed cannot be held (no EventSource, a proxy that buffers, a feed that
// keeps failing). Pages call CompanionLive.follow(...) and get every new answer either way.
(function () {
  "use strict";
  const POLL_MS = 500; // the fallback's pace
  const FIRST_EVENT_MS = 5000; // a feed whose first event is this late is being buffered
  const SILENT_MS = 50000; // the server pings every 20 s: this long without a word, it is gone
  const FEED_AGAIN_MS = 60000; // while polling, try a feed again this often
  const FAILURES = 3; // feed errors in a row before polling takes over

  // options: eventsUrl, versionUrl, onAnswer(answer), onGone(status), onPart(part) (a change
  // pushed with the page's live part, before its answer), and the element whose
  // data-live-transport says how it is followed: "feed", "poll" or "stopped".
  function follow(options) {
    let source = null;
    let watchdog = null;
    let pollTimer = null;
    let again = null;
    let failures = 0;
    let stopped = false;
    let busy = false;
    let quietUntil = 0;

    function deliver(answer) { if (!stopped && answer) options.onAnswer(answer); }
    function say(transport) { if (options.element) options.element.dataset.liveTransport = transport; }
    function stop() {
      stopped = true;
      closeFeed();
      stopPolling();
      clearTimeout(again);
      say("stopped");
    }
    function gone(status) { stop(); options.onGone(status); }

    function closeFeed() {
      clearTimeout(watchdog);
      if (source) { source.close(); source = null; }
    }
    function arm(ms) {
      clearTimeout(watchdog);
      watchdog = setTimeout(fallBack, ms);
    }
    function openFeed() {
      if (stopped) return;
      if (!window.EventSource || !options.eventsUrl) { startPolling(); return; }
      closeFeed();
      source = new EventSource(options.eventsUrl);
      let heard = false;
      arm(FIRST_EVENT_MS);
      function heardNow() {
        heard = true;
        failures = 0;
        stopPolling();
        say("feed");
        arm(SILENT_MS);
      }
      source.onmessage = function (event) {
        heardNow();
        let answer = null;
        try { answer = JSON.parse(event.data); } catch (e) { return; }
        deliver(answer);
      };
      // A change with the page's live part: kept for the page, then its answer as any other.
      source.addEventListener("part", function (event) {
        heardNow();
        let part = null;
        try { part = JSON.parse(event.data); } catch (e) { return; }
        if (!part || !part.answer) return;
        if (!stopped && options.onPart) options.onPart(part);
        deliver(part.answer);
      });
      source.addEventListener("ping", function () { arm(SILENT_MS); });
      source.addEventListener("gone", function (event) {
        let status = 404;
        try { status = JSON.parse(event.data).status; } catch (e) { /* keep 404 */ }
        if (status === 404) gone(404); else fallBack();
      });
      source.onerror = function () {
        failures += 1;
        // A feed that never opened, or that the server refused (CLOSED: a revoked link, a
        // proxy that does not pass it), is not tried again for a while; the poll says why. One
        // that worked is given a few reconnections first (a phone waking, a network change).
        if (!heard || !source || source.readyState === EventSource.CLOSED || failures >= FAILURES) {
          fallBack();
        }
      };
    }
    function fallBack() {
      closeFeed();
      startPolling();
      clearTimeout(again);
      again = setTimeout(openFeed, FEED_AGAIN_MS);
    }

    function startPolling() {
      if (stopped || pollTimer) return;
      pollTimer = setInterval(poll, POLL_MS);
      say("poll");
      poll();
    }
    function stopPolling() {
      clearInterval(pollTimer);
      pollTimer = null;
    }
    function poll() {
      if (stopped || busy || document.hidden || Date.now() < quietUntil) return;
      busy = true;
      fetch(options.versionUrl, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) {
          if (r.status === 404) { gone(404); return null; }
          if (r.status === 429) {
            quietUntil = Date.now() + 1000 * (Number(r.headers.get("Retry-After")) || 60);
            return null;
          }
          return r.ok ? r.json() : null;
        })
        .then(deliver)
        .catch(function () { /* the next poll tries again */ })
        .finally(function () { busy = false; });
    }
    document.addEventListener("visibilitychange", function () { if (pollTimer) poll(); });

    openFeed();
    return { stop: stop, polling: function () { return pollTimer !== null; } };
  }

  // A pushed part's HTML for ``answer``, its secrets filled from ``element``'s data (the
  // page's CSRF token and link); null when it is for another change or a secret is missing.
  function partHtml(part, answer, element) {
    if (!part || part.answer.version !== answer.version) return null;
    if (typeof part.answer.drafts === "string" && part.answer.drafts !== answer.drafts) return null;
    const secrets = (part.secrets || []).map(function (name) { return element.dataset[name]; });
    let html = "";
    for (const piece of part.parts) {
      if (typeof piece === "string") { html += piece; continue; }
      if (typeof secrets[piece] !== "string" || !secrets[piece]) return null;
      html += secrets[piece];
    }
    return html;
  }

  window.CompanionLive = { follow: follow, partHtml: partHtml };

  // A page's live region (the story's chapters, the end of a life): shown from the part pushed
  // with the change, else fetched again when the version changes; only a 200 answer replaces it.
  document.querySelectorAll("[data-live-region]").forEach(function (region) {
    let shown = Number(region.dataset.version);
    let busy = false;
    let pushed = null; // the newest part the feed carried
    function show(html) {
      const template = document.createElement("template");
      template.innerHTML = html;
      region.replaceChildren(template.content);
    }
    const follower = follow({
      element: region,
      eventsUrl: region.dataset.eventsUrl,
      versionUrl: region.dataset.versionUrl,
      onPart: function (part) { pushed = part; },
      onAnswer: function (answer) {
        if (busy || answer.version === shown) return;
        const html = partHtml(pushed, answer, region);
        pushed = null;
        if (html !== null) { show(html); shown = answer.version; return; }
        busy = true;
        fetch(region.dataset.fragmentUrl, { credentials: "same-origin", cache: "no-store" })
          .then(function (r) {
            if (!r.ok) return;
            return r.text().then(function (html) { show(html); shown = answer.version; });
          })
          .catch(function () { /* the next change tries again */ })
          .finally(function () { busy = false; });
      },
      onGone: function () { follower.stop(); },
    });
  });
})();
