import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { SESSION_TTL_MS } from "../../src/auth/sessions";
import { hashSecret } from "../../src/common/token-secrets";
import { closeDatabase } from "../../src/db/client";
import { setPassword } from "../../src/users/service";
import { testDir } from "../support/dirs";
import { createUser, get, makeEnv, type TestEnv } from "../support/helpers";
import { BAD_NAMES, GOOD_NAMES } from "../support/names.fixtures";

const SETUP_CODE = "ABCD-EFGH-JKLM";
const FIFTEEN_MINUTES = 15 * 60 * 1000;
const GENERIC_FAILURE = "The email or password is not right.";

/** makeSetupEnv is makeEnv for a first start: an app holding a one-time setup code. */
function makeSetupEnv(setupCode: string | null = SETUP_CODE): TestEnv {
  return makeEnv({}, { setupCode: setupCode ?? undefined });
}

/** submit posts a form the way a browser does, to `http://localhost` unless `base` says otherwise. */
async function submit(
  env: TestEnv,
  path: string,
  fields: Record<string, string>,
  options: { headers?: Record<string, string>; base?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; cookies: string[] }> {
  const response = await env.app.handle(new Request(`${options.base ?? "http://localhost"}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...options.headers },
    body: new URLSearchParams(fields).toString(),
  }));
  return { status: response.status, headers: response.headers, text: await response.text(), cookies: response.headers.getSetCookie() };
}

/** sessionCookieOf is the `name=value` pair of the session cookie a response sets. */
function sessionCookieOf(cookies: string[]): string {
  const cookie = cookies.find((line) => line.startsWith("linkshelf_session="));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(cookies)}`);
  return cookie.split(";")[0]!;
}

/** attributesOf splits a Set-Cookie line into its attributes, names in lower case. */
function attributesOf(cookie: string): Map<string, string> {
  return new Map(cookie.split(";").slice(1).map((part) => {
    const [name, ...value] = part.trim().split("=");
    return [name!.toLowerCase(), value.join("=")] as const;
  }));
}

const sessionRows = (env: TestEnv) => env.db.$client.query("SELECT * FROM sessions ORDER BY rowid").all() as Record<string, unknown>[];
const userCount = (env: TestEnv) => (env.db.$client.query("SELECT count(*) AS n FROM users").get() as { n: number }).n;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };

/** decodeEntities undoes the escaping the pages apply (HTMLRewriter hands attributes over raw). */
const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]!);

interface FormField {
  tag: string;
  id?: string;
  name?: string;
  type?: string;
  value?: string;
}

/** formOf reads a page's form controls and which control each label names. */
async function formOf(page: string): Promise<{ action?: string; method?: string; fields: FormField[]; labels: Map<string, string> }> {
  const form: { action?: string; method?: string } = {};
  const fields: FormField[] = [];
  const labels = new Map<string, string>();
  let label: { for: string; text: string } | undefined;
  const attr = (element: HTMLRewriterTypes.Element, name: string) => {
    const raw = element.getAttribute(name);
    return raw === null ? undefined : decodeEntities(raw);
  };
  new HTMLRewriter()
    .on("form", { element: (e) => void Object.assign(form, { action: attr(e, "action"), method: attr(e, "method") }) })
    .on("input, button", { element: (e) => void fields.push({ tag: e.tagName, id: attr(e, "id"), name: attr(e, "name"), type: attr(e, "type"), value: attr(e, "value") }) })
    .on("label", {
      element: (e) => {
        label = { for: e.getAttribute("for") ?? "", text: "" };
        e.onEndTag(() => void labels.set(label!.for, label!.text.trim()));
      },
      text: (t) => void (label && (label.text += t.text)),
    })
    .transform(page);
  return { ...form, fields, labels };
}

