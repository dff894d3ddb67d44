/**
 * Every write of the API (`POST`, `PUT`, `PATCH`, `DELETE` under `/api/v1`) runs through
 * `write`, one job of the group commit: the route's shelf writes, and with an `Idempotency-Key`
 * the key's row holding the answer, commit in one transaction, before the answer goes out. So a
 * retry after a crash between that commit and the answer finds the key and gets the first
 * answer again: the write is never done twice.
 *
 * A key is 1 to 255 printable ASCII characters (400 otherwise), the user's own (another user's
 * same key is another key), and kept 24 hours. A retry with the same key and the same method,
 * path, query (its parameters in any order) and body gets the first answer again (status and
 * body, with `Idempotent-Replayed: true`) and writes nothing; another request with the key (one
 * that differs only in its query too) is 422 IDEMPOTENCY_KEY_REUSED; a retry while
 * the first request is still being answered is 409 IDEMPOTENCY_KEY_IN_USE. Only an answer that
 * succeeded is kept: a refused request wrote nothing, so it may be sent again with its key.
 */
import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { AppError, Conflict, IdempotencyKeyReused } from "../common/errors";
import { sentBody } from "../request/json-body";
import { Shelf } from "../shelf/shelf";
import type { KeyToKeep } from "../shelf/restorer";
import type { AfterWrite, WriteBatches } from "../shelf/types";

let apps = 0;

/** 1 to 255 printable ASCII characters, spaces included. */
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What a request with a key holds between its check and its write: the key, its request's hash, and its claim. */
interface Keyed {
  key: string;
  hash: string;
  claim: string;
}

/** Tells an AfterWrite what the writes of a job told it, once the job is committed (a rolled-back one tells nothing). */
class AfterCommit implements AfterWrite {
  private readonly told: Parameters<AfterWrite["linkSaved"]>[] = [];

  constructor(private readonly then?: AfterWrite) {}

  linkSaved(...saved: Parameters<AfterWrite["linkSaved"]>): void {
    this.told.push(saved);
  }

  /** committed tells what was told. */
  committed(): void {
    for (const saved of this.told) this.then?.linkSaved(...saved);
  }
}

/**
 * queryOf is a request's query as a key is bound to it: its parameters sorted by name (the values
 * of one name keep their order), so `?a=1&b=2` and `?b=2&a=1` are one request; empty without any.
 */
function queryOf(url: URL): string {
  const params = new URLSearchParams(url.search);
  params.sort();
  return params.toString();
}

/**
 * hashOf is SHA-256 of what a key is bound to: the request's method, path, query and body. A
 * request without a query hashes as before the query counted, so a key kept by an older version
 * still answers its retry.
 */
function hashOf(request: Request): string {
  const url = new URL(request.url);
  const query = queryOf(url);
  const target = query === "" ? url.pathname : `${url.pathname}?${query}`;
  return new Bun.CryptoHasher("sha256").update(`${request.method} ${target}\n${sentBody(request)}`).digest("hex");
}

/** A key that is not 1 to 255 printable ASCII characters. */
class InvalidKey extends AppError {
  constructor() {
    super(400, "INVALID_IDEMPOTENCY_KEY", "The Idempotency-Key must be 1 to 255 printable ASCII characters.");
  }
}

/**
 * othersFirst resolves after a timer, once the server has read the requests that came while this
 * turn ran. A write queued by a request's handler runs before them (the group commit's
 * setImmediate, set while a request is handled, runs before the server reads more): a route with
 * costly work ahead of its write (a restore's reading, a large batch's parsing) waits for this
 * between the two, so that the server answers others between them, not after both.
 */
export const othersFirst = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * writeOnce gives the API's routes `write(change, status?)`: `change` runs with the request's
 * shelf as one job of `commits`, and its value is the answer (`status`, 200 unless said), kept
 * under the request's key in the same transaction. What follows the shelf's writes of links
 * (its AfterWrite) is told once that transaction is committed.
 */
export function writeOnce({ clock }: { clock: () => number }, { apiUser }: Pick<Guards, "apiUser">, commits: WriteBatches) {
  /** The keys whose first request is being answered, as `<user id> <key>`. */
  const claims = new Set<string>();
  const keyed = new WeakMap<Request, Keyed>();
  const release = (request: Request): void => {
    const claimed = keyed.get(request);
    if (claimed) claims.delete(claimed.claim);
  };
  return new Elysia({ name: "linkshelf/write-once", seed: ++apps })
    .use(apiUser)
    // Elysia types a scoped derive's value as possibly missing in a hook; apiUser derives it for every request, or refuses it.
    .onBeforeHandle({ as: "scoped" }, ({ request, shelf: derived }) => {
      const shelf = derived!;
      const key = request.headers.get("idempotency-key");
      if (key === null || !WRITES.has(request.method)) return;
      if (!KEY_SHAPE.test(key)) throw new InvalidKey();
      const hash = hashOf(request);
      const kept = shelf.keys.find(key, clock());
      if (kept) {
        if (kept.hash !== hash) throw new IdempotencyKeyReused();
        return new Response(kept.body, { status: kept.status, headers: { "content-type": "application/json;charset=utf-8", "idempotent-replayed": "true" } });
      }
      const claim = `${shelf.user.id} ${key}`;
      if (claims.has(claim)) throw new Conflict("IDEMPOTENCY_KEY_IN_USE", "A request with this Idempotency-Key is still being answered: retry in a moment.");
      claims.add(claim);
      keyed.set(request, { key, hash, claim });
    })
    // A claim is released once its write is over (committed or not), before the answer goes out; when the handler
    // never reached `write`, once it answered (a refusal ahead of it: once the answer is out).
    .onAfterHandle({ as: "scoped" }, ({ request }) => release(request))
    .onAfterResponse({ as: "scoped" }, ({ request }) => release(request))
    .derive({ as: "scoped" }, ({ request, shelf: derived, set }) => ({
      /** write runs `change` on the request's shelf in one transaction with its key's answer; resolves with the answer once committed. */
      write: async <Answer>(change: (shelf: Shelf) => Answer, status = 200): Promise<Answer> => {
        const shelf = derived!;
        const after = new AfterCommit(shelf.afterWrite);
        const claimed = keyed.get(request);
        const answer = await commits.run(() => {
          const answer = change(new Shelf(shelf.db, shelf.user, after, shelf.trashDays, shelf.copyQuota));
          if (claimed) shelf.keys.keep(claimed.key, { hash: claimed.hash, status, body: JSON.stringify(answer) }, clock());
          return answer;
        }).finally(() => release(request));
        after.committed();
        set.status = status;
        return answer;
      },
      /**
       * writeApart is `write` for a change committed by another connection (a big restore on its
       * worker): `change` is given the request's key, if any, to keep with its answer in its own
       * transaction; resolves with the answer once that is committed.
       */
      writeApart: async <Answer>(change: (key: KeyToKeep | undefined) => Promise<Answer>, status = 200): Promise<Answer> => {
        const claimed = keyed.get(request);
        const answer = await change(claimed && { key: claimed.key, hash: claimed.hash, status }).finally(() => release(request));
        set.status = status;
        return answer;
      },
    }));
}

/** The plugin of writeOnce: what the API's write routes use. */
export type WriteOnce = ReturnType<typeof writeOnce>;
