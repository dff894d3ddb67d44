/**
 * The link health API through `app.handle`: the lists by state with their evidence, ignoring and
 * flagging again, checking one link now (through a checker pointed at origins on 127.0.0.1) and
 * its once-a-minute limit, another user's link, and the health row's life with its link.
 */
import { describe, expect, it } from "bun:test";
import { LinkChecker } from "../../src/link-health/checker";
import type { Probe } from "../../src/shelf/link-checks";
import { recordCheck } from "../../src/shelf/link-checks";
import { FAKE_PUBLIC, mappedConnect, redirectTo, resolverOf, stoppedAfterEach } from "../support/favicon.fixtures";
import { createLink, createUser, del, get, ISO, makeEnv, post, put, snapshot, type TestEnv } from "../support/helpers";

const DAY = 86_400_000;
const { origin, worker } = stoppedAfterEach<LinkChecker>();

/** world: an app whose "check now" reaches made-up names at 127.0.0.1, with two users. */
async function world() {
  // The app is given the checker before the checker is made over the app's database.
  let checker: LinkChecker | undefined;
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, {
    linkCheck: { checkNow: (id, url) => checker!.checkNow(id, url), stop: () => checker!.stop() },
  });
  checker = new LinkChecker(
    { db: env.db, clock: () => env.clock.now, log: () => undefined, config: env.config.linkCheck },
    { resolve: resolverOf({ "site.test": [FAKE_PUBLIC], "new.test": [FAKE_PUBLIC] }), connect: mappedConnect(), timeoutMillis: 2000 },
  );
  worker(checker);
  const alice = await createUser(env);
  const bob = await createUser(env);
  return { env, alice, bob };
}

const failure: Probe = { outcome: "gone", status: 404, detail: "HTTP 404" };

/** breakLink records three 404s over a week, the last one a day before now. */
function breakLink(env: TestEnv, id: number) {
  for (const day of [8, 4.5, 1]) recordCheck(env.db, id, failure, env.clock.now - day * DAY, env.config.linkCheck);
}

