/**
 * The icons and the web app manifest: served for anyone, never rate-limited, of the types and
 * sizes they claim, linked from every page's head, and up to date with the one drawing they are
 * made from (assets/icon.svg, by `npm run icons`). The manifest's share target opens the
 * add-link form filled in from what a phone shares.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../src/auth/sessions";
import { SESSION_COOKIE } from "../../src/auth/sessions";
import { ASSET_PATHS } from "../../src/assets/asset-routes";
import { sharedLink } from "../../src/web/links";
import { EXTENSION_ICON_DIR, EXTENSION_SIZES, FAVICON, FAVICON_SIZES, ICON_DIR, SIZES, SOURCE, SOURCE_HASH, sourceHash } from "../../scripts/icons";
import { REPO_ROOT } from "../support/binary";
import { createUser, get, makeEnv, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { icoImages, pngSize } from "../support/icons";

const bytesOf = async (env: TestEnv, path: string, headers: Record<string, string> = {}) => {
  const response = await env.app.handle(new Request(`http://localhost${path}`, { headers }));
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
};
const sessionOf = (env: TestEnv, as: TestUser) => `${SESSION_COOKIE}=${createSession(env.db, as.user.id, env.clock.now).id}`;

describe("the icons", () => {
  it("serves /favicon.ico as an ICO holding 16, 32 and 48 px PNG images", async () => {
    const { response, bytes } = await bytesOf(makeEnv(), "/favicon.ico");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/x-icon");
    const images = icoImages(bytes);
    expect(images.map((image) => [image.width, image.height, image.bitsPerPixel])).toEqual([[16, 16, 32], [32, 32, 32], [48, 48, 32]]);
    for (const image of images) expect(pngSize(image.bytes)).toEqual({ width: image.width, height: image.height });
  });

  it("serves the drawing as /icon.svg and the 180, 192 and 512 px PNGs", async () => {
    const env = makeEnv();
    const svg = await bytesOf(env, "/icon.svg");
    expect(svg.response.status).toBe(200);
    expect(svg.response.headers.get("content-type")).toBe("image/svg+xml");
    expect(Buffer.from(svg.bytes).equals(readFileSync(SOURCE))).toBe(true);
    for (const size of [180, 192, 512]) {
      const { response, bytes } = await bytesOf(env, `/icons/icon-${size}.png`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(pngSize(bytes)).toEqual({ width: size, height: size });
    }
    expect((await get(env, "/icons/icon-64.png")).status).toBe(404);
  });

  it("lets browsers cache them for a day and revalidate with the ETag", async () => {
    const env = makeEnv();
    for (const path of ASSET_PATHS) {
      const first = await bytesOf(env, path);
      expect(first.response.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(first.response.headers.get("x-content-type-options")).toBe("nosniff");
      const etag = first.response.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const again = await bytesOf(env, path, { "if-none-match": `W/${etag}` });
      expect({ path, status: again.response.status, length: again.bytes.length }).toEqual({ path, status: 304, length: 0 });
      expect((await bytesOf(env, path, { "if-none-match": '"something-else"' })).response.status).toBe(200);
    }
  });

  it("are public and never rate-limited, with or without credentials, and change nothing", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const user = await createUser(env);
    const before = snapshot(env);
    const credentials: Record<string, string>[] = [{}, { authorization: "Bearer nonsense" }, { authorization: `Bearer ${user.token}` }, { cookie: sessionOf(env, user) }];
    const afterSession = snapshot(env);
    for (const path of ASSET_PATHS) {
      for (const headers of credentials) {
        for (let i = 0; i < 3; i++) {
          const { response } = await bytesOf(env, path, headers);
          expect({ path, status: response.status }).toEqual({ path, status: 200 });
          expect(response.headers.get("ratelimit-limit")).toBeNull();
        }
      }
    }
    expect(before).not.toBe(afterSession);
    expect(snapshot(env)).toBe(afterSession);
    // The limiter is on, and the user's bucket is untouched by all of the above.
    expect((await get(env, "/api/v1/collections", { token: user.token })).headers.get("ratelimit-remaining")).toBe("0");
  });

  it("are up to date with the drawing: its hash is the one recorded by npm run icons, and every output has its size", () => {
    const [recorded] = readFileSync(SOURCE_HASH, "utf8").split(/\s+/);
    expect(recorded).toBe(sourceHash(readFileSync(SOURCE)));
    for (const size of SIZES) expect(pngSize(readFileSync(join(ICON_DIR, `icon-${size}.png`)))).toEqual({ width: size, height: size });
    // The extension's toolbar icons and the ICO's images are the same renderings, byte for byte.
    for (const size of EXTENSION_SIZES) {
      expect(readFileSync(join(EXTENSION_ICON_DIR, `icon-${size}.png`)).equals(readFileSync(join(ICON_DIR, `icon-${size}.png`)))).toBe(true);
    }
    const images = icoImages(new Uint8Array(readFileSync(FAVICON)));
    expect(images.map((image) => Buffer.from(image.bytes).equals(readFileSync(join(ICON_DIR, `icon-${image.width}.png`))))).toEqual(FAVICON_SIZES.map(() => true));
    expect(SOURCE.startsWith(REPO_ROOT)).toBe(true);
  });

  it("are linked from the head of the sign-in page and of the signed-in pages", async () => {
    const env = makeEnv();
    const user = await createUser(env);
    const pages = [await get(env, "/login"), await get(env, "/links/new", { headers: { cookie: sessionOf(env, user) } })];
    for (const page of pages) {
      expect(page.status).toBe(200);
      const head = page.text.slice(0, page.text.indexOf("</head>"));
      expect(head).toContain('<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">');
      expect(head).toContain('<link rel="icon" href="/icon.svg" type="image/svg+xml">');
      expect(head).toContain('<link rel="apple-touch-icon" href="/icons/icon-180.png">');
      expect(head).toContain('<link rel="manifest" href="/manifest.webmanifest">');
      expect(head).toContain('<meta name="theme-color" content="#2f5bd3">');
      expect(page.headers.get("content-security-policy")).toContain("manifest-src 'self'");
    }
  });
});

describe("the web app manifest", () => {
  it("names the app, starts at /, runs standalone and lists icons that are served as declared", async () => {
    const env = makeEnv();
    const { response, bytes } = await bytesOf(env, "/manifest.webmanifest");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/manifest+json");
    const manifest = JSON.parse(new TextDecoder().decode(bytes));
    expect(manifest).toMatchObject({ name: "linkshelf", short_name: "linkshelf", start_url: "/", scope: "/", display: "standalone", theme_color: "#2f5bd3" });
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
    const sizes = manifest.icons.map((icon: { sizes: string }) => icon.sizes);
    expect(sizes).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    for (const icon of manifest.icons as { src: string; sizes: string; type: string }[]) {
      const served = await bytesOf(env, icon.src);
      expect({ src: icon.src, status: served.response.status, type: served.response.headers.get("content-type") }).toEqual({ src: icon.src, status: 200, type: icon.type });
      if (icon.type === "image/png") {
        const [width, height] = icon.sizes.split("x").map(Number);
        expect(pngSize(served.bytes)).toEqual({ width: width!, height: height! });
      }
    }
  });

  it("has a share target: GET /links/new with title, text and url", async () => {
    const manifest = (await get(makeEnv(), "/manifest.webmanifest")).body as { share_target: unknown };
    expect(manifest.share_target).toEqual({
      action: "/links/new", method: "GET", enctype: "application/x-www-form-urlencoded", params: { title: "title", text: "text", url: "url" },
    });
  });
});

describe("sharing to linkshelf from a phone", () => {
  it.each([
    ["url and title", { title: "A page", url: "https://example.com/a?b=1" }, { name: "A page", url: "https://example.com/a?b=1" }],
    ["the URL inside text (Android), the title beside it", { title: "A page", text: "Look: https://example.com/x?y=1#z", url: "" }, { name: "A page", url: "https://example.com/x?y=1#z" }],
    ["text only: the URL from it, the rest as the name", { text: "Some article https://example.com/post." }, { name: "Some article", url: "https://example.com/post" }],
    ["the first http(s) URL of several", { text: "ftp://no.example/ then http://one.example/1 and https://two.example/2" }, { name: "ftp://no.example/ then and https://two.example/2", url: "http://one.example/1" }],
    ["a URL with parentheses keeps its closing one", { text: "https://en.wikipedia.org/wiki/Bun_(software)" }, { name: "", url: "https://en.wikipedia.org/wiki/Bun_(software)" }],
    ["a url that is not http(s) is not taken", { title: "x", url: "javascript:alert(1)" }, { name: "x", url: "" }],
    ["nothing shared", {}, { name: "", url: "" }],
  ])("reads %s", (_, query, expected) => {
    expect(sharedLink(query)).toEqual(expected);
  });

  it("opens the add-link form with the shared URL and name filled in, escaped, and stores nothing yet", async () => {
    const env = makeEnv();
    const user = await createUser(env);
    const before = snapshot(env);
    const params = new URLSearchParams({ title: 'Quotes "and" <tags>', text: "see https://example.com/shared?a=1&b=2", url: "" });
    const page = await get(env, `/links/new?${params}`, { headers: { cookie: sessionOf(env, user) } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<input[^>]*name="url"[^>]*value="https:\/\/example\.com\/shared\?a=1&amp;b=2"/);
    expect(page.text).toMatch(/<input[^>]*name="name"[^>]*value="Quotes &quot;and&quot; &lt;tags&gt;"/);
    expect(page.text).not.toContain("<tags>");
    // Only the session's own row moved (its creation); no link was stored.
    expect(JSON.parse(snapshot(env)).links).toEqual(JSON.parse(before).links);
  });

  it("signed out, goes through the sign-in and comes back to the filled form", async () => {
    const env = makeEnv();
    const user = await createUser(env);
    const shared = `/links/new?${new URLSearchParams({ title: "Later", text: "", url: "https://example.com/later" })}`;
    const first = await get(env, shared);
    expect(first.status).toBe(303);
    const login = first.headers.get("location")!;
    expect(login).toBe(`/login?next=${encodeURIComponent(shared)}`);
    const form = await get(env, login);
    expect(form.text).toContain(`name="next" value="${shared.replaceAll("&", "&amp;")}"`);

    const signedIn = await env.app.handle(new Request("http://localhost/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: user.user.email, password: user.password, next: shared }).toString(),
    }));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(shared);
    const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`))!.split(";")[0]!;
    const page = await get(env, shared, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/name="url"[^>]*value="https:\/\/example\.com\/later"/);
    expect(page.text).toMatch(/name="name"[^>]*value="Later"/);
  });
});
