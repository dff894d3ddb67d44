/**
 * `GET /export` written a slice at a time (src/request/sliced-stream.ts): a shelf whose export
 * spans many slices gives exactly the bytes of the whole file rendered at once, in both formats
 * (the bookmarks file and linkshelf JSON with saved text), handed on in more than one piece.
 */
import { describe, expect, it } from "bun:test";
import { exportBookmarks } from "../../src/bookmarks/export";
import { exportJson } from "../../src/bookmarks/linkshelf-json";
import { SLICE } from "../../src/request/sliced-stream";
import { createUser, makeEnv, post, shelfFor, START } from "../support/helpers";
import { cookieFor, open } from "../support/html";

describe("GET /export in slices", () => {
  it("gives the same bytes as the file written at once, over many slices", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const shelf = shelfFor(env, alice);
    const top = shelf.collections.create({ name: "Top", visibility: "PRIVATE", parentId: null }, START);
    const inner = shelf.collections.create({ name: "Inner \"quoted\"", visibility: "PUBLIC", parentId: top.id }, START);
    const operations = Array.from({ length: 400 }, (_, i) => ({
      op: "createLink", ref: `l${i}`, name: `Link ${i} <&>`, url: `https://l${i}.example/`, collections: i % 3 === 0 ? [{ id: top.id }, { id: inner.id }] : [{ id: inner.id }],
    }));
    const made = await post(env, "/api/v1/batch", { token: alice.token, body: { operations } });
    expect(made.status).toBe(200);
    // Saved text on every other link: 400 × 2 KB, more than SLICE.bytes, and many slices of SLICE.millis.
    for (let i = 0; i < 400; i += 2) shelf.links.setContent(made.body.refs[`l${i}`], { text: `Page ${i}: ${"words ".repeat(350)}` }, "browser", START);
    const cookie = cookieFor(env, alice);
    const html = await open(env, "/export", cookie);
    expect(html.status).toBe(200);
    expect(html.text).toBe(exportBookmarks(shelf));
    const json = await open(env, "/export?format=json", cookie);
    expect(json.status).toBe(200);
    expect(json.text.length).toBeGreaterThan(SLICE.bytes);
    const exportedAt = JSON.parse(json.text).exportedAt as string;
    expect(json.text).toBe(JSON.stringify({ ...exportJson(shelf, Date.parse(exportedAt), { withText: true }) }));
    // Handed on in pieces of at most a slice (and a part: here a link with its text, ~2 KB): the server wrote it a slice at a time.
    const response = await env.app.handle(new Request("http://localhost/export?format=json", { headers: { cookie } }));
    const reader = response.body!.getReader();
    const pieces: number[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value.byteLength);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(SLICE.bytes + 4096);
  }, 60_000);
});
