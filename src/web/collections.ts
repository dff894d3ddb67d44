import { Elysia } from "elysia";
import type { CollectionSummary } from "../shelf/types";
import type { CollectionBody } from "../contract/collections";
import type { Shelf } from "../shelf/shelf";
import { ValidationFailed } from "../errors";
import { parseId, readId } from "../ids";
import { collectionDeletePage, collectionFormPage, iconValues, type CollectionFormValues } from "../pages/collections";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField, formValues, submittedForm } from "../request/form-body";
import type { Network } from "../request/arrival";
import { ownOrigin, safeNext, seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces, type Surface } from "../surface";
import { htmlResponse } from "../pages/html";
import type { PageGuard } from "./guard";
import { withNotice } from "./notices";
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
 * collection's (`/collections/:id/links/:link/shift`), both with `by=up|down`, or sort a
 * collection's items A–Z (`/collections/:id/sort`), then go back to `next` (303).
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
  /** back is where an order's form returns: its `next` on this server, else the collection's page. */
  const back = (request: Request, body: unknown, id: number) =>
    seeOther(formField(body, "next") === "" ? `/?collection=${id}` : safeNext(formField(body, "next"), ownOrigin(request, { config, peerAddress })));

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
      shelf.collections.shift(collection.parentId, { kind: "collection", id: collection.id }, byOf(body), clock());
      return back(request, body, collection.id);
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id/links/:link/shift", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      shelf.collections.shift(id, { kind: "link", id: parseId(params.link) }, byOf(body), clock());
      return back(request, body, id);
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id/sort", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      shelf.collections.sortByName(id, clock());
      return back(request, body, id);
    }), { surface: PAGE_ROUTE });
}
