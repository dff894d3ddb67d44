/**
 * Page copies through `app.handle`: `PUT|GET|DELETE /api/v1/links/:id/copy` (HTML only, at most
 * 20 MiB before compression, within the owner's quota of stored bytes; a refused copy stores
 * nothing and leaves an older one), `copy` in a link's JSON (read without the body), the trash
 * keeping a link's copy for a restore, and `GET /links/:id/copy`: the owner's, or anyone's from a
 * PUBLIC collection that shows its copies, always under the copy's headers.
 */
import { describe, expect, it } from "bun:test";
import { COPY_HEADERS } from "../../src/capture/copy-response";
import { COPY_LIMITS } from "../../src/shelf/limits";
import { aliceWithInbox, createCollection, createLink, createUser, del, get, makeEnv, post, put, refused, request, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, open } from "../support/html";

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Kept</title><style>p{color:#333}</style></head><body>${"<p>The tide comes in and goes out again. ".repeat(400)}</body></html>`;

const putCopy = (env: TestEnv, as: TestUser, id: number, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  env.app.handle(new Request(`http://localhost/api/v1/links/${id}/copy`, {
    method: "PUT", body, headers: { authorization: `Bearer ${as.token}`, "content-type": "text/html; charset=utf-8", ...headers },
  }));
const answer = async (response: Response) => ({ status: response.status, body: await response.json() as any });
const linkOf = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/links/${id}`, { token: as.token })).body.link;
const copyRow = (env: TestEnv, id: number) =>
  env.db.$client.query<{ bytes: number; stored_bytes: number; saved_at: number }, [number]>("SELECT bytes, stored_bytes, saved_at FROM link_copies WHERE link_id = ?").get(id);
/** Bytes that do not compress: the quota counts them nearly as they are. */
const noise = (bytes: number) => crypto.getRandomValues(new Uint8Array(bytes));

/** refusedCopy sends a copy that must be refused with `status`/`code`, and proves the database did not change. */
async function refusedCopy(env: TestEnv, send: () => Promise<Response>, status: number, code: string) {
  const before = snapshot(env);
  const { status: got, body } = await answer(await send());
  expect({ status: got, code: body.code }).toEqual({ status, code });
  expect(snapshot(env)).toBe(before);
  return body;
}

describe("PUT /api/v1/links/:id/copy", () => {
  it("stores the HTML compressed and answers when and how large; GET gives the same bytes under the copy's headers", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    const saved = await answer(await putCopy(env, alice, link.id, PAGE));
    expect(saved).toEqual({ status: 200, body: { message: "Copy saved.", copy: { savedAt: expect.any(String), bytes: Buffer.byteLength(PAGE) } } });
    const row = copyRow(env, link.id)!;
    expect(row.bytes).toBe(Buffer.byteLength(PAGE));
    expect(row.stored_bytes).toBeLessThan(row.bytes * 0.4);
    expect((await linkOf(env, alice, link.id)).copy).toEqual(saved.body.copy);

    const served = await env.app.handle(new Request(`http://localhost/api/v1/links/${link.id}/copy`, { headers: { authorization: `Bearer ${alice.token}` } }));
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(PAGE);
    for (const [name, value] of Object.entries(COPY_HEADERS)) expect([name, served.headers.get(name)]).toEqual([name, value]);
    const policy = served.headers.get("content-security-policy")!;
    expect(policy.split(";")[0]).toBe("sandbox");
    expect(policy).not.toContain("allow-");
    expect(policy).toContain("default-src 'none'");
  });

  it("sends the stored bytes as they are to a client that takes zstd, and the file decompressed to any other", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await putCopy(env, alice, link.id, PAGE);
    const stored = env.db.$client.query<{ body: Uint8Array }, [number]>("SELECT body FROM link_copies WHERE link_id = ?").get(link.id)!.body;
    const ask = (encoding: string) => env.app.handle(new Request(`http://localhost/api/v1/links/${link.id}/copy`, { headers: { authorization: `Bearer ${alice.token}`, "accept-encoding": encoding } }));
    for (const encoding of ["gzip, deflate, br, zstd", "zstd;q=0.5", "ZSTD"]) {
      const answer = await ask(encoding);
      expect([encoding, answer.headers.get("content-encoding"), answer.headers.get("vary")]).toEqual([encoding, "zstd", "Accept-Encoding"]);
      const bytes = new Uint8Array(await answer.arrayBuffer());
      expect(Buffer.from(bytes).equals(Buffer.from(stored))).toBe(true);
      expect(Buffer.from(Bun.zstdDecompressSync(bytes)).toString()).toBe(PAGE);
    }
    for (const encoding of ["gzip, br", "zstd;q=0", ""]) {
      const answer = await ask(encoding);
      expect([encoding, answer.headers.get("content-encoding")]).toEqual([encoding, null]);
      expect(await answer.text()).toBe(PAGE);
    }
    // A client that sends no Accept-Encoding at all gets the file too.
    const bare = await env.app.handle(new Request(`http://localhost/api/v1/links/${link.id}/copy`, { headers: { authorization: `Bearer ${alice.token}` } }));
    expect([bare.status, bare.headers.get("content-encoding"), await bare.text()]).toEqual([200, null, PAGE]);
  });

  it("a newer copy replaces the older one, with its date", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    const first = (await answer(await putCopy(env, alice, link.id, PAGE))).body.copy;
    env.clock.now += 86_400_000;
    const second = await answer(await putCopy(env, alice, link.id, "<p>newer</p>"));
    expect(second.body.message).toBe("Copy replaced.");
    expect(second.body.copy.savedAt > first.savedAt).toBe(true);
    expect(await (await get(env, `/api/v1/links/${link.id}/copy`, { token: alice.token })).text).toBe("<p>newer</p>");
    expect(env.db.$client.query("SELECT count(*) AS n FROM link_copies").get()).toEqual({ n: 1 });
  });

  it("refuses a body that is not text/html (415) and one over 20 MiB (413), storing nothing and keeping the older copy", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await putCopy(env, alice, link.id, PAGE);
    await refusedCopy(env, () => putCopy(env, alice, link.id, PAGE, { "content-type": "application/json" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    const tooLarge = await refusedCopy(env, () => putCopy(env, alice, link.id, "a".repeat(COPY_LIMITS.bytes + 1)), 413, "PAYLOAD_TOO_LARGE");
    expect(tooLarge.message).toBe("A page copy may be at most 20 MiB before compression: nothing was stored.");
    // Exactly the limit is stored.
    expect((await putCopy(env, alice, link.id, "a".repeat(COPY_LIMITS.bytes))).status).toBe(200);
  }, 60_000);

  it("refuses a copy that would take the owner's copies past LINKSHELF_COPY_QUOTA (507), counting a replaced copy out", async () => {
    const env = makeEnv({ LINKSHELF_COPY_QUOTA: "10KiB" });
    const alice = await createUser(env);
    const bob = await createUser(env, { email: "bob@example.test" });
    const [one, two] = [await createLink(env, alice), await createLink(env, alice)];
    expect((await putCopy(env, alice, one.id, noise(6000))).status).toBe(200);
    const over = await refusedCopy(env, () => putCopy(env, alice, two.id, noise(6000)), 507, "COPY_QUOTA_EXCEEDED");
    expect(over.message).toMatch(/past your 10 KiB: they use 5\.\d KiB\. .*Nothing was stored\./);
    // Replacing the one copy: only the others count.
    expect((await putCopy(env, alice, one.id, noise(9000))).status).toBe(200);
    // Each user has their own room.
    expect((await putCopy(env, bob, (await createLink(env, bob)).id, noise(9000))).status).toBe(200);
    expect((await get(env, "/account", { headers: { cookie: cookieFor(env, alice) } })).text).toContain("1 copy take 8.8 KiB of your 10 KiB");
  });

  it("keeps nothing when LINKSHELF_COPY_QUOTA is 0", async () => {
    const env = makeEnv({ LINKSHELF_COPY_QUOTA: "0" });
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const body = await refusedCopy(env, () => putCopy(env, alice, link.id, "<p>x</p>"), 507, "COPY_QUOTA_EXCEEDED");
    expect(body.message).toMatch(/keeps no page copies/);
  });

  it("another user's link is 404 for every method, changing nothing; a link without a copy is 404 to GET and DELETE", async () => {
    const { env, alice } = await aliceWithInbox();
    const bob = await createUser(env, { email: "bob@example.test" });
    const bobs = await createLink(env, bob);
    await putCopy(env, bob, bobs.id, PAGE);
    await refusedCopy(env, () => putCopy(env, alice, bobs.id, PAGE), 404, "NOT_FOUND");
    await refused(env, () => get(env, `/api/v1/links/${bobs.id}/copy`, { token: alice.token }), 404, "NOT_FOUND");
    await refused(env, () => del(env, `/api/v1/links/${bobs.id}/copy`, { token: alice.token }), 404, "NOT_FOUND");
    const own = await createLink(env, alice);
    expect((await refused(env, () => get(env, `/api/v1/links/${own.id}/copy`, { token: alice.token }), 404, "NOT_FOUND")).body.message).toBe("This link has no page copy.");
    await refused(env, () => del(env, `/api/v1/links/${own.id}/copy`, { token: alice.token }), 404, "NOT_FOUND");
  });

  it("an Idempotency-Key binds the copy's bytes: the same retry replays, another body is refused", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    const first = await putCopy(env, alice, link.id, PAGE, { "idempotency-key": "copy-1" });
    const again = await putCopy(env, alice, link.id, PAGE, { "idempotency-key": "copy-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    await refusedCopy(env, () => putCopy(env, alice, link.id, `${PAGE}<!-- other -->`, { "idempotency-key": "copy-1" }), 422, "IDEMPOTENCY_KEY_REUSED");
  });
});

describe("DELETE /api/v1/links/:id/copy and the trash", () => {
  it("deletes the copy: GET is 404 and the link's copy is null", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await putCopy(env, alice, link.id, PAGE);
    expect((await del(env, `/api/v1/links/${link.id}/copy`, { token: alice.token })).status).toBe(200);
    expect((await get(env, `/api/v1/links/${link.id}/copy`, { token: alice.token })).status).toBe(404);
    expect((await linkOf(env, alice, link.id)).copy).toBeNull();
  });

  it("a link in the trash keeps its copy for a restore; emptying the trash lets it go", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await putCopy(env, alice, link.id, PAGE);
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    expect(copyRow(env, link.id)).not.toBeNull();
    expect((await post(env, "/api/v1/trash/restore", { token: alice.token, body: { links: [link.id] } })).status).toBe(200);
    expect((await linkOf(env, alice, link.id)).copy).toMatchObject({ bytes: Buffer.byteLength(PAGE) });
    expect(await (await get(env, `/api/v1/links/${link.id}/copy`, { token: alice.token })).text).toBe(PAGE);
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    await del(env, "/api/v1/trash", { token: alice.token });
    expect(copyRow(env, link.id)).toBeNull();
  });

  it("without a trash (LINKSHELF_TRASH_DAYS=0) a deleted link's copy goes with it", async () => {
    const env = makeEnv({ LINKSHELF_TRASH_DAYS: "0" });
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    await putCopy(env, alice, link.id, PAGE);
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    expect(copyRow(env, link.id)).toBeNull();
  });
});

