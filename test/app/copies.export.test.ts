/**
 * Page copies in linkshelf's JSON export and back: `exportJson(..., {withCopies})` (the CLI's
 * `export --format json --with-copies`) writes each link's copy (its HTML and when it was kept),
 * only when asked; importing that file gives the links their copies again; an import whose
 * copies would pass the owner's quota is refused whole, writing nothing.
 */
import { describe, expect, it } from "bun:test";
import { exportJson } from "../../src/bookmarks/linkshelf-json";
import { importBookmarks } from "../../src/bookmarks/plan";
import { readImportFile } from "../../src/bookmarks/formats";
import { copyHtml } from "../../src/shelf/copies";
import { Shelf } from "../../src/shelf/shelf";
import { createLink, createUser, makeEnv, shelfFor, snapshot } from "../support/helpers";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const KEPT_AT = Date.parse("2026-05-03T10:00:00Z");
const HTML = "<!doctype html><p>As it was, ünïcode and all.</p>";

async function world() {
  const env = makeEnv();
  const alice = await createUser(env);
  const kept = await createLink(env, alice, { name: "Kept", url: "https://kept.example/" });
  await createLink(env, alice, { name: "Bare", url: "https://bare.example/" });
  shelfFor(env, alice).copies.save(kept.id, new TextEncoder().encode(HTML), KEPT_AT);
  return { env, alice, kept };
}

describe("page copies in the JSON export", () => {
  it("are written with withCopies only, each with its HTML and its day", async () => {
    const { env, alice } = await world();
    const plain = exportJson(shelfFor(env, alice), NOW, {});
    expect(plain.links.some((link) => "copy" in link)).toBe(false);
    const full = exportJson(shelfFor(env, alice), NOW, { withCopies: true });
    const byName = Object.fromEntries(full.links.map((link) => [link.name, link]));
    expect(byName.Kept!.copy).toEqual({ savedAt: "2026-05-03T10:00:00.000Z", html: HTML });
    expect("copy" in byName.Bare!).toBe(false);
  });

  it("come back with an import of that file, with their day", async () => {
    const { env, alice } = await world();
    const file = new TextEncoder().encode(JSON.stringify(exportJson(shelfFor(env, alice), NOW, { withCopies: true })));
    const bob = await createUser(env, { email: "bob@example.test" });
    const bobs = shelfFor(env, bob);
    await importBookmarks(bobs, await readImportFile(file, NOW), NOW);
    const links = bobs.links.list({ sort: "name" }).links;
    expect(links.map((link) => [link.name, link.copy])).toEqual([
      ["Bare", null],
      ["Kept", { savedAt: "2026-05-03T10:00:00.000Z", bytes: new TextEncoder().encode(HTML).byteLength }],
    ]);
    expect(new TextDecoder().decode(copyHtml(bobs.copies.get(links[1]!.id)))).toBe(HTML);
  });

  it("an import whose copies would pass the owner's quota is refused whole", async () => {
    const { env, alice } = await world();
    const file = new TextEncoder().encode(JSON.stringify(exportJson(shelfFor(env, alice), NOW, { withCopies: true })));
    const bob = await createUser(env, { email: "bob@example.test" });
    const cramped = new Shelf(env.db, bob.user, undefined, undefined, 10);
    const before = snapshot(env);
    await expect(importBookmarks(cramped, await readImportFile(file, NOW), NOW)).rejects.toMatchObject({ status: 507, code: "COPY_QUOTA_EXCEEDED" });
    expect(snapshot(env)).toBe(before);
  });
});
