/**
 * The one way out for the icon proxy, page capture and link checks: a GET that resolves the
 * host once, refuses the request when any resolved address is outside what the policy admits,
 * and then connects to an address it checked (never to the name again), so DNS rebinding
 * between the check and the connection has nothing to rebind. Redirects are followed by hand,
 * each hop checked anew.
 */
import { classifyAddress, isAdmitted, isIpLiteral, type AddressKind } from "./address";

/** Resolves a host name to every address it has (IPv4 dotted, IPv6 text). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** One connection to make: the URL as the origin sees it, and the checked address to reach it at. */
export interface Connection {
  url: URL;
  address: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** GET unless said (the link checker asks with HEAD first). */
  method?: "GET" | "HEAD";
}

/** Sends one request (a GET unless the connection says HEAD) to `address` for `url`, without following redirects. */
export type Connect = (connection: Connection) => Promise<Response>;

/** The target (or a hop on the way) is an address the policy refuses; nothing was sent to it. */
export class Refused extends Error {
  /** How many redirects were followed before the refused hop (0: the URL asked for). */
  redirects = 0;

  constructor(readonly hostname: string, readonly kind: AddressKind | "scheme") {
    super(`refused ${hostname}: ${kind}`);
  }
}

/** The origin answered with more redirects than allowed. */
export class TooManyRedirects extends Error {}

export const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * resolveSystem asks the system resolver (getaddrinfo: /etc/hosts, DNS, mDNS) for every
 * address. node:dns is loaded on the first lookup, not at start (it costs ~1.5 MiB of memory).
 */
export const resolveSystem: Resolver = async (hostname) => {
  const { lookup } = await import("node:dns/promises");
  return (await lookup(hostname, { all: true, order: "verbatim" })).map((entry) => entry.address);
};

/**
 * pinnedConnect connects with Bun's fetch to the checked address itself: the URL's host is
 * replaced by the IP literal, the `Host` header carries the original host, and for https the
 * TLS server name (SNI and the name the certificate must match) is the original host name.
 * Certificates are verified as usual. `tls` adds options (tests pass a private CA).
 */
export function pinnedConnect(tls: { ca?: string | string[] } = {}): Connect {
  return ({ url, address, headers, signal, method = "GET" }) => {
    const literal = address.includes(":") ? `[${address}]` : address;
    const target = `${url.protocol}//${literal}${url.port ? `:${url.port}` : ""}${url.pathname}${url.search}`;
    const named = !isIpLiteral(url.hostname);
    return fetch(target, {
      method,
      redirect: "manual",
      signal,
      // No pooled connection may carry a request for another name.
      keepalive: false,
      headers: { ...headers, host: url.host },
      tls: url.protocol === "https:" && named ? { ...tls, serverName: url.hostname } : tls,
    });
  };
}

export interface OutboundPolicy {
  resolve: Resolver;
  connect: Connect;
  allowPrivate: boolean;
  userAgent: string;
  signal: AbortSignal;
}

/** raceAbort settles with `promise`, or rejects as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const isLocalhostName = (hostname: string) => {
  const name = hostname.replace(/\.$/, "").toLowerCase();
  return name === "localhost" || name.endsWith(".localhost");
};

/**
 * checkedAddresses resolves a URL hostname and returns its addresses when every one of them
 * is admitted; otherwise it throws Refused (naming the first offending kind). IP literals
 * are not resolved; `localhost` and `*.localhost` are loopback by definition (RFC 6761) and
 * never reach the resolver. A name with no address throws the resolver's error.
 */
export async function checkedAddresses(hostname: string, policy: Pick<OutboundPolicy, "resolve" | "allowPrivate" | "signal">): Promise<string[]> {
  let addresses: string[];
  if (isIpLiteral(hostname)) addresses = [hostname.replace(/^\[|\]$/g, "")];
  else if (isLocalhostName(hostname)) addresses = ["127.0.0.1", "::1"];
  else addresses = await raceAbort(policy.resolve(hostname), policy.signal);
  if (addresses.length === 0) throw new Error(`no address for ${hostname}`);
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (!isAdmitted(kind, policy.allowPrivate)) throw new Refused(hostname, kind);
  }
  return addresses;
}

/** The final answer of a guarded GET, and the URL it came from (after redirects). */
export interface Fetched {
  response: Response;
  url: URL;
  /** How many redirects were followed. */
  redirects: number;
  /** The status of each redirect followed, in order (as many as `redirects`). */
  hops: number[];
}

/**
 * guardedGet sends a GET (or a HEAD, when `method` says) for `url` under the outbound policy:
 * http(s) only, every hop's host resolved and checked before anything is sent, at most
 * MAX_REDIRECTS redirects. Throws Refused, TooManyRedirects, or whatever the connection or the
 * abort signal throws.
 */
export async function guardedGet(url: URL, accept: string, policy: OutboundPolicy, method: "GET" | "HEAD" = "GET"): Promise<Fetched> {
  let current = url;
  const hops: number[] = [];
  for (let redirects = 0; ; redirects++) {
    let addresses: string[];
    try {
      if (current.protocol !== "http:" && current.protocol !== "https:") throw new Refused(current.hostname, "scheme");
      addresses = await checkedAddresses(current.hostname, policy);
    } catch (error) {
      if (error instanceof Refused) error.redirects = redirects;
      throw error;
    }
    const response = await connectFirst(current, addresses, accept, policy, method);
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url: current, redirects, hops };
    hops.push(response.status);
    await response.body?.cancel().catch(() => undefined);
    if (redirects === MAX_REDIRECTS) throw new TooManyRedirects(`more than ${MAX_REDIRECTS} redirects from ${url.href}`);
    const next = URL.parse(location, current.href);
    if (next === null) throw new Error(`unparsable redirect from ${current.href}`);
    next.hash = "";
    current = next;
  }
}

/** connectFirst tries the checked addresses in the resolver's order until one answers. */
async function connectFirst(url: URL, addresses: string[], accept: string, policy: OutboundPolicy, method: "GET" | "HEAD"): Promise<Response> {
  let lastError: unknown;
  for (const address of addresses) {
    try {
      return await policy.connect({
        url,
        address,
        signal: policy.signal,
        method,
        headers: { accept, "user-agent": policy.userAgent },
      });
    } catch (error) {
      if (policy.signal.aborted) throw policy.signal.reason;
      lastError = error;
    }
  }
  throw lastError;
}

/** A body read up to a limit: `complete` is false when the body was longer (and was cut off there). */
export interface CappedBody {
  bytes: Uint8Array;
  complete: boolean;
}

/**
 * readCapped reads at most `limit` bytes of a body and cancels the rest, so an endless or
 * huge answer costs no more than the limit.
 */
export async function readCapped(response: Response, limit: number, signal: AbortSignal): Promise<CappedBody> {
  const body = response.body;
  if (!body) return { bytes: new Uint8Array(0), complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) break;
      if (size + value.byteLength > limit) {
        chunks.push(value.subarray(0, limit - size));
        size = limit;
        complete = false;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (!complete || signal.aborted) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, complete };
}
