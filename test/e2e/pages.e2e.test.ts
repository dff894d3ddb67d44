import { describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/db/schema";
import { createUser } from "../../src/users/service";
import { answeredStatus, browserForFile, checkLooks, keepLocal, type ContextOptions, openInPage } from "../support/browser";
import { Shelf } from "../../src/shelf/shelf";

const EMAIL = "reader@example.test";
const PASSWORD = "correct horse battery";
const TIMEOUT_MS = 90_000;

let owner: UserRow | undefined;

const e2e = browserForFile({
  setUp: async (server) => {
    owner = await createUser(server.db, { email: EMAIL, name: "Robin Reader", password: PASSWORD }, Date.now());
  },
});

const linkRows = () => e2e.server.db.$client.query("SELECT id, name, url, favorite, clicks FROM links ORDER BY id").all() as
  { id: number; name: string; url: string; favorite: number; clicks: number }[];

/** signedInContext is a browser whose session cookie was made directly (the sign-in form has its own test). */
const signedInContext = (user: UserRow, options: ContextOptions = {}) => e2e.signedInContext(user, options);

interface FeedSummary {
  error: string | null;
  root: string;
  title?: string;
  subtitle?: string;
  author?: string;
  updated?: string;
  entries: { id?: string; title?: string; href?: string | null; summary: string | null; updated?: string }[];
}

/** Runs in the page: Chromium's own XML parser reads the feed; a well-formedness error shows up as <parsererror>. */
const PARSE_ATOM = `(text) => {
  const ATOM = "http://www.w3.org/2005/Atom";
  const doc = new DOMParser().parseFromString(text, "application/xml");
  const child = (parent, name) => [...parent.children].find((element) => element.localName === name && element.namespaceURI === ATOM);
  const root = doc.documentElement;
  return {
    error: doc.getElementsByTagName("parsererror")[0]?.textContent ?? null,
    root: root.namespaceURI + " " + root.localName,
    title: child(root, "title")?.textContent,
    subtitle: child(root, "subtitle")?.textContent,
    author: child(root, "author")?.textContent,
    updated: child(root, "updated")?.textContent,
    entries: [...root.children].filter((element) => element.localName === "entry").map((entry) => ({
      id: child(entry, "id")?.textContent,
      title: child(entry, "title")?.textContent,
      href: child(entry, "link")?.getAttribute("href"),
      summary: child(entry, "summary")?.textContent ?? null,
      updated: child(entry, "updated")?.textContent,
    })),
  };
}`;

describe.skipIf(!e2e.present)("the web pages in Chromium", () => {
  it("signs in, creates a collection and a link, favors, finds, opens, edits and deletes it", async () => {
    const { origin } = e2e.server;
    const context = await (await e2e.browser).newContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, origin);

      await page.goto(`${origin}/`);
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await Promise.all([page.waitForURL(`${origin}/`), page.getByRole("button", { name: "Sign in" }).click()]);
      await expect(page.locator("#list-heading").textContent()).resolves.toContain("Inbox");

      // A collection with an emoji icon, public.
      await page.getByRole("link", { name: "+ New collection" }).click();
      await page.getByLabel("Name", { exact: true }).fill("Reading list");
      await page.getByLabel("Icon").fill("📚");
      await page.getByRole("radio", { name: /^Public/ }).check();
      await page.getByRole("button", { name: "Create collection" }).click();
      expect(await page.getByRole("status").textContent()).toBe("Collection created.");
      const sidebar = page.getByRole("navigation", { name: "Collections" });
      await expect(sidebar.getByRole("link", { name: /Reading list/ }).textContent()).resolves.toContain("📚");
      await expect(page.locator("#list-heading").textContent()).resolves.toContain("Reading list");

      // A link: first refused (the API's message beside the field, what was typed kept), then saved.
      await page.getByRole("link", { name: "Add link" }).click();
      await page.getByLabel("Name (optional)").fill("Health check");
      await page.getByLabel("URL").fill("javascript:alert(1)");
      await page.getByLabel("Description (optional)").fill("The zebra endpoint");
      expect(await answeredStatus(page, () => page.getByRole("button", { name: "Add link" }).click())).toBe(422);
      await expect(page.locator("#url-error").textContent()).resolves.toBe("Expected an absolute http or https URL of at most 2048 characters");
      expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("Name (optional)").inputValue()).toBe("Health check");
      expect(await page.getByLabel("Description (optional)").inputValue()).toBe("The zebra endpoint");
      expect(await page.getByRole("checkbox", { name: /Reading list/ }).isChecked()).toBe(true);
      expect(linkRows()).toEqual([]);
      await page.getByLabel("URL").fill(`${origin}/healthz`);
      await page.getByRole("button", { name: "Add link" }).click();
      expect(await page.getByRole("status").textContent()).toBe("Link added.");
      expect(page.url()).toStartWith(`${origin}/?collection=`);
      await expect(page.locator(".links .title").allTextContents()).resolves.toEqual(["Health check"]);

      // Favorite, then the favorites view.
      const star = page.getByRole("button", { name: "Favorite: Health check" });
      expect(await star.getAttribute("aria-pressed")).toBe("false");
      await star.click();
      await page.waitForLoadState();
      expect(await page.getByRole("button", { name: "Favorite: Health check" }).getAttribute("aria-pressed")).toBe("true");
      expect(linkRows()[0]!.favorite).toBe(1);
      await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Favorites" }).click();
      await expect(page.locator(".links .title").allTextContents()).resolves.toEqual(["Health check"]);

      // Search by a word of the description.
      await page.getByLabel("Search links").fill("zebra");
      await page.getByLabel("Search links").press("Enter");
      await page.waitForURL((url) => url.searchParams.get("q") === "zebra");
      await expect(page.locator(".links .title").allTextContents()).resolves.toEqual(["Health check"]);

      // Open it through the page: /l/:id counts the click.
      const results = page.url();
      await Promise.all([page.waitForURL(`${origin}/healthz`), page.getByRole("link", { name: "Health check", exact: true }).click()]);
      expect(await page.textContent("body")).toContain('"status":"ok"');
      expect(linkRows()[0]!.clicks).toBe(1);
      // Back to the results, loaded anew (navigated from the page: see openInPage).
      await openInPage(page, results);
      await expect(page.locator(".links .meta").first().textContent()).resolves.toContain("1 click ·");

      // Edit it.
      await page.getByRole("link", { name: "Edit Health check" }).click();
      expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Health check");
      await page.getByLabel("Name", { exact: true }).fill("Server health");
      await page.getByRole("button", { name: "Save link" }).click();
      expect(await page.getByRole("status").textContent()).toBe("Link saved.");
      await expect(page.locator(".links .title").allTextContents()).resolves.toEqual(["Server health"]);
      expect(linkRows()[0]).toMatchObject({ name: "Server health", favorite: 1, clicks: 1 });

      // Delete it, through the confirmation form.
      await page.getByRole("link", { name: "Edit Server health" }).click();
      await page.getByRole("link", { name: "Delete link…" }).click();
      await expect(page.locator("h1").textContent()).resolves.toBe("Delete this link?");
      expect(linkRows()).toHaveLength(1);
      await page.getByRole("button", { name: "Delete link" }).click();
      expect(await page.getByRole("status").textContent()).toBe("Link moved to the Trash, where you can restore it.");
      expect(linkRows()).toEqual([]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("creates a token shown once with a copy button, which works on the API, and revokes it", async () => {
    const { origin } = e2e.server;
    const context = await signedInContext(owner!);
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      const page = await context.newPage();
      await keepLocal(page, origin);
      await page.goto(`${origin}/account`);
      await page.getByLabel("New token's name").fill("laptop script");
      await page.getByRole("button", { name: "Create token" }).click();
      const token = await page.getByLabel("New API token").inputValue();
      expect(token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);
      const copy = page.getByRole("button", { name: "Copy" });
      expect(await copy.isVisible()).toBe(true);
      await copy.click();
      await page.waitForFunction('document.getElementById("new-token-status").textContent !== ""');
      await expect(page.locator("#new-token-status").textContent()).resolves.toBe("Copied.");
      expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(token);
      expect((await fetch(`${origin}/api/v1/links`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

      // Shown once: a reload no longer has it.
      await openInPage(page, page.url());
      expect(await page.getByLabel("New API token").count()).toBe(0);
      expect(await page.content()).not.toContain(token);

      await page.getByRole("button", { name: "Revoke laptop script" }).click();
      expect(await page.getByRole("status").first().textContent()).toBe("Token revoked.");
      expect(await page.getByRole("button", { name: "Revoke laptop script" }).count()).toBe(0);
      expect((await fetch(`${origin}/api/v1/links`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("works without JavaScript and from the keyboard: skip link first, delete through the confirmation form, restore from the Trash", async () => {
    const { db, origin } = e2e.server;
    const user = await createUser(db, { email: "nojs@example.test", name: "No Script", password: PASSWORD }, Date.now());
    const link = new Shelf(db, user).links.create({ name: "Keyboard only", url: `${origin}/healthz`, favorite: false }, Date.now());
    const context = await signedInContext(user, { javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await keepLocal(page, origin);
      await page.goto(`${origin}/`);
      await page.keyboard.press("Tab");
      expect(await page.evaluate<string | null>("document.activeElement.textContent")).toBe("Skip to content");
      expect(await page.evaluate<string | null>("document.activeElement.getAttribute('href')")).toBe("#main");

      await page.getByRole("link", { name: "Edit Keyboard only" }).focus();
      await page.keyboard.press("Enter");
      await page.waitForURL(`${origin}/links/${link.id}/edit`);
      await page.getByRole("link", { name: "Delete link…" }).focus();
      await page.keyboard.press("Enter");
      await page.waitForURL((url) => url.pathname === `/links/${link.id}/delete`);
      await page.getByRole("button", { name: "Delete link" }).focus();
      await page.keyboard.press("Enter");
      expect(await page.getByRole("status").textContent()).toBe("Link moved to the Trash, where you can restore it.");
      expect(linkRows().some((row) => row.id === link.id)).toBe(false);

      // Back from the Trash, through its Restore button.
      await page.getByRole("status").getByRole("link", { name: "Trash" }).focus();
      await page.keyboard.press("Enter");
      await page.waitForURL(`${origin}/trash`);
      await page.getByRole("button", { name: "Restore Keyboard only" }).focus();
      await page.keyboard.press("Enter");
      await page.waitForURL(`${origin}/trash?done=trash-restored`);
      expect(linkRows().some((row) => row.id === link.id)).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("serves a public collection's Atom feed that Chromium's XML parser reads whole, escaping intact", async () => {
    const { db, origin } = e2e.server;
    const user = await createUser(db, { email: "feed@example.test", name: "Fay <Feed> & Co", password: PASSWORD }, Date.now());
    const now = Date.now();
    const shared = new Shelf(db, user).collections.create({ name: "Tom & \"Jerry\" <3 ]]>", visibility: "PUBLIC", description: "it's <b>bold</b>" }, now);
    const names = ["bell\u0007 <script>alert(1)</script>", "Plain", "5 > 3 & 'quotes' 🎉"];
    const storable = (name: string) => name.replace("\u0007", "");
    names.forEach((name, i) => new Shelf(db, user).links.create({ name: storable(name), url: `https://x${i}.localhost/?a=1&b=2`, description: i === 0 ? "&amp; stays literal" : "", favorite: false, collectionIds: [shared.id] }, now + i));
    // Names refuse control characters now; one stored before that rule still must not break the XML.
    db.$client.run("UPDATE links SET name = ? WHERE user_id = ? AND name = ?", [names[0]!, user.id, storable(names[0]!)]);
    const response = await fetch(`${origin}/c/${shared.id}/feed`);
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();

    const context = await (await e2e.browser).newContext();
    try {
      const page = await context.newPage();
      const parsed = await page.evaluate<FeedSummary>(`(${PARSE_ATOM})(${JSON.stringify(xml)})`);
      expect(parsed.error).toBeNull();
      expect(parsed.root).toBe("http://www.w3.org/2005/Atom feed");
      expect(parsed.title).toBe("Tom & \"Jerry\" <3 ]]>");
      expect(parsed.subtitle).toBe("it's <b>bold</b>");
      expect(parsed.author).toBe("Fay <Feed> & Co");
      expect(parsed.updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const ids = linkRows().filter((row) => row.url.includes(".localhost/?a=1")).map((row) => row.id);
      expect(parsed.entries).toEqual([...ids].reverse().map((id, i) => ({
        id: `${origin}/l/${id}`,
        title: [names[2], names[1], "bell <script>alert(1)</script>"][i],
        href: `${origin}/l/${id}`,
        summary: i === 2 ? "&amp; stays literal" : null,
        updated: expect.stringMatching(/Z$/),
      })));
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("renders home, edit, account and the trash on a phone and a desktop, light and dark (screenshots)", async () => {
    const { db, origin } = e2e.server;
    const user = await createUser(db, { email: "shots@example.test", name: "Sam Shots", password: PASSWORD }, Date.now());
    const now = Date.now();
    const reading = new Shelf(db, user).collections.create({ name: "Reading", visibility: "PUBLIC", icon: "📚", description: "Long reads for the weekend" }, now);
    new Shelf(db, user).collections.create({ name: "Music", visibility: "PRIVATE", icon: "🎵" }, now);
    new Shelf(db, user).collections.create({ name: "A collection with a rather long name indeed", visibility: "PRIVATE", icon: "🧪" }, now);
    const samples = [
      { name: "SQLite documentation", url: "https://sqlite.localhost/docs.html", description: "The file format, the query planner and WAL mode.", favorite: true },
      { name: "Bun runtime", url: "https://bun.localhost/", description: "", favorite: true },
      { name: "A very long link name that goes on and on to see how the list wraps it on a phone", url: "https://long.localhost/a/very/long/path/that/does/not/fit/anywhere?with=query&and=more", description: "Some description text that is also fairly long, to see how it wraps under the name.", favorite: false },
      { name: "Elysia", url: "http://elysia.localhost:8080/", description: "Web framework", favorite: false },
    ];
    const ids = samples.map((sample, i) => new Shelf(db, user).links.create({ ...sample, collectionIds: [reading.id] }, now + i).id);
    db.$client.run("UPDATE links SET clicks = 12, last_clicked_at = ?1 WHERE id = ?2", [now, ids[0]!]);
    db.$client.run("UPDATE links SET clicks = 3, last_clicked_at = ?1 WHERE id = ?2", [now - 86_400_000, ids[1]!]);
    const archive = new Shelf(db, user).collections.create({ name: "Archive", visibility: "PRIVATE", icon: "🗄️" }, now);
    new Shelf(db, user).links.create({ name: "Old news", url: "https://news.localhost/", favorite: false, collectionIds: [archive.id] }, now);
    new Shelf(db, user).collections.delete(archive.id, now, true);
    const gone = new Shelf(db, user).links.create({ name: "A link deleted yesterday, with a name long enough to wrap on a phone", url: "https://gone.localhost/", favorite: false }, now);
    new Shelf(db, user).links.delete(gone.id, now - 86_400_000);
    new Shelf(db, user).tokens.create("Browser extension", now);
    new Shelf(db, user).tokens.create("laptop script", now);

    const pages: Record<string, (page: Page) => Promise<unknown>> = {
      home: (page) => page.goto(`${origin}/?collection=${reading.id}`),
      edit: (page) => page.goto(`${origin}/links/${ids[0]}/edit`),
      "edit-refused": async (page) => {
        await page.goto(`${origin}/links/${ids[0]}/edit`);
        await page.getByLabel("Name", { exact: true }).fill("");
        await page.getByLabel("URL").fill("ftp://files.localhost/");
        await page.getByRole("button", { name: "Save link" }).click();
        await page.waitForSelector(".field-error");
      },
      account: (page) => page.goto(`${origin}/account`),
      "account-new-token": async (page) => {
        await page.goto(`${origin}/account`);
        await page.getByLabel("New token's name").fill("phone shortcut");
        await page.getByRole("button", { name: "Create token" }).click();
        await page.waitForSelector("#new-token");
      },
      trash: (page) => page.goto(`${origin}/trash`),
      public: (page) => page.goto(`${origin}/c/${reading.id}`),
    };
    const checked = await checkLooks("page-screenshots", (options) => signedInContext(user, options), async (page, check) => {
      await keepLocal(page, origin);
      for (const [name, open] of Object.entries(pages)) {
        await open(page);
        await check(name);
      }
    });
    expect(checked).toHaveLength(4 * Object.keys(pages).length);
  }, TIMEOUT_MS);
});
