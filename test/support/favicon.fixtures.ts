/**
 * Shared pieces of the favicon tests: an app with the proxy's resolver, connection and
 * timeout injected, fake origins on 127.0.0.1 that count their hits, and sample images.
 * Nothing here ever connects to an address other than 127.0.0.1.
 */
import type { Server } from "bun";
import { afterEach } from "bun:test";
import { createApp, type App } from "../../src/app";
import { loadConfig } from "../../src/common/config";
import { openDatabase, type Db } from "../../src/db/client";
import { pinnedConnect, type Connect, type Connection, type Resolver } from "../../src/outbound/fetch";
import type { FaviconOptions } from "../../src/favicon/service";
import { START } from "./helpers";

export interface FaviconEnv {
  app: App;
  db: Db;
  /** Every call to the app's clock returns this and then advances it by 1 ms. */
  clock: { now: number };
}

export interface FaviconEnvOptions extends FaviconOptions {
  allowPrivate?: boolean;
}

/**
 * makeFaviconEnv builds an app (fresh in-memory database, rate limit off) around injected
 * favicon options. Safety nets by default: a resolver that knows no name (the system
 * resolver is never asked) and `mappedConnect`, which connects to 127.0.0.1 only.
 */
export function makeFaviconEnv({ allowPrivate = false, ...options }: FaviconEnvOptions = {}): FaviconEnv {
  const favicon: FaviconOptions = { resolve: resolverOf({}), connect: mappedConnect(), ...options };
  const db = openDatabase(":memory:");
  const config = loadConfig({}, { LINKSHELF_FAVICON_ALLOW_PRIVATE: allowPrivate ? "1" : "0", LINKSHELF_RATE_LIMIT: "off" });
  const clock = { now: START };
  const app = createApp({ db, config, clock: () => clock.now++, favicon });
  return { app, db, clock };
}

export interface FaviconResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  body: any;
}

/** getFavicon asks the app for `/favicon?url=<target>` (`target` null: no parameter). */
export async function getFavicon(env: FaviconEnv, target: string | null, headers: Record<string, string> = {}): Promise<FaviconResponse> {
  const query = target === null ? "" : `?url=${encodeURIComponent(target)}`;
  const response = await env.app.handle(new Request(`http://localhost/favicon${query}`, { headers }));
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, text, body };
}

export type Handler = (request: Request) => Response | Promise<Response>;

/** A fake origin on 127.0.0.1: routes by path, 404 elsewhere, every request counted. */
export interface FakeOrigin {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Paths requested, in order. */
  hits: string[];
  /** Host headers received, in order. */
  hosts: string[];
  hitsOf(path: string): number;
  stop(): void;
}

export function fakeOrigin(routes: Record<string, Handler>, tls?: Bun.TLSOptions | Bun.TLSOptions[]): FakeOrigin {
  const hits: string[] = [];
  const hosts: string[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.push(path);
      hosts.push(request.headers.get("host") ?? "");
      const handler = routes[path];
      return handler ? handler(request) : new Response("not here", { status: 404 });
    },
  });
  const port = server.port!;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hits,
    hosts,
    hitsOf: (path) => hits.filter((hit) => hit === path).length,
    stop: () => void server.stop(true),
  };
}

/**
 * stoppedAfterEach gives a file's tests fake origins and background workers (fetchers, checkers)
 * that are stopped after each test: the workers first, each awaited, since they may still be
 * reaching an origin; then the origins.
 */
export function stoppedAfterEach<Worker extends { stop(): Promise<void> }>() {
  const origins: FakeOrigin[] = [];
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    for (const origin of origins.splice(0)) origin.stop();
  });
  return {
    /** origin starts a fake origin on 127.0.0.1 (see fakeOrigin). */
    origin(routes: Record<string, Handler>, tls?: Bun.TLSOptions | Bun.TLSOptions[]): FakeOrigin {
      const started = fakeOrigin(routes, tls);
      origins.push(started);
      return started;
    },
    /** worker has `started` stopped after the test, and returns it. */
    worker<Started extends Worker>(started: Started): Started {
      workers.push(started);
      return started;
    },
  };
}