describe("GET /login", () => {
  it("renders a form with labelled email and password fields and the hidden next", async () => {
    const env = makeEnv();
    const response = await get(env, `/login?next=${encodeURIComponent("/a/b?c=d")}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const form = await formOf(response.text);
    expect(form).toMatchObject({ action: "/login", method: "post" });
    const byName = new Map(form.fields.map((field) => [field.name, field]));
    expect(byName.get("next")).toMatchObject({ type: "hidden", value: "/a/b?c=d" });
    expect(byName.get("email")).toMatchObject({ type: "email" });
    expect(byName.get("password")).toMatchObject({ type: "password" });
    expect(form.labels.get(byName.get("email")!.id!)).toBe("Email");
    expect(form.labels.get(byName.get("password")!.id!)).toBe("Password");
    expect(form.fields.some((field) => field.tag === "button" && field.type === "submit")).toBe(true);
  });

  it("lets the form's redirect chain end at an extension callback (CSP form-action)", async () => {
    const env = makeEnv();
    const response = await get(env, "/login");
    const formAction = response.headers.get("content-security-policy")?.split(";").map((part) => part.trim()).find((part) => part.startsWith("form-action "));
    expect(formAction?.split(" ").slice(1).sort()).toEqual(["'self'", "https://*.chromiumapp.org", "https://*.extensions.allizom.org"]);
  });

  it("carries an unsafe next into the form as /", async () => {
    const env = makeEnv();
    const response = await get(env, `/login?next=${encodeURIComponent("//evil.test/x")}`);
    const form = await formOf(response.text);
    expect(form.fields.find((field) => field.name === "next")?.value).toBe("/");
  });

  it("sends a signed-in visitor straight on to next", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    const response = await get(env, "/login?next=/a/b", { headers: { cookie } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/a/b");
  });
});

describe("POST /login", () => {
  it("signs in: 303 to next and a session cookie that is HttpOnly, SameSite=Lax, Path=/, 30 days, not Secure over http", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password, next: "/a/b?c=d" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/a/b?c=d");
    // The session, and the known-browser cookie that lets this browser past the account's daily budget.
    expect(response.cookies).toHaveLength(2);
    const known = attributesOf(response.cookies[1]!);
    expect(response.cookies[1]).toMatch(new RegExp(`^linkshelf_known_${alice.user.id}=${alice.user.id}\\.\\d+\\.[A-Za-z0-9_-]{43};`));
    expect([known.has("httponly"), known.get("samesite")?.toLowerCase(), known.get("path"), known.get("max-age"), known.has("secure")]).toEqual([true, "lax", "/login", "31536000", false]);
    const attributes = attributesOf(response.cookies[0]!);
    expect(sessionCookieOf(response.cookies)).toMatch(/^linkshelf_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.has("httponly")).toBe(true);
    expect(attributes.get("samesite")?.toLowerCase()).toBe("lax");
    expect(attributes.get("path")).toBe("/");
    expect(attributes.get("max-age")).toBe(String(SESSION_TTL_MS / 1000));
    expect(attributes.get("max-age")).toBe("2592000");
    expect(attributes.has("secure")).toBe(false);
    expect(attributes.has("domain")).toBe(false);
  });

  it("signs in with the email in another case and surrounding spaces", async () => {
    const env = makeEnv();
    const alice = await createUser(env, { email: "alice@example.test" });
    const response = await submit(env, "/login", { email: " ALICE@Example.test ", password: alice.password, next: "/" });
    expect(response.status).toBe(303);
    expect(sessionRows(env)).toHaveLength(1);
  });

  it("marks the cookie Secure when the request came over https", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { base: "https://localhost" });
    expect(response.status).toBe(303);
    expect(attributesOf(response.cookies[0]!).has("secure")).toBe(true);
    expect(attributesOf(response.cookies[1]!).has("secure")).toBe(true);
  });

  it("marks the cookie Secure behind a trusted proxy that says https", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers: { "x-forwarded-proto": "https" } });
    expect(response.status).toBe(303);
    expect(attributesOf(response.cookies[0]!).has("secure")).toBe(true);
  });

  it("ignores X-Forwarded-Proto when the proxy is not trusted", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers: { "x-forwarded-proto": "https" } });
    expect(response.status).toBe(303);
    expect(attributesOf(response.cookies[0]!).has("secure")).toBe(false);
  });

  it("stores the session hashed: the cookie value appears nowhere in the sessions table", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password });
    const value = sessionCookieOf(response.cookies).slice("linkshelf_session=".length);
    const rows = sessionRows(env);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(value);
    expect(Object.values(rows[0]!)).toContain(hashSecret(value));
  });

  it("keeps sessions across a restart on the same database file", async () => {
    const path = join(testDir("sessions"), "linkshelf.db");
    const first = makeFileEnv(path);
    const alice = await createUser(first);
    const cookie = sessionCookieOf((await submit(first, "/login", { email: alice.user.email, password: alice.password })).cookies);
    closeDatabase(first.db);

    const second = makeFileEnv(path);
    try {
      const home = await get(second, "/account", { headers: { cookie } });
      expect(home.status).toBe(200);
      expect(home.text).toContain(alice.user.email);
    } finally {
      closeDatabase(second.db);
    }
  });

  const failures: { name: string; fields: (email: string, password: string) => Record<string, string> }[] = [
    { name: "a wrong password", fields: (email) => ({ email, password: "not the password", next: "/a" }) },
    { name: "an unknown email", fields: (_, password) => ({ email: "nobody@example.test", password, next: "/a" }) },
    { name: "a missing password", fields: (email) => ({ email, next: "/a" }) },
    { name: "a missing email", fields: (_, password) => ({ password, next: "/a" }) },
    { name: "an empty email and password", fields: () => ({ email: "", password: "" }) },
    { name: "no fields at all", fields: () => ({}) },
  ];

  for (const { name, fields } of failures) {
    it(`answers ${name} with 401, the form again, the generic message and no cookie`, async () => {
      const env = makeEnv();
      const alice = await createUser(env);
      const response = await submit(env, "/login", fields(alice.user.email, alice.password));
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.text).toContain(GENERIC_FAILURE);
      expect((await formOf(response.text)).action).toBe("/login");
      expect(response.cookies).toEqual([]);
      expect(response.headers.get("location")).toBeNull();
      expect(sessionRows(env)).toEqual([]);
    });
  }

  it("says the same thing for an unknown email as for a wrong password", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const message = (page: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
    const wrongPassword = await submit(env, "/login", { email: alice.user.email, password: "not the password" });
    const unknownEmail = await submit(env, "/login", { email: "nobody@example.test", password: "not the password" });
    expect(message(wrongPassword.text)).toBe(GENERIC_FAILURE);
    expect(message(unknownEmail.text)).toBe(message(wrongPassword.text));
  });

  it("escapes the typed email in the failure page", async () => {
    const env = makeEnv();
    await createUser(env);
    const email = `x"><script>alert(1)</script>@example.test`;
    const response = await submit(env, "/login", { email, password: "whatever1" });
    expect(response.status).toBe(401);
    expect(response.text).not.toContain("<script>");
    expect(response.text).toContain("x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@example.test");
    const form = await formOf(response.text);
    expect(form.fields.find((field) => field.name === "email")?.value).toBe(email);
  });
});

describe("POST /login next", () => {
  const unsafe = [
    "//evil.test",
    "/\\evil.test",
    "/\t/evil.test",
    "/\n/evil.test",
    "/\\\t\\evil.test",
    "https://evil.test",
    "http:evil.test",
    "javascript:alert(1)",
    "\\\\evil.test",
    "/.//evil.test",
    "/a/..//evil.test",
    "/%2e//evil.test",
    "/%2E%2E//evil.test",
    "///evil.test",
    "evil.test",
    "",
  ];

  for (const next of [...unsafe, undefined]) {
    it(`lands ${JSON.stringify(next) ?? "a missing next"} on /`, async () => {
      const env = makeEnv();
      const alice = await createUser(env);
      const fields: Record<string, string> = { email: alice.user.email, password: alice.password };
      if (next !== undefined) fields.next = next;
      const response = await submit(env, "/login", fields);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/");
    });
  }

  it("keeps a percent-encoded tab in the path, which a browser resolves on this server", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password, next: "/%09/evil.test" });
    expect(response.status).toBe(303);
    const location = response.headers.get("location")!;
    expect(location).toBe("/%09/evil.test");
    expect(new URL(location, "http://localhost/login").origin).toBe("http://localhost");
  });

  for (const next of ["/extension/authorize?redirect_uri=https%3A%2F%2Fabcdefghijklmnopabcdefghijklmnop.chromiumapp.org%2Fcb", "/a/b?c=d", "/", "/a/b#frag"]) {
    it(`keeps the same-site path ${next}`, async () => {
      const env = makeEnv();
      const alice = await createUser(env);
      const response = await submit(env, "/login", { email: alice.user.email, password: alice.password, next });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(next);
    });
  }

  it("never sends a browser off this server, whatever next was", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    for (const next of [...unsafe, "/%09/evil.test", "/ /evil.test"]) {
      const response = await submit(env, "/login", { email: alice.user.email, password: alice.password, next });
      const location = response.headers.get("location")!;
      expect(location).toStartWith("/");
      // A browser strips tabs and newlines and reads `\` as `/` before resolving a Location.
      const asBrowser = location.replace(/[\t\n\r]/g, "").replaceAll("\\", "/");
      expect(new URL(asBrowser, "http://localhost/login").origin).toBe("http://localhost");
    }
  });
});

