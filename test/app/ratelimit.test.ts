/**
 * Rate limiting: through `app.handle` with the app's injected clock, and
 * the in-memory key store directly (src/ratelimit/) with injected times and addresses.
 * Nothing sleeps: windows pass by moving `env.clock.now`.
 */
import { describe, expect, it } from "bun:test";
import { ASSET_PATHS } from "../../src/assets/asset-routes";
import { createSession, SESSION_COOKIE } from "../../src/auth/sessions";
import { MAX_RATE_LIMIT_KEYS, RateLimited, RateLimiter } from "../../src/ratelimit/limiter";
import { FixedWindowCounter } from "../../src/ratelimit/window";
import {
  createCollection,
  createLink,
  createUser,
  del,
  get,
  makeEnv,
  post,
  put,
  request,
  snapshot,
  type ApiResponse,
  type RequestOptions,
  type TestEnv,
} from "../support/helpers";

const LIMITED = { LINKSHELF_RATE_LIMIT: "3/60" };
const LIMITED_BEHIND_PROXY = { ...LIMITED, LINKSHELF_TRUST_PROXY: "1" };
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,*/*;q=0.8";

const from = (address: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": address, ...headers } });

/** rateHeaders are the RateLimit-* and Retry-After headers of an answer (null when absent). */
function rateHeaders(response: ApiResponse) {
  return {
    limit: response.headers.get("ratelimit-limit"),
    remaining: response.headers.get("ratelimit-remaining"),
    reset: response.headers.get("ratelimit-reset"),
    retryAfter: response.headers.get("retry-after"),
  };
}

const remainingOf = (response: ApiResponse) => response.headers.get("ratelimit-remaining");

function expectRateLimited(response: ApiResponse, limit = "3") {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({ message: expect.any(String), code: "RATE_LIMITED" });
  const headers = rateHeaders(response);
  expect(headers).toEqual({ limit, remaining: "0", reset: expect.stringMatching(/^[1-9]\d*$/), retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
  expect(headers.retryAfter).toBe(headers.reset);
}

function expectNoRateHeaders(response: ApiResponse) {
  expect(rateHeaders(response)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });
}

/** A user with a PUBLIC collection holding one link, made in a window that is over by the time the test starts. */
async function ownerWithPublicLink(env: TestEnv) {
  const owner = await createUser(env);
  const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
  const link = await createLink(env, owner, { collectionIds: [shared.id] });
  env.clock.now += 61_000;
  return { owner, shared, link };
}

describe("the (n+1)th request in a window", () => {
  interface Area {
    name: string;
    method: "GET" | "HEAD" | "DELETE";
    path: (fixture: { link: { id: number } }) => string;
    as: "owner" | "anonymous";
    /** Statuses the first n calls may get. */
    statuses: number[];
  }
  const areas: Area[] = [
    { name: "an API call with a valid token (200)", method: "GET", path: () => "/api/v1/collections", as: "owner", statuses: [200] },
    { name: "an API call without a token (401)", method: "GET", path: () => "/api/v1/collections", as: "anonymous", statuses: [401] },
    { name: "an API call to an unknown id (404)", method: "DELETE", path: () => "/api/v1/links/999999", as: "owner", statuses: [404] },
    { name: "an unknown API route (404)", method: "GET", path: () => "/api/v1/nothing-here", as: "owner", statuses: [404] },
    { name: "a redirect (302)", method: "GET", path: ({ link }) => `/l/${link.id}`, as: "anonymous", statuses: [302] },
    { name: "a redirect by the owner (302)", method: "GET", path: ({ link }) => `/l/${link.id}`, as: "owner", statuses: [302] },
    { name: "a redirect to an unknown id (404)", method: "GET", path: () => "/l/999999", as: "anonymous", statuses: [404] },
    { name: "a HEAD of a redirect (302)", method: "HEAD", path: ({ link }) => `/l/${link.id}`, as: "anonymous", statuses: [302] },
    // 400 INVALID_URL once the favicon proxy is mounted; 404 while it is not. Limited either way.
    { name: "the favicon proxy with an invalid url", method: "GET", path: () => "/favicon?url=javascript:x", as: "anonymous", statuses: [400, 404] },
  ];

  for (const area of areas) {
    it(`is 429 RATE_LIMITED for ${area.name}, with RateLimit headers on every answer`, async () => {
      const env = makeEnv(LIMITED);
      const { owner, link } = await ownerWithPublicLink(env);
      const { method } = area;
      const options: RequestOptions = area.as === "owner" ? { token: owner.token } : {};
      const path = area.path({ link });

      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await request(env, method, path, options);
        expect(area.statuses).toContain(response.status);
        expect(rateHeaders(response)).toMatchObject({ limit: "3", reset: "60", retryAfter: null });
        remaining.push(remainingOf(response));
      }
      expect(remaining).toEqual(["2", "1", "0"]);

      const refused = await request(env, method, path, options);
      expect(refused.status).toBe(429);
      if (method !== "HEAD") expectRateLimited(refused);
      else expect(rateHeaders(refused)).toMatchObject({ limit: "3", remaining: "0", retryAfter: "60" });
    });
  }

  it("answers the favicon proxy's 429 as JSON even to a browser", async () => {
    const env = makeEnv(LIMITED);
    for (let i = 0; i < 3; i++) await get(env, "/favicon?url=javascript:x");
    const refused = await get(env, "/favicon?url=javascript:x", { headers: { accept: BROWSER_ACCEPT } });
    expect(refused.headers.get("content-type")).toStartWith("application/json");
    expectRateLimited(refused);
  });

  it("does not limit /healthz, /login, /extension/authorize, the icons or the manifest", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const user = await createUser(env);
    const session = createSession(env.db, user.user.id, env.clock.now).id;
    const paths = [
      "/healthz",
      "/login",
      "/login?next=/l/1",
      "/extension/authorize?redirect_uri=https%3A%2F%2Fabcdefghijklmnopabcdefghijklmnop.chromiumapp.org%2Fcb",
      "/extension/authorize?redirect_uri=javascript:x",
      ...ASSET_PATHS,
    ];
    const credentials: Record<string, string>[] = [{}, { cookie: `${SESSION_COOKIE}=${session}` }, { authorization: `Bearer ${user.token}` }];
    for (const path of paths) {
      for (const headers of credentials) {
        for (let i = 0; i < 4; i++) {
          const response = await get(env, path, { headers });
          expect({ path, status: response.status }).not.toEqual({ path, status: 429 });
          expectNoRateHeaders(response);
        }
      }
    }
    // The limiter is on: the user's bucket is still untouched by all of the above.
    expect(remainingOf(await get(env, "/api/v1/collections", { token: user.token }))).toBe("0");
  });
});

