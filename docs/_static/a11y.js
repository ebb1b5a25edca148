// A box that scrolls sideways (a wide result table, a plot on a phone) must be reachable
// with the keyboard, or a keyboard user cannot see what it hides. The theme does this for
// its own scrollable tables and code; sphinx-gallery's outputs and plots get it here.
function cheatsheetScrollableOutputs() {
  for (const box of document.querySelectorAll(".output_subarea, .cheatsheet-plot")) {
    const scrolls = box.scrollWidth > box.clientWidth;
    if (scrolls && !box.hasAttribute("tabindex")) {
      const what = box.classList.contains("cheatsheet-plot") ? "Plot" : "Output";
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", `${what}, scrolls sideways`);
    } else if (!scrolls && box.getAttribute("role") === "region") {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }
}
window.addEventListener("DOMContentLoaded", cheatsheetScrollableOutputs);
window.addEventListener("load", cheatsheetScrollableOutputs); // plots have their size once loaded
window.addEventListener("resize", cheatsheetScrollableOutputs);