describe("POST /login from another site", () => {
  const refusals: { name: string; headers: Record<string, string> }[] = [
    { name: "a foreign Origin", headers: { origin: "https://evil.test" } },
    { name: "a foreign Origin with a same-site Referer", headers: { origin: "https://evil.test", referer: "http://localhost/login" } },
    { name: "the same host over another scheme", headers: { origin: "https://localhost" } },
    { name: "the same host on another port", headers: { origin: "http://localhost:8080" } },
    { name: "Origin: null", headers: { origin: "null" } },
    { name: "a foreign Referer without Origin", headers: { referer: "https://evil.test/page" } },
  ];

  for (const { name, headers } of refusals) {
    it(`refuses ${name} with 403 and starts no session, even with the right password`, async () => {
      const env = makeEnv();
      const alice = await createUser(env);
      const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers });
      expect(response.status).toBe(403);
      expect(response.cookies).toEqual([]);
      expect(sessionRows(env)).toEqual([]);
    });
  }

  it("allows its own Origin", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers: { origin: "http://localhost" } });
    expect(response.status).toBe(303);
    expect(sessionRows(env)).toHaveLength(1);
  });

  it("allows its own Referer without Origin", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers: { referer: "http://localhost/login?next=/" } });
    expect(response.status).toBe(303);
  });

  it("takes its own scheme from a trusted proxy", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    const headers = { origin: "https://localhost", "x-forwarded-proto": "https" };
    const response = await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers });
    expect(response.status).toBe(303);
  });

  it("judges a POST without Origin or Referer on its credentials alone", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    expect((await submit(env, "/login", { email: alice.user.email, password: "not the password" })).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password })).status).toBe(303);
  });
});

