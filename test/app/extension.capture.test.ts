import { beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { ApiError, createClient } from "../../extension/src/api";
import { buildExtension } from "../../extension/build";
import { CONTENT_LIMITS } from "../../src/contract/content-limits";
import { captureTab, cutUtf8, fitContent } from "../../extension/src/content";
import { readPage, textOf } from "../../extension/src/reader";
import { ARTICLE_DROPS, ARTICLE_HTML, ARTICLE_KEEPS } from "../support/capture.fixtures";
import { testDir } from "../support/dirs";
import { APP_ORIGIN, appFetch, FakeScripting } from "../support/extension.fakes";
import { createLink, createUser, get, makeEnv } from "../support/helpers";

const documentOf = (html: string) => parseHTML(html).document;
const utf8 = (text: string) => Buffer.byteLength(text, "utf8");

/** The built extension, whose capture.js the fake tab runs. */
let extension = "";
beforeAll(async () => {
  const out = testDir("extension-capture");
  await buildExtension(out);
  extension = join(out, "chromium");
});

describe("readPage", () => {
  it("reads the article of a page full of navigation, ads and a footer, one line per paragraph, and leaves the page as it was", () => {
    const document = documentOf(ARTICLE_HTML);
    const before = document.documentElement.outerHTML;
    const content = readPage(document);
    expect(content).toMatchObject({ title: "Why Tide Pools Matter | The Coastal Review", excerpt: "A field guide to the small worlds left behind by the tide.", byline: "Mara Oyelaran", lang: "en" });
    for (const phrase of ARTICLE_KEEPS) expect({ phrase, kept: content.text.includes(phrase) }).toEqual({ phrase, kept: true });
    for (const phrase of ARTICLE_DROPS) expect({ phrase, kept: content.text.includes(phrase) }).toEqual({ phrase, kept: false });
    const lines = content.text.split("\n");
    expect(lines).toContain("Small worlds, big lessons");
    expect(lines.some((line) => line.startsWith("Twice a day the sea pulls back") && line.endsWith("their own rules."))).toBe(true);
    expect(lines.every((line) => line !== "" && line === line.replace(/\s+/g, " ").trim())).toBe(true);
    expect(document.documentElement.outerHTML).toBe(before);
  });

  it("reads a page with nothing in it as an empty text, with the document's title and language", () => {
    const content = readPage(documentOf(`<!doctype html><html lang="pt-BR"><head><title> Início </title></head><body> </body></html>`));
    expect(content).toEqual({ title: "Início", text: "", excerpt: null, byline: null, lang: "pt-BR" });
  });
});

describe("textOf", () => {
  it("folds white space inside lines, breaks at blocks, keeps a pre's lines and skips scripts and hidden elements", () => {
    const { document } = parseHTML(
      `<div id="root"><h2>A   title</h2>text <b>bold</b>
       more<ul><li>one</li><li> two </li></ul><pre>line 1
  line 2</pre><script>nope()</script><p hidden>hidden</p><p aria-hidden="true">also hidden</p>a<br>b</div>`,
    );
    expect(textOf(document.getElementById("root")!)).toBe("A title\ntext bold more\none\ntwo\nline 1\nline 2\na\nb");
  });
});

describe("fitContent", () => {
  it("cuts the text to 1 MiB of UTF-8 between characters, and leaves a shorter text whole", () => {
    const emoji = "😀".repeat(300_000); // 1,200,000 bytes
    const fitted = fitContent({ text: emoji });
    expect(utf8(fitted.text)).toBe(CONTENT_LIMITS.textBytes);
    expect(fitted.text).toBe("😀".repeat(CONTENT_LIMITS.textBytes / 4));
    expect(cutUtf8("aé😀", 4)).toBe("aé");
    expect(fitContent({ text: "short" }).text).toBe("short");
  });

  it("keeps the JSON body under the server's 2 MiB when escapes double the text", () => {
    const fitted = fitContent({ text: '"\\'.repeat(600_000), title: "t" });
    expect(utf8(JSON.stringify(fitted))).toBeLessThanOrEqual(CONTENT_LIMITS.bodyBytes);
    expect(fitted.text.length).toBeGreaterThan(900_000);
  });

  it("cuts title, excerpt and byline to their lengths in characters and leaves out a language that is not a tag", () => {
    const fitted = fitContent({ text: "x", title: "😀".repeat(1001), excerpt: "e".repeat(2001), byline: "b".repeat(501), lang: "en_US" });
    expect([...fitted.title!].length).toBe(1000);
    expect(fitted.excerpt!.length).toBe(2000);
    expect(fitted.byline!.length).toBe(500);
    expect(fitted.lang).toBeNull();
    expect(fitContent({ text: "x", lang: "zh-Hant-TW" }).lang).toBe("zh-Hant-TW");
  });
});

describe("captureTab against the real app", () => {
  it("runs the built capture script in the tab and stores its article as the link's browser content", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice, { name: "Tide pools", url: "https://coastal.example/tide-pools" });
    const scripting = new FakeScripting(7, documentOf(ARTICLE_HTML), extension);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    expect(await captureTab({ scripting, client, tabId: 7, linkId: link.id })).toBe("saved");
    expect(scripting.calls).toEqual(["files capture.js", "func"]);
    // The reader lives in the isolated world only.
    expect(Object.keys(scripting.world)).toEqual(["linkshelfReadPage", "linkshelfKeepCopy"]);
    const { status, body } = await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token });
    expect(status).toBe(200);
    expect(body.content).toMatchObject({ source: "browser", byline: "Mara Oyelaran", lang: "en" });
    expect(body.content.text).toContain(ARTICLE_KEEPS[0]);
    expect(body.content.text).not.toContain("Subscribe today");
  });

  it("sends nothing for a page the browser does not let it script, or one without text", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice, { name: "Store", url: "https://chromewebstore.google.com/" });
    const seen: Request[] = [];
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env, seen) });
    const locked = new FakeScripting(7, documentOf(ARTICLE_HTML), extension, false);
    expect(await captureTab({ scripting: locked, client, tabId: 7, linkId: link.id })).toBe("unreadable");
    const blank = new FakeScripting(8, documentOf("<title>Empty</title><body> </body>"), extension);
    expect(await captureTab({ scripting: blank, client, tabId: 8, linkId: link.id })).toBe("unreadable");
    expect(seen).toEqual([]);
    expect((await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token })).status).toBe(404);
  });

  it("passes on a rate limit as the client's ApiError", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const alice = await createUser(env);
    const link = await createLink(env, alice, { name: "Tide pools", url: "https://coastal.example/tide-pools" });
    // Creating the link took the one request a minute allowed.
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const error = await captureTab({ scripting: new FakeScripting(7, documentOf(ARTICLE_HTML), extension), client, tabId: 7, linkId: link.id }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe("rate-limited");
  });
});