describe("GET /api/v1/links/health", () => {
  it("lists the requester's broken links with their link JSON and evidence", async () => {
    const { env, alice } = await world();
    const link = await createLink(env, alice, { name: "Old post", url: "https://example.com/old" });
    await createLink(env, alice, { name: "Fine", url: "https://example.com/fine" });
    breakLink(env, link.id);
    const response = await get(env, "/api/v1/links/health?state=broken", { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body.links).toHaveLength(1);
    expect(response.body.links[0].link).toEqual((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link);
    const health = response.body.links[0].health;
    expect(health).toMatchObject({ state: "gone", broken: true, ignored: false, movedTo: null });
    expect(health.lastCheckedAt).toMatch(ISO);
    expect(health.checks).toHaveLength(3);
    expect(Date.parse(health.lastCheckedAt) - Date.parse(health.since)).toBe(7 * DAY);
    expect(health.since).toBe(health.checks[2].at);
    expect(health.checks[0]).toEqual({ at: health.lastCheckedAt, status: 404, outcome: "gone", detail: "HTTP 404" });
  });

  it("lists moved links with where they moved, found by checking one now", async () => {
    const { env, alice } = await world();
    const site = origin({ "/old": () => redirectTo(`http://new.test:${site.port}/new`, 301), "/new": () => new Response("here") });
    const link = await createLink(env, alice, { url: `http://site.test:${site.port}/old` });
    const checked = await post(env, `/api/v1/links/${link.id}/check`, { token: alice.token });
    expect(checked.status).toBe(200);
    expect(checked.body.health).toMatchObject({ state: "moved", broken: false, movedTo: `http://new.test:${site.port}/new` });
    const moved = await get(env, "/api/v1/links/health?state=moved", { token: alice.token });
    expect(moved.body.links.map((item: { link: { id: number } }) => item.link.id)).toEqual([link.id]);
    expect((await get(env, "/api/v1/links/health?state=broken", { token: alice.token })).body.links).toEqual([]);
  });

  it("is not taken for a link id, and refuses a missing or unknown state with 422", async () => {
    const { env, alice } = await world();
    expect((await get(env, "/api/v1/links/health?state=unchecked", { token: alice.token })).body).toEqual({ links: [] });
    for (const query of ["", "?state=ok", "?state=BROKEN"]) {
      const response = await get(env, `/api/v1/links/health${query}`, { token: alice.token });
      expect([query, response.status, response.body.code]).toEqual([query, 422, "VALIDATION_FAILED"]);
    }
  });
});

describe("ignoring a link", () => {
  it("takes a broken link off the list until DELETE flags it again; the Link JSON keeps its shape", async () => {
    const { env, alice } = await world();
    const link = await createLink(env, alice);
    breakLink(env, link.id);
    const ignored = await post(env, `/api/v1/links/${link.id}/health/ignore`, { token: alice.token });
    expect(ignored.body.health).toMatchObject({ ignored: true, broken: false, state: "gone" });
    expect((await get(env, "/api/v1/links/health?state=broken", { token: alice.token })).body.links).toEqual([]);
    const again = await del(env, `/api/v1/links/${link.id}/health/ignore`, { token: alice.token });
    expect(again.body.health).toMatchObject({ ignored: false, broken: true });
    expect((await get(env, "/api/v1/links/health?state=broken", { token: alice.token })).body.links).toHaveLength(1);
    expect(Object.keys((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link).sort())
      .toEqual(["archived", "authorId", "clicks", "collectionIds", "copy", "createdAt", "description", "favorite", "id", "lastClickedAt", "name", "toRead", "updatedAt", "url"]);
  });
});

describe("POST /api/v1/links/:id/check", () => {
  it("checks a link once a minute at most: a second check within the minute is 429 with Retry-After", async () => {
    const { env, alice } = await world();
    const site = origin({ "/": () => new Response("ok") });
    const link = await createLink(env, alice, { url: `http://site.test:${site.port}/` });
    const first = await post(env, `/api/v1/links/${link.id}/check`, { token: alice.token });
    expect(first.body.health).toMatchObject({ state: "ok", broken: false, checks: [{ status: 200, outcome: "ok" }] });
    env.clock.now += 30_000;
    const before = snapshot(env);
    const second = await post(env, `/api/v1/links/${link.id}/check`, { token: alice.token });
    expect([second.status, second.body.code, second.headers.get("retry-after")]).toEqual([429, "CHECKED_RECENTLY", "30"]);
    expect(snapshot(env)).toBe(before);
    expect(site.hits).toEqual(["/"]);
    env.clock.now += 30_000;
    expect((await post(env, `/api/v1/links/${link.id}/check`, { token: alice.token })).status).toBe(200);
    expect(site.hits).toEqual(["/", "/"]);
  });

  it("answers that a loopback link was not checked, sending nothing (no private opt-in)", async () => {
    const { env, alice } = await world();
    const site = origin({ "/": () => new Response("router") });
    const link = await createLink(env, alice, { url: `http://127.0.0.1:${site.port}/` });
    const response = await post(env, `/api/v1/links/${link.id}/check`, { token: alice.token });
    expect(response.body.health).toMatchObject({ state: "unchecked", broken: false, checks: [{ outcome: "unchecked", detail: "private address", status: null }] });
    expect(site.hits).toEqual([]);
  });

  it("answers 404 for another user's link, changing nothing and sending nothing", async () => {
    const { env, alice, bob } = await world();
    const site = origin({ "/": () => new Response("ok") });
    const link = await createLink(env, alice, { url: `http://site.test:${site.port}/` });
    breakLink(env, link.id);
    const before = snapshot(env);
    for (const [method, path] of [["POST", `/api/v1/links/${link.id}/check`], ["POST", `/api/v1/links/${link.id}/health/ignore`], ["DELETE", `/api/v1/links/${link.id}/health/ignore`]] as const) {
      const response = method === "POST" ? await post(env, path, { token: bob.token }) : await del(env, path, { token: bob.token });
      expect([path, response.status, response.body.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
    expect((await get(env, "/api/v1/links/health?state=broken", { token: bob.token })).body.links).toEqual([]);
    expect(snapshot(env)).toBe(before);
    expect(site.hits).toEqual([]);
  });
});

describe("a link's health and the link", () => {
  it("is deleted with the link, and forgotten when the link's URL changes", async () => {
    const { env, alice } = await world();
    const [a, b] = [await createLink(env, alice, { url: "https://example.com/a" }), await createLink(env, alice, { url: "https://example.com/b" })];
    breakLink(env, a.id);
    breakLink(env, b.id);
    const count = () => env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_health").get()!.n;
    expect(count()).toBe(2);
    expect((await del(env, `/api/v1/links/${a.id}`, { token: alice.token })).status).toBe(200);
    expect(count()).toBe(1);
    expect((await put(env, `/api/v1/links/${b.id}`, { token: alice.token, body: { name: "B", url: "https://example.org/b", favorite: false, collectionIds: [] } })).status).toBe(200);
    expect(count()).toBe(0);
  });
});