describe("rate limit keys", () => {
  it("keeps each user's bucket: one user running out does not touch another", async () => {
    const env = makeEnv(LIMITED);
    const a = await createUser(env);
    const b = await createUser(env);
    for (let i = 0; i < 3; i++) expect((await get(env, "/api/v1/collections", { token: a.token })).status).toBe(200);
    expectRateLimited(await get(env, "/api/v1/collections", { token: a.token }));
    expectRateLimited(await get(env, "/l/999999", { token: a.token }));

    const first = await get(env, "/api/v1/collections", { token: b.token });
    expect(first.status).toBe(200);
    expect(remainingOf(first)).toBe("2");
    // And anonymous requests have their own bucket as well.
    expect(remainingOf(await get(env, "/l/999999"))).toBe("2");
  });

  it("counts one user across their token and their session, on the API and the redirect", async () => {
    const env = makeEnv(LIMITED);
    const { owner, link } = await ownerWithPublicLink(env);
    const cookie = { cookie: `${SESSION_COOKIE}=${createSession(env.db, owner.user.id, env.clock.now).id}` };

    expect(remainingOf(await get(env, "/api/v1/collections", { token: owner.token }))).toBe("2");
    expect(remainingOf(await get(env, `/l/${link.id}`, { headers: cookie }))).toBe("1");
    expect(remainingOf(await get(env, `/l/${link.id}`, { token: owner.token }))).toBe("0");
    expectRateLimited(await get(env, `/l/${link.id}`, { headers: cookie }));
    expectRateLimited(await get(env, "/api/v1/collections", { token: owner.token }));
  });

  it("keys anonymous requests by the last X-Forwarded-For entry behind a trusted proxy, whatever the client put before it", async () => {
    const env = makeEnv(LIMITED_BEHIND_PROXY);
    const { link } = await ownerWithPublicLink(env);
    const path = `/l/${link.id}`;

    expect(remainingOf(await get(env, path, from("198.51.100.1")))).toBe("2");
    expect(remainingOf(await get(env, path, from("203.0.113.9, 198.51.100.1")))).toBe("1");
    expect(remainingOf(await get(env, path, from("10.0.0.1,  198.51.100.1")))).toBe("0");
    expectRateLimited(await get(env, path, from("1.2.3.4, 5.6.7.8, 198.51.100.1")));

    // Other proxies' clients are untouched, whatever they claim first.
    expect(remainingOf(await get(env, path, from("198.51.100.2")))).toBe("2");
    expect(remainingOf(await get(env, path, from("198.51.100.1, 2001:db8::1")))).toBe("2");
    expect(remainingOf(await get(env, "/api/v1/collections", from("198.51.100.3")))).toBe("2");
  });

  it("ignores X-Forwarded-For without LINKSHELF_TRUST_PROXY: every claimed address shares the peer's bucket", async () => {
    const env = makeEnv(LIMITED);
    const { link } = await ownerWithPublicLink(env);
    const path = `/l/${link.id}`;
    expect(remainingOf(await get(env, path, from("198.51.100.1")))).toBe("2");
    expect(remainingOf(await get(env, path, from("198.51.100.2")))).toBe("1");
    expect(remainingOf(await get(env, path))).toBe("0");
    expectRateLimited(await get(env, path, from("198.51.100.3")));
  });

  it("counts requests with an invalid token against their IP, shared with anonymous requests from it", async () => {
    const env = makeEnv(LIMITED_BEHIND_PROXY);
    const { owner, link } = await ownerWithPublicLink(env);
    const ip = "192.0.2.44";
    const ownerCookie = `${SESSION_COOKIE}=${createSession(env.db, owner.user.id, env.clock.now).id}`;

    const onRedirect = await get(env, `/l/${link.id}`, from(ip, { authorization: "Bearer lks_not-a-real-token" }));
    expect(onRedirect.status).toBe(302);
    expect(remainingOf(onRedirect)).toBe("2");
    // An invalid token next to the owner's valid cookie is still no credential.
    const onApi = await get(env, "/api/v1/collections", from(ip, { authorization: "Bearer lks_not-a-real-token", cookie: ownerCookie }));
    expect(onApi.status).toBe(401);
    expect(remainingOf(onApi)).toBe("1");
    expect(remainingOf(await get(env, `/l/${link.id}`, from(ip)))).toBe("0");
    expectRateLimited(await get(env, "/api/v1/collections", from(ip, { authorization: "Basic dXNlcjpwYXNz" })));
    expectRateLimited(await get(env, `/l/${link.id}`, from(ip)));

    // The owner's own bucket was never touched.
    expect(remainingOf(await get(env, "/api/v1/collections", { token: owner.token, ...from(ip) }))).toBe("2");
  });

  it("does not spend the IP's bucket on a valid token's requests", async () => {
    const env = makeEnv(LIMITED_BEHIND_PROXY);
    const { owner, link } = await ownerWithPublicLink(env);
    const ip = "192.0.2.45";
    for (let i = 0; i < 3; i++) expect((await get(env, `/l/${link.id}`, { token: owner.token, ...from(ip) })).status).toBe(302);
    expectRateLimited(await get(env, `/l/${link.id}`, { token: owner.token, ...from(ip) }));

    const anonymous = await get(env, `/l/${link.id}`, from(ip));
    expect(anonymous.status).toBe(302);
    expect(remainingOf(anonymous)).toBe("2");
  });
});