/** A page whose `<head>` holds the given markup. */
export const page = (head: string) =>
  new Response(`<!DOCTYPE html><html><head><title>t</title>${head}</head><body>hello</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });

/** Bytes served with a lying content type, so only sniffing can name them. */
export const bytesOf = (bytes: Uint8Array | string, contentType = "application/octet-stream") =>
  new Response(bytes, { headers: { "content-type": contentType } });

export const redirectTo = (location: string, status = 302) => new Response(null, { status, headers: { location } });

const withTail = (head: number[], length = 64) => {
  const bytes = new Uint8Array(length);
  bytes.set(head);
  for (let i = head.length; i < length; i++) bytes[i] = (i * 7) & 0xff;
  return bytes;
};
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

export const PNG = withTail([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const ICO = withTail([0, 0, 1, 0, 1, 0, 16, 16]);
export const GIF = withTail(ascii("GIF89a"));
export const JPEG = withTail([0xff, 0xd8, 0xff, 0xe0]);
export const WEBP = withTail([...ascii("RIFF"), 56, 0, 0, 0, ...ascii("WEBPVP8 ")]);
export const SVG = `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="8"/></svg>`;

/** pngOfSize: a PNG signature followed by filler up to `size` bytes. */
export const pngOfSize = (size: number) => withTail([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], size);

/** A made-up public address (TEST-NET-3): classified public, never contacted (see mappedConnect). */
export const FAKE_PUBLIC = "203.0.113.7";

/** resolverOf answers names from a table (and records every question); unknown names fail like NXDOMAIN. */
export function resolverOf(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  };
  return Object.assign(resolve, { asked });
}

/**
 * mappedConnect records every address the proxy asks to connect to and reaches FAKE_PUBLIC
 * at 127.0.0.1 instead (same port, same Host header), so a "public" origin is really a fake
 * one. Any address that is not 127.0.0.1 (in one of its spellings) throws instead of being contacted.
 */
/** The spellings of 127.0.0.1 a test may really connect to. */
const LOOPBACK = new Set(["127.0.0.1", "::ffff:7f00:1", "::ffff:127.0.0.1"]);

export function mappedConnect(): Connect & { addresses: string[] } {
  const addresses: string[] = [];
  const real = pinnedConnect();
  const connect = (connection: Connection) => {
    addresses.push(connection.address);
    const address = connection.address === FAKE_PUBLIC ? "127.0.0.1" : connection.address;
    if (!LOOPBACK.has(address)) return Promise.reject(new Error(`the test would have contacted ${connection.address}`));
    return real({ ...connection, address });
  };
  return Object.assign(connect, { addresses });
}
/** Self-signed test certificates (100 years, P-256) for made-up names; only ever trusted by the tests that pass them as `ca`. */
export const TLS_FAV = {
  cert: `-----BEGIN CERTIFICATE-----
MIIBkjCCATigAwIBAgIUETKeIiV0NqLW7THSM+aB7JivA6MwCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIZmF2LnRlc3QwIBcNMjYxMTIyMDk0NDM3WhgPMjEyNjEwMjkw
OTQ0MzdaMBMxETAPBgNVBAMMCGZhdi50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEVfYnmXCT/tDh7714E4WcbozfJLXSQ2MJ/d6QfK4oWesuBjLW3eZpisq3
58ed51AAz7QGWtBaXKzwEbtwouPe8KNoMGYwHQYDVR0OBBYEFJW2HxuRl/sad6+y
pqZD2c9XtYS9MB8GA1UdIwQYMBaAFJW2HxuRl/sad6+ypqZD2c9XtYS9MA8GA1Ud
EwEB/wQFMAMBAf8wEwYDVR0RBAwwCoIIZmF2LnRlc3QwCgYIKoZIzj0EAwIDSAAw
RQIhAOBWHrJJBC0StFcmIlwsYGvwdS42Dlr1PaSL3EsVDgDYAiBLqlg4UeUSyj5I
CwQ0dEL62CqtL0P2ZaFjq32odtRUjA==
-----END CERTIFICATE-----`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghVcAjZKJrc+AX3ae
H2SArMBO6MeLDweH3UWogJeRTXGhRANCAARV9ieZcJP+0OHvvXgThZxujN8ktdJD
Ywn93pB8rihZ6y4GMtbd5mmKyrfnx53nUADPtAZa0FpcrPARu3Ci497w
-----END PRIVATE KEY-----`,
};
export const TLS_OTHER = {
  cert: `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUL2I2s9HRC7kVAZZvruU1e7jmv7kwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKb3RoZXIudGVzdDAgFw0yNjExMjIwOTQ0MzdaGA8yMTI2MTAy
OTA5NDQzN1owFTETMBEGA1UEAwwKb3RoZXIudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABAmGzmiJW1mYfG70dnTX1SQr4ogmufbMcAw2xq+5FC6a42YvzDSY
9KDnFjN3KwQR0z/Mm7rjJFlriN/YKHcXRa6jajBoMB0GA1UdDgQWBBSM/uEpn5NS
sCF0ufiRe/gJpashhTAfBgNVHSMEGDAWgBSM/uEpn5NSsCF0ufiRe/gJpashhTAP
BgNVHRMBAf8EBTADAQH/MBUGA1UdEQQOMAyCCm90aGVyLnRlc3QwCgYIKoZIzj0E
AwIDSAAwRQIgXTE0QpQVQZU8yY8WpviSwlNY3VtbgaLaQG/EPhOfTHECIQDhKdp+
k2Sgz0R+iUyDNngjhgiOYGbM9vKA62L4tOwezg==
-----END CERTIFICATE-----`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgV+67kPqbseFfELBt
7zMggkJhofLZL2b/zptL+fMloSuhRANCAAQJhs5oiVtZmHxu9HZ019UkK+KIJrn2
zHAMNsavuRQumuNmL8w0mPSg5xYzdysEEdM/zJu64yRZa4jf2Ch3F0Wu
-----END PRIVATE KEY-----`,
};
