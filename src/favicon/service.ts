import { and, eq, gt, sql } from "drizzle-orm";
import pkg from "../../package.json" with { type: "json" };
import type { Config } from "../common/config";
import type { Db } from "../db/client";
import { faviconCache, type FaviconCacheRow } from "../db/schema";
import { InvalidUrl } from "../common/errors";
import { discoverIcons } from "./discover";
import { guardedGet, pinnedConnect, readCapped, Refused, resolveSystem, type OutboundPolicy } from "../outbound/fetch";
import { limitsOf, type OutboundOptions } from "../outbound/runs";
import { placeholderSvg } from "./placeholder";
import { Slots } from "./slots";
import { sniffIcon } from "./sniff";

const KiB = 1024;
const DAY = 24 * 60 * 60 * 1000;

/** Limits of the favicon proxy: how much it reads, how long it waits, how long it keeps an answer. */
export const FAVICON_LIMITS = {
  htmlBytes: 256 * KiB,
  iconBytes: 512 * KiB,
  hitMillis: 7 * DAY,
  missMillis: 1 * DAY,
  timeoutMillis: 5000,
  /** Declared icons tried (best first) before `/favicon.ico`. */
  candidates: 4,
  /** The cache is bounded: the oldest rows go first when either limit is passed. */
  cacheRows: 10_000,
  cacheBytes: 64 * 1024 * KiB,
  urlLength: 2048,
  /** Outbound lookups (of different origins) running at once; the others wait for a slot. */
  concurrentLookups: 8,
  /** Lookups waiting for a slot; one more is refused at once (503). */
  queuedLookups: 32,
  /** How long a lookup waits for a slot before it is refused (503). */
  queueMillis: 5000,
} as const;

export const USER_AGENT = `linkshelf/${pkg.version} (favicon fetcher)`;
const ACCEPT_HTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1";
const ACCEPT_IMAGE = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.1";

/** An image to answer with: a verified icon or the placeholder. */
export interface FaviconImage {
  contentType: string;
  bytes: Uint8Array;
  etag: string;
}

interface FoundIcon {
  contentType: string;
  bytes: Uint8Array;
}

/** The outcome of one outbound lookup. `refused`: the origin's own host is not admitted (nothing sent). */
type Lookup = { kind: "found"; icon: FoundIcon } | { kind: "miss" } | { kind: "refused" };