describe("copy in a link's JSON", () => {
  it("is read from the copy's row without its body, in every list of links", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice, { name: "Tides kept" });
    await putCopy(env, alice, link.id, PAGE);
    const copy = (await linkOf(env, alice, link.id)).copy;
    env.queries.length = 0;
    const lists = [
      (await get(env, "/api/v1/links", { token: alice.token })).body.links[0],
      (await get(env, "/api/v1/collections", { token: alice.token })).body.collections[0].links[0],
      (await get(env, "/api/v1/links?q=tides", { token: alice.token })).body.links[0],
      (await get(env, "/api/v1/search?q=tides", { token: alice.token })).body.hits[0].link,
      (await get(env, "/api/v1/changes", { token: alice.token })).body.changes.find((change: { kind: string }) => change.kind === "link").link,
    ];
    for (const listed of lists) expect(listed.copy).toEqual(copy);
    const reads = env.queries.filter((query) => query.includes("link_copies"));
    expect(reads.length).toBeGreaterThan(0);
    for (const query of reads) expect(query).not.toMatch(/\bbody\b/);
  });
});

describe("GET /links/:id/copy", () => {
  async function world() {
    const { env, alice } = await aliceWithInbox();
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    const link = await createLink(env, alice, { collectionIds: [shared.id] });
    await putCopy(env, alice, link.id, PAGE);
    const page = (cookie?: string) => env.app.handle(new Request(`http://localhost/links/${link.id}/copy`, { headers: { accept: "text/html", ...(cookie ? { cookie } : {}) } }));
    return { env, alice, shared, link, page };
  }

  it("serves the owner's copy under the copy's headers", async () => {
    const { env, alice, page } = await world();
    const served = await page(cookieFor(env, alice));
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(PAGE);
    for (const [name, value] of Object.entries(COPY_HEADERS)) expect([name, served.headers.get(name)]).toEqual([name, value]);
  });

  it("sends a browser that takes zstd the stored bytes, and any other the file decompressed", async () => {
    const { env, alice, link } = await world();
    const stored = env.db.$client.query<{ body: Uint8Array }, [number]>("SELECT body FROM link_copies WHERE link_id = ?").get(link.id)!.body;
    const ask = (encoding: string) => env.app.handle(new Request(`http://localhost/links/${link.id}/copy`, { headers: { accept: "text/html", cookie: cookieFor(env, alice), "accept-encoding": encoding } }));
    const zstd = await ask("gzip, deflate, br, zstd");
    expect([zstd.status, zstd.headers.get("content-encoding")]).toEqual([200, "zstd"]);
    expect(Buffer.from(await zstd.arrayBuffer()).equals(Buffer.from(stored))).toBe(true);
    const plain = await ask("gzip, deflate, br");
    expect([plain.status, plain.headers.get("content-encoding"), await plain.text()]).toEqual([200, null, PAGE]);
  });

  it("is a 404 page to anyone else until the PUBLIC collection's owner lets it show copies, and again once it is private", async () => {
    const { env, alice, shared, page } = await world();
    const bob = await createUser(env, { email: "bob@example.test" });
    expect((await page()).status).toBe(404);
    expect((await page(cookieFor(env, bob))).status).toBe(404);
    const opened = await put(env, `/api/v1/collections/${shared.id}`, { token: alice.token, body: { name: "Shared", visibility: "PUBLIC", copiesPublic: true } });
    expect(opened.status).toBe(200);
    const anyone = await page();
    expect(anyone.status).toBe(200);
    expect(await anyone.text()).toBe(PAGE);
    expect(anyone.headers.get("content-security-policy")).toBe(COPY_HEADERS["Content-Security-Policy"]!);
    // Omitted on PUT: kept. Private: no copy for anyone else, opt-in or not.
    await put(env, `/api/v1/collections/${shared.id}`, { token: alice.token, body: { name: "Shared", visibility: "PRIVATE" } });
    expect((await get(env, `/api/v1/collections/${shared.id}`, { token: alice.token })).body.collection.copiesPublic).toBe(true);
    expect((await page()).status).toBe(404);
  });

  it("the collection form sets the opt-in", async () => {
    const { env, alice, shared, page } = await world();
    const cookie = cookieFor(env, alice);
    const form = await open(env, `/collections/${shared.id}/edit`, cookie);
    expect(attributes(form.text, "#copies-public")).toEqual([{ type: "checkbox", name: "copiesPublic", value: "on", id: "copies-public" }]);
    expect(form.text).toContain("let anyone open the page copies of its links");
    const sent = await request(env, "POST", `/collections/${shared.id}`, {
      headers: { cookie, origin: "http://localhost", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Shared", visibility: "PUBLIC", copiesPublic: "on" }).toString(),
    });
    expect(sent.status).toBe(303);
    expect((await page()).status).toBe(200);
  });
});
