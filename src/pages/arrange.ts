/**
 * Arranging a collection without reloading its page: dragging its links and sub-collections
 * within their list or onto a collection of the sidebar, and moving the focused one with
 * Alt+↑ / Alt+↓ (or its ↑ ↓ buttons). The script (served at ARRANGE_SCRIPT, loaded by a
 * collection's page in its own order) sends each move as one request to the page routes of
 * src/web/collections.ts, asking for no page (`Accept: application/json`, answered 204), and
 * changes the list in place, so the page keeps its scroll position. Without it the ↑ ↓ buttons
 * are forms that come back to the moved item.
 */

/** Where the arranging script is served (src/web/lists.ts). */
export const ARRANGE_SCRIPT = "/assets/arrange.js";

/**
 * ARRANGE_JS: the lists marked `data-arrange="<collection id>"` (the collection's links, its
 * sub-collections) hold items (`li[data-link]`, `li[data-collection]`). A drop on
 * an item puts the dragged one before it (upper half) or after it (`/collections/:id/place`); a
 * drop on a sidebar collection (`a[data-drop]`) moves a link there or a sub-collection inside
 * it, and the item leaves the list. Alt+↑ / Alt+↓ on a focused item, or its ↑ ↓ buttons, move it
 * past its neighbour (`.../shift`). What happened is said in a live region; a refused move
 * (the order changed elsewhere) reloads the page to show the order as it is.
 */
export const ARRANGE_JS = `(function () {
  var lists = Array.prototype.slice.call(document.querySelectorAll("[data-arrange]"));
  if (lists.length === 0 || !window.fetch) return;
  var live = document.createElement("p");
  live.className = "visually-hidden";
  live.setAttribute("aria-live", "polite");
  live.id = "arrange-status";
  document.body.appendChild(live);
  var say = function (words) { live.textContent = words; };
  var keyOf = function (li) { return li.hasAttribute("data-link") ? "link:" + li.getAttribute("data-link") : "collection:" + li.getAttribute("data-collection"); };
  var nameOf = function (li) { var a = li.querySelector("a"); return a ? a.textContent.trim() : "the item"; };
  var itemOf = function (el) {
    var li = el && el.closest ? el.closest("li") : null;
    return li && li.parentElement && li.parentElement.hasAttribute("data-arrange") ? li : null;
  };
  var send = function (url, fields) {
    return fetch(url, { method: "POST", credentials: "same-origin", headers: { Accept: "application/json" }, body: new URLSearchParams(fields) })
      .then(function (answer) { if (!answer.ok) throw new Error("refused: " + answer.status); });
  };
  var refused = function () {
    say("Not moved: the order changed elsewhere. Reloading the page.");
    setTimeout(function () { location.reload(); }, 1200);
  };
  var collectionOf = function (li) { return li.parentElement.getAttribute("data-arrange"); };
  var shiftUrl = function (li) {
    var key = keyOf(li).split(":");
    return key[0] === "link" ? "/collections/" + collectionOf(li) + "/links/" + key[1] + "/shift" : "/collections/" + key[1] + "/shift";
  };

  // Moving past a neighbour: the neighbour moves, so the focused item keeps its focus.
  var shift = function (li, up) {
    var other = up ? li.previousElementSibling : li.nextElementSibling;
    if (!other) { say(nameOf(li) + " is already " + (up ? "first" : "last") + " on this page."); return; }
    if (up) li.after(other); else li.before(other);
    say(nameOf(li) + " moved " + (up ? "up" : "down") + ".");
    send(shiftUrl(li), { by: up ? "up" : "down" }).catch(refused);
  };
  document.addEventListener("keydown", function (event) {
    if (!event.altKey || event.ctrlKey || event.metaKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    var li = itemOf(document.activeElement);
    if (!li) return;
    event.preventDefault();
    shift(li, event.key === "ArrowUp");
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.move") : null;
    var li = button && itemOf(button);
    if (!li) return;
    event.preventDefault();
    shift(li, button.value === "up");
    button.focus();
  });

  var dragged = null;
  var marked = null;
  var unmark = function () { if (marked) marked.classList.remove("drop-before", "drop-after", "drop-into"); marked = null; };
  lists.forEach(function (list) {
    Array.prototype.forEach.call(list.children, function (li) { li.draggable = true; });
  });
  document.addEventListener("dragstart", function (event) {
    var li = itemOf(event.target);
    if (!li) return;
    dragged = li;
    li.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", keyOf(li));
  });
  document.addEventListener("dragend", function () { if (dragged) dragged.classList.remove("dragging"); dragged = null; unmark(); });
  var targetOf = function (event) {
    if (!dragged) return null;
    var li = itemOf(event.target);
    if (li && li !== dragged && li.parentElement === dragged.parentElement) {
      var box = li.getBoundingClientRect();
      return { li: li, before: event.clientY < box.top + box.height / 2 };
    }
    var drop = event.target.closest ? event.target.closest("a[data-drop]") : null;
    // Not onto the collection shown, nor a sub-collection onto itself.
    if (drop && drop.getAttribute("data-drop") !== collectionOf(dragged) && "collection:" + drop.getAttribute("data-drop") !== keyOf(dragged)) return { into: drop };
    return null;
  };
  document.addEventListener("dragover", function (event) {
    var target = targetOf(event);
    unmark();
    if (!target) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    marked = target.li || target.into;
    marked.classList.add(target.into ? "drop-into" : target.before ? "drop-before" : "drop-after");
  });
  document.addEventListener("drop", function (event) {
    var target = targetOf(event);
    unmark();
    if (!target) return;
    event.preventDefault();
    var li = dragged;
    var key = keyOf(li).split(":");
    if (target.into) {
      var to = target.into.getAttribute("data-drop");
      var where = target.into.querySelector(".name");
      var url = key[0] === "link" ? "/collections/" + collectionOf(li) + "/links/" + key[1] + "/move" : "/collections/" + key[1] + "/move";
      var name = nameOf(li);
      li.remove();
      say(name + " moved to " + (where ? where.textContent : "the collection") + ".");
      send(url, { to: to }).catch(refused);
      return;
    }
    var fields = {};
    fields.item = keyOf(li);
    fields[target.before ? "before" : "after"] = keyOf(target.li);
    if (target.before) target.li.before(li); else target.li.after(li);
    say(nameOf(li) + " moved " + (target.before ? "before " : "after ") + nameOf(target.li) + ".");
    send("/collections/" + collectionOf(li) + "/place", fields).catch(refused);
  });
})();
`;