describe("login throttle", () => {
  const from = (ip: string) => ({ headers: { "x-forwarded-for": `203.0.113.250, ${ip}` } });

  it("refuses an address for 15 minutes after 10 failures, even with the right password", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    for (let i = 0; i < 10; i++) {
      expect((await submit(env, "/login", { email: alice.user.email, password: `wrong ${i}` }, from("198.51.100.7"))).status).toBe(401);
    }
    const refused = await submit(env, "/login", { email: alice.user.email, password: alice.password }, from("198.51.100.7"));
    expect(refused.status).toBe(429);
    expect(refused.cookies).toEqual([]);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(FIFTEEN_MINUTES / 1000);
    expect(sessionRows(env)).toEqual([]);

    const elsewhere = await submit(env, "/login", { email: alice.user.email, password: alice.password }, from("198.51.100.8"));
    expect(elsewhere.status).toBe(303);

    env.clock.now += FIFTEEN_MINUTES;
    const later = await submit(env, "/login", { email: alice.user.email, password: alice.password }, from("198.51.100.7"));
    expect(later.status).toBe(303);
  });

  it("keys the throttle on the last X-Forwarded-For entry, not on what the client claims", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    for (let i = 0; i < 10; i++) {
      const headers = { "x-forwarded-for": `10.0.0.${i}, 198.51.100.9` };
      expect((await submit(env, "/login", { email: alice.user.email, password: "wrong password" }, { headers })).status).toBe(401);
    }
    const headers = { "x-forwarded-for": "10.9.9.9, 198.51.100.9" };
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, { headers })).status).toBe(429);
  });

  it("does not count successful sign-ins", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    for (let i = 0; i < 9; i++) await submit(env, "/login", { email: alice.user.email, password: "wrong password" });
    for (let i = 0; i < 3; i++) expect((await submit(env, "/login", { email: alice.user.email, password: alice.password })).status).toBe(303);
    expect((await submit(env, "/login", { email: alice.user.email, password: "wrong password" })).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password })).status).toBe(429);
  });
});

