import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { CollectionInput, CollectionSummary } from "../collections/model";
import type { Shelf } from "../shelf/shelf";
import { ValidationFailed } from "../errors";
import { parseId } from "../ids";
import { collectionDeletePage, collectionFormPage, type CollectionFormValues } from "../pages/collections";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField } from "../request/form-body";
import { htmlResponse } from "../pages/html";
import { seeOther, type PageGuard } from "./guard";
import { withNotice } from "./notices";

/** collectionInput turns a form into the service's input; visibility is the one thing the service's types (not its rules) decide. */
function collectionInput(values: CollectionFormValues): CollectionInput {
  if (values.visibility !== "PUBLIC" && values.visibility !== "PRIVATE") {
    throw new ValidationFailed([{ path: "/visibility", message: "Expected PUBLIC or PRIVATE" }]);
  }
  // An empty icon is the default icon; an empty description clears it (as `""` does on the API).
  return { name: values.name, description: values.description, icon: values.icon, visibility: values.visibility };
}

/**
 * collectionPages: create (`/collections/new`), edit (`/collections/:id/edit`) and delete
 * (`/collections/:id/delete`, a confirmation form; the Inbox cannot be deleted) through the
 * collections service, the API's own write path.
 */
export function collectionPages({ clock }: AppDeps, guard: PageGuard) {
  const form = (shelf: Shelf, values: CollectionFormValues, errors: FieldErrors, collection?: CollectionSummary, status = 200) =>
    htmlResponse(collectionFormPage({ user: shelf.user, collection, values, errors }), { status });
  const typed = (body: unknown): CollectionFormValues => ({
    name: formField(body, "name"),
    description: formField(body, "description"),
    icon: formField(body, "icon"),
    visibility: formField(body, "visibility"),
  });

  return new Elysia()
    .get("/collections/new", ({ request }) => guard.page(request, (shelf) =>
      form(shelf, { name: "", description: "", icon: "", visibility: "PRIVATE" }, new Map())))
    .post("/collections", ({ request, body }) => guard.form(request, (shelf) => {
      const values = typed(body);
      try {
        const created = shelf.collections.create(collectionInput(values), clock());
        return seeOther(withNotice(`/?collection=${created.id}`, "collection-created"));
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        return form(shelf, values, fieldErrorsOf(error.errors), undefined, 422);
      }
    }))
    .get("/collections/:id/edit", ({ request, params }) => guard.page(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const { name, description, icon, visibility } = collection;
      return form(shelf, { name, description: description ?? "", icon, visibility }, new Map(), collection);
    }))
    .post("/collections/:id", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const values = typed(body);
      try {
        shelf.collections.update(collection.id, collectionInput(values), clock());
        return seeOther(withNotice(`/?collection=${collection.id}`, "collection-saved"));
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        return form(shelf, values, fieldErrorsOf(error.errors), collection, 422);
      }
    }))
    .get("/collections/:id/delete", ({ request, params }) => guard.page(request, (shelf) =>
      htmlResponse(collectionDeletePage(shelf.user, shelf.collections.deletable(parseId(params.id))))
    ))
    .post("/collections/:id/delete", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.collections.delete(parseId(params.id));
      return seeOther(withNotice("/", "collection-deleted"));
    }));
}
