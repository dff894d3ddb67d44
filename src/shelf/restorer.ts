/**
 * Where a big restore runs. Restoring a collection of 10,000 links is one transaction of
 * ~60-100 ms (the API promises all or nothing): on the server's thread it would hold the event
 * loop that long. In the server, a restore of more than RESTORE_APART_LINKS links therefore runs
 * on a worker thread (src/shelf/restore-worker.ts) with a connection of its own to the database
 * file, in one transaction there (WAL lets the server read meanwhile; the server's own writes
 * wait for its commit on the busy timeout, 5 s). The request's idempotency key is kept in that
 * same transaction; the change feed's marks are written there by their triggers; kept answers
 * see the other connection's commit through `data_version` (src/db/etag-stamp.ts); the search
 * indexer is woken here once it is committed. A smaller restore, and any restore without a
 * file to share (tests, an in-memory database), runs on the caller's thread as before.
 *
 * A statement on the worker cannot be stopped from here (Worker.terminate() leaves it running):
 * a restore is bounded by its size, not stopped.
 */
import type { UserRow } from "../db/schema";
import { errorOfRefusal, type Refusal } from "../common/errors";
import { wakeIndexer } from "../fulltext/index-text";
import type { Shelf } from "./shelf";
import type { RestoreIds, Restored } from "./trash";

/** Restores of more links than this run on the worker; smaller ones on the caller's thread. */
export const RESTORE_APART_LINKS = 1000;

/** The restore's answer, as the API gives it (and keeps under an idempotency key). */
export type RestoredAnswer = { message: string } & Restored;

/** An idempotency key whose answer the restore's transaction keeps (see src/api/idempotency.ts). */
export interface KeyToKeep {
  key: string;
  hash: string;
  status: number;
}

/** What the worker is asked: one restore of one user's items. */
export interface RestoreRequest {
  path: string;
  user: UserRow;
  trashDays?: number;
  ids: RestoreIds;
  key?: KeyToKeep;
  now: number;
}

/** What the worker answers: what was restored, a refusal (an AppError's parts), or a failure. */
export type RestoreAnswer =
  | { restored: RestoredAnswer }
  | { refused: Refusal }
  | { failed: string };

/** What the restore routes need: the clock (an idempotency key's time) and the server's worker, if any. */
export interface RestorePlace {
  clock: () => number;
  restorer?: WorkerRestorer;
}

/**
 * WorkerRestorer runs big restores on a worker thread (`url`: src/shelf/restore-worker.ts) over
 * the database file `path`, one thread per restore, ended once it has answered.
 */
export class WorkerRestorer {
  constructor(private readonly url: URL, private readonly path: string) {}

  /** takes says whether a restore of `ids` runs here: more than RESTORE_APART_LINKS links (counted, not read: the worker reads them). */
  takes(shelf: Shelf, ids: RestoreIds): boolean {
    return shelf.trash.linksIn(ids) > RESTORE_APART_LINKS;
  }

  /**
   * restore runs `shelf.trash.restore(ids)` on the worker, with `key`'s answer kept in its
   * transaction; resolves once it is committed (the indexer woken), or throws its refusal.
   */
  async restore(shelf: Shelf, ids: RestoreIds, now: number, key?: KeyToKeep): Promise<RestoredAnswer> {
    const request: RestoreRequest = { path: this.path, user: shelf.user, trashDays: shelf.trashDays, ids, key, now };
    const worker = new Worker(this.url.href);
    const answer = await new Promise<RestoreAnswer>((settle) => {
      worker.onmessage = (event: MessageEvent<RestoreAnswer>) => settle(event.data);
      worker.onerror = (event) => settle({ failed: event.message });
      worker.postMessage(request);
    }).finally(() => worker.terminate());
    if ("restored" in answer) {
      wakeIndexer(shelf.db);
      return answer.restored;
    }
    if ("refused" in answer) throw errorOfRefusal(answer.refused);
    throw new Error(`restore failed on its worker: ${answer.failed}`);
  }
}