describe("POST /logout", () => {
  it("deletes the session row, clears the cookie and sends the browser to /login", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(200);

    const response = await submit(env, "/logout", {}, { headers: { cookie, origin: "http://localhost" } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login");
    expect(sessionRows(env)).toEqual([]);
    const cleared = response.cookies.find((line) => line.startsWith("linkshelf_session="));
    expect(cleared).toBeDefined();
    const attributes = attributesOf(cleared!);
    const expired = attributes.get("max-age") === "0" || Date.parse(attributes.get("expires") ?? "") <= Date.now();
    expect(expired).toBe(true);
    expect(cleared!.split(";")[0]).toBe("linkshelf_session=");

    const home = await get(env, "/", { headers: { cookie } });
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe("/login?next=%2F");
  });

  it("ends only that session", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const phone = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    const laptop = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    await submit(env, "/logout", {}, { headers: { cookie: phone } });
    expect((await get(env, "/", { headers: { cookie: phone } })).status).toBe(303);
    expect((await get(env, "/", { headers: { cookie: laptop } })).status).toBe(200);
  });

  it("refuses a cross-site logout and keeps the session", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    const response = await submit(env, "/logout", {}, { headers: { cookie, origin: "https://evil.test" } });
    expect(response.status).toBe(403);
    expect(sessionRows(env)).toHaveLength(1);
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(200);
  });
});

describe("sessions", () => {
  it("end when the user's password changes", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const aliceCookie = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    const bobCookie = sessionCookieOf((await submit(env, "/login", { email: bob.user.email, password: bob.password })).cookies);
    await setPassword(env.db, alice.user.id, "a brand new password");
    const home = await get(env, "/", { headers: { cookie: aliceCookie } });
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe("/login?next=%2F");
    expect((await get(env, "/", { headers: { cookie: bobCookie } })).status).toBe(200);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password })).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: "a brand new password" })).status).toBe(303);
  });

  it("expire after 30 days", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookieOf((await submit(env, "/login", { email: alice.user.email, password: alice.password })).cookies);
    env.clock.now += SESSION_TTL_MS + 1;
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(303);
  });
});

