// The links sheet: its print button opens the browser's print dialog (print CSS shows the cards only).
document.querySelectorAll("[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
