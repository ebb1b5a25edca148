// An output box that scrolls sideways (a wide result table) must be reachable with the
// keyboard, or a keyboard user cannot read its hidden columns. The theme does this for
// its own scrollable tables and code; sphinx-gallery's HTML outputs get the same here.
function cheatsheetScrollableOutputs() {
  for (const box of document.querySelectorAll(".output_subarea")) {
    const scrolls = box.scrollWidth > box.clientWidth;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Output, scrolls sideways");
    } else if (!scrolls && box.getAttribute("role") === "region") {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }
}
window.addEventListener("DOMContentLoaded", cheatsheetScrollableOutputs);
window.addEventListener("resize", cheatsheetScrollableOutputs);
