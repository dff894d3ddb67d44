/**
 * Fetching one page for its readable text, through the favicon proxy's outbound guard: the
 * same address rules, the connection pinned to the checked address, every redirect checked
 * again. Only a `200` answer of type `text/html` or `application/xhtml+xml` is read, at most
 * PAGE_LIMITS.bytes of it.
 */
import pkg from "../../package.json" with { type: "json" };
import type { AddressKind } from "../outbound/address";
import { guardedGet, readCapped, Refused, TooManyRedirects, type OutboundPolicy } from "../outbound/fetch";
import type { CapturedContent } from "../shelf/types";
import type { Between } from "./extract";

const MiB = 1024 * 1024;

export const PAGE_LIMITS = {
  /** Bytes of a page read; the rest is not downloaded (the text comes from what was read). */
  bytes: 2 * MiB,
  /** The budget of one fetch: name lookups, connections, redirects and the body together. */
  timeoutMillis: 5000,
} as const;

export const PAGE_USER_AGENT = `linkshelf/${pkg.version} (page fetcher)`;
const ACCEPT = "text/html,application/xhtml+xml;q=0.9";
const PAGE_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * The outcome of one fetch. `page`: read and extracted (content null: nothing readable in it);
 * `not-a-page`: the answer was not HTML (a PDF, an image, JSON...), and was not read;
 * `failed`: refused by the address rules, an error status, a timeout, a broken connection.
 */
export type PageResult =
  | { kind: "page"; content: CapturedContent | null; url: URL; truncated: boolean }
  | { kind: "not-a-page"; contentType: string }
  | { kind: "failed"; reason: string; refused?: AddressKind | "scheme" };

/** mediaTypeOf is the media type of a `Content-Type` value, lower case, without parameters. */
const mediaTypeOf = (contentType: string | null) => (contentType ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * fetchPage GETs `url` under `policy` and reads its readable text. It never throws: whatever
 * goes wrong is a `failed` result naming why (the policy's signal aborting is "timeout" or
 * "stopped", as its reason says). `between` paces the extraction (see extractReadableInSteps).
 */
export async function fetchPage(url: URL, policy: OutboundPolicy, between?: Between): Promise<PageResult> {
  try {
    const { response, url: finalUrl } = await guardedGet(url, ACCEPT, policy);
    const contentType = response.headers.get("content-type");
    if (response.status !== 200) {
      await discard(response);
      return { kind: "failed", reason: `HTTP ${response.status}` };
    }
    if (!PAGE_TYPES.has(mediaTypeOf(contentType))) {
      await discard(response);
      return { kind: "not-a-page", contentType: mediaTypeOf(contentType) };
    }
    const { bytes, complete } = await readCapped(response, PAGE_LIMITS.bytes, policy.signal);
    // The extractor (htmlparser2 and all) is loaded by the first page read, not at every start of the server.
    const { extractReadableInSteps } = await import("./extract");
    const content = await extractReadableInSteps(bytes, contentType, between);
    return { kind: "page", content, url: finalUrl, truncated: !complete };
  } catch (error) {
    return { kind: "failed", reason: reasonOf(error, policy.signal), ...(error instanceof Refused ? { refused: error.kind } : {}) };
  }
}

function reasonOf(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return signal.reason instanceof DOMException && signal.reason.name === "TimeoutError" ? "timeout" : "stopped";
  if (error instanceof Refused) return `refused: ${error.kind} address`;
  if (error instanceof TooManyRedirects) return "too many redirects";
  return error instanceof Error ? error.message : String(error);
}

const discard = (response: Response) => response.body?.cancel().catch(() => undefined);
