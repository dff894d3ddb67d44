/**
 * A batch of writes (`POST /api/v1/batch`): collections and links created, edited, deleted and
 * reordered, in order, inside the caller's transaction (the API's write), through the shelf's own
 * methods, so every rule, the trash and the change feed apply as they do to the single routes.
 * Any refused operation refuses the batch: the error names the operation (`/operations/3/...`)
 * and the caller's transaction rolls everything back.
 */
import { AppError, NotFound, PreconditionFailed } from "../common/errors";
import { Rules } from "../common/rules";
import { countOf } from "../common/format";
import type { FieldErrorJson } from "../contract/errors";
import type { OrderItem } from "../contract/collections";
import type { BatchBody, BatchJson, BatchOperation, Target } from "../contract/batch";
import { targetsOf, type ItemKind } from "../contract/batch-targets";
import { checkCursor } from "./changes";
import { ownedCollection } from "./scope";
import { MEMBERSHIP_LIMITS, MEMBERSHIP_MESSAGES } from "./limits";
import type { Shelf } from "./shelf";
import { Memberships, type NextPlaces } from "./memberships";

/** The messages of an id or a ref that names nothing the batch may use. */
export const BATCH_MESSAGES = {
  notYourCollection: "Expected the id of one of your collections",
  notYourLink: "Expected the id of one of your links",
  refTwice: (ref: string, at: number) => `Expected each ref once: ${JSON.stringify(ref)} is also at /operations/${at}/ref`,
  unknownRef: "Expected the ref of an item created by an earlier operation of this batch",
  linkRef: "Expected the ref of a collection, not of a link",
  wrongKind: (kind: ItemKind) => `Expected the ref of a created ${kind}`,
  idOrRef: "Expected exactly one of id and ref",
} as const;

/** reRooted is an operation's error with its paths under the operation's (`rename` maps a single route's field to the operation's); one without paths names `fallback`. */
function reRooted(error: AppError, root: string, fallback: string, rename: Record<string, string> = {}): AppError {
  const errors: FieldErrorJson[] = error.errors
    ? error.errors.map(({ path, message }) => ({ path: root + (rename[path] ?? path), message }))
    : [{ path: root + fallback, message: error.message }];
  return new AppError(error.status, error.code, error.message, errors, error.headers);
}

/** notFound is the 404 of an id that is not one of the owner's (unknown, another user's or in the trash alike), at its path. */
const notFound = (path: string, message: string) => new AppError(404, "NOT_FOUND", "An operation names an item that is not one of yours.", [{ path, message }]);

/** The ids a batch names, by kind: what `since` is checked against (the items of an order only through its collection). */
function namedIds(operations: readonly BatchOperation[]): { links: number[]; collections: number[] } {
  const named = { links: [] as number[], collections: [] as number[] };
  for (const place of operations.flatMap(targetsOf)) {
    const id = place.role === "item" || place.role === "removed" ? place.id
      : place.role === "target" && "id" in place.target ? place.target.id : undefined;
    if (id !== undefined) (place.kind === "link" ? named.links : named.collections).push(id);
  }
  return named;
}

/**
 * checkRefs applies the rules of refs before anything is written, so that all of them are heard
 * at once: each ref defined once, used only after the operation that defines it, for an item of
 * the kind the use expects; each order item names exactly one of id and ref.
 */
function checkRefs(operations: readonly BatchOperation[]): void {
  const rules = new Rules();
  const defined = new Map<string, { at: number; kind: ItemKind }>();
  operations.forEach((operation, at) => {
    const root = `/operations/${at}`;
    const places = targetsOf(operation);
    for (const place of places) {
      if (place.role !== "target" && place.role !== "ordered") continue;
      if (place.target === null) rules.fail(`${root}${place.path}`, BATCH_MESSAGES.idOrRef);
      else if ("ref" in place.target) {
        const found = defined.get(place.target.ref);
        const path = `${root}${place.path}/ref`;
        if (!found) rules.fail(path, BATCH_MESSAGES.unknownRef);
        else if (found.kind !== place.kind) rules.fail(path, place.kind === "collection" ? BATCH_MESSAGES.linkRef : BATCH_MESSAGES.wrongKind(place.kind));
      }
    }
    // Defined after its own uses: an operation cannot name what it creates.
    for (const place of places) {
      if (place.role !== "creates") continue;
      const before = defined.get(place.ref);
      if (before) rules.fail(`${root}${place.path}`, BATCH_MESSAGES.refTwice(place.ref, before.at));
      else defined.set(place.ref, { at, kind: place.kind });
    }
  });
  rules.check();
}

/**
 * checkMemberships refuses a batch that names more than MEMBERSHIP_LIMITS.perBatch collections in
 * its createLink operations' `collections` and its updateLink ones' `add`, all counted, at the
 * operation that passes the limit: a batch's one transaction stays short.
 */
function checkMemberships(operations: readonly BatchOperation[]): void {
  let named = 0;
  for (const [at, operation] of operations.entries()) {
    const joined = targetsOf(operation).flatMap((place) => (place.role === "target" && place.joins ? [place.field] : []));
    if (joined.length === 0) continue;
    named += joined.length;
    if (named > MEMBERSHIP_LIMITS.perBatch) {
      const rules = new Rules();
      rules.fail(`/operations/${at}/${joined[0]}`, MEMBERSHIP_MESSAGES.perBatch);
      rules.check();
    }
  }
}

