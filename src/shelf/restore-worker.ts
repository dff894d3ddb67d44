/**
 * The restore worker's thread (see src/shelf/restorer.ts): its one message is a restore of one
 * user's trashed items, which it runs in one transaction on a connection of its own to the
 * database file, keeping the request's idempotency key's answer in that same transaction; it
 * answers with what was restored, a refusal, or a failure, and is done.
 */
import { openWriter } from "../db/client";
import { AppError, refusalOf } from "../common/errors";
import { Shelf } from "./shelf";
import type { RestoreAnswer, RestoreRequest } from "./restorer";

declare const self: Worker;

self.onmessage = (event: MessageEvent<RestoreRequest>) => {
  const { path, user, trashDays, ids, key, now } = event.data;
  let answer: RestoreAnswer;
  try {
    const db = openWriter(path);
    try {
      const shelf = new Shelf(db, user, undefined, trashDays);
      const restored = db.transaction(() => {
        const restored = { message: "Restored.", ...shelf.trash.restore(ids) };
        if (key) shelf.keys.keep(key.key, { hash: key.hash, status: key.status, body: JSON.stringify(restored) }, now);
        return restored;
      }, { behavior: "immediate" });
      answer = { restored };
    } finally {
      db.$client.close();
    }
  } catch (error) {
    answer = error instanceof AppError
      ? { refused: refusalOf(error) }
      : { failed: error instanceof Error ? error.message : String(error) };
  }
  postMessage(answer);
};
