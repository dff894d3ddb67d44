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
 * past its neighbour (`.../shift`). After a move the ↑ ↓ buttons are redrawn for the new places
 * (a list's `data-from` and `data-total` say where its page starts in the order and how long
 * it is). What happened is said in a live region; a refused move (the order changed elsewhere,
 * a collection dropped into its own sub-collection) reloads the page to show the order as it is.
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
    say("Not moved: the server refused it (the order may have changed elsewhere). Reloading the page.");
    setTimeout(function () { location.reload(); }, 1200);
  };
  var collectionOf = function (li) { return li.parentElement.getAttribute("data-arrange"); };
  var shiftUrl = function (li) {
    var key = keyOf(li).split(":");
    return key[0] === "link" ? "/collections/" + collectionOf(li) + "/links/" + key[1] + "/shift" : "/collections/" + key[1] + "/shift";
  };

  // Each item offers ↑ where something is above it in the whole order, ↓ where something is below
  // (a list says where its page starts and how many items the order holds): redrawn after each move.
  var button = function (li, by) {
    var made = document.createElement("button");
    made.type = "submit";
    made.className = "move";
    made.name = "by";
    made.value = by;
    made.title = by === "up" ? "Move up" : "Move down";
    made.setAttribute("aria-label", made.title + ": " + nameOf(li));
    made.textContent = by === "up" ? "\u2191" : "\u2193";
    if (li.hasAttribute("data-link")) made.setAttribute("formaction", shiftUrl(li));
    return made;
  };
  var redraw = function (list) {
    var from = Number(list.getAttribute("data-from") || 0);
    var total = Number(list.getAttribute("data-total") || list.children.length);
    Array.prototype.forEach.call(list.children, function (li, at) {
      var moves = li.querySelector(".moves");
      if (!moves) return;
      [["up", from + at > 0], ["down", from + at < total - 1]].forEach(function (wanted) {
        var found = moves.querySelector('button[value="' + wanted[0] + '"]');
        if (!found && wanted[1]) {
          found = button(li, wanted[0]);
          if (wanted[0] === "up") moves.prepend(found); else moves.append(found);
        }
        if (found) found.hidden = !wanted[1];
      });
    });
  };

  // Moving past a neighbour: the neighbour moves, so the focused item keeps its focus.
  var shift = function (li, up) {
    var other = up ? li.previousElementSibling : li.nextElementSibling;
    if (!other) { say(nameOf(li) + " is already " + (up ? "first" : "last") + " on this page."); return; }
    if (up) li.after(other); else li.before(other);
    redraw(li.parentElement);
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
    var pressed = event.target.closest ? event.target.closest("button.move") : null;
    var li = pressed && itemOf(pressed);
    if (!li) return;
    event.preventDefault();
    shift(li, pressed.value === "up");
    // The button may be hidden now (the item reached an end): keep the focus on the item.
    (pressed.hidden ? li.querySelector("a") : pressed).focus();
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
      var list = li.parentElement;
      li.remove();
      list.setAttribute("data-total", String(Number(list.getAttribute("data-total") || list.children.length + 1) - 1));
      redraw(list);
      say(name + " moved to " + (where ? where.textContent : "the collection") + ".");
      send(url, { to: to }).catch(refused);
      return;
    }
    var fields = {};
    fields.item = keyOf(li);
    fields[target.before ? "before" : "after"] = keyOf(target.li);
    if (target.before) target.li.before(li); else target.li.after(li);
    redraw(li.parentElement);
    say(nameOf(li) + " moved " + (target.before ? "before " : "after ") + nameOf(target.li) + ".");
    send("/collections/" + collectionOf(li) + "/place", fields).catch(refused);
  });
})();
`;
