/**
 * The API's edits of one record by id: `PUT /:id` replaces it, `DELETE /:id` deletes it, and
 * both answer `{message}` once the shelf has written; `GET /:id` reads it with its ETag, which
 * both writes check against `If-Match` in their transaction. Links and collections are edited alike.
 */
import type { Static, TSchema } from "elysia";
import type { Guards } from "../auth/requester";
import { parseId } from "../common/ids";
import { MessageJson } from "../contract/common";
import { apiRoute, type ResponseDoc } from "../openapi/describe";
import type { Shelf } from "../shelf/shelf";
import { tagged, unchanged } from "./items";
import type { WriteOnce } from "./idempotency";

/** The part of a shelf that keeps one kind of record (`shelf.links`, `shelf.collections`). */
interface Records<Input> {
  update(id: number, input: Input, now: number): void;
  /** `withContents`: the DELETE's `?contents=1`, for the records whose writes name a `deleteQuery`. */
  delete(id: number, now: number, withContents?: boolean): void;
}

export interface RecordWrites<Body extends TSchema> {
  /** The OpenAPI tag, and the record's name in the answers ("Link" -> "Link updated."). */
  tag: string;
  noun: string;
  /** Where the records are kept in a shelf. */
  records: (shelf: Shelf) => Records<Static<Body>>;
  /** The `GET /:id` body of one record (NotFound for another user's): what its ETag is the hash of. */
  item: (shelf: Shelf, id: number) => object;
  /** The GET's summary and answer. */
  getSummary: string;
  getOk: ResponseDoc;
  /** The PUT's body and what it does. */
  body: Body;
  updateDescription: string;
  /** The DELETE's summary and description, and answers of its own. */
  deleteSummary: string;
  deleteDescription?: string;
  deleteMore?: Record<number, ResponseDoc>;
  /** The DELETE's query, when it takes `contents` (collections: `?contents=1` deletes with the contents). */
  deleteQuery?: TSchema;
}

/** recordWrites is the `GET /:id`, `PUT /:id` and `DELETE /:id` of one kind of record, for the plugin of its prefix. */
export function recordWrites<Body extends TSchema>({ apiRoutes }: Pick<Guards, "apiRoutes">, once: WriteOnce, clock: () => number, writes: RecordWrites<Body>) {
  const { tag, noun } = writes;
  return apiRoutes("")
    .use(once)
    .get("/:id", ({ shelf, params, request, set }) => tagged(request, set, writes.item(shelf, parseId(params.id))), apiRoute({
      tag, summary: writes.getSummary, id: true, ok: writes.getOk, etag: true,
    }))
    .put("/:id", ({ params, body, request, write }) => write((shelf) => {
      const id = parseId(params.id);
      unchanged(request, () => writes.item(shelf, id));
      writes.records(shelf).update(id, body as Static<Body>, clock());
      return { message: `${noun} updated.` };
    }), apiRoute({
      tag, summary: `Update a ${noun.toLowerCase()}`, body: writes.body, id: true, description: writes.updateDescription, ifMatch: true,
      ok: { description: "Updated.", json: MessageJson },
    }))
    .delete("/:id", ({ params, query, request, write }) => write((shelf) => {
      const id = parseId(params.id);
      unchanged(request, () => writes.item(shelf, id));
      writes.records(shelf).delete(id, clock(), (query as { contents?: string } | undefined)?.contents === "1");
      return { message: `${noun} deleted.` };
    }), apiRoute({
      tag, summary: writes.deleteSummary, id: true, description: writes.deleteDescription, more: writes.deleteMore, ifMatch: true, query: writes.deleteQuery,
      ok: { description: "Deleted.", json: MessageJson },
    }));
}