describe("the window", () => {
  it("resets after windowSeconds, and Reset / Retry-After count down with the clock", async () => {
    const env = makeEnv(LIMITED);
    const { owner } = await ownerWithPublicLink(env);
    const windowStart = env.clock.now;
    for (let i = 0; i < 3; i++) await get(env, "/api/v1/collections", { token: owner.token });
    const refused = await get(env, "/api/v1/collections", { token: owner.token });
    expectRateLimited(refused);
    expect(rateHeaders(refused).retryAfter).toBe("60");

    env.clock.now = windowStart + 30_000;
    const later = await get(env, "/api/v1/collections", { token: owner.token });
    expectRateLimited(later);
    expect(rateHeaders(later).retryAfter).toBe("30");

    env.clock.now = windowStart + 59_990;
    expect(rateHeaders(await get(env, "/api/v1/collections", { token: owner.token })).retryAfter).toBe("1");

    env.clock.now = windowStart + 60_000;
    const fresh = await get(env, "/api/v1/collections", { token: owner.token });
    expect(fresh.status).toBe(200);
    expect(rateHeaders(fresh)).toEqual({ limit: "3", remaining: "2", reset: "60", retryAfter: null });
  });

  it("sends no RateLimit headers and never 429 with LINKSHELF_RATE_LIMIT=off", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
    const { owner, link } = await ownerWithPublicLink(env);
    for (let i = 0; i < 50; i++) {
      for (const response of [
        await get(env, "/api/v1/collections", { token: owner.token }),
        await get(env, "/api/v1/collections"),
        await get(env, `/l/${link.id}`),
        await get(env, "/favicon?url=javascript:x"),
      ]) {
        expect(response.status).not.toBe(429);
        expectNoRateHeaders(response);
      }
    }
  });

  it("applies 300 requests per 60 s by default", async () => {
    const env = makeEnv();
    const response = await get(env, "/l/1");
    expect(rateHeaders(response)).toEqual({ limit: "300", remaining: "299", reset: "60", retryAfter: null });
  });
});