describe("/setup", () => {
  const firstUser = { code: SETUP_CODE, email: "owner@example.test", name: "Owner", password: "a long password" };

  it("is 404 once a user exists", async () => {
    const env = makeSetupEnv();
    await createUser(env);
    expect((await get(env, "/setup")).status).toBe(404);
    const response = await submit(env, "/setup", { ...firstUser, email: "second@example.test" });
    expect(response.status).toBe(404);
    expect(userCount(env)).toBe(1);
  });

  it("is 404 without a setup code, even with no user", async () => {
    const env = makeSetupEnv(null);
    expect((await get(env, "/setup")).status).toBe(404);
    expect((await submit(env, "/setup", firstUser)).status).toBe(404);
    expect((await submit(env, "/setup", { ...firstUser, code: "" })).status).toBe(404);
    expect(userCount(env)).toBe(0);
  });

  it("shows the form while no user exists", async () => {
    const env = makeSetupEnv();
    const response = await get(env, "/setup");
    expect(response.status).toBe(200);
    const form = await formOf(response.text);
    expect(form).toMatchObject({ action: "/setup", method: "post" });
    for (const name of ["code", "email", "name", "password"]) {
      const field = form.fields.find((candidate) => candidate.name === name);
      expect(field).toBeDefined();
      expect(form.labels.get(field!.id!)).toBeTruthy();
    }
    expect(form.fields.find((field) => field.name === "password")?.type).toBe("password");
  });

  for (const code of ["WRONG-CODE-HERE", "", "ABCD-EFGH-JKLN", "ABCD-EFGH"]) {
    it(`refuses the setup code ${JSON.stringify(code)} with 401 and creates no user`, async () => {
      const env = makeSetupEnv();
      const response = await submit(env, "/setup", { ...firstUser, code });
      expect(response.status).toBe(401);
      expect(response.cookies).toEqual([]);
      expect(userCount(env)).toBe(0);
      expect((await get(env, "/setup")).status).toBe(200);
    });
  }

  for (const code of [SETUP_CODE, "abcd-efgh-jklm", "ABCDEFGHJKLM", "abcdefghjklm", "AbCd-EfGhJkLm"]) {
    it(`accepts the setup code as ${code}: creates the user with an Inbox, signs them in and goes to /`, async () => {
      const env = makeSetupEnv();
      const response = await submit(env, "/setup", { ...firstUser, code });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/");
      const cookie = sessionCookieOf(response.cookies);

      const users = env.db.$client.query("SELECT id, email, name FROM users").all() as { id: number; email: string; name: string }[];
      expect(users).toEqual([{ id: users[0]!.id, email: firstUser.email, name: firstUser.name }]);
      const inbox = env.db.$client.query("SELECT name, is_default FROM collections WHERE user_id = ?").all(users[0]!.id);
      expect(inbox).toEqual([{ name: "Inbox", is_default: 1 }]);

      const home = await get(env, "/account", { headers: { cookie } });
      expect(home.status).toBe(200);
      expect(home.text).toContain(firstUser.email);
      expect((await submit(env, "/login", { email: firstUser.email, password: firstUser.password })).status).toBe(303);

      expect((await get(env, "/setup")).status).toBe(404);
      expect((await submit(env, "/setup", { ...firstUser, email: "again@example.test" })).status).toBe(404);
      expect(userCount(env)).toBe(1);
    });
  }

  it("refuses a user name that breaks the name rule, with the rule's message, creating no user", async () => {
    for (const [label, name, message] of BAD_NAMES.filter(([label]) => label !== "a lone surrogate")) {
      const env = makeSetupEnv();
      const response = await submit(env, "/setup", { ...firstUser, name });
      expect({ label, status: response.status }).toEqual({ label, status: 422 });
      expect(response.text).toContain(`name: ${message}`);
      expect(response.cookies).toEqual([]);
      expect(userCount(env)).toBe(0);
    }
  });

  it("accepts a user name with an emoji ZWJ sequence or a combining mark", async () => {
    for (const name of [GOOD_NAMES["an emoji ZWJ sequence in words"]!, GOOD_NAMES["a combining accent"]!]) {
      const env = makeSetupEnv();
      expect((await submit(env, "/setup", { ...firstUser, name })).status).toBe(303);
      expect(env.db.$client.query("SELECT name FROM users").all()).toEqual([{ name }]);
    }
  });

  it("refuses an email with a control or bidirectional character, creating no user", async () => {
    for (const email of ["own\u0000er@example.test", "owner@exa\u202Emple.test", "owner@example.test\u0085", "own\u200Ber@example.test"]) {
      const env = makeSetupEnv();
      const response = await submit(env, "/setup", { ...firstUser, email });
      expect({ email, status: response.status }).toEqual({ email, status: 422 });
      expect(response.text).toContain("email: Expected an email address");
      expect(userCount(env)).toBe(0);
    }
  });

  it("shows the form again with the typed email and name when the password is too short, creating no user", async () => {
    const env = makeSetupEnv();
    const response = await submit(env, "/setup", { ...firstUser, password: "short" });
    expect(response.status).toBe(422);
    expect(response.cookies).toEqual([]);
    expect(userCount(env)).toBe(0);
    expect(response.text).toContain("at least 8 characters");
    const form = await formOf(response.text);
    expect(form.action).toBe("/setup");
    const byName = new Map(form.fields.map((field) => [field.name, field]));
    expect(byName.get("email")?.value).toBe(firstUser.email);
    expect(byName.get("name")?.value).toBe(firstUser.name);
    expect(byName.get("password")?.value).toBeUndefined();
    expect(byName.get("code")?.value).toBeUndefined();
    expect((await get(env, "/setup")).status).toBe(200);
  });

  it("escapes what was typed when it shows the form again", async () => {
    const env = makeSetupEnv();
    const name = `"><script>alert(1)</script>`;
    const response = await submit(env, "/setup", { ...firstUser, name, password: "short" });
    expect(response.text).not.toContain("<script>");
    expect((await formOf(response.text)).fields.find((field) => field.name === "name")?.value).toBe(name);
  });

  const crossSite: Record<string, string>[] = [{ origin: "https://evil.test" }, { origin: "null" }, { referer: "https://evil.test/" }];
  for (const headers of crossSite) {
    it(`refuses a cross-site setup (${JSON.stringify(headers)}) with 403`, async () => {
      const env = makeSetupEnv();
      const response = await submit(env, "/setup", firstUser, { headers });
      expect(response.status).toBe(403);
      expect(response.cookies).toEqual([]);
      expect(userCount(env)).toBe(0);
    });
  }

  it("accepts a same-origin setup", async () => {
    const env = makeSetupEnv();
    const response = await submit(env, "/setup", firstUser, { headers: { origin: "http://localhost" } });
    expect(response.status).toBe(303);
    expect(userCount(env)).toBe(1);
  });
});

