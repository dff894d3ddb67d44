/**
 * The keyboard shortcuts of the signed-in pages: the script (served at SHORTCUTS_SCRIPT), what it
 * does, and the help dialog `?` opens. The shell loads the script and draws the dialog on every
 * signed-in page; the list pages' rows and bulk form give `j`, `k`, `e`, `f` and `x` something to act on.
 */
import { html, type Html } from "./html";

/** Where the signed-in pages' script is served (src/web/lists.ts). */
export const SHORTCUTS_SCRIPT = "/assets/shortcuts.js";

/** The keyboard shortcuts of the signed-in pages, as the help dialog and docs/pages.md list them. */
export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ["/", "Focus the search box"],
  ["n", "Add a new link"],
  ["j", "Focus the next link in the list"],
  ["k", "Focus the previous link in the list"],
  ["e", "Edit the focused link"],
  ["f", "Favorite the focused link (or remove it from favorites)"],
  ["x", "Select the focused link (tick its checkbox)"],
  ["?", "Show this list"],
  ["Alt+↑", "Move the focused link or sub-collection up (a collection's page, in its own order)"],
  ["Alt+↓", "Move the focused link or sub-collection down"],
];

/** shortcutsDialog lists the keyboard shortcuts; the shortcuts script opens it with `?`. */
export function shortcutsDialog(): Html {
  return html`<dialog id="shortcuts" aria-labelledby="shortcuts-title">
<h2 id="shortcuts-title">Keyboard shortcuts</h2>
<dl class="keys">
${SHORTCUTS.map(([key, what]) => html`<dt><kbd>${key}</kbd></dt><dd>${what}</dd>`)}
</dl>
<p class="hint">They wait while you type in a field; the letters ignore Ctrl, Alt and ⌘.</p>
<form method="dialog"><button type="submit">Close</button></form>
</dialog>`;
}

/**
 * SHORTCUTS_JS: the list pages' keyboard shortcuts (SHORTCUTS; Alt+↑ and Alt+↓ are the
 * arranging script's, src/pages/arrange.ts), the reading list and archive buttons without a
 * reload, the "Select all on this page" checkbox, the
 * sidebar's fold (open on two columns), the bulk bar opened by a ticked link, and the collection lists' filter boxes (src/pages/tree.ts: an item whose name
 * holds the words shows with its parents, their folds opened). A key does nothing while a text
 * field, text area or select has the focus, nor with Ctrl, Alt or ⌘, nor while the help dialog is open.
 */
export const SHORTCUTS_JS = `(function () {
  var rows = function () { return Array.prototype.slice.call(document.querySelectorAll("li[data-link]")); };
  var focusedRow = function () { var el = document.activeElement; return el && el.closest ? el.closest("li[data-link]") : null; };
  var all = document.querySelector("[data-select-all]");
  if (all) {
    all.hidden = false;
    var box = all.querySelector("input");
    box.addEventListener("change", function () {
      document.querySelectorAll("input.pick").forEach(function (pick) { pick.checked = box.checked; });
    });
  }
  document.querySelectorAll("[data-filter-box]").forEach(function (box) {
    box.hidden = false;
    var input = box.querySelector("input");
    var list = document.getElementById(input.getAttribute("data-filter"));
    // Enter filters; it never submits the form around the box.
    input.addEventListener("keydown", function (event) { if (event.key === "Enter") event.preventDefault(); });
    input.addEventListener("input", function () {
      var words = input.value.trim().toLowerCase();
      var items = list.querySelectorAll("[data-name]");
      items.forEach(function (item) { item.hidden = words !== "" && item.getAttribute("data-name").toLowerCase().indexOf(words) === -1; });
      if (words === "") return;
      items.forEach(function (item) {
        if (item.hidden) return;
        for (var up = item.parentElement; up && up !== list; up = up.parentElement) {
          if (up.hasAttribute("data-name")) up.hidden = false;
          if (up.tagName === "DETAILS") up.open = true;
        }
      });
    });
  });
  // The sidebar's fold is open where the page has two columns, folded to one line on one column.
  var wide = window.matchMedia("(min-width: 48rem)");
  var fit = function () { document.querySelectorAll("[data-fold]").forEach(function (fold) { fold.open = wide.matches; }); };
  fit();
  if (wide.addEventListener) wide.addEventListener("change", fit);
  // The bulk bar opens once a link is ticked.
  var bulkBar = document.querySelector("[data-bulk-fold]");
  var used = function () { if (bulkBar) bulkBar.open = true; };
  document.addEventListener("change", function (event) { if (event.target.checked && event.target.matches("input.pick, #select-all")) used(); });
  // The reading list and archive buttons (flagButtons): posted without leaving the page; the
  // answer's buttons replace them, and the top bar's count follows. A failure submits the form as usual.
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("button[data-flag]") : null;
    if (!button || !window.fetch || !button.form) return;
    event.preventDefault();
    var box = button.closest("[data-link-flags]");
    var body = new URLSearchParams();
    body.set(button.name, button.value);
    fetch(button.formAction, { method: "POST", body: body, headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.json(); })
      .then(function (answer) {
        box.innerHTML = answer.buttons;
        var again = box.querySelector("button[name='" + button.name + "']");
        if (again) again.focus();
        var nav = document.getElementById("to-read-nav");
        var count = document.getElementById("to-read-count");
        if (nav && answer.toRead > 0 && !count) {
          count = document.createElement("span");
          count.id = "to-read-count";
          count.className = "badge";
          count.title = "Links on your reading list";
          nav.appendChild(document.createTextNode(" "));
          nav.appendChild(count);
        }
        if (count) { if (answer.toRead > 0) count.textContent = answer.toReadLabel; else count.remove(); }
      })
      .catch(function () { button.form.requestSubmit(button); });
  });
  var dialog = document.getElementById("shortcuts");
  var typing = function (el) {
    if (!el || !el.tagName) return false;
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
    return el.tagName === "INPUT" && !/^(checkbox|radio|button|submit|reset)$/.test(el.type);
  };
  var click = function (row, selector) { var el = row && row.querySelector(selector); if (el) el.click(); return Boolean(el); };
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (dialog && dialog.open) return;
    var row = focusedRow();
    var list = rows();
    var handled = true;
    switch (event.key) {
      case "/": var search = document.getElementById("search"); if (search) search.focus(); else handled = false; break;
      case "n": location.href = "/links/new"; break;
      case "j": case "k":
        if (list.length === 0) { handled = false; break; }
        var at = list.indexOf(row);
        var next = at === -1 ? (event.key === "j" ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + (event.key === "j" ? 1 : -1)));
        list[next].querySelector("a.title").focus();
        break;
      case "e": handled = click(row, "a.edit"); break;
      case "f": handled = click(row, "button.star"); break;
      case "x":
        var pick = row && row.querySelector("input.pick");
        if (pick) { pick.checked = !pick.checked; if (pick.checked) used(); } else handled = false;
        break;
      case "?": if (dialog && dialog.showModal) dialog.showModal(); else handled = false; break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });
})();
`;
