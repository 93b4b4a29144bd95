// The export panel, improved: follow a PDF book's progress without reloading the page.
// Without this script the panel still works: its Refresh link shows the progress.
(function () {
  "use strict";
  const POLL_MS = 1000;
  const jobs = Array.from(document.querySelectorAll(".export-job[data-status-url]"))
    .filter(function (el) { return el.classList.contains("export-queued") || el.classList.contains("export-running"); });

  function show(el, job) {
    el.className = "export-job export-" + job.status;
    const message = el.querySelector(".export-message");
    if (message) message.textContent = job.message;
    const bar = el.querySelector("progress");
    if (bar) { bar.value = job.progress; bar.textContent = job.progress + "%"; }
    if (job.status === "done" || job.status === "failed") {
      if (bar) bar.remove();
      const refresh = el.querySelector(".export-refresh");
      if (refresh) refresh.remove();
    }
    if (job.url && !el.querySelector(".export-download")) {
      const link = document.createElement("a");
      link.className = "button export-download";
      link.href = job.url;
      link.textContent = el.dataset.downloadLabel;
      el.appendChild(link);
    }
  }

  function poll(el) {
    fetch(el.dataset.statusUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (job) {
        show(el, job);
        if (job.status === "queued" || job.status === "running") setTimeout(function () { poll(el); }, POLL_MS);
      })
      .catch(function () { setTimeout(function () { poll(el); }, POLL_MS * 5); });
  }

  jobs.forEach(function (el) { setTimeout(function () { poll(el); }, POLL_MS); });
})();
