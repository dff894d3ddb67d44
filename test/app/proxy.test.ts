/**
 * LINKSHELF_TRUST_PROXY names the reverse proxies whose forwarded headers count. A request from
 * any other peer is judged by its socket alone, whatever X-Forwarded-For or X-Forwarded-Proto it
 * carries. In-process requests name their TCP peer through makeEnv's `peer`.
 */
import { describe, expect, it } from "bun:test";
import { loadConfig } from "../../src/common/config";
import { arrivalOf } from "../../src/request/arrival";
import { createUser, get, makeEnv, type TestEnv } from "../support/helpers";

const LAN_CLIENT = "192.168.1.20";
/** Per-test limit for the tests that verify a dozen passwords (argon2id) on a busy machine. */
const HASHING = 30_000;

/** arrival resolves a request from `peer` with the given headers under a LINKSHELF_TRUST_PROXY value. */
function arrival(trust: string | undefined, peer: string | undefined, headers: Record<string, string>, url = "http://shelf.test/") {
  const config = loadConfig({}, trust === undefined ? {} : { LINKSHELF_TRUST_PROXY: trust });
  return arrivalOf(new Request(url, { headers }), { config, peerAddress: () => peer });
}

describe("the client address and scheme", () => {
  it.each([
    // [name, LINKSHELF_TRUST_PROXY, peer, X-Forwarded-For, expected address]
    ["no proxy is trusted: the peer, whatever it claims", undefined, "127.0.0.1", "198.51.100.9", "127.0.0.1"],
    ["a peer outside the list: its own address", "1", LAN_CLIENT, "198.51.100.9", LAN_CLIENT],
    ["a LAN peer outside a listed LAN proxy", "10.0.0.1", "10.0.0.2", "198.51.100.9", "10.0.0.2"],
    ["a listed peer: the last entry", "1", "127.0.0.1", "198.51.100.9", "198.51.100.9"],
    ["a listed peer: the last entry, not the client's claims before it", "1", "127.0.0.1", "6.6.6.6, 7.7.7.7,198.51.100.9", "198.51.100.9"],
    ["the right-most entry that is not a listed proxy", "127.0.0.1,10.0.0.0/8", "127.0.0.1", "6.6.6.6, 198.51.100.9, 10.0.0.5, 10.1.1.1", "198.51.100.9"],
    ["every entry a listed proxy: the left-most", "127.0.0.1,10.0.0.0/8", "127.0.0.1", "10.0.0.7, 10.0.0.5", "10.0.0.7"],
    ["a listed peer without the header: the peer", "1", "127.0.0.1", "", "127.0.0.1"],
    ["IPv6 proxies and clients", "::1,fd00::/8", "::1", "2001:db8::66, 2001:db8::7, fd00::3", "2001:db8::7"],
    ["a dual-stack socket's IPv4-mapped loopback peer", "1", "::ffff:127.0.0.1", "198.51.100.9", "198.51.100.9"],
    ["an entry with a port: the address alone", "1", "127.0.0.1", "6.6.6.6, 198.51.100.9:41234", "198.51.100.9"],
    ["a bracketed IPv6 entry with a port: the address alone", "::1", "::1", "[2001:db8::7]:41234", "2001:db8::7"],
    ["a listed proxy's entry with a port is still the proxy", "127.0.0.1,10.0.0.0/8", "127.0.0.1", "198.51.100.9, 10.0.0.5:8080", "198.51.100.9"],
    ["an in-process request without a peer is not from a proxy", "1", undefined, "198.51.100.9", "unknown"],
  ] as const)("%s", (_name, trust, peer, forwardedFor, expected) => {
    const headers: Record<string, string> = forwardedFor === "" ? {} : { "x-forwarded-for": forwardedFor };
    expect(arrival(trust, peer, headers).address).toBe(expected);
  });

  it.each([
    // [name, LINKSHELF_TRUST_PROXY, peer, X-Forwarded-Proto, request URL, expected scheme]
    ["a listed peer: the forwarded scheme", "1", "127.0.0.1", "https", "http://shelf.test/", "https"],
    ["a listed peer: the last entry", "1", "127.0.0.1", "http, https", "http://shelf.test/", "https"],
    ["a listed peer: the last entry, also when it says http", "1", "127.0.0.1", "https, http", "http://shelf.test/", "http"],
    ["a listed peer: a scheme that is neither keeps the request's", "1", "127.0.0.1", "ftp", "http://shelf.test/", "http"],
    ["a peer outside the list: the request's own scheme", "1", LAN_CLIENT, "https", "http://shelf.test/", "http"],
    ["a peer outside the list cannot downgrade either", "1", LAN_CLIENT, "http", "https://shelf.test/", "https"],
  ] as const)("%s", (_name, trust, peer, forwardedProto, url, expected) => {
    expect(arrival(trust, peer, { "x-forwarded-proto": forwardedProto }, url).scheme).toBe(expected);
  });
});

