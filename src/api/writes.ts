/**
 * The API's edits of one record by id: `PUT /:id` replaces it, `DELETE /:id` deletes it, and
 * both answer `{message}` once the shelf has written. Links and collections are edited alike.
 */
import type { Static, TSchema } from "elysia";
import type { Guards } from "../auth/requester";
import { parseId } from "../ids";
import { MessageJson } from "../contract/common";
import { apiRoute, type ResponseDoc } from "../openapi/describe";
import type { Shelf } from "../shelf/shelf";

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

/** recordWrites is the `PUT /:id` and `DELETE /:id` of one kind of record, for the plugin of its prefix. */
export function recordWrites<Body extends TSchema>({ apiRoutes }: Pick<Guards, "apiRoutes">, clock: () => number, writes: RecordWrites<Body>) {
  const { tag, noun } = writes;
  return apiRoutes("")
    .put("/:id", ({ shelf, params, body }) => {
      writes.records(shelf).update(parseId(params.id), body as Static<Body>, clock());
      return { message: `${noun} updated.` };
    }, apiRoute({
      tag, summary: `Update a ${noun.toLowerCase()}`, body: writes.body, id: true, description: writes.updateDescription,
      ok: { description: "Updated.", json: MessageJson },
    }))
    .delete("/:id", ({ shelf, params, query }) => {
      writes.records(shelf).delete(parseId(params.id), clock(), (query as { contents?: string } | undefined)?.contents === "1");
      return { message: `${noun} deleted.` };
    }, apiRoute({
      tag, summary: writes.deleteSummary, id: true, description: writes.deleteDescription, more: writes.deleteMore, query: writes.deleteQuery,
      ok: { description: "Deleted.", json: MessageJson },
    }));
}