/**
 * applyBatch runs a batch's operations in order on a shelf, inside the caller's transaction
 * (which rolls all of them back when one is refused), and answers with the id each ref created.
 * With `since`, nothing is written when an item it names by id changed after that cursor (412),
 * nor when the cursor is of another history or beyond the feed's end (410 HISTORY_REPLACED: a
 * future cursor never passes as "nothing changed") or older than the feed remembers (410 CURSOR_EXPIRED).
 */
export function applyBatch(shelf: Shelf, body: BatchBody, now: number): BatchJson {
  const { operations } = body;
  const rules = new Rules();
  checkCursor(body.since, rules);
  rules.check();
  checkMemberships(operations);
  checkRefs(operations);
  if (body.since !== undefined && shelf.changes.changedSince(body.since, namedIds(operations))) throw new PreconditionFailed();

  const refs = new Map<string, { kind: ItemKind; id: number }>();
  // The owner's collections an operation named, found, or the batch created: until a deleteCollection, not looked up again.
  const owned = new Set<number>();
  // Each collection's next place, kept from one createLink to the next (any other operation may move places: looked up again after it).
  const places: NextPlaces = new Map();
  // The createLinks' memberships: the change feed's marks of all of them written in one statement at the end.
  Memberships.within(shelf, places, (memberships) => operations.forEach((operation, at) => {
    if (operation.op !== "createLink") places.clear();
    const root = `/operations/${at}`;
    /** ownCollection is the owner's collection with that id, else a 404 at `path`. */
    const ownCollection = (path: string, id: number) => {
      try {
        return ownedCollection(shelf, id);
      } catch (error) {
        throw error instanceof NotFound ? notFound(path, BATCH_MESSAGES.notYourCollection) : error;
      }
    };
    /** collectionAt is the id of a collection an operation names: one of the owner's (each looked up once), or one the batch created (checkRefs saw to the ref). */
    const collectionAt = (path: string, given: Target): number => {
      if ("ref" in given) return refs.get(given.ref)!.id;
      if (!owned.has(given.id)) owned.add(ownCollection(`${path}/id`, given.id).id);
      return given.id;
    };
    const ownLink = (id: number) => {
      try {
        return shelf.links.get(id);
      } catch (error) {
        throw error instanceof NotFound ? notFound(`${root}/id`, BATCH_MESSAGES.notYourLink) : error;
      }
    };
    /** run is a shelf write of the operation, its errors re-rooted under it. */
    const run = <T>(write: () => T, fallback: string, rename?: Record<string, string>): T => {
      try {
        return write();
      } catch (error) {
        throw error instanceof AppError ? reRooted(error, root, fallback, rename) : error;
      }
    };
    // Doing each operation is a shelf call of its own; where operations name items is
    // contract/batch-targets.ts's, which the checks above (and the extension) read. The lookups here
    // follow each operation's fields in their order, which decides the path a batch naming several
    // wrong items is refused at (its own id before its targets).
    switch (operation.op) {
      case "createCollection": {
        const parentId = collectionAt(`${root}/parent`, operation.parent);
        const created = run(() => shelf.collections.create({ name: operation.name, visibility: "PRIVATE", parentId }, now), "", { "/parentId": "/parent" });
        refs.set(operation.ref, { kind: "collection", id: created.id });
        owned.add(created.id);
        break;
      }
      case "updateCollection": {
        const current = ownCollection(`${root}/id`, operation.id);
        const parentId = operation.parent === undefined ? undefined : collectionAt(`${root}/parent`, operation.parent);
        run(() => shelf.collections.update(operation.id, {
          name: operation.name ?? current.name, visibility: current.visibility, parentId,
        }, now), "", { "/parentId": "/parent" });
        break;
      }
      case "deleteCollection":
        ownCollection(`${root}/id`, operation.id);
        owned.clear();
        run(() => shelf.collections.delete(operation.id, now, true), "/id");
        break;
      case "createLink": {
        const collectionIds = operation.collections.map((given, index) => collectionAt(`${root}/collections/${index}`, given));
        const created = run(() => shelf.links.add({ name: operation.name, url: operation.url, favorite: false, description: "", collectionIds }, now, { memberships, owned }), "", { "/collectionIds": "/collections" });
        refs.set(operation.ref, { kind: "link", id: created.id });
        break;
      }
      case "updateLink": {
        const current = ownLink(operation.id);
        const added = (operation.add ?? []).map((given, index) => collectionAt(`${root}/add/${index}`, given));
        const removed = new Set((operation.remove ?? []).map((id, index) => ownCollection(`${root}/remove/${index}`, id).id));
        const kept = current.collectionIds.filter((id) => !removed.has(id));
        const collectionIds = [...kept, ...added.filter((id) => !removed.has(id))];
        // Refused as PUT /links/:id refuses them, even when the link then goes to the trash.
        const fields = { name: operation.name ?? current.name, url: operation.url ?? current.url, favorite: current.favorite, toRead: operation.toRead, archived: operation.archived };
        run(() => shelf.links.update(operation.id, { ...fields, collectionIds: collectionIds.length > 0 ? collectionIds : current.collectionIds }, now), "", { "/collectionIds": "/add" });
        if (collectionIds.length === 0) run(() => shelf.links.delete(operation.id, now), "/id");
        break;
      }
      case "order": {
        const id = collectionAt(`${root}/collection`, operation.collection);
        const order: OrderItem[] = operation.order.map((item) => ({ kind: item.kind, id: item.id ?? refs.get(item.ref!)!.id }));
        run(() => shelf.collections.setOrder(id, order, now), "/order");
        break;
      }
    }
  }));
  return { message: `${countOf(operations.length, "operation")} applied.`, refs: Object.fromEntries([...refs].map(([ref, { id }]) => [ref, id])) };
}
