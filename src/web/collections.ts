import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { CollectionInput } from "../collections/model";
import { listCollectionSummaries, type CollectionSummary } from "../collections/queries";
import { createCollection, deleteCollection, updateCollection } from "../collections/service";
import type { UserRow } from "../db/schema";
import { ValidationFailed } from "../errors";
import { parseId } from "../ids";
import { collectionDeletePage, collectionFormPage, type CollectionFormValues } from "../pages/collections";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField } from "../request/form-body";
import { htmlResponse } from "../pages/html";
import { messageShell, seeOther, type PageGuard } from "./guard";
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
export function collectionPages({ db, clock }: AppDeps, guard: PageGuard) {
  /** owned finds one of the user's collections with its link count (another user's id: the 404 page). */
  const owned = (user: UserRow, rawId: string): CollectionSummary | undefined => {
    const id = parseId(rawId);
    return listCollectionSummaries(db, user.id).find((collection) => collection.id === id);
  };
  const form = (user: UserRow, values: CollectionFormValues, errors: FieldErrors, collection?: CollectionSummary, status = 200) =>
    htmlResponse(collectionFormPage({ user, collection, values, errors }), { status });
  const typed = (body: unknown): CollectionFormValues => ({
    name: formField(body, "name"),
    description: formField(body, "description"),
    icon: formField(body, "icon"),
    visibility: formField(body, "visibility"),
  });

  return new Elysia()
    .get("/collections/new", ({ request }) => guard.page(request, (user) =>
      form(user, { name: "", description: "", icon: "", visibility: "PRIVATE" }, new Map())))
    .post("/collections", ({ request, body }) => guard.form(request, (user) => {
      const values = typed(body);
      try {
        const created = createCollection(db, user, collectionInput(values), clock());
        return seeOther(withNotice(`/?collection=${created.id}`, "collection-created"));
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        return form(user, values, fieldErrorsOf(error.errors), undefined, 422);
      }
    }))
    .get("/collections/:id/edit", ({ request, params }) => guard.page(request, (user) => {
      const collection = owned(user, params.id);
      if (!collection) return guard.notFound(user);
      const { name, description, icon, visibility } = collection;
      return form(user, { name, description: description ?? "", icon, visibility }, new Map(), collection);
    }))
    .post("/collections/:id", ({ request, params, body }) => guard.form(request, (user) => {
      const collection = owned(user, params.id);
      if (!collection) return guard.notFound(user);
      const values = typed(body);
      try {
        updateCollection(db, user.id, collection.id, collectionInput(values), clock());
        return seeOther(withNotice(`/?collection=${collection.id}`, "collection-saved"));
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error;
        return form(user, values, fieldErrorsOf(error.errors), collection, 422);
      }
    }))
    .get("/collections/:id/delete", ({ request, params }) => guard.page(request, (user) => {
      const collection = owned(user, params.id);
      if (!collection) return guard.notFound(user);
      if (collection.isDefault) return messageShell(user, "Not possible", "The Inbox collection cannot be deleted.", { status: 409 });
      return htmlResponse(collectionDeletePage(user, collection));
    }))
    .post("/collections/:id/delete", ({ request, params }) => guard.form(request, (user) => {
      deleteCollection(db, user.id, parseId(params.id));
      return seeOther(withNotice("/", "collection-deleted"));
    }));
}
