/**
 * Checking one link: a HEAD, then a GET (at most PROBE_LIMITS.bytes read) when the HEAD is refused
 * or says nothing useful, both through the favicon proxy's outbound guard (the same address
 * rules, the connection pinned to the checked address, every redirect checked again). The answer
 * is classified into one outcome; nothing here writes anything.
 */
import pkg from "../../package.json" with { type: "json" };
import { guardedGet, readCapped, Refused, TooManyRedirects, type Fetched, type OutboundPolicy } from "../outbound/fetch";
import type { Outcome, Probe } from "../shelf/link-checks";

export const PROBE_LIMITS = {
  /** Bytes of a GET's body read; the rest is not downloaded. */
  bytes: 64 * 1024,
  /** The budget of one check: name lookups, connections, redirects, both requests. */
  timeoutMillis: 5000,
} as const;

/** Browser-like, so that sites answering browsers differently answer the checker as they answer people; it names linkshelf too. */
export const CHECK_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 linkshelf/${pkg.version} (link check)`;
const ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** Statuses after which the HEAD's answer is not trusted and a GET is sent: every error but 404 and 410 (405, 501, 403, 5xx...). */
const HEAD_INCONCLUSIVE = (status: number) => status >= 400 && status !== 404 && status !== 410;
/** Statuses that say the server is there and the resource may be, but not for the checker: never a failure. */
const ANSWERS_BUT_REFUSES = new Set([401, 403, 429]);

/**
 * probeLink checks `url` under `policy` and classifies the answer. It never throws: whatever goes
 * wrong is an outcome naming why (the policy's signal aborting is `failing`, "timeout").
 */
export async function probeLink(url: URL, policy: OutboundPolicy): Promise<Probe> {
  try {
    let fetched = await guardedGet(url, ACCEPT, policy, "HEAD");
    await discard(fetched.response);
    if (HEAD_INCONCLUSIVE(fetched.response.status)) {
      fetched = await guardedGet(url, ACCEPT, policy, "GET");
      await readCapped(fetched.response, PROBE_LIMITS.bytes, policy.signal);
    }
    return classify(url, fetched);
  } catch (error) {
    return failure(error, policy.signal);
  }
}

/** classify names the outcome of an answer that came. */
function classify(asked: URL, { response, url, hops }: Fetched): Probe {
  const status = response.status;
  if (status === 404 || status === 410) return { outcome: "gone", status, detail: `HTTP ${status}` };
  if (status >= 500) return { outcome: "failing", status, detail: `HTTP ${status}` };
  if (status >= 400 && !ANSWERS_BUT_REFUSES.has(status)) return { outcome: "failing", status, detail: `HTTP ${status}` };
  if (hops.length > 0) {
    if (asked.pathname !== "/" && url.pathname === "/" && url.search === "") {
      return { outcome: "soft-404", status, detail: `redirected to the home page ${url.href}` };
    }
    if (hops.every((hop) => hop === 301 || hop === 308) && url.href !== asked.href && status < 300) {
      return { outcome: "moved", status, detail: `moved permanently to ${url.href}`, movedTo: url.href };
    }
  }
  return { outcome: "ok", status, detail: ANSWERS_BUT_REFUSES.has(status) ? `HTTP ${status}: answers, refuses the checker` : `HTTP ${status}` };
}

/** failure names the outcome of a check that got no answer. */
function failure(error: unknown, signal: AbortSignal): Probe {
  if (signal.aborted) {
    const timeout = signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
    return { outcome: "failing", status: null, detail: timeout ? "timeout" : "stopped" };
  }
  if (error instanceof Refused) {
    return { outcome: "unchecked", status: null, detail: error.kind === "scheme" ? "not an http(s) address" : error.kind === "loopback" || error.kind === "private" ? "private address" : `${error.kind} address` };
  }
  if (error instanceof TooManyRedirects) return { outcome: "failing", status: null, detail: "too many redirects" };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOTFOUND" || code === "EAI_NONAME" || code === "ENODATA" || (error instanceof Error && error.message.startsWith("no address for"))) {
    return { outcome: "gone", status: null, detail: "the name does not resolve" };
  }
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return { outcome: "failing", status: null, detail: "connection refused" };
  if (code === "ECONNRESET" || code === "ConnectionClosed") return { outcome: "failing", status: null, detail: "connection reset" };
  const message = error instanceof Error ? error.message : String(error);
  if (/certificate|tls|ssl/i.test(message) || typeof code === "string" && /CERT|TLS|SSL/.test(code)) return { outcome: "failing", status: null, detail: `TLS error: ${message}` };
  return { outcome: "failing", status: null, detail: message.slice(0, 200) };
}

const discard = (response: Response) => response.body?.cancel().catch(() => undefined);
