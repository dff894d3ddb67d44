/**
 * How many bytes of request bodies the server holds in memory at once while they arrive: in
 * total, and per client address. A body is counted from the moment its reader (readLimitedBytes)
 * starts on it until the reader is done with it: read whole, refused, or its client went away.
 * A slow client thus holds its share of the budget, not the server's memory.
 */
import { Elysia } from "elysia";
import { AppError } from "../common/errors";
import { clientAddress, type Network } from "./arrival";

const MIB = 1024 * 1024;

/** The bytes of request bodies held at once. */
export interface BodyLimits {
  /** All clients together. */
  totalBytes: number;
  /**
   * One client address, while it sends more than one body at once. A single body is held up
   * to its route's own limit (a bookmarks file: 32 MiB) when it is the only one its address is
   * sending, as long as the total has room for it.
   */
  perAddressBytes: number;
}

/**
 * 64 MiB in all holds two of the largest bookmarks files beside ordinary traffic; 8 MiB per
 * address holds four saved pages (2 MiB each) or 128 sign-in forms (64 KiB each) at once,
 * far more than a browser or the extension sends.
 */
export const BODY_LIMITS: BodyLimits = { totalBytes: 64 * MIB, perAddressBytes: 8 * MIB };

/** Seconds a refused client is asked to wait: a body the server holds is read, or dropped, well within that. */
export const BODIES_BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Refused because the bodies held in memory would pass BODY_LIMITS; nothing of this body was
 * read, and the connection is closed with the answer (the rest of the body is not read either).
 */
export class BodiesBusy extends AppError {
  constructor() {
    super(503, "BUSY", "The server is receiving as much as it holds at once. Try again in a moment.", undefined, {
      "Retry-After": String(BODIES_BUSY_RETRY_AFTER_SECONDS),
      Connection: "close",
    });
  }
}

/** One body's account: grow it before holding more bytes of the body, release it once they are no longer held. */
export interface BodyHold {
  /** grow counts `bytes` more of this body, or throws BodiesBusy (counting nothing) when the limits have no room for them. */
  grow(bytes: number): void;
  /** release gives back everything this body counted; calling it again does nothing. */
  release(): void;
}

/** What an address's bodies hold together. */
interface AddressShare {
  bytes: number;
  bodies: number;
}

/**
 * BodyBudget counts the bytes of request bodies held at once, in total and by client address
 * (the address the rate limit and the sign-in throttle use, see clientAddress), and refuses a
 * body that would pass BODY_LIMITS.
 */
class BodyBudget {
  private heldBytes = 0;
  private readonly addresses = new Map<string, AddressShare>();

  constructor(private readonly network: Network) {}

  /** hold opens the account of one request's body (holding nothing yet). */
  hold(request: Request): BodyHold {
    const address = clientAddress(request, this.network);
    const share = this.addresses.get(address) ?? { bytes: 0, bodies: 0 };
    share.bodies++;
    this.addresses.set(address, share);
    let bytes = 0;
    let open = true;
    return {
      grow: (more) => {
        const alone = share.bodies === 1;
        if (this.heldBytes + more > BODY_LIMITS.totalBytes || (!alone && share.bytes + more > BODY_LIMITS.perAddressBytes)) throw new BodiesBusy();
        bytes += more;
        share.bytes += more;
        this.heldBytes += more;
      },
      release: () => {
        if (!open) return;
        open = false;
        this.heldBytes -= bytes;
        share.bytes -= bytes;
        if (--share.bodies === 0) this.addresses.delete(address);
      },
    };
  }
}

/** The budget each request's body is counted against, as the app that received it registered it. */
const budgets = new WeakMap<Request, BodyBudget>();

/** The account of a body no budget counts: a request made in process without an app's hooks. */
const UNCOUNTED: BodyHold = { grow: () => {}, release: () => {} };

/** holdBody opens the account of a request's body against the budget of the app that received it. */
export function holdBody(request: Request): BodyHold {
  return budgets.get(request)?.hold(request) ?? UNCOUNTED;
}

/**
 * bodyBudget counts every request body the app's readers read against one BodyBudget (see
 * readLimitedBytes). Registered before every route. A request that does not read its body
 * (most GETs; an API call refused before its body, such as a missing token) holds none of it:
 * Bun drops the unread rest of a body once the answer goes out.
 */
export function bodyBudget(network: Network) {
  const budget = new BodyBudget(network);
  return new Elysia({ name: "linkshelf/body-budget" }).onRequest(({ request }) => {
    if (request.method !== "GET" && request.method !== "HEAD") budgets.set(request, budget);
  });
}
