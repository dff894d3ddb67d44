/**
 * The "Link health" page through `app.handle`: broken and moved links with their evidence and
 * actions (use the new URL, archived copy, check now, ignore, delete), the count in the
 * navigation, and the broken mark in the home and search lists. No JavaScript needed: plain
 * links and forms.
 */
import { describe, expect, it } from "bun:test";
import type { Probe } from "../../src/shelf/link-checks";
import { recordCheck } from "../../src/shelf/link-checks";
import { createUser, makeEnv, shelfFor, snapshot, type TestEnv } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

const DAY = 86_400_000;
const gone: Probe = { outcome: "gone", status: 404, detail: "HTTP 404" };

async function world() {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  const shelf = shelfFor(env, alice);
  const add = (name: string, url: string) => shelf.links.create({ name, url, favorite: false }, env.clock.now++);
  return { env, alice, bob, shelf, add, aliceCookie: cookieFor(env, alice), bobCookie: cookieFor(env, bob) };
}

/** breakLink records three 404s over eight days. */
function breakLink(env: TestEnv, id: number) {
  for (const day of [9, 5, 1]) recordCheck(env.db, id, gone, env.clock.now - day * DAY, env.config.linkCheck);
}

function moveLink(env: TestEnv, id: number, to: string) {
  recordCheck(env.db, id, { outcome: "moved", status: 200, detail: `moved permanently to ${to}`, movedTo: to }, env.clock.now - DAY, env.config.linkCheck);
}

