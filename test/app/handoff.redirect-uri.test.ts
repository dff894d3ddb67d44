import { describe, expect, it } from "bun:test";
import { createSession } from "../../src/auth/sessions";
import { checkRedirectUri } from "../../src/shelf/redirect-uri";
import { createUser, get, makeEnv, post, snapshot, type TestEnv, type TestUser } from "../support/helpers";

/** A Chromium extension id: 32 letters from a to p. */
const CHROMIUM_ID = "abcdefghijklmnopabcdefghijklmnop";
/** A Firefox callback host label: 40 lower-case hex digits. */
const FIREFOX_ID = "0123456789abcdef0123456789abcdef01234567";
const CHROMIUM = `${CHROMIUM_ID}.chromiumapp.org`;
const FIREFOX = `${FIREFOX_ID}.extensions.allizom.org`;

interface HostileCase {
  name: string;
  /** What the route's query holds: one value, several (repeated parameter) or none. */
  value: string | string[] | undefined;
}

const hostile: HostileCase[] = [
  { name: "plain http", value: `http://${CHROMIUM}/` },
  { name: "the default port written out", value: `https://${CHROMIUM}:443/` },
  { name: "another port", value: `https://${CHROMIUM}:8443/` },
  { name: "port 0", value: `https://${CHROMIUM}:0/` },
  { name: "an empty port", value: `https://${CHROMIUM}:/` },
  { name: "a user name", value: `https://user@${CHROMIUM}/` },
  { name: "a user name and password", value: `https://user:pass@${CHROMIUM}/` },
  { name: "the reserved host as user info in front of another host", value: `https://${CHROMIUM}@evil.test/` },
  { name: "the reserved host as a prefix of another host", value: `https://${CHROMIUM}.evil.test/` },
  { name: "the reserved suffix in the path", value: "https://evil.test/.chromiumapp.org" },
  { name: "the reserved suffix in the query", value: "https://evil.test?x=.chromiumapp.org" },
  { name: "the reserved suffix in the fragment", value: "https://evil.test#.chromiumapp.org" },
  { name: "an id of 31 letters", value: `https://${CHROMIUM_ID.slice(1)}.chromiumapp.org/` },
  { name: "an id of 33 letters", value: `https://${CHROMIUM_ID}a.chromiumapp.org/` },
  { name: "an id with letters after p", value: `https://${"qrstuvwxyz".repeat(3)}qr.chromiumapp.org/` },
  { name: "an id with digits", value: `https://${CHROMIUM_ID.slice(2)}01.chromiumapp.org/` },
  { name: "an id in upper case", value: `https://${CHROMIUM_ID.toUpperCase()}.chromiumapp.org/` },
  { name: "the reserved domain in upper case", value: `https://${CHROMIUM_ID}.CHROMIUMAPP.ORG/` },
  { name: "the bare reserved domain", value: "https://chromiumapp.org/" },
  { name: "a subdomain of an extension host", value: `https://a.${CHROMIUM}/` },
  { name: "a backslash before user info", value: `https://${CHROMIUM}\\@evil.test` },
  { name: "backslashes for the slashes", value: `https:\\\\${CHROMIUM}` },
  { name: "a backslash inside another host's path", value: `https://evil.test\\.${CHROMIUM}/` },
  { name: "a percent-encoded dot", value: `https://${CHROMIUM_ID}%2Echromiumapp.org/` },
  { name: "a full-width dot", value: `https://${CHROMIUM_ID}\uFF0Echromiumapp.org/` },
  { name: "a Cyrillic а in chromiumapp", value: `https://${CHROMIUM_ID}.chromium\u0430pp.org/` },
  { name: "the punycode of that look-alike", value: `https://${CHROMIUM_ID}.xn--chromiumpp-6qi.org/` },
  { name: "a Cyrillic а in the id", value: `https://\u0430${CHROMIUM_ID.slice(1)}.chromiumapp.org/` },
  { name: "a punycode id", value: `https://xn--bcdefghijklmnopabcdefghijklmnop-dxy.chromiumapp.org/` },
  { name: "a trailing dot on the Chromium host", value: `https://${CHROMIUM}./` },
  { name: "a trailing dot on the Firefox host", value: `https://${FIREFOX}./` },
  { name: "javascript:", value: `javascript:alert(1)//${CHROMIUM}/` },
  { name: "data:", value: `data:text/html,<script>alert(1)</script>${CHROMIUM}` },
  { name: "an empty value", value: "" },
  { name: "a missing parameter", value: undefined },
  { name: "the parameter twice, the valid one last", value: ["https://evil.test/", `https://${CHROMIUM}/`] },
  { name: "the parameter twice, both valid", value: [`https://${CHROMIUM}/a`, `https://${CHROMIUM}/b`] },
  { name: "a tab inside the host", value: `https://${CHROMIUM_ID}.chromium\tapp.org/` },
  { name: "a newline inside the host", value: `https://${CHROMIUM_ID}.chromiumapp\n.org/` },
  { name: "a carriage return after the scheme", value: `https:\r//${CHROMIUM}/` },
  { name: "a leading space", value: ` https://${CHROMIUM}/` },
  { name: "a protocol-relative address", value: `//${CHROMIUM}/` },
  { name: "a Firefox id of 39 hex digits", value: `https://${FIREFOX_ID.slice(1)}.extensions.allizom.org/` },
  { name: "a Firefox id of 41 hex digits", value: `https://${FIREFOX_ID}8.extensions.allizom.org/` },
  { name: "a Firefox id in upper-case hex", value: `https://${FIREFOX_ID.toUpperCase()}.extensions.allizom.org/` },
  { name: "a Firefox id with a non-hex letter", value: `https://${FIREFOX_ID.slice(1)}g.extensions.allizom.org/` },
  { name: "the Firefox host as a prefix of another host", value: `https://${FIREFOX}.evil.test/` },
  { name: "the bare Firefox domain", value: "https://extensions.allizom.org/" },
  { name: "plain http to Firefox", value: `http://${FIREFOX}/` },
  { name: "a port on the Firefox host", value: `https://${FIREFOX}:443/` },
  { name: "an ftp URL", value: `ftp://${CHROMIUM}/` },
  { name: "not a URL at all", value: `${CHROMIUM}/` },
];

