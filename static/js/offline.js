// The offline page: its "send" button works only once the device is back online.
(function () {
  "use strict";
  const button = document.querySelector(".resend button[type=submit]");
  if (!button) return;
  function update() { button.disabled = navigator.onLine === false; }
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  update();
})();