/** signIn posts the sign-in form from wherever `headers` say, the way a browser does. */
async function signIn(env: TestEnv, email: string, password: string, headers: Record<string, string> = {}) {
  const response = await env.app.handle(new Request("http://localhost/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ email, password }).toString(),
  }));
  return { status: response.status, cookies: response.headers.getSetCookie() };
}

describe("the sign-in throttle behind LINKSHELF_TRUST_PROXY", () => {
  it("counts a LAN client's failures against its own address, whatever X-Forwarded-For it sends", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" }, { peer: LAN_CLIENT });
    const alice = await createUser(env);
    for (let i = 0; i < 10; i++) {
      const forged = { "x-forwarded-for": `203.0.113.${i}` };
      expect((await signIn(env, alice.user.email, `wrong ${i}`, forged)).status).toBe(401);
    }
    const refused = await signIn(env, alice.user.email, alice.password, { "x-forwarded-for": "203.0.113.99" });
    expect(refused.status).toBe(429);
    expect(refused.cookies).toEqual([]);
  }, HASHING);

  it("gives each client behind a listed proxy its own budget, keyed on the right-most untrusted entry", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "127.0.0.1,10.0.0.0/8" }, { peer: "127.0.0.1" });
    const alice = await createUser(env);
    for (let i = 0; i < 10; i++) {
      // The client's claims (left) change every time; the inner proxy (10.0.0.5) is skipped.
      const headers = { "x-forwarded-for": `203.0.113.${i}, 198.51.100.9, 10.0.0.5` };
      expect((await signIn(env, alice.user.email, "wrong password", headers)).status).toBe(401);
    }
    expect((await signIn(env, alice.user.email, alice.password, { "x-forwarded-for": "203.0.113.77, 198.51.100.9, 10.0.0.5" })).status).toBe(429);
    expect((await signIn(env, alice.user.email, alice.password, { "x-forwarded-for": "198.51.100.10, 10.0.0.5" })).status).toBe(303);
  }, HASHING);
});

describe("the Secure flag of the session cookie", () => {
  const secureOf = (cookies: string[]) => /;\s*secure/i.test(cookies[0] ?? "");

  it("follows the last X-Forwarded-Proto entry from a listed proxy", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    const secure = await signIn(env, alice.user.email, alice.password, { "x-forwarded-proto": "http, https" });
    expect([secure.status, secureOf(secure.cookies)]).toEqual([303, true]);
    const plain = await signIn(env, alice.user.email, alice.password, { "x-forwarded-proto": "https, http" });
    expect([plain.status, secureOf(plain.cookies)]).toEqual([303, false]);
  });

  it("ignores X-Forwarded-Proto from a peer outside the list", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "10.0.0.0/8" }, { peer: LAN_CLIENT });
    const alice = await createUser(env);
    const response = await signIn(env, alice.user.email, alice.password, { "x-forwarded-proto": "https" });
    expect([response.status, secureOf(response.cookies)]).toEqual([303, false]);
  });
});

describe("the rate limit behind LINKSHELF_TRUST_PROXY", () => {
  it("counts anonymous requests from a peer outside the list against that peer, whatever it forwards", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1", LINKSHELF_RATE_LIMIT: "3/60" }, { peer: LAN_CLIENT });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(env, "/api/v1/links", { headers: { "x-forwarded-for": `203.0.113.${i}` } })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("counts anonymous requests through a listed proxy per forwarded client", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1", LINKSHELF_RATE_LIMIT: "3/60" });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(env, "/api/v1/links", { headers: { "x-forwarded-for": `203.0.113.${i}` } })).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
  });
});