/** authorizePath builds `/extension/authorize` with the case's query, percent-encoded. */
function authorizePath(value: string | string[] | undefined): string {
  const params = new URLSearchParams();
  for (const one of value === undefined ? [] : [value].flat()) params.append("redirect_uri", one);
  const query = params.toString();
  return query === "" ? "/extension/authorize" : `/extension/authorize?${query}`;
}

const countTokens = (env: TestEnv) => (env.db.$client.query("SELECT count(*) AS n FROM api_tokens").get() as { n: number }).n;

/** signedIn is a user with a live session cookie. */
async function signedIn(env: TestEnv): Promise<{ user: TestUser; cookie: string }> {
  const user = await createUser(env);
  const session = createSession(env.db, user.user.id, env.clock.now++);
  return { user, cookie: `linkshelf_session=${session.id}` };
}

describe("checkRedirectUri", () => {
  it("has a hostile corpus of at least 30 cases", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
  });

  for (const { name, value } of hostile) {
    it(`refuses ${name}`, () => {
      const result = checkRedirectUri(value);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(/redirect_uri/);
    });
  }
});

describe("GET /extension/authorize with a hostile redirect_uri", () => {
  for (const { name, value } of hostile) {
    it(`answers 400 HTML and mints no token for ${name}`, async () => {
      const env = makeEnv();
      const { cookie } = await signedIn(env);
      const before = countTokens(env);
      const response = await get(env, authorizePath(value), { headers: { cookie, accept: "text/html" } });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("location")).toBeNull();
      expect(response.text).toContain("No token was created.");
      expect(countTokens(env)).toBe(before);
    });

    it(`refuses the consent form's POST for ${name}: 400, nothing approved, no token`, async () => {
      const env = makeEnv();
      const { cookie } = await signedIn(env);
      const before = snapshot(env);
      const response = await post(env, authorizePath(value), { headers: { cookie, accept: "text/html", origin: "http://localhost" } });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(response.text).toContain("No token was created.");
      expect(snapshot(env)).toBe(before);
    });
  }
});

describe("GET /extension/authorize with a valid redirect_uri", () => {
  const accepted: { name: string; uri: string; location: string }[] = [
    { name: "a Chromium callback without a path", uri: `https://${CHROMIUM}`, location: `https://${CHROMIUM}/` },
    { name: "a Chromium callback with the root path", uri: `https://${CHROMIUM}/`, location: `https://${CHROMIUM}/` },
    { name: "a Chromium callback with a path", uri: `https://${CHROMIUM}/cb/done`, location: `https://${CHROMIUM}/cb/done` },
    { name: "a Chromium callback with a query", uri: `https://${CHROMIUM}/cb?state=xyz&n=1`, location: `https://${CHROMIUM}/cb?state=xyz&n=1` },
    { name: "a Chromium callback with a fragment", uri: `https://${CHROMIUM}/cb?s=1#old=fragment`, location: `https://${CHROMIUM}/cb?s=1` },
    { name: "a Firefox callback without a path", uri: `https://${FIREFOX}`, location: `https://${FIREFOX}/` },
    { name: "a Firefox callback with a path", uri: `https://${FIREFOX}/callback`, location: `https://${FIREFOX}/callback` },
    { name: "a Firefox callback with a query", uri: `https://${FIREFOX}/?state=abc`, location: `https://${FIREFOX}/?state=abc` },
    { name: "a Firefox callback with an empty fragment", uri: `https://${FIREFOX}/cb#`, location: `https://${FIREFOX}/cb` },
  ];

  for (const { name, uri, location } of accepted) {
    it(`accepts ${name} and puts the token in a new fragment`, async () => {
      expect(checkRedirectUri(uri).ok).toBe(true);
      const env = makeEnv();
      const { user, cookie } = await signedIn(env);
      const before = countTokens(env);
      // The first sign-in of an extension asks; Allow posts to the same address.
      const consent = await get(env, authorizePath(uri), { headers: { cookie } });
      expect(consent.status).toBe(200);
      expect(countTokens(env)).toBe(before);
      const response = await post(env, authorizePath(uri), { headers: { cookie, origin: "http://localhost" } });
      expect(response.status).toBe(302);
      expect(countTokens(env)).toBe(before + 1);
      const header = response.headers.get("location")!;
      const [base, fragment] = [header.slice(0, header.indexOf("#")), header.slice(header.indexOf("#") + 1)];
      expect(base).toBe(location);
      expect(fragment).toMatch(/^token=[^#&]+$/);
      const token = decodeURIComponent(fragment.slice("token=".length));
      expect(header).toBe(`${location}#token=${encodeURIComponent(token)}`);
      const collections = await get(env, "/api/v1/collections", { token });
      expect(collections.status).toBe(200);
      expect(collections.body.collections.map((c: { name: string }) => c.name)).toEqual(["Inbox"]);
      const owner = env.db.$client.query("SELECT user_id FROM api_tokens ORDER BY id DESC LIMIT 1").get() as { user_id: number };
      expect(owner.user_id).toBe(user.user.id);
    });
  }
});
