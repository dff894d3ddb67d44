import { Elysia } from "elysia";
import type { CollectionSummary } from "../shelf/types";
import type { CollectionBody } from "../contract/collections";
import type { Shelf } from "../shelf/shelf";
import { ValidationFailed } from "../errors";
import { parseId } from "../ids";
import { collectionDeletePage, collectionFormPage, iconValues, type CollectionFormValues } from "../pages/collections";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField, submittedForm } from "../request/form-body";
import { seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces, type Surface } from "../surface";
import { htmlResponse } from "../pages/html";
import type { PageGuard } from "./guard";
import { withNotice } from "./notices";

/** collectionInput turns a form into the service's input; visibility is the one thing the service's types (not its rules) decide. */
function collectionInput(values: CollectionFormValues): CollectionBody {
  if (values.visibility !== "PUBLIC" && values.visibility !== "PRIVATE") {
    throw new ValidationFailed([{ path: "/visibility", message: "Expected PUBLIC or PRIVATE" }]);
  }
  // An empty icon is the default icon; an empty description clears it (as `""` does on the API). The typed icon wins over the chosen one.
  return { name: values.name, description: values.description, icon: values.icon.trim() || values.iconChoice, visibility: values.visibility };
}

/**
 * collectionPages: create (`/collections/new`), edit (`/collections/:id/edit`) and delete
 * (`/collections/:id/delete`, a confirmation form; the Inbox cannot be deleted) through the
 * collections service, the API's own write path. A refusal shows the form again (the routes'
 * declared `invalid`).
 */
export function collectionPages({ clock }: { clock: () => number }, guard: PageGuard) {
  const form = (shelf: Shelf, values: CollectionFormValues, errors: FieldErrors, collection?: CollectionSummary, status = 200) =>
    htmlResponse(collectionFormPage({ user: shelf.viewer(), collection, values, errors }), { status });
  const typed = (body: unknown): CollectionFormValues => ({
    name: formField(body, "name"),
    description: formField(body, "description"),
    icon: formField(body, "icon"),
    iconChoice: formField(body, "icon-choice"),
    visibility: formField(body, "visibility"),
  });

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
    .get("/collections/new", ({ request }) => guard.page(request, (shelf) =>
      form(shelf, { name: "", description: "", icon: "", iconChoice: "", visibility: "PRIVATE" }, new Map())), { surface: PAGE_ROUTE })
    .post("/collections", ({ request, body }) => guard.form(request, (shelf) => {
      const created = shelf.collections.create(collectionInput(typed(body)), clock());
      return seeOther(withNotice(`/?collection=${created.id}`, "collection-created"));
    }), { surface: collectionForm })
    .get("/collections/:id/edit", ({ request, params }) => guard.page(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      const { name, description, icon, visibility } = collection;
      return form(shelf, { name, description: description ?? "", ...iconValues(icon), visibility }, new Map(), collection);
    }), { surface: PAGE_ROUTE })
    .post("/collections/:id", ({ request, params, body }) => guard.form(request, (shelf) => {
      const collection = shelf.collections.summary(parseId(params.id));
      shelf.collections.update(collection.id, collectionInput(typed(body)), clock());
      return seeOther(withNotice(`/?collection=${collection.id}`, "collection-saved"));
    }), { surface: collectionForm })
    .get("/collections/:id/delete", ({ request, params }) => guard.page(request, (shelf) =>
      htmlResponse(collectionDeletePage(shelf.viewer(), shelf.collections.deletable(parseId(params.id))))
    ), { surface: PAGE_ROUTE })
    .post("/collections/:id/delete", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.collections.delete(parseId(params.id));
      return seeOther(withNotice("/", "collection-deleted"));
    }), { surface: PAGE_ROUTE });
}