describe("a refused request", () => {
  it("changes nothing in the database when it is over the limit (writes and clicks)", async () => {
    const env = makeEnv(LIMITED);
    const { owner, shared, link } = await ownerWithPublicLink(env);
    for (let i = 0; i < 3; i++) await get(env, "/api/v1/collections", { token: owner.token });
    const before = snapshot(env);

    expectRateLimited(await post(env, "/api/v1/links", { token: owner.token, body: { name: "New", url: "https://example.net/", favorite: false } }));
    expectRateLimited(await post(env, "/api/v1/collections", { token: owner.token, body: { name: "New", visibility: "PUBLIC" } }));
    expectRateLimited(await put(env, `/api/v1/links/${link.id}`, {
      token: owner.token,
      body: { name: "Renamed", url: "https://example.net/", favorite: true, collectionIds: [shared.id] },
    }));
    expectRateLimited(await put(env, `/api/v1/collections/${shared.id}`, { token: owner.token, body: { name: "Renamed", visibility: "PRIVATE" } }));
    expectRateLimited(await del(env, `/api/v1/links/${link.id}`, { token: owner.token }));
    expectRateLimited(await del(env, `/api/v1/collections/${shared.id}`, { token: owner.token }));
    const click = await get(env, `/l/${link.id}`, { token: owner.token });
    expectRateLimited(click);
    expect(click.headers.get("location")).toBeNull();

    expect(snapshot(env)).toBe(before);
  });

  it("counts no click when an anonymous redirect is over the limit", async () => {
    const env = makeEnv(LIMITED);
    const { link } = await ownerWithPublicLink(env);
    for (let i = 0; i < 3; i++) expect((await get(env, `/l/${link.id}`)).status).toBe(302);
    const before = snapshot(env);
    for (let i = 0; i < 5; i++) expectRateLimited(await get(env, `/l/${link.id}`));
    expect(snapshot(env)).toBe(before);
  });
});

