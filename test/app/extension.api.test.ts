import { describe, expect, it } from "bun:test";
import { ApiError, checkServer, createClient, parseRetryAfter, revokeHeldToken } from "../../extension/src/api";
import { APP_ORIGIN, appFetch } from "../support/extension.fakes";
import { createCollection, createLink, createUser, get, makeEnv, snapshot } from "../support/helpers";

/** closedPort is a loopback port nothing listens on any more. */
function closedPort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe("the extension's API client against the real app", () => {
  it("lists collections and favorites in the server's order, sending the bearer token", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
    const seen: Request[] = [];
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env, seen) });
    const a = await createLink(env, alice, { name: "A", url: "https://a.example/", favorite: true });
    const b = await createLink(env, alice, { name: "B", url: "https://b.example/", favorite: true, collectionIds: [reading.id] });
    await createLink(env, alice, { name: "C", url: "https://c.example/", favorite: false });
    await get(env, `/l/${b.id}`, { token: alice.token });

    const collections = await client.listCollections();
    expect(collections.map((collection) => [collection.name, collection.icon, collection.isDefault])).toEqual([["Inbox", "📥", true], ["Reading", "📚", false]]);
    expect(collections[1]!.links.map((link) => link.url)).toEqual(["https://b.example/"]);
    expect((await client.listFavorites()).map((link) => [link.id, link.clicks])).toEqual([[b.id, 1], [a.id, 0]]);
    expect(seen.map((request) => request.headers.get("authorization"))).toEqual([`Bearer ${alice.token}`, `Bearer ${alice.token}`]);
  });

  it("creates a link as JSON and returns it; no collection means the Inbox", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const link = await client.createLink({ name: " Bun ", url: "https://bun.sh/", description: "", favorite: true, collectionIds: [] });
    expect(link).toMatchObject({ name: "Bun", url: "https://bun.sh/", favorite: true, clicks: 0 });
    const [inbox] = await client.listCollections();
    expect(link.collectionIds).toEqual([inbox!.id]);
  });

  it("updates a link and returns it as stored, saves page content, and searches it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const link = await client.createLink({ name: "Tides", url: "https://coastal.example/tides", description: "", favorite: false, collectionIds: [] });
    const updated = await client.updateLink(link.id, { name: "Tide pools", url: link.url, description: "Low tide", favorite: true, collectionIds: [reading.id] });
    expect(updated).toMatchObject({ id: link.id, name: "Tide pools", description: "Low tide", favorite: true, collectionIds: [reading.id] });
    expect(await client.saveContent(link.id, { text: "Anemones close around a finger.", lang: "en" })).toEqual({ message: "Content saved.", truncated: false });
    const page = await client.search("anemones", 6);
    expect(page.hits.map((hit) => [hit.link.id, hit.snippet.text])).toEqual([[link.id, "Anemones close around a finger."]]);
    expect(page.hits[0]!.snippet.matches).toEqual([[0, 8]]);
  });

  it("reports a query the server refuses with the server's reason", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const error = await failure(createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) }).search('"open', 6));
    expect(error.kind).toBe("refused");
    expect(error.message).toStartWith("The request is invalid. (q: ");
  });

  it("reports a revoked token as unauthorized", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    env.db.$client.run("DELETE FROM api_tokens");
    const error = await failure(createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) }).listFavorites());
    expect(error.kind).toBe("unauthorized");
    expect(error.message).toContain("Sign in again");
  });

  it("reports a rate limit with the server's Retry-After", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "2/60" });
    const alice = await createUser(env);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    await client.listFavorites();
    await client.listFavorites();
    const before = snapshot(env);
    const error = await failure(client.createLink({ name: "X", url: "https://x.example/", description: "", favorite: false, collectionIds: [] }));
    expect(error.kind).toBe("rate-limited");
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(error.message).toBe(`Too many requests for now. Try again in ${error.retryAfterSeconds} s.`);
    expect(snapshot(env)).toBe(before);
  });

  it("passes on the server's validation message with each field's problem", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const error = await failure(client.createLink({ name: "", url: "javascript:alert(1)", description: "", favorite: false, collectionIds: [] }));
    expect(error.kind).toBe("refused");
    expect(error.message).toContain("name:");
    expect(error.message).toContain("url:");
  });

  it("reports a server that does not answer as unreachable", async () => {
    const origin = `http://127.0.0.1:${closedPort()}`;
    const error = await failure(createClient({ origin, token: "lks_x" }).listFavorites());
    expect(error.kind).toBe("unreachable");
    expect(error.message).toBe(`Cannot reach ${origin}. Check the address and that linkshelf is running there.`);
  });

  it("counts a server that takes too long as unreachable", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const error = await failure(createClient({ origin: `http://127.0.0.1:${server.port}`, token: "lks_x", timeoutMs: 50 }).listFavorites());
      expect(error.kind).toBe("unreachable");
    } finally {
      server.stop(true);
    }
  });
});

describe("revokeHeldToken (signing out, and before signing in again)", () => {
  it("revokes the token it holds on its server, and only that one; a token revoked before counts as done", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const seen: Request[] = [];
    expect(await revokeHeldToken(APP_ORIGIN, alice.token, appFetch(env, seen))).toBe(true);
    expect(seen.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual(["DELETE /api/v1/tokens/current"]);
    expect((await get(env, "/api/v1/links", { token: alice.token })).status).toBe(401);
    expect((await get(env, "/api/v1/links", { token: bob.token })).status).toBe(200);
    expect(await revokeHeldToken(APP_ORIGIN, alice.token, appFetch(env))).toBe(true);
  });

  it("says so when the server cannot be asked", async () => {
    const refused = (async () => { throw new TypeError("connection refused"); }) as unknown as typeof fetch;
    expect(await revokeHeldToken("http://127.0.0.1:9", "lks_x", refused)).toBe(false);
  });
});

describe("checkServer", () => {
  it("accepts a linkshelf server and tells apart one that is down or something else", async () => {
    const env = makeEnv();
    expect(await checkServer(APP_ORIGIN, appFetch(env))).toBeNull();
    expect((await checkServer(`http://127.0.0.1:${closedPort()}`))?.kind).toBe("unreachable");
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<h1>router</h1>", { headers: { "content-type": "text/html" } }) });
    try {
      const problem = await checkServer(`http://127.0.0.1:${other.port}`);
      expect(problem?.kind).toBe("refused");
      expect(problem?.message).toContain("not like a linkshelf server");
    } finally {
      other.stop(true);
    }
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  it("reads seconds, an HTTP date, and falls back to a minute", () => {
    expect(parseRetryAfter("17", now)).toBe(17);
    expect(parseRetryAfter("Mon, 23 Nov 2026 12:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Mon, 23 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBe(60);
    expect(parseRetryAfter("soon", now)).toBe(60);
  });
});