describe("the link health page", () => {
  it("lists broken links with their evidence and actions, and moved links with their new URL", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    const moved = w.add("Moved docs", "https://old.example/docs");
    w.add("Fine", "https://fine.example/");
    breakLink(w.env, dead.id);
    moveLink(w.env, moved.id, "https://new.example/docs");
    const page = await open(w.env, "/health", w.aliceCookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "#main h2")).toEqual(["Broken (1)", "Moved (1)", "Ignored (0)"]);
    expect(texts(page.text, "#main .links .title")).toEqual(["Dead post", "Moved docs"]);
    const facts = texts(page.text, ".evidence dt").map((term, i) => `${term}: ${texts(page.text, ".evidence dd")[i]}`);
    expect(facts.slice(0, 4)).toEqual(["Last result: HTTP 404", expect.stringMatching(/^Failing since: /), expect.stringMatching(/^Last check: /), "Tries: 3 failed in a row"]);
    const hrefs = attributes(page.text, ".health-actions a").map((a) => a.href);
    expect(hrefs).toContain("https://web.archive.org/web/2/https://dead.example/post");
    expect(hrefs).toContain(`/links/${dead.id}/delete?next=%2Fhealth`);
    const actions = attributes(page.text, ".health-actions form").map((form) => form.action);
    expect(actions).toEqual([
      `/health/${dead.id}/check`, `/health/${dead.id}/ignore`,
      `/health/${moved.id}/use-new-url`, `/health/${moved.id}/check`, `/health/${moved.id}/ignore`,
    ]);
    expect(page.text).toContain("https://new.example/docs");
    // No script of its own: only the keyboard shortcuts every signed-in page loads.
    expect(page.text.match(/<script[^>]*>/gi)).toEqual(['<script src="/assets/shortcuts.js" defer>']);
    expect(texts(page.text, "#main .hint")[0]).toStartWith("The server checks each link about every 7 days.");
  });

  it.each([
    [{}, "The server checks each link about every 7 days. A link is called broken after 3 failures over 7 days, with no success in between; one success clears it."],
    [{ LINKSHELF_LINK_CHECK: "2s", LINKSHELF_LINK_CHECK_CONFIRM: "3/0s" }, "The server checks each link about every 2 seconds. A link is called broken after 3 failures in a row; one success clears it."],
    [{ LINKSHELF_LINK_CHECK: "1d", LINKSHELF_LINK_CHECK_CONFIRM: "1/0s" }, "The server checks each link about every day. A link is called broken after its first failure; one success clears it."],
    [{ LINKSHELF_LINK_CHECK: "12h", LINKSHELF_LINK_CHECK_CONFIRM: "2/1d" }, "The server checks each link about every 12 hours. A link is called broken after 2 failures over 1 day, with no success in between; one success clears it."],
    [{ LINKSHELF_LINK_CHECK: "90m", LINKSHELF_LINK_CHECK_CONFIRM: "1/7d" }, "The server checks each link about every 90 minutes. A link is called broken after failing for 7 days, with no success in between; one success clears it."],
    [{ LINKSHELF_LINK_CHECK: "off", LINKSHELF_LINK_CHECK_CONFIRM: "5/36h" }, "The server checks no links in the background (LINKSHELF_LINK_CHECK=off); “Check now” still checks one. A link is called broken after 5 failures over 36 hours, with no success in between; one success clears it."],
  ] as [Record<string, string>, string][])("says the rule in force in its header: %o", async (settings, hint) => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off", ...settings });
    const alice = await createUser(env);
    expect(texts((await open(env, "/health", cookieFor(env, alice))).text, "#main .hint")).toEqual([hint]);
  });

  it("dates its evidence to the minute, in UTC, with the full instant in the markup", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    for (const at of ["2026-11-12T09:05:59.999Z", "2026-11-16T23:59:00.000Z", "2026-11-21T14:03:30.000Z"]) {
      recordCheck(w.env.db, dead.id, gone, Date.parse(at), w.env.config.linkCheck);
    }
    const page = await open(w.env, "/health", w.aliceCookie);
    const facts = texts(page.text, ".evidence dt").map((term, i) => `${term}: ${texts(page.text, ".evidence dd")[i]}`);
    expect(facts).toEqual(["Last result: HTTP 404", "Failing since: 2026-11-12 09:05 UTC", "Last check: 2026-11-21 14:03 UTC", "Tries: 3 failed in a row"]);
    expect(attributes(page.text, ".evidence time").map((time) => time.datetime)).toEqual(["2026-11-12T09:05:59.999Z", "2026-11-21T14:03:30.000Z"]);
  });

  it("shows the broken count in the navigation of every signed-in page, error pages too, and marks broken links in the home and search lists", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    w.add("Fine post", "https://fine.example/post");
    breakLink(w.env, dead.id);
    const signedInPages = ["/", "/search?q=post", "/health", "/account", "/links/new", `/links/${dead.id}`, `/links/${dead.id}/edit`,
      `/links/${dead.id}/delete`, "/collections/new", "/import", "/links/999999"];
    for (const path of signedInPages) {
      const page = await open(w.env, path, w.aliceCookie);
      expect([path, texts(page.text, "nav[aria-label=Account] a[href='/health']")]).toEqual([path, ["Link health 1"]]);
    }
    for (const path of ["/", "/search?q=post"]) {
      const page = await open(w.env, path, w.aliceCookie);
      expect([path, texts(page.text, "#main .links li .badge.broken")]).toEqual([path, ["⚠ broken"]]);
    }
    const other = await open(w.env, "/", w.bobCookie);
    expect(texts(other.text, "nav[aria-label=Account] a[href='/health']")).toEqual(["Link health"]);
  });

  it("uses a moved link's new URL through the shelf, and forgets what was found at the old one", async () => {
    const w = await world();
    const moved = w.add("Moved docs", "https://old.example/docs");
    moveLink(w.env, moved.id, "https://new.example/docs");
    const answer = await submit(w.env, `/health/${moved.id}/use-new-url`, {}, w.aliceCookie);
    expect([answer.status, answer.headers.get("location")]).toEqual([303, "/health?done=link-moved"]);
    expect(w.shelf.links.get(moved.id).url).toBe("https://new.example/docs");
    expect(w.shelf.health.list("moved")).toEqual([]);
  });

  it("ignores a link from its form, and checks one now (this app checks nothing, so: not checked)", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    breakLink(w.env, dead.id);
    const ignored = await submit(w.env, `/health/${dead.id}/ignore`, {}, w.aliceCookie);
    expect(ignored.headers.get("location")).toBe("/health?done=link-ignored");
    expect(texts((await open(w.env, "/health", w.aliceCookie)).text, "#main h2")).toEqual(["Broken (0)", "Moved (0)", "Ignored (1)"]);
    const checked = await submit(w.env, `/health/${dead.id}/check`, {}, w.aliceCookie);
    expect(checked.headers.get("location")).toBe("/health?done=link-checked");
    expect(w.shelf.health.list("unchecked").map((item) => item.link.id)).toEqual([dead.id]);
    const again = await submit(w.env, `/health/${dead.id}/check`, {}, w.aliceCookie);
    expect([again.status, again.headers.get("retry-after")]).toEqual([429, "60"]);
  });

  it("lists ignored links with their evidence and an Un-ignore button that flags them again", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    const quiet = w.add("Quiet", "https://quiet.example/");
    breakLink(w.env, dead.id);
    w.shelf.health.setIgnored(quiet.id, true, w.env.clock.now++);
    expect((await submit(w.env, `/health/${dead.id}/ignore`, {}, w.aliceCookie)).status).toBe(303);
    const page = await open(w.env, "/health", w.aliceCookie);
    expect(texts(page.text, "#main h2")).toEqual(["Broken (0)", "Moved (0)", "Ignored (2)"]);
    const ignoredSection = page.text.slice(page.text.indexOf('id="ignored-heading"'));
    expect(texts(ignoredSection, ".links .title").sort()).toEqual(["Dead post", "Quiet"]);
    expect(texts(ignoredSection, ".links .badge")).toContain("ignored · gone");
    expect(attributes(ignoredSection, ".health-actions form").map((form) => form.action)).toContain(`/health/${dead.id}/unignore`);
    expect(texts(ignoredSection, ".health-actions button")).not.toContain("Ignore");

    const back = await submit(w.env, `/health/${dead.id}/unignore`, {}, w.aliceCookie);
    expect([back.status, back.headers.get("location")]).toEqual([303, "/health?done=link-unignored"]);
    const after = await open(w.env, back.headers.get("location")!, w.aliceCookie);
    expect(texts(after.text, "#main h2")).toEqual(["Broken (1)", "Moved (0)", "Ignored (1)"]);
    expect(texts(after.text, "[role=status]")).toEqual(["The link is flagged again when its checks fail."]);
  });

  it("shows a link's health on its own page, whose buttons come back to it", async () => {
    const w = await world();
    const dead = w.add("Dead post", "https://dead.example/post");
    const fresh = w.add("Fresh", "https://fresh.example/");
    for (const at of ["2026-11-12T09:05:00.000Z", "2026-11-16T23:59:00.000Z", "2026-11-21T14:03:30.000Z"]) {
      recordCheck(w.env.db, dead.id, gone, Date.parse(at), w.env.config.linkCheck);
    }
    const page = await open(w.env, `/links/${dead.id}`, w.aliceCookie);
    expect(texts(page.text, "#health")).toEqual(["⚠ broken Last checked 2026-11-21 14:03 UTC, failing since 2026-11-12 09:05 UTC."]);
    expect(texts(page.text, "ol.checks li")).toEqual([
      "2026-11-21 14:03 UTC: HTTP 404", "2026-11-16 23:59 UTC: HTTP 404", "2026-11-12 09:05 UTC: HTTP 404",
    ]);
    expect(attributes(page.text, ".health-actions form").map((form) => form.action)).toEqual([`/health/${dead.id}/check`, `/health/${dead.id}/ignore`]);
    expect(attributes(page.text, ".health-actions input[name=next]").map((input) => input.value)).toEqual([`/links/${dead.id}`, `/links/${dead.id}`]);

    const ignored = await submit(w.env, `/health/${dead.id}/ignore`, { next: `/links/${dead.id}` }, w.aliceCookie);
    expect(ignored.headers.get("location")).toBe(`/links/${dead.id}?done=link-ignored`);
    const after = await open(w.env, `/links/${dead.id}`, w.aliceCookie);
    expect(texts(after.text, "#health .badge")).toEqual(["ignored · gone"]);
    expect(texts(after.text, ".health-actions button")).toEqual(["Check now", "Un-ignore"]);
    // Another site's address is never where a form returns.
    const elsewhere = await submit(w.env, `/health/${dead.id}/unignore`, { next: "//evil.example/" }, w.aliceCookie);
    expect(elsewhere.headers.get("location")).toBe("/?done=link-unignored");

    const unchecked = await open(w.env, `/links/${fresh.id}`, w.aliceCookie);
    expect(texts(unchecked.text, "#health")).toEqual(["Not checked yet."]);
    expect(texts(unchecked.text, ".health-actions button")).toEqual(["Check now", "Ignore"]);
  });

  it("answers another user's link with the 404 page and changes nothing; a form from another site is refused", async () => {
    const w = await world();
    const moved = w.add("Moved docs", "https://old.example/docs");
    moveLink(w.env, moved.id, "https://new.example/docs");
    const before = snapshot(w.env);
    for (const action of ["use-new-url", "check", "ignore", "unignore"]) {
      expect([action, (await submit(w.env, `/health/${moved.id}/${action}`, {}, w.bobCookie)).status]).toEqual([action, 404]);
    }
    expect((await submit(w.env, `/health/${moved.id}/ignore`, {}, w.aliceCookie, "https://evil.example")).status).toBe(403);
    expect(snapshot(w.env)).toBe(before);
    expect((await open(w.env, "/health", w.bobCookie)).status).toBe(200);
  });
});