describe("bounded memory", () => {
  const WINDOW_MS = 60_000;
  const T0 = Date.parse("2026-11-22T06:00:00.000Z");
  /** The i-th of a flood of distinct IPv4 addresses. */
  const address = (i: number) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

  it("keeps at most 100,000 keys under a flood of 150,000 distinct addresses inside one window", () => {
    const limiter = new RateLimiter({ limit: 5, windowSeconds: 60 });
    expect(MAX_RATE_LIMIT_KEYS).toBe(100_000);
    let largest = 0;
    for (let i = 0; i < 150_000; i++) {
      // 150,000 hits within 15 s: no window expires, so only the cap can hold the size.
      const headers = limiter.take(address(i), T0 + Math.floor(i / 10));
      if (i % 1000 === 0) {
        expect(headers["RateLimit-Remaining"]).toBe("4");
        largest = Math.max(largest, limiter.counter.size);
        expect(limiter.counter.size).toBeLessThanOrEqual(MAX_RATE_LIMIT_KEYS);
      }
    }
    expect(limiter.counter.size).toBe(MAX_RATE_LIMIT_KEYS);
    expect(Math.max(largest, limiter.counter.size)).toBe(MAX_RATE_LIMIT_KEYS);
    // The newest addresses are the ones kept.
    expect(limiter.counter.peek(address(149_999), T0 + 15_000)?.count).toBe(1);
  });

  it("sweeps expired windows: once the window has passed, new hits shrink the store back", () => {
    const counter = new FixedWindowCounter(WINDOW_MS, 100_000);
    for (let i = 0; i < 100_000; i++) counter.hit(address(i), T0 + Math.floor(i / 10));
    expect(counter.size).toBe(100_000);

    // Every window started by T0 + 10 s has ended by T0 + 70 s.
    counter.hit("ip:192.0.2.1", T0 + 70_000);
    expect(counter.size).toBe(1);
    counter.hit("ip:192.0.2.2", T0 + 70_001);
    expect(counter.size).toBe(2);
  });

  it("sweeps only the windows that have ended", () => {
    const counter = new FixedWindowCounter(WINDOW_MS, 100_000);
    for (let i = 0; i < 1000; i++) counter.hit(address(i), T0 + i * 100); // windows ending T0+60 s .. T0+159.9 s
    counter.hit("ip:192.0.2.1", T0 + 100_000);
    // The 401 windows started at or before T0 + 40 s have ended (a window ending now is over);
    // the 599 later ones and the new one stay.
    expect(counter.size).toBe(600);
    expect(counter.peek(address(400), T0 + 100_000)).toBeUndefined();
    expect(counter.peek(address(401), T0 + 100_000)?.count).toBe(1);
  });

  it("keeps a live key's count while the store is under the cap, and still refuses it", () => {
    const limiter = new RateLimiter({ limit: 3, windowSeconds: 60 });
    const key = "ip:198.51.100.7";
    for (let i = 0; i < 3; i++) limiter.take(key, T0 + i);
    for (let i = 0; i < 90_000; i++) limiter.take(address(i), T0 + 10 + Math.floor(i / 100));
    expect(limiter.counter.size).toBe(90_001);
    expect(limiter.counter.peek(key, T0 + 1000)?.count).toBe(3);

    let refused: unknown;
    try {
      limiter.take(key, T0 + 1000);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RateLimited);
    expect((refused as RateLimited).headers).toEqual({
      "RateLimit-Limit": "3",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "59",
      "Retry-After": "59",
    });
  });

  it("keeps its size bounded when the same addresses come back window after window", () => {
    const counter = new FixedWindowCounter(WINDOW_MS, 1000);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3000; i++) {
        counter.hit(address(i % 1500), T0 + round * WINDOW_MS + i);
        if (i % 100 === 0) expect(counter.size).toBeLessThanOrEqual(1000);
      }
    }
    expect(counter.size).toBeLessThanOrEqual(1000);
  });

  it("keeps the cap and every live count when the clock steps back and forth", () => {
    const counter = new FixedWindowCounter(WINDOW_MS, 500);
    const expected = new Map<string, { count: number; resetAt: number }>();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = address(random(800));
      const now = T0 + i * 10 - random(30_000); // up to 30 s back, now and then
      const window = counter.hit(key, now);
      expect(counter.size).toBeLessThanOrEqual(500);
      const before = expected.get(key);
      // A window that has ended starts again at 1; a live one keeps counting unless the cap dropped it.
      if (!before || before.resetAt <= now) expect(window).toMatchObject({ count: 1, resetAt: now + WINDOW_MS });
      else if (window.count === 1) expect(window.resetAt).toBe(now + WINDOW_MS);
      else expect(window).toMatchObject({ count: before.count + 1, resetAt: before.resetAt });
      expected.set(key, { count: window.count, resetAt: window.resetAt });
    }
  });

  it("gives each of 2,000 distinct forwarded addresses its own fresh bucket through the app, and keeps an earlier one's count", async () => {
    const env = makeEnv(LIMITED_BEHIND_PROXY);
    const { link } = await ownerWithPublicLink(env);
    const path = `/l/${link.id}`;
    const sticky = "192.0.2.200";
    expect(remainingOf(await get(env, path, from(sticky)))).toBe("2");
    expect(remainingOf(await get(env, path, from(sticky)))).toBe("1");

    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => get(env, path, from(`10.9.${batch}.${i}`))),
      );
      for (const response of responses) {
        expect(response.status).toBe(302);
        expect(remainingOf(response)).toBe("2");
      }
    }
    expect(remainingOf(await get(env, path, from(sticky)))).toBe("0");
    expectRateLimited(await get(env, path, from(sticky)));
    // The limiter is internal to the app, so its size under a flood is checked on RateLimiter above.
  });
});
