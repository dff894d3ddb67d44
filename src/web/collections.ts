import { Elysia } from "elysia";
import type { CollectionSummary } from "../shelf/types";
import type { CollectionBody, OrderItem } from "../contract/collections";
import type { Shelf } from "../shelf/shelf";
import { ValidationFailed } from "../common/errors";
import { parseId, readId } from "../common/ids";
import { collectionDeletePage, collectionFormPage, iconValues, sortConfirmPage, type CollectionFormValues } from "../pages/collections";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField, formValues, submittedForm } from "../request/form-body";
import type { Network } from "../request/arrival";
import { ownOrigin, safeNext, seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import { htmlResponse } from "../pages/html";
import type { PageGuard } from "./guard";
import { withNotice } from "./notices";
import { SortUndo } from "./sort-undo";
import { oneValue } from "./query";

/** collectionInput turns a form into the service's input; visibility is the one thing the service's types (not its rules) decide. */
function collectionInput(values: CollectionFormValues): CollectionBody {
  if (values.visibility !== "PUBLIC" && values.visibility !== "PRIVATE") {
    throw new ValidationFailed([{ path: "/visibility", message: "Expected PUBLIC or PRIVATE" }]);
  }
  // An empty icon is the default icon; an empty description clears it (as `""` does on the API). The typed icon wins over the chosen one.
  // A parent that is not an id is read as 0, which the service refuses; no picker (the Inbox's form) keeps the parent.
  const parentId = values.parentId === undefined ? undefined : values.parentId === "" ? null : readId(values.parentId) ?? 0;
  return { name: values.name, description: values.description, icon: values.icon.trim() || values.iconChoice, visibility: values.visibility, parentId, copiesPublic: values.copiesPublic };
}

/** itemOf reads an order's item as the arranging script names it: `link:<id>` or `collection:<id>` (anything else: ValidationFailed at `path`). */
function itemOf(value: string, path: string): OrderItem {
  const [kind, raw] = value.split(":");
  const id = readId(raw ?? "");
  if ((kind !== "link" && kind !== "collection") || id === undefined) throw new ValidationFailed([{ path, message: "Expected link:<id> or collection:<id>" }]);
  return { kind, id };
}

/** anchorOf is the id of an item's element on the collection's page, where a form that moved it comes back to. */
const anchorOf = (item: OrderItem) => `${item.kind}-${item.id}`;

/** wantsNoPage is true for the arranging script's requests (`Accept: application/json`): they are answered 204, no page. */
const wantsNoPage = (request: Request) => request.headers.get("accept") === "application/json";

/** byOf reads a move's `by`: `up` or `down`. */
function byOf(body: unknown): -1 | 1 {
  const by = formField(body, "by");
  if (by !== "up" && by !== "down") throw new ValidationFailed([{ path: "/by", message: "Expected up or down" }]);
  return by === "up" ? -1 : 1;
}

/**
 * collectionPages: create (`/collections/new`, `?parent=ID` chosen as its parent), edit
 * (`/collections/:id/edit`) and delete (`/collections/:id/delete`, a confirmation form; the
 * Inbox cannot be deleted) through the collections service, the API's own write path. A
 * refusal shows the form again (the routes' declared `invalid`). The order's forms move a
 * collection among its parent's items (`/collections/:id/shift`), a link among its
 * collection's (`/collections/:id/links/:link/shift`), both with `by=up|down`, then go back to
 * `next` (303) at the moved item's element; the arranging script (src/pages/arrange.ts) posts
 * to them too, and places an item before or after another (`/collections/:id/place`), moves a
 * link or a sub-collection onto another collection (`.../move`, `to=ID`), answered 204. Sorting
 * a collection's items A–Z (`/collections/:id/sort`) asks first, and its Undo
 * (`/collections/:id/sort/undo`) restores the order before it once, if it has not changed since.
 */
export function collectionPages({ clock, config, peerAddress }: Network & { clock: () => number }, guard: PageGuard) {
  const form = (shelf: Shelf, values: CollectionFormValues, errors: FieldErrors, collection?: CollectionSummary, status = 200) =>
    htmlResponse(collectionFormPage({ user: shelf.viewer(), collection, collections: shelf.collections.summaries(), values, errors }), { status });
  const typed = (body: unknown): CollectionFormValues => ({
    name: formField(body, "name"),
    description: formField(body, "description"),
    icon: formField(body, "icon"),
    iconChoice: formField(body, "icon-choice"),
    visibility: formField(body, "visibility"),
    copiesPublic: formField(body, "copiesPublic") === "on",
    parentId: formValues(body, "parentId").length === 0 ? undefined : formField(body, "parentId"),
  });
  const sorts = new SortUndo();
  /** nextOf is where an order's form returns: its `next` on this server, else the collection's page. */
  const nextOf = (request: Request, body: unknown, id: number) =>
    formField(body, "next") === "" ? `/?collection=${id}` : safeNext(formField(body, "next"), ownOrigin(request, { config, peerAddress }));
  /**
   * arranged answers a move or a reorder: 204 to the arranging script; to a form, back to its
   * `next` (303), at the moved item's element (`#link-<id>`, `#collection-<id>`) when given.
   */
  const arranged = (request: Request, body: unknown, id: number, moved?: OrderItem) => {
    if (wantsNoPage(request)) return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
    const next = new URL(nextOf(request, body, id), "http://x");
    if (moved) next.hash = anchorOf(moved);
    return seeOther(next.pathname + next.search + next.hash);
  };

  /** The create and edit forms: a refusal shows the form again, as typed, with the messages beside the fields. */
  const collectionForm: Surface = {
    ...PAGE_ROUTE,
    invalid: ({ request, params }, error) => {
      const shelf = guard.shelfOf(request);
      if (!shelf || !(error instanceof ValidationFailed)) return error;
      const collection = params.id === undefined ? undefined : shelf.collections.summary(parseId(params.id));
      return form(shelf, typed(submittedForm(request)), fieldErrorsOf(error.errors), collection, error.status);
    },
  };

  return new Elysia()
    .use(surfaces)
    .get("/collections/new", ({ request, query }) => guard.page(request, (shelf) =>
      form(shelf, { name: "", description: "", icon: "", iconChoice: "", visibility: "PRIVATE", copiesPublic: false, parentId: oneValue(query.parent) ?? "" }, new Map())), { surface: PAGE_ROUTE })
    .post("/collections", ({ request, body }) => guard.form(request, (shelf) => {
      const created = shelf.collections.create(collectionInput(typed(body)), clock());
      return seeOther(withNotice(`/?collection=${created.id}`, "collection-created"));
    }), { surface: collectionForm })
    .get("/collections/:id/edit", ({ request, params }) => guard.page(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const { name, description, icon, visibility, parentId, copiesPublic } = collection;
      const parent = collection.isDefault ? undefined : String(parentId ?? "");
      return form(shelf, { name, description: description ?? "", ...iconValues(icon), visibility, copiesPublic, parentId: parent }, new Map(), collection);
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      shelf.collections.update(collection.id, collectionInput(typed(body)), clock());
      return seeOther(withNotice(`/?collection=${collection.id}`, "collection-saved"));
    }), { surface: collectionForm })
    .get("/collections/:id/delete", ({ request, params }) => guard.page(request, (shelf) =>
      htmlResponse(collectionDeletePage(shelf.viewer(), shelf.collections.deletable(parseId(params.id)), shelf.trash.days))
    ), { surface: PAGE_ROUTE })
    .post("/collections/:id/delete", ({ request, params, body }) => guard.form(request, (shelf) => {
      const all = formField(body, "contents") === "1";
      shelf.collections.delete(parseId(params.id), clock(), all);
      const trashed = shelf.trash.days > 0;
      return seeOther(withNotice("/", all ? (trashed ? "collection-trashed-all" : "collection-deleted-all") : trashed ? "collection-trashed" : "collection-deleted"));
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id/shift", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const moved: OrderItem = { kind: "collection", id: collection.id };
      shelf.collections.shift(collection.parentId, moved, byOf(body), clock());
      return arranged(request, body, collection.id, moved);
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id/links/:link/shift", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      const moved: OrderItem = { kind: "link", id: parseId(params.link) };
      shelf.collections.shift(id, moved, byOf(body), clock());
      return arranged(request, body, id, moved);
    }), { surface: PAGE_ROUTE })
    // The arranging script's drop inside a collection: `item` goes right before (or after) another of its items, through setOrder.
    .post("/collections/:id/place", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      const item = itemOf(formField(body, "item"), "/item");
      const after = formField(body, "before") === "";
      const next = itemOf(formField(body, after ? "after" : "before"), after ? "/after" : "/before");
      const order = shelf.collections.order(id).filter((entry) => entry.kind !== item.kind || entry.id !== item.id);
      const at = order.findIndex((entry) => entry.kind === next.kind && entry.id === next.id);
      if (at === -1) throw new ValidationFailed([{ path: after ? "/after" : "/before", message: "Not an item of this collection: reload the page" }]);
      order.splice(after ? at + 1 : at, 0, item);
      shelf.collections.setOrder(id, order, clock());
      return arranged(request, body, id, item);
    }), { surface: PAGE_ROUTE })
    // A drop on a collection of the sidebar: a link moves there as the bulk form's "Move to the collection…" does.
    .post("/collections/:id/links/:link/move", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      const to = readId(formField(body, "to")) ?? 0;
      shelf.links.bulk({ ids: [parseId(params.link)], action: "move", collectionId: to }, clock());
      return arranged(request, body, id);
    }), { surface: PAGE_ROUTE })
    // ... and a sub-collection goes inside it, at the end of its order.
    .post("/collections/:id/move", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const to = readId(formField(body, "to")) ?? 0;
      shelf.collections.update(collection.id, { name: collection.name, visibility: collection.visibility, parentId: to }, clock());
      return arranged(request, body, collection.parentId ?? collection.id);
    }), { surface: PAGE_ROUTE })
    .get("/collections/:id/sort", ({ request, params, query }) => guard.page(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const next = safeNext(oneValue(query.next) ?? `/?collection=${collection.id}`, ownOrigin(request, { config, peerAddress }));
      return htmlResponse(sortConfirmPage(shelf.viewer(), collection, shelf.collections.order(collection.id).length, next));
    }), { surface: PAGE_ROUTE })
    // Sorting asks first (the confirmation page posts `confirmed=yes`); the order before is kept for one Undo.
    .post("/collections/:id/sort", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const next = nextOf(request, body, collection.id);
      const before = shelf.collections.order(collection.id);
      if (formField(body, "confirmed") !== "yes") return htmlResponse(sortConfirmPage(shelf.viewer(), collection, before.length, next));
      shelf.collections.sortByName(collection.id, clock());
      sorts.keep(shelf.user.id, collection.id, before, shelf.collections.order(collection.id));
      return seeOther(withNotice(next, "sorted"));
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id/sort/undo", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      const outcome = sorts.undo(shelf.user.id, id, shelf.collections.order(id), (before) => shelf.collections.setOrder(id, before, clock()));
      return seeOther(withNotice(nextOf(request, body, id), `sort-${outcome}`));
    }), { surface: PAGE_ROUTE });
}