/** etagOf is a strong ETag: the SHA-256 of the bytes, base64url, cut to 128 bits. */
export function etagOf(bytes: Uint8Array | string): string {
  return `"${new Bun.CryptoHasher("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;
}

/**
 * parseFaviconTarget reads the `url` parameter: an absolute http(s) URL with a host, at
 * most 2048 characters. Anything else throws InvalidUrl.
 */
export function parseFaviconTarget(raw: string | null): URL {
  if (raw === null || raw.trim() === "") throw new InvalidUrl("The url parameter is missing.");
  if (raw.length > FAVICON_LIMITS.urlLength) throw new InvalidUrl(`The url parameter is longer than ${FAVICON_LIMITS.urlLength} characters.`);
  const url = URL.parse(raw);
  if (url === null) throw new InvalidUrl("The url parameter is not a URL.");
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new InvalidUrl("The url parameter must be an http or https URL.");
  }
  return url;
}

/** placeholderImage is the generated SVG for a host, ready to send. */
export function placeholderImage(hostname: string): FaviconImage {
  const svg = placeholderSvg(hostname.replace(/^\[|\]$/g, ""));
  return { contentType: "image/svg+xml", bytes: new TextEncoder().encode(svg), etag: etagOf(svg) };
}

/** What createApp may inject into the favicon proxy; each defaults to the real thing. */
export interface FaviconOptions extends OutboundOptions {
  /** The budget of one whole lookup (page, redirects, icons); default 5 s. */
  timeoutMillis?: number;
  /** Lookups at once, waiting lookups and their wait; default FAVICON_LIMITS. */
  concurrentLookups?: number;
  queuedLookups?: number;
  queueMillis?: number;
}

/** Where the favicon proxy keeps its cache, by which clock, and whether it may reach private addresses. */
export interface FaviconStore {
  db: Db;
  config: Pick<Config, "faviconAllowPrivate">;
  clock: () => number;
}

/**
 * createFaviconService holds the proxy's state: the SQLite cache (per origin, hits 7 days,
 * misses 1 day, by the app's clock), the lookups in flight, so concurrent requests for
 * one origin share a single outbound fetch, and the slots that bound how many lookups run
 * at once (8) and wait (32, for up to 5 s) before a new one is refused with 503 BUSY.
 */
export function createFaviconService({ db, config, clock }: FaviconStore, options: FaviconOptions = {}) {
  const resolve = options.resolve ?? resolveSystem;
  const connect = options.connect ?? pinnedConnect();
  const limits = limitsOf(FAVICON_LIMITS, options);
  const timeoutMillis = limits.timeoutMillis;
  const inFlight = new Map<string, Promise<FaviconImage>>();
  const slots = new Slots(limits.concurrentLookups, limits.queuedLookups, limits.queueMillis);

  /** evict drops the expired rows and, newest first, every row past the cache's count or bytes (a window function: a `sql` template). */
  const evict = (tx: Pick<Db, "run">, now: number) =>
    tx.run(sql`
      DELETE FROM favicon_cache WHERE expires_at <= ${now} OR origin IN (
        SELECT origin FROM (
          SELECT origin,
            count(*) OVER newest AS rows_so_far,
            sum(coalesce(length(bytes), 0)) OVER newest AS bytes_so_far
          FROM favicon_cache
          WINDOW newest AS (ORDER BY fetched_at DESC, origin ROWS UNBOUNDED PRECEDING))
        WHERE rows_so_far > ${FAVICON_LIMITS.cacheRows} OR bytes_so_far > ${FAVICON_LIMITS.cacheBytes})`);

  const cached = (origin: string, now: number): FaviconCacheRow | undefined =>
    db.select().from(faviconCache).where(and(eq(faviconCache.origin, origin), gt(faviconCache.expiresAt, now))).all()[0];

  const store = (origin: string, icon: FoundIcon | null): FaviconCacheRow => {
    const now = clock();
    const row: FaviconCacheRow = {
      origin,
      contentType: icon?.contentType ?? null,
      bytes: icon ? Buffer.from(icon.bytes) : null,
      etag: icon ? etagOf(icon.bytes) : null,
      fetchedAt: now,
      expiresAt: now + (icon ? FAVICON_LIMITS.hitMillis : FAVICON_LIMITS.missMillis),
    };
    db.transaction((tx) => {
      tx.insert(faviconCache).values(row).onConflictDoUpdate({ target: faviconCache.origin, set: row }).run();
      evict(tx, now);
    });
    return row;
  };

  const imageOf = (row: FaviconCacheRow, hostname: string): FaviconImage =>
    row.bytes && row.contentType && row.etag
      ? { contentType: row.contentType, bytes: row.bytes, etag: row.etag }
      : placeholderImage(hostname);

  const fetchAndStore = async (target: URL): Promise<FaviconImage> => {
    const signal = AbortSignal.timeout(timeoutMillis);
    const policy: OutboundPolicy = { resolve, connect, allowPrivate: config.faviconAllowPrivate, userAgent: USER_AGENT, signal };
    const result = await lookupIcon(new URL(target.origin), policy);
    // A refusal is decided here without contacting anyone: not cached, so enabling
    // LINKSHELF_FAVICON_ALLOW_PRIVATE takes effect at the next start.
    if (result.kind === "refused") return placeholderImage(target.hostname);
    return imageOf(store(target.origin, result.kind === "found" ? result.icon : null), target.hostname);
  };

  return {
    /**
     * getFavicon answers the icon of the target's origin: from the cache while it is fresh,
     * else from one outbound lookup shared by every concurrent request for that origin.
     * Never throws for anything the origin does: the placeholder stands in. Throws
     * FaviconBusy when the lookup gets no slot (every request waiting for it shares the refusal).
     */
    async getFavicon(target: URL): Promise<FaviconImage> {
      const origin = target.origin;
      const row = cached(origin, clock());
      if (row) return imageOf(row, target.hostname);
      let pending = inFlight.get(origin);
      if (!pending) {
        pending = slots.run(() => fetchAndStore(target)).finally(() => inFlight.delete(origin));
        inFlight.set(origin, pending);
      }
      return pending;
    },
  };
}

export type FaviconService = ReturnType<typeof createFaviconService>;

/**
 * lookupIcon finds an origin's icon: the root page's declared icons (best first), then
 * `/favicon.ico`. Only bytes that sniff as an accepted image count. A timeout or a broken
 * origin is a miss; a refused origin host is `refused`.
 */
async function lookupIcon(origin: URL, policy: OutboundPolicy): Promise<Lookup> {
  let pageUrl = new URL("/", origin);
  let candidates: URL[] = [];
  try {
    const page = await guardedGet(pageUrl, ACCEPT_HTML, policy);
    pageUrl = page.url;
    if (page.response.status === 200) {
      const { bytes } = await readCapped(page.response, FAVICON_LIMITS.htmlBytes, policy.signal);
      candidates = discoverIcons(bytes, pageUrl).slice(0, FAVICON_LIMITS.candidates).map((c) => c.url);
    } else {
      await discard(page.response);
    }
  } catch (error) {
    if (error instanceof Refused && error.redirects === 0) return { kind: "refused" };
    if (policy.signal.aborted) return { kind: "miss" };
    // Anything else wrong with the page: the conventional /favicon.ico may still exist.
  }

  const fallback = new URL("/favicon.ico", pageUrl);
  if (!candidates.some((url) => url.href === fallback.href)) candidates.push(fallback);
  for (const url of candidates) {
    if (policy.signal.aborted) break;
    const icon = await fetchIcon(url, policy).catch(() => null);
    if (icon) return { kind: "found", icon };
  }
  return { kind: "miss" };
}

/** fetchIcon fetches one icon URL: a 200 of at most 512 KiB whose bytes sniff as an accepted image, else null. */
async function fetchIcon(url: URL, policy: OutboundPolicy): Promise<FoundIcon | null> {
  const { response } = await guardedGet(url, ACCEPT_IMAGE, policy);
  const declaredLength = Number(response.headers.get("content-length") ?? 0);
  if (response.status !== 200 || declaredLength > FAVICON_LIMITS.iconBytes) {
    await discard(response);
    return null;
  }
  const { bytes, complete } = await readCapped(response, FAVICON_LIMITS.iconBytes, policy.signal);
  if (!complete) return null;
  const contentType = sniffIcon(bytes);
  return contentType ? { contentType, bytes } : null;
}

const discard = (response: Response) => response.body?.cancel().catch(() => undefined);
