import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { ValidationFailed } from "../common/errors";
import { apiRoute, errorDoc } from "../openapi/describe";
import { readJsonBody } from "../request/json-body";
import { schemaErrors } from "../request/elysia-errors";
import { surfaces } from "../request/surface";
import { applyBatch } from "../shelf/batch";
import { BATCH_MAX_BODY_BYTES, BATCH_MAX_OPERATIONS, BATCH_OPERATIONS, BatchBody, BatchJson, type BatchOperationName } from "../contract/batch";
import type { FieldErrorJson } from "../contract/errors";
import { othersFirst, type WriteOnce } from "./idempotency";

const OPERATION_NAMES = Object.keys(BATCH_OPERATIONS) as BatchOperationName[];

/**
 * checkShape refuses a batch body whose operations break their schemas, each error at its own
 * path (`/operations/3/name`): the body's schema is a union of the operations, which its
 * validation would refuse as a whole (`/operations/3`, "Expected union value"). What passes here
 * passes the body's schema. An array longer than its schema's maxItems is refused without its
 * items being checked.
 */
function checkShape(body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const { operations } = body as { operations?: unknown };
  if (!Array.isArray(operations)) return;
  const errors: FieldErrorJson[] = [];
  if (operations.length < 1 || operations.length > BATCH_MAX_OPERATIONS) errors.push({ path: "/operations", message: `Expected 1 to ${BATCH_MAX_OPERATIONS} operations` });
  operations.forEach((operation: unknown, at) => {
    const root = `/operations/${at}`;
    const op = typeof operation === "object" && operation !== null ? (operation as { op?: unknown }).op : undefined;
    if (typeof op !== "string" || !OPERATION_NAMES.includes(op as BatchOperationName)) {
      errors.push(typeof operation === "object" && operation !== null && !Array.isArray(operation)
        ? { path: `${root}/op`, message: `Expected ${OPERATION_NAMES.map((name) => JSON.stringify(name)).join(" or ")}` }
        : { path: root, message: "Expected object" });
      return;
    }
    const schema = BATCH_OPERATIONS[op as BatchOperationName];
    // An array longer than its schema allows is refused before its items are checked one by one (500 operations of 500 collections took half a second).
    const long = Object.entries(schema.properties).filter(([name, property]) => {
      const value = (operation as Record<string, unknown>)[name];
      const most = (property as { maxItems?: number }).maxItems;
      return most !== undefined && Array.isArray(value) && value.length > most;
    });
    if (long.length > 0) errors.push(...long.map(([name, property]) => ({ path: `${root}/${name}`, message: `Expected at most ${(property as { maxItems: number }).maxItems} items` })));
    else errors.push(...schemaErrors(schema, operation, root));
  });
  if (errors.length > 0) throw new ValidationFailed(errors);
}

/**
 * batchRoutes: `POST /api/v1/batch`. Registered before the API's JSON parser: its body has its
 * own, larger limit (500 operations).
 */
export function batchRoutes({ clock }: { clock: () => number }, { apiUser }: Guards, once: WriteOnce) {
  return new Elysia()
    .use(surfaces)
    .use(apiUser)
    .use(once)
    // Its body read and checked in this turn, its transaction in a later one, the server answering others between them.
    .post("/batch", async ({ body, write }) => {
      await othersFirst();
      return write((shelf) => applyBatch(shelf, body, clock()));
    }, {
      parse: ({ request }) => readJsonBody(request, BATCH_MAX_BODY_BYTES),
      transform: ({ body }) => checkShape(body),
      ...apiRoute({
        tag: "batch", summary: "Apply many writes of collections and links at once, all of them or none", body: BatchBody,
        description: `1-${BATCH_MAX_OPERATIONS} operations (createCollection, updateCollection, deleteCollection, createLink, updateLink, order), ` +
          "applied in order in one transaction: one refused refuses the batch, and nothing is written. A created item is named by its `ref` " +
          "(1-64 characters, each once), which later operations use as `{ref}` instead of `{id}`. Each operation applies the rules of its single route. " +
          "With `since` (a cursor of GET /api/v1/changes), the batch is applied only if none of the items it names by id changed after it. " +
          `The body may be up to ${BATCH_MAX_BODY_BYTES / 1024 / 1024} MiB. Every error names the operation in \`errors\` (\`/operations/3/name\`).`,
        ok: { description: "Applied; refs maps every ref to the id of the item it created.", json: BatchJson },
        more: {
          404: errorDoc("NOT_FOUND: an operation names an id that is not one of yours (unknown, another user's or in the trash); `errors` names it (`/operations/3/id`)."),
          409: errorDoc("DEFAULT_COLLECTION: a deleteCollection names the Inbox. ORDER_STALE: an order does not name exactly the collection's items at that point. `errors` names the operation."),
          410: errorDoc("CURSOR_EXPIRED: `since` is older than what the server still remembers: read everything again (your ids still hold). "
            + "HISTORY_REPLACED: `since` is of another history of the server's data (it was restored from a backup since), beyond the feed's end, "
            + "or from before this release: trust no id you had from the server, read everything again and match by content. Nothing was written."),
          412: errorDoc("PRECONDITION_FAILED: an item the batch names by id changed after `since`; nothing was written."),
          413: errorDoc(`PAYLOAD_TOO_LARGE: the body is larger than ${BATCH_MAX_BODY_BYTES / 1024 / 1024} MiB.`),
          422: errorDoc("VALIDATION_FAILED: no operation or more than 500, a field breaks its schema or its route's rule, a ref defined twice or used before it is defined, " +
            "a parent refused (the Inbox, a cycle, deeper than 64 levels), a `since` that is not a cursor; `errors` names each at its path (`/operations/3/name`)."),
        },
      }),
    });
}