/** makeFileEnv builds an app over a database file, as a restart of the server would. */
function makeFileEnv(path: string): TestEnv {
  return makeEnv({}, { path });
}

describe("credentials that are not a bearer token", () => {
  it("lets a session cookie sign in a browser that also sends a proxy's Basic credentials", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const signedIn = await submit(env, "/login", { email: alice.user.email, password: alice.password, next: "/" });
    const cookie = sessionCookieOf(signedIn.cookies);
    const home = await get(env, "/account", { headers: { cookie, authorization: "Basic dXNlcjpwYXNz" } });
    expect(home.status).toBe(200);
    expect(home.text).toContain(alice.user.email);
  });

  it("lets the session cookie alone decide a page, whatever bearer token comes with it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const signedIn = await submit(env, "/login", { email: alice.user.email, password: alice.password, next: "/" });
    const cookie = sessionCookieOf(signedIn.cookies);
    for (const authorization of ["Bearer lks_not-a-real-token", `Bearer ${bob.token}`]) {
      const home = await get(env, "/account", { headers: { cookie, authorization } });
      expect(home.status).toBe(200);
      expect(home.text).toContain(alice.user.email);
      expect(home.text).not.toContain(bob.user.email);
    }
  });
});

describe("two simultaneous first-run setups", () => {
  it("creates exactly one user", async () => {
    const env = makeSetupEnv();
    const answers = await Promise.all(["a", "b", "c"].map((name) =>
      submit(env, "/setup", { code: SETUP_CODE, email: `${name}@example.test`, name, password: "long enough password" })));
    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(1);
    expect(userCount(env)).toBe(1);
  });
});
