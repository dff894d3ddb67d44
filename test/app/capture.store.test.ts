/**
 * The background capture joined to the shelf: a fetched page becomes the link's saved content
 * (source "server"), searchable at once, fitted to the content's rules, and never in place of
 * what the browser extension captured. Pages come from a fake origin on 127.0.0.1.
 */
import { describe, expect, it } from "bun:test";
import { fitted, storeFetchedContent } from "../../src/capture/store";
import { ContentFetcher, createContentCapture } from "../../src/capture/fetcher";
import { loadConfig } from "../../src/common/config";
import { htmlPage } from "../support/capture.fixtures";
import { FAKE_PUBLIC, mappedConnect, resolverOf, stoppedAfterEach } from "../support/favicon.fixtures";
import { createLink, createUser, get, makeEnv, put, type TestEnv } from "../support/helpers";

const { origin, worker } = stoppedAfterEach<ContentFetcher>();

/** An app whose capture reaches a fake origin and stores through the real store. */
async function world(pages: Record<string, () => Response>) {
  const site = origin(pages);
  const vars = { LINKSHELF_RATE_LIMIT: "off" };
  let env: TestEnv | undefined;
  const capture = createContentCapture({ config: loadConfig({}, vars), clock: Date.now, log: () => undefined },
    (...args) => storeFetchedContent(env!.db)(...args),
    { resolve: resolverOf({ "site.test": [FAKE_PUBLIC] }), connect: mappedConnect(), hostSpacingMillis: 0 });
  if (!(capture instanceof ContentFetcher)) throw new Error("the capture is on by default");
  worker(capture);
  env = makeEnv(vars, { capture });
  return { env, base: `http://site.test:${site.port}`, capture, alice: await createUser(env) };
}

describe("a fetched page", () => {
  it("is saved as the link's content from the server, and found by a word of its text", async () => {
    const w = await world({ "/tides": () => htmlPage("Tide Tables", "The estuary floods twice daily.") });
    const link = await createLink(w.env, w.alice, { name: "Tides", url: `${w.base}/tides` });
    await w.capture.whenIdle();
    const content = await get(w.env, `/api/v1/links/${link.id}/content`, { token: w.alice.token });
    expect(content.status).toBe(200);
    expect(content.body.content).toMatchObject({ linkId: link.id, title: "Tide Tables", source: "server" });
    expect(content.body.content.text).toContain("The estuary floods twice daily.");
    const found = await get(w.env, "/api/v1/search?q=estuary", { token: w.alice.token });
    expect(found.body.hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([link.id]);
  });

  it("never replaces what the browser extension captured", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const w = await world({ "/slow": () => held.then(() => htmlPage("Server Title", "Server text.")) as unknown as Response });
    const link = await createLink(w.env, w.alice, { name: "Slow", url: `${w.base}/slow` });
    const saved = await put(w.env, `/api/v1/links/${link.id}/content`, { token: w.alice.token, body: { text: "Browser text.", title: "Browser Title" } });
    expect(saved.status).toBe(200);
    release();
    await w.capture.whenIdle();
    const content = await get(w.env, `/api/v1/links/${link.id}/content`, { token: w.alice.token });
    expect(content.body.content).toMatchObject({ title: "Browser Title", text: "Browser text.", source: "browser" });
  });
});

describe("fitted", () => {
  it("cuts what a page says to the content's limits and leaves out a language that is no language tag", () => {
    const page = { text: "t", title: "é".repeat(1001), excerpt: "x".repeat(2001), byline: "b".repeat(501), lang: "not a tag" };
    expect(fitted(page)).toEqual({ text: "t", title: "é".repeat(1000), excerpt: "x".repeat(2000), byline: "b".repeat(500), lang: "" });
    expect(fitted({ ...page, lang: "pt-BR" }).lang).toBe("pt-BR");
    expect(fitted({ ...page, lang: "a".repeat(36) }).lang).toBe("");
  });
});
