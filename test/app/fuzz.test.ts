/**
 * Property-based fuzzing (fast-check) of everything that reads client input: every `/api/v1`
 * route, `GET`/`HEAD /l/:id`, `/favicon`, `/extension/authorize` and `POST /login`, with random
 * and hostile bodies, ids, headers and query strings.
 *
 * The properties, checked on every single exchange:
 * - never a 5xx;
 * - every 4xx from `/api/v1`, `/favicon` and `/l/:id` (for a non-HTML client) is exactly
 *   `{message, code}` (+ `errors: [{path, message}]` on 422 only), with the status's code;
 * - a refused request (status >= 400) and every read change nothing in the database;
 * - an accepted write stores what was asked (trimmed) and keeps the invariants: every link is
 *   in at least one collection of its own author, `collectionIds` sorted, lengths within limits;
 * - a bulk request (`POST /api/v1/links/bulk`) answers the status a model of its rules
 *   predicts (422, 404, 409 or 200, in that order), and on 200 applied exactly its action;
 * - `Object.prototype` (and its kin) are never polluted.
 *
 * `npm test` runs a bounded number of cases from a fixed seed, so a run is reproducible.
 * `npm run fuzz` sets FUZZ_RUNS (a longer run, ~FUZZ_RUNS cases per property) and a fresh
 * seed each time; on a failure fast-check prints the seed, and `FUZZ_SEED=<seed> npm run fuzz`
 * (or `FUZZ_SEED=<seed> bun test test/app/fuzz.test.ts`) replays it. No name is resolved and no
 * connection is made: the favicon proxy gets a resolver that knows no names and a connect that throws.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { createApp } from "../../src/app";
import { createSession } from "../../src/auth/sessions";
import { MAX_FORM_BYTES } from "../../src/request/form-body";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../src/request/json-body";
import { loadConfig } from "../../src/common/config";
import { openDatabase } from "../../src/db/client";
import type { Connect, Resolver } from "../../src/outbound/fetch";
import { createCollection, createLink, createUser, inboxOf, snapshot, START, testPasswords, type TestEnv, type TestUser } from "../support/helpers";
import { Shelf } from "../../src/shelf/shelf";

// ---------------------------------------------------------------------------------------------
// Settings: bounded and seeded in `npm test`, long and freshly seeded in `npm run fuzz`.

const LONG_RUNS = Number(process.env.FUZZ_RUNS ?? 0) || 0;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : LONG_RUNS > 0 ? Date.now() % 2 ** 31 : 20261122;
/** A property's bounded number of cases; a long run scales every property alike (200 -> FUZZ_RUNS). */
const runs = (bounded: number) => (LONG_RUNS > 0 ? Math.max(bounded, Math.round((bounded * LONG_RUNS) / 200)) : bounded);
const TIMEOUT = LONG_RUNS > 0 ? 6 * 60 * 60 * 1000 : 60_000;
const options = (bounded: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns: runs(bounded) });
if (LONG_RUNS > 0) console.log(`fuzz: seed ${SEED}, about ${LONG_RUNS} cases per property (replay: FUZZ_SEED=${SEED} npm run fuzz)`);

const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The world each property runs against: two users, a session, a revoked token, some collections
// and links, and an app whose favicon proxy can reach nothing.

const knowsNoName: Resolver = async (hostname) => {
  throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};
const connectsNowhere: Connect = async () => {
  throw new Error("fuzz: no connection is ever made");
};

interface World {
  env: TestEnv;
  alice: TestUser;
  bob: TestUser;
  /** The value of alice's `linkshelf_session` cookie. */
  session: string;
  /** A token of alice's that was revoked. */
  revoked: string;
  aliceCollections: number[];
  bobCollections: number[];
  aliceLinks: number[];
  bobLinks: number[];
  /** How often each route answered each status, to show what a property reached. */
  seen: Map<string, number>;
}

/** fuzzEnv is makeEnv with the favicon proxy cut off from the network. */
function fuzzEnv(vars: Record<string, string>): TestEnv {
  const db = openDatabase(":memory:");
  const config = loadConfig({}, vars);
  const clock = { now: START };
  const favicon = { resolve: knowsNoName, connect: connectsNowhere, timeoutMillis: 1000 };
  // From a proxy on this machine: with LINKSHELF_TRUST_PROXY=1 the forged forwarded headers are read.
  const app = createApp({ db, config, clock: () => clock.now++, favicon, peerAddress: () => "127.0.0.1", passwords: testPasswords });
  return { app, db, config, clock, queries: [], passwords: testPasswords };
}

async function makeWorld(vars: Record<string, string> = { LINKSHELF_RATE_LIMIT: "off" }): Promise<World> {
  const env = fuzzEnv(vars);
  const alice = await createUser(env);
  const bob = await createUser(env);
  const session = createSession(env.db, alice.user.id, env.clock.now++).id;
  const revokedToken = new Shelf(env.db, alice.user).tokens.create("revoked", env.clock.now++);
  new Shelf(env.db, alice.user).tokens.revoke(revokedToken.info.id);
  const alicePublic = await createCollection(env, alice, { name: "Public", visibility: "PUBLIC", icon: "🌍" });
  const aliceReading = await createCollection(env, alice, { name: "Reading", description: "Later" });
  const bobPublic = await createCollection(env, bob, { name: "Bob's", visibility: "PUBLIC" });
  const aliceInbox = await inboxOf(env, alice);
  const bobInbox = await inboxOf(env, bob);
  const aliceLinks = [
    await createLink(env, alice, { name: "Private", url: "https://example.com/private" }),
    await createLink(env, alice, { name: "Shared", url: "https://example.com/shared", collectionIds: [alicePublic.id, aliceReading.id] }),
    await createLink(env, alice, { name: "Favorite", url: "https://example.com/fav", favorite: true, collectionIds: [aliceReading.id] }),
  ].map((link) => link.id);
  const bobLinks = [
    await createLink(env, bob, { name: "Bob public", url: "https://example.org/", collectionIds: [bobPublic.id] }),
    await createLink(env, bob, { name: "Bob private", url: "https://example.org/private" }),
  ].map((link) => link.id);
  return {
    env,
    alice,
    bob,
    session,
    revoked: revokedToken.token,
    aliceCollections: [aliceInbox, alicePublic.id, aliceReading.id],
    bobCollections: [bobInbox, bobPublic.id],
    aliceLinks,
    bobLinks,
    seen: new Map(),
  };
}

// ---------------------------------------------------------------------------------------------
// Sending one request and checking the properties every exchange must keep.

interface Sent {
  method: string;
  path: string;
  headers: [string, string][];
  /** Text is sent as UTF-8; bytes as they are (invalid UTF-8 included). */
  body?: string | Uint8Array;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function send(env: TestEnv, sent: Sent): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of sent.headers) headers.append(name, value);
  const hasBody = sent.body !== undefined && sent.method !== "GET" && sent.method !== "HEAD";
  const response = await env.app.handle(new Request(`http://localhost${sent.path}`, { method: sent.method, headers, body: hasBody ? sent.body : undefined }));
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const STATUS_CODES: Record<number, string[]> = {
  400: ["INVALID_JSON", "INVALID_URL"],
  401: ["UNAUTHORIZED"],
  404: ["NOT_FOUND"],
  409: ["DEFAULT_COLLECTION"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  422: ["VALIDATION_FAILED"],
  429: ["RATE_LIMITED"],
};
/** Traces of the server's insides that must never reach a client. */
const LEAKS = [/\n\s+at /, /\.ts:\d+/, /node_modules/, /\/work\//, /SQLITE/i, /\bSELECT\b/, /RangeError|TypeError/];

/** expectErrorShape: the contract's error answer, exactly, for this status. */
function expectErrorShape(answer: Answer, method: string): void {
  const { status, json } = answer;
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  // A HEAD answer may carry no body at all (HTTP semantics); when it does, it is the GET's.
  if (method === "HEAD" && answer.text === "") return;
  expect(json !== null && typeof json === "object" && !Array.isArray(json)).toBe(true);
  expect(Object.keys(json).sort()).toEqual(status === 422 ? ["code", "errors", "message"] : ["code", "message"]);
  expect(typeof json.message).toBe("string");
  expect(json.message.length).toBeGreaterThan(0);
  expect(STATUS_CODES[status] ?? [`(no code for ${status})`]).toContain(json.code);
  if (status === 422) {
    expect(Array.isArray(json.errors) && json.errors.length > 0).toBe(true);
    for (const error of json.errors) {
      expect(Object.keys(error).sort()).toEqual(["message", "path"]);
      expect(typeof error.path).toBe("string");
      expect(error.path === "" || error.path.startsWith("/")).toBe(true);
      expect(typeof error.message).toBe("string");
    }
  }
  if (status === 401) expect(answer.headers.get("www-authenticate")).toBe("Bearer");
  if (status === 429) expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
  for (const leak of LEAKS) expect(answer.text).not.toMatch(leak);
}

/** What Object.prototype and its kin hold before any fuzzing; compared after every exchange. */
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype };
const prototypeState = () =>
  Object.entries(PROTOTYPES).map(([name, proto]) => [name, Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)!.value])] as const);
const PRISTINE = prototypeState();

function expectNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const key of ["polluted", "isAdmin", "name", "url", "favorite", "collectionIds", "icon", "description", "visibility"]) {
    expect(probe[key]).toBeUndefined();
  }
  const now = prototypeState();
  for (let i = 0; i < PRISTINE.length; i++) {
    const [name, before] = PRISTINE[i]!;
    const after = now[i]![1];
    expect({ name, keys: after.map(([key]) => String(key)) }).toEqual({ name, keys: before.map(([key]) => String(key)) });
    for (let k = 0; k < before.length; k++) {
      if (before[k]![1] !== after[k]![1]) throw new Error(`${name}.prototype.${String(before[k]![0])} was replaced`);
    }
  }
}

/** Where an answer is JSON by contract: the API, the favicon proxy, and /l/:id for non-browsers. */
function answersJson(pathname: string, accept: string): boolean {
  if (pathname.startsWith("/api/") || pathname === "/favicon") return true;
  return pathname.startsWith("/l/") && !accept.toLowerCase().includes("text/html");
}

/** The pathname the app sees (the URL parser resolves dot segments and encodes what it must). */
const pathnameOf = (path: string) => new URL(`http://localhost${path}`).pathname;
const headerOf = (sent: Sent, name: string) => sent.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v).join(", ");

/**
 * exchange sends one request and checks what every exchange must keep. It returns the answer
 * and whether the database changed, for the callers' own checks of accepted writes.
 */
async function exchange(world: World, sent: Sent): Promise<{ answer: Answer; changed: boolean }> {
  const before = snapshot(world.env);
  const answer = await send(world.env, sent);
  const after = snapshot(world.env);
  const changed = before !== after;
  const pathname = pathnameOf(sent.path);
  const where = `${sent.method} ${sent.path} -> ${answer.status} ${answer.text.slice(0, 300)}`;

  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400 && answersJson(pathname, headerOf(sent, "accept"))) expectErrorShape(answer, sent.method);
  if (answer.status >= 400) expect(changed, `refused but changed the database: ${where}`).toBe(false);

  const isWrite = pathname.startsWith("/api/") && ["POST", "PUT", "DELETE", "PATCH"].includes(sent.method);
  const mayChange = (isWrite && answer.status < 300)
    || (sent.method === "GET" && pathname.startsWith("/l/") && answer.status === 302)
    || (sent.method === "GET" && pathname === "/extension/authorize" && answer.status === 302)
    || (sent.method === "POST" && pathname === "/login" && answer.status === 303);
  if (!mayChange) expect(changed, `changed the database: ${where}`).toBe(false);
  if (changed) expectInvariants(world);
  expectNoPollution();
  return { answer, changed };
}

// ---------------------------------------------------------------------------------------------
// Invariants of the stored data, checked after every change.

const codePoints = (text: string) => [...text].length;
const EMOJI = /^\p{RGI_Emoji}$/v;
const isTrimmed = (text: string) => text === text.trim();

function expectInvariants({ env }: World): void {
  const client = env.db.$client;
  const rows = <T>(sql: string) => client.query(sql).all() as T[];
  expect(rows("SELECT id FROM links WHERE NOT EXISTS (SELECT 1 FROM link_collections WHERE link_id = links.id)"), "a link in no collection").toEqual([]);
  expect(rows(`SELECT lc.link_id, lc.collection_id FROM link_collections lc JOIN links l ON l.id = lc.link_id
    JOIN collections c ON c.id = lc.collection_id WHERE c.user_id <> l.user_id`), "a link in another user's collection").toEqual([]);
  expect(rows("SELECT id FROM users u WHERE (SELECT count(*) FROM collections WHERE user_id = u.id AND is_default = 1) <> 1"), "one Inbox each").toEqual([]);
  expect(rows("PRAGMA foreign_key_check")).toEqual([]);
  for (const link of rows<{ id: number; name: string; description: string; url: string }>("SELECT id, name, description, url FROM links")) {
    expect(isTrimmed(link.name) && codePoints(link.name) >= 1 && codePoints(link.name) <= 254, `link name ${JSON.stringify(link.name)}`).toBe(true);
    expect(NAME_FORBIDDEN.test(link.name), `link name ${JSON.stringify(link.name)}`).toBe(false);
    expect(isTrimmed(link.description) && codePoints(link.description) <= 300, `link description ${JSON.stringify(link.description)}`).toBe(true);
    expect(isTrimmed(link.url) && codePoints(link.url) <= 2048 && /^https?:\/\//i.test(link.url), `link url ${JSON.stringify(link.url)}`).toBe(true);
    expect(URL.parse(link.url)?.protocol).toMatch(/^https?:$/);
  }
  type CollectionRow = { id: number; name: string; description: string | null; icon: string; visibility: string };
  for (const c of rows<CollectionRow>("SELECT id, name, description, icon, visibility FROM collections")) {
    expect(isTrimmed(c.name) && codePoints(c.name) >= 1 && codePoints(c.name) <= 254, `collection name ${JSON.stringify(c.name)}`).toBe(true);
    expect(NAME_FORBIDDEN.test(c.name), `collection name ${JSON.stringify(c.name)}`).toBe(false);
    if (c.description !== null) {
      expect(isTrimmed(c.description) && codePoints(c.description) >= 1 && codePoints(c.description) <= 254, `collection description ${JSON.stringify(c.description)}`).toBe(true);
    }
    expect(EMOJI.test(c.icon) && codePoints(c.icon) <= 10, `icon ${JSON.stringify(c.icon)}`).toBe(true);
    expect(["PUBLIC", "PRIVATE"]).toContain(c.visibility);
  }
}

/** What SQLite keeps of a string: lone surrogates cannot be stored as UTF-8 and become U+FFFD. */
const stored = (text: string) => text.trim().toWellFormed();
const sortedUnique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);
const membershipsOf = ({ env }: World, linkId: number) =>
  (env.db.$client.query("SELECT collection_id AS id FROM link_collections WHERE link_id = ? ORDER BY collection_id").all(linkId) as { id: number }[]).map((r) => r.id);
const linkRow = ({ env }: World, id: number) => env.db.$client.query("SELECT * FROM links WHERE id = ?").get(id) as Record<string, any> | null;
const collectionRow = ({ env }: World, id: number) => env.db.$client.query("SELECT * FROM collections WHERE id = ?").get(id) as Record<string, any> | null;
/** The id a path names, when it names one at all (as the app's parseId reads it). */
const pathId = (pathname: string) => {
  // The router takes `/links/1/` for `/links/1`.
  const raw = pathname.replace(/\/$/, "").split("/").pop() ?? "";
  return /^[1-9][0-9]{0,15}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : null;
};

/**
 * expectAcceptedWrite: a 2xx write to the API stored exactly what its body asked (as the
 * server parsed it: duplicate keys, the last wins), trimmed, for the token's user.
 */
function expectAcceptedWrite(world: World, sent: Sent, answer: Answer, before: { link: any; collection: any }): void {
  const pathname = pathnameOf(sent.path);
  // A DELETE ignores whatever body it came with; a POST or PUT was accepted, so its body is JSON.
  const input = sent.method === "DELETE" ? undefined : JSON.parse(typeof sent.body === "string" ? sent.body : new TextDecoder().decode(sent.body));
  const id = pathId(pathname);
  // Only a valid token gets a 2xx from the API: the header holds exactly one user's token.
  const bob = headerOf(sent, "authorization").includes(world.bob.token);
  const userId = (bob ? world.bob : world.alice).user.id;
  const inbox = (bob ? world.bobCollections : world.aliceCollections)[0]!;
  if (pathname.startsWith("/api/v1/links")) {
    if (sent.method === "DELETE") {
      expect(linkRow(world, id!)).toBeNull();
      expect(membershipsOf(world, id!)).toEqual([]);
      return;
    }
    const linkId = sent.method === "POST" ? answer.json.link.id : id!;
    const row = linkRow(world, linkId)!;
    const wantIds = input.collectionIds?.length ? sortedUnique(input.collectionIds) : [inbox];
    expect(row.user_id).toBe(userId);
    expect(row.name).toBe(stored(input.name));
    expect(row.url).toBe(stored(input.url));
    expect(row.favorite).toBe(input.favorite ? 1 : 0);
    expect(row.description).toBe(input.description === undefined ? (before.link?.description ?? "") : stored(input.description));
    expect(membershipsOf(world, linkId)).toEqual(wantIds);
    if (sent.method === "POST") {
      const link = answer.json.link;
      expect(answer.status).toBe(201);
      expect(link.collectionIds).toEqual(wantIds);
      expect({ name: link.name, url: link.url, clicks: link.clicks, authorId: link.authorId }).toEqual({ name: row.name, url: row.url, clicks: 0, authorId: userId });
    }
    return;
  }
  if (sent.method === "DELETE") {
    expect(collectionRow(world, id!)).toBeNull();
    return;
  }
  const collectionId = sent.method === "POST" ? answer.json.collection.id : id!;
  const row = collectionRow(world, collectionId)!;
  const current = before.collection;
  const defaultIcon = current?.is_default ? "📥" : "📁";
  const icon = input.icon === undefined ? current?.icon ?? defaultIcon : input.icon.trim() === "" ? defaultIcon : stored(input.icon);
  const description = input.description === undefined ? current?.description ?? null : input.description === null ? null : stored(input.description) || null;
  expect(row.user_id).toBe(userId);
  expect({ name: row.name, visibility: row.visibility, icon: row.icon, description: row.description })
    .toEqual({ name: stored(input.name), visibility: input.visibility, icon, description });
}

/**
 * expectListedLinks: every link an answer shows has its stored collections, sorted ascending
 * (favorites `[Link]`, `{collections}`, `{collection}`, `{links, nextCursor}`, `{link}`).
 */
function expectListedLinks(world: World, json: any): void {
  const links: any[] = Array.isArray(json) ? json
    : json.collections ? json.collections.flatMap((c: { links: unknown[] }) => c.links)
    : json.collection ? json.collection.links
    : json.links ?? [json.link];
  expect(links.every((link) => link && typeof link.id === "number")).toBe(true);
  for (const link of links) {
    expect(link.collectionIds).toEqual(sortedUnique(link.collectionIds));
    expect(link.collectionIds).toEqual(membershipsOf(world, link.id));
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries: strings, numbers and JSON text, hostile by design.

/** One "character": any code point, a lone surrogate half, or a troublemaker. */
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
  { weight: 2, arbitrary: fc.constantFrom("\u0000", "\uFEFF", "\u200D", "\u200B", "\u202E", "\u200F", "\u0301", "\u0363", " ", "\t", "\n", "\u00A0", "\u2028", "😀", "👨‍👩‍👧", "🇫🇷") },
);

const EDGE_STRINGS = [
  "", " ", " \t\n\r ", "\u0000", "a\u0000b", "\uFEFF", "\uFEFFname\uFEFF", "\uD800", "\uDC00", "a\uD83D", "\uDE00b", "\uDBFF\uDBFF",
  "\u202Eevil\u202C", "שלום", "مرحبا بالعالم", "e\u0301", "Z\u0351\u0352\u0353\u0354\u0355", "👨‍👩‍👧‍👦", "\u200D", "\u200B", "🇫🇷", "1️⃣",
  "📁", "📥", "😀", "🏳️‍🌈", "👍🏽", "\u2028\u2029", "\u00A0x\u00A0", "null", "true", "false", "1", "-0", "NaN", "Infinity", "1e309",
  "__proto__", "constructor", "prototype", "<script>alert(1)</script>", "' OR 1=1 --", "%00", "%E0%A4%A", "../../etc/passwd", "${7*7}", "\\",
];

/** Strings around every length limit (254, 300, 2048), padded with white space that trimming removes. */
const limitString = fc
  .tuple(
    fc.constantFrom(0, 1, 253, 254, 255, 299, 300, 301, 2047, 2048, 2049),
    fc.constantFrom("a", "é", "😀", "e\u0301", "\uD800"),
    fc.constantFrom("", " ", "\u00A0", "\uFEFF", "\n\t"),
  )
  .map(([n, char, pad]) => pad + char.repeat(n) + pad);

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }) },
  { weight: 1, arbitrary: limitString },
);

const urlString = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "https://example.com/", "http://a.b", "HTTPS://EXAMPLE.COM/X", " https://example.com/padded ", "javascript:alert(1)", "JaVaScRiPt:alert(1)",
      "data:text/html,<b>x</b>", "file:///etc/passwd", "ftp://example.com/", "/relative", "example.com", "http:example.com", "http:/x.y", "https://",
      "https://[::1]/", "http://127.0.0.1/", "http://0x7f.1/", "http://2130706433/", "https://ex ample.com/", "https://example.com/\u0000",
      "https://example.com/a\nb", "https://例え.テスト/パス", "https://xn--/", "https://user:pass@example.com/", "http://%41.com/",
      "https://example.com:99999/", "https://example.com:0/", "https://example.com/\uD800", "https://example.com/\u202E",
      `https://a.b/${"a".repeat(2036)}`, `https://a.b/${"a".repeat(2037)}`, `https://a.b/${"😀".repeat(1000)}`, "\\\\example.com\\x",
    ),
  },
  { weight: 1, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom("http://", "https://", "HtTpS://"), nastyString).map(([scheme, rest]) => scheme + rest) },
);

/** Number tokens as JSON text: -0, beyond double range, beyond safe integers, exponents. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom("-0", "0", "1", "-1", "1e309", "-1e309", "1e-400", "9007199254740993", "18446744073709551616", "1.5", "1.0", "1E2", "2e0", "0.0000001"),
);
/** Tokens JSON does not have: these bodies are invalid JSON. */
const invalidToken = fc.constantFrom("NaN", "Infinity", "-Infinity", "+1", "01", ".5", "1.", "0x10", "undefined", "'x'", "True", "nul", "1_000", "\"\t\"", "\"\\x41\"");
const stringText = nastyString.map((s) => JSON.stringify(s));
/** Prototype-pollution payloads. */
const pollutionText = fc.constantFrom(
  `{"__proto__":{"polluted":"yes"}}`,
  `{"constructor":{"prototype":{"polluted":"yes"}}}`,
  `{"__proto__":{"__proto__":{"polluted":"yes"}}}`,
  `{"prototype":{"polluted":"yes"}}`,
  `{"__proto__":null}`,
  `{"__proto__":[]}`,
  `{"__proto__":"x"}`,
  `{"__proto__":{"toString":"x","valueOf":1,"hasOwnProperty":null,"isAdmin":true}}`,
  `{"constructor":{"name":"x","prototype":null}}`,
  `[{"__proto__":{"polluted":"yes"}}]`,
);
const FIELD_NAMES = ["name", "url", "description", "favorite", "collectionIds", "visibility", "icon", "id", "authorId", "clicks", "isDefault", "userId"];
const keyArb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype") },
  { weight: 2, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 2, arbitrary: nastyString },
);

/** JSON text of any shape (valid JSON), pollution keys at every level and duplicate keys. */
const { value: jsonText } = fc.letrec<{ value: string; leaf: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthSize: "small" }, tie("leaf"), tie("array"), tie("object")),
  leaf: fc.oneof(
    { weight: 3, arbitrary: stringText },
    { weight: 3, arbitrary: numberText },
    { weight: 1, arbitrary: fc.constantFrom("true", "false", "null", "{}", "[]") },
    { weight: 1, arbitrary: pollutionText },
  ),
  array: fc.array(tie("value"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
  object: fc.array(fc.tuple(keyArb, tie("value")), { maxLength: 5 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
}));

/** Text that is not JSON at all, or JSON with something wrong around it. */
const brokenText = fc.oneof(
  fc.constantFrom("", " ", "{", "}", "[", "{\"name\":}", "{'name':'x'}", "[1,2,]", "{\"a\":1,}", "\u0000", "\uFEFF{}", "{}\u0000", "{} {}", "{}garbage", "//x\n{}", "/*x*/{}"),
  invalidToken.map((token) => `{"name":${token},"url":"https://example.com/","favorite":true}`),
  fc.tuple(jsonText, fc.nat()).map(([text, cut]) => text.slice(0, cut % Math.max(1, text.length))),
  fc.string({ unit, maxLength: 40 }),
);

type Entries = [string, string][];

/**
 * A field of a body: `good` values pass validation (hostile as they may be), `bad` ones
 * mostly do not. A strict field is good, or given twice with a bad value first (the last
 * wins); a loose one may also be omitted, bad, or any JSON at all.
 */
interface Field {
  key: string;
  good: fc.Arbitrary<string>;
  bad: fc.Arbitrary<string>;
  optional?: boolean;
}

function fieldEntries({ key, good, bad, optional }: Field, strict: boolean): fc.Arbitrary<Entries> {
  const one = (value: fc.Arbitrary<string>) => value.map((v): Entries => [[key, v]]);
  const twice = fc.tuple(fc.oneof(bad, jsonText), good).map(([a, b]): Entries => [[key, a], [key, b]]);
  if (strict) {
    const present = fc.oneof({ weight: 6, arbitrary: one(good) }, { weight: 1, arbitrary: twice });
    return optional ? fc.oneof({ weight: 3, arbitrary: present }, { weight: 1, arbitrary: fc.constant<Entries>([]) }) : present;
  }
  return fc.oneof(
    { weight: 6, arbitrary: one(good) },
    { weight: 3, arbitrary: one(bad) },
    { weight: 1, arbitrary: one(jsonText) },
    { weight: 1, arbitrary: fc.constant<Entries>([]) },
    { weight: 1, arbitrary: twice },
  );
}

/** Keys the API does not take, some of them names a careless server would store. */
const extraKey = fc.constantFrom("__proto__", "constructor", "prototype", "id", "authorId", "userId", "clicks", "isDefault", "createdAt", "hasOwnProperty");

/** An object body from its fields plus extra (often hostile) keys, in a shuffled order. */
function objectBody(fields: Field[], strict: boolean): fc.Arbitrary<string> {
  const extras = fc.array(fc.tuple(strict ? extraKey : keyArb, fc.oneof(jsonText, pollutionText)), { maxLength: 3 });
  return fc
    .tuple(fc.tuple(...fields.map((field) => fieldEntries(field, strict))), fc.oneof({ weight: 2, arbitrary: fc.constant<Entries>([]) }, { weight: 1, arbitrary: extras }))
    .chain(([parts, extra]) => {
      const entries = [...parts.flat(), ...extra];
      return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length });
    })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
}

/** Any body: near-valid and mutated objects mostly, else random JSON, what JSON.stringify makes of anything, or broken text. */
/** Bytes that are not UTF-8 (lone continuation bytes, overlongs, surrogates, 0xFF), inside a JSON string or alone. */
const badUtf8 = fc.oneof(
  fc.constantFrom([0x80], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xfe, 0xfe])
    .map((bad) => new Uint8Array([...new TextEncoder().encode(`{"name":"n`), ...bad, ...new TextEncoder().encode(`","url":"https://example.com/","favorite":true,"visibility":"PUBLIC"}`)])),
  fc.uint8Array({ maxLength: 40 }),
);

const bodyOf = (fields: Field[]) =>
  fc.oneof(
    { weight: 8, arbitrary: objectBody(fields, true) },
    { weight: 8, arbitrary: objectBody(fields, false) },
    { weight: 2, arbitrary: jsonText },
    { weight: 1, arbitrary: fc.anything({ withNullPrototype: true, withObjectString: true, withSparseArray: true }).map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: fc.json() },
    { weight: 2, arbitrary: brokenText },
    { weight: 1, arbitrary: badUtf8 },
  );

/** What a stored name never holds: control characters, line separators, bidirectional controls, lone surrogates. */
const NAME_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * Names that pass (1-254 code points after trimming, nothing NAME_FORBIDDEN, one visible
 * character: here an `n`, or a constant that has one), however odd.
 */
const goodName = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit, maxLength: 40 }).map((s) => `n${s}`).filter((s) => !NAME_FORBIDDEN.test(s)) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).map((s) => `${s}n`).filter((s) => !NAME_FORBIDDEN.test(s)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("n", " padded ", "שלום", "👨‍👩‍👧‍👦", "e\u0301", "a\u200Bb", "\u200Fמ", "\uFEFFname",
      "a".repeat(254), ` ${"a".repeat(254)} `, "😀".repeat(254), "<script>x</script>", "__proto__", "null"),
  },
);
/** URLs that pass: absolute http(s), at most 2048 characters. */
const goodUrl = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("https://example.com/", "HTTPS://EXAMPLE.COM/X", " https://example.com/padded ", "https://例え.テスト/パス", "https://user:pass@example.com/",
      "https://example.com/\uD800", "http://[::1]:8080/x", `https://a.b/${"a".repeat(2036)}`, "https://example.com/?q=\u202E#\u200D"),
  },
);
// ---------------------------------------------------------------------------------------------
// Arbitraries that know the world: ids, bodies, headers, whole requests.

function arbitrariesOf(world: World) {
  const ownCollections = fc.constantFrom(...world.aliceCollections);
  /** Own collection ids, spelled as JSON may spell them: 3, 3.0, 3e0, 0.3e1. */
  const ownCollectionId = fc.tuple(fc.constantFrom(...world.aliceCollections), fc.constantFrom(0, 0, 0, 1, 2, 3))
    .map(([id, spelling]) => [String(id), `${id}.0`, `${id}e0`, `0.${id}e${String(id).length}`][spelling]!);
  const badCollectionId = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...world.bobCollections).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }).map(String) },
    { weight: 2, arbitrary: numberText },
    { weight: 1, arbitrary: fc.constantFrom(`"${world.aliceCollections[1]}"`, "null", "true", "[1]", "{}", `{"__proto__":1}`) },
  );
  const collectionIds: Field = {
    key: "collectionIds",
    good: fc.array(ownCollectionId, { maxLength: 5 }).map((ids) => `[${ids.join(",")}]`),
    bad: fc.array(fc.oneof({ weight: 2, arbitrary: ownCollectionId }, { weight: 1, arbitrary: badCollectionId }), { minLength: 1, maxLength: 5 }).map((ids) => `[${ids.join(",")}]`),
  };
  const name: Field = { key: "name", good: goodName.map((s) => JSON.stringify(s)), bad: stringText };
  const url: Field = { key: "url", good: goodUrl.map((s) => JSON.stringify(s)), bad: urlString.map((s) => JSON.stringify(s)) };
  const favorite: Field = { key: "favorite", good: fc.constantFrom("true", "false"), bad: fc.constantFrom(`"true"`, "1", "0", "null", "[]", `"false"`) };
  const goodDescription = fc.oneof(fc.string({ unit, maxLength: 40 }), fc.constantFrom("", " ", "d".repeat(300), ` ${"d".repeat(254)} `));
  const linkDescription: Field = { key: "description", good: goodDescription.map((s) => JSON.stringify(s)), bad: fc.oneof(stringText, fc.constant("null")), optional: true };

  const linkBody = (update: boolean) => bodyOf([name, url, favorite, linkDescription, { ...collectionIds, optional: !update }]);

  const icon: Field = {
    key: "icon",
    good: fc.constantFrom("📁", "📥", "😀", "🇫🇷", "1️⃣", "#️⃣", "👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏽", " 🌍 ", "", " ").map((s) => JSON.stringify(s)),
    bad: fc.oneof(fc.constantFrom("a", "😀😀", "\uD83D", "🇫", "#", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦", "\u200D", "😀\u0000", "\uFE0F", "🏴‍☠️x"), nastyString).map((s) => JSON.stringify(s)),
    optional: true,
  };
  const visibility: Field = { key: "visibility", good: fc.constantFrom(`"PUBLIC"`, `"PRIVATE"`), bad: fc.constantFrom(`"public"`, `""`, "null", "1", `" PUBLIC"`, `["PUBLIC"]`, `"PUBLIC\u0000"`) };
  const collectionDescription: Field = {
    key: "description",
    good: fc.oneof(goodDescription.filter((s) => [...s.trim()].length <= 254).map((s) => JSON.stringify(s)), fc.constant("null")),
    bad: fc.oneof(stringText, fc.constant(`"${"d".repeat(255)}"`)),
    optional: true,
  };
  const collectionBody = bodyOf([name, visibility, collectionDescription, icon]);

  /** Path ids: mostly real ones (own and others'), else garbage, encoded slashes, dots, unicode. */
  const pathId = (own: number[], others: number[], kind: Kind) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...own).map(String) },
      // One that exists when the request is sent, the run's own creations included (see resolveIds).
      { weight: 5, arbitrary: fc.nat().map((k) => `{{${kind}:${k}}}`) },
      { weight: 1, arbitrary: fc.constantFrom(...others).map(String) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }).map(String) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          "0", "-1", "01", "1.0", "1e3", "+1", " 1", "1 ", "9007199254740991", "9007199254740993", "99999999999999999999", "%2F", "1%2F2", "1/2", "..",
          "%2e%2e", ".", "1/", "%", "%ZZ", "%E0%A4%A", "١", "１", "1%00", "%201", "1?x=1", "1#x", "abc", "", "NaN", "Infinity", "0x1", "1;2", "%u0031",
          "\u202E1", "1\u0301", "😀", "%F0%9F%98%80", "__proto__", "constructor",
        ),
      },
      { weight: 1, arbitrary: fc.string({ unit, maxLength: 10 }).map((s) => encodeURIComponent(s.toWellFormed())) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    );
  const linkId = pathId(world.aliceLinks, world.bobLinks, "link");
  const collectionId = pathId(world.aliceCollections, world.bobCollections, "collection");
  const anyLinkId = pathId([...world.aliceLinks, ...world.bobLinks], [world.aliceLinks.length + world.bobLinks.length + 1], "anyLink");

  const headerValue = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)), maxLength: 60 });
  const authorization = fc.oneof(
    { weight: 40, arbitrary: fc.constant(`Bearer ${world.alice.token}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `bearer ${world.alice.token}`, `BEARER ${world.alice.token}`, `Bearer ${world.bob.token}`, `Bearer  ${world.alice.token}`, `Bearer ${world.alice.token} `,
        `Bearer ${world.alice.token} x`, `Bearer\t${world.alice.token}`, `Bearer ${world.revoked}`, `Bearer ${world.alice.token.slice(0, -1)}`,
        `Bearer ${world.alice.token}=`, "Bearer", "Bearer ", `Basic ${btoa("alice:secret")}`, `Token ${world.alice.token}`, world.alice.token,
        `Bearer lks_${"A".repeat(43)}`, `Bearer ${world.alice.token}, Bearer ${world.bob.token}`, "Bearer null", "Bearer undefined",
      ),
    },
    { weight: 1, arbitrary: headerValue },
    { weight: 1, arbitrary: headerValue.map((v) => `Bearer ${v}`) },
  );
  const contentType = fc.oneof(
    { weight: 40, arbitrary: fc.constant("application/json") },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8", "APPLICATION/JSON", "application/json;", "application/json ; x=y", "application/json\t; x=y", "application/jsonx",
        "application/json+x", "text/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/ld+json",
        "application/json, text/plain", " application/json", "*/*",
      ),
    },
    { weight: 1, arbitrary: headerValue },
  );
  const accept = fc.constantFrom("application/json", "*/*", "text/html", "text/html,application/xhtml+xml,*/*;q=0.8", "TEXT/HTML", "image/*", "", "application/json;q=0, text/html;q=0");
  const cookie = fc.oneof(
    { weight: 2, arbitrary: fc.constant(`linkshelf_session=${world.session}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "linkshelf_session=", "linkshelf_session", "linkshelf_session=%", "linkshelf_session=%E0%A4%A", `linkshelf_session="${world.session}"`, ";;;=;=;",
        `linkshelf_session=${world.session}; linkshelf_session=x`, "linkshelf_session=x; linkshelf_session=y", `a=b; linkshelf_session=${world.session.slice(1)}`,
        "=", "\"", "linkshelf_session=\u00e9\u00ff", `__proto__=1; constructor=2; linkshelf_session=${world.session}`,
      ),
    },
    { weight: 2, arbitrary: headerValue },
  );
  const forwardedFor = fc.oneof(
    fc.constantFrom("", ",", " , ,", "1.2.3.4", "1.2.3.4, 5.6.7.8", "::1", "[::1]:80", "unknown", "127.0.0.1, garbage", "x".repeat(1000)),
    headerValue,
    fc.ipV4(),
    fc.ipV6(),
  );
  const otherHeader = fc.oneof(
    fc.tuple(fc.constant("x-forwarded-for"), forwardedFor),
    fc.tuple(fc.constant("x-forwarded-proto"), fc.constantFrom("https", "http", "HTTPS, http", "ftp", "")),
    fc.tuple(fc.constantFrom("origin", "referer"), fc.constantFrom("http://localhost", "https://evil.test", "null", "", "http://localhost:80/x", "garbage")),
    fc.tuple(fc.constant("content-length"), fc.constantFrom("0", "1", "-1", "abc", "99999999999", "1048577", "1e3")),
    fc.tuple(fc.constant("if-none-match"), fc.constantFrom("*", "W/\"x\"", "\"\"", ",,,")),
    fc.tuple(fc.constantFrom("x-a", "transfer-encoding", "host"), headerValue),
  );
  /** Headers of an API request: usually alice's token and JSON, sometimes anything. */
  const headers = (withBody: boolean) =>
    fc
      .record({
        authorization: fc.option(authorization, { freq: 25 }),
        contentType: withBody ? fc.option(contentType, { freq: 25 }) : fc.constant(null),
        accept: fc.option(accept, { freq: 2 }),
        cookie: fc.option(cookie, { freq: 2 }),
        others: fc.array(otherHeader, { maxLength: 3 }),
      })
      .map(({ authorization, contentType, accept, cookie, others }) => {
        const list: [string, string][] = [];
        if (authorization !== null) list.push(["authorization", authorization]);
        if (contentType !== null) list.push(["content-type", contentType]);
        if (accept !== null) list.push(["accept", accept]);
        if (cookie !== null) list.push(["cookie", cookie]);
        return [...list, ...others];
      });
  /** Headers of a browser-ish request (/l, /favicon, /extension): no token by default. */
  const browserHeaders = fc
    .record({
      authorization: fc.option(authorization, { freq: 3 }),
      accept: fc.option(accept, { freq: 3 }),
      cookie: fc.option(cookie, { freq: 2 }),
      others: fc.array(otherHeader, { maxLength: 3 }),
    })
    .map(({ authorization, accept, cookie, others }) => {
      const list: [string, string][] = [];
      if (authorization !== null) list.push(["authorization", authorization]);
      if (accept !== null) list.push(["accept", accept]);
      if (cookie !== null) list.push(["cookie", cookie]);
      return [...list, ...others];
    });
  const query = fc.oneof(
    fc.constant(""),
    fc.constantFrom("?", "?x=1", "?%", "?a=%E0%A4%A", "?__proto__[polluted]=1", "?constructor[prototype][polluted]=1", "?a=1&a=2", "?&&&=&", "?#frag"),
    fc.dictionary(nastyString, nastyString, { maxKeys: 3 }).map((dict) => `?${new URLSearchParams(Object.entries(dict).map(([k, v]): [string, string] => [k.toWellFormed(), v.toWellFormed()]))}`),
  );

  const request = (method: string, path: fc.Arbitrary<string>, body?: fc.Arbitrary<string | Uint8Array>): fc.Arbitrary<Sent> =>
    fc.record({
      method: fc.constant(method),
      path: fc.tuple(path, query).map(([p, q]) => p + q),
      headers: headers(body !== undefined),
      body: body ?? fc.constant(undefined),
    });

  const faviconTarget = fc.oneof(
    { weight: 3, arbitrary: urlString },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom("http://", "https://"), fc.oneof(fc.ipV4(), fc.ipV6().map((ip) => `[${ip}]`), fc.domain())).map(([s, h]) => `${s}${h}/`) },
    { weight: 1, arbitrary: fc.constantFrom("http://10.0.0.1/", "http://169.254.169.254/latest", "http://[::ffff:127.0.0.1]/", "http://0/", "http://0x7f000001/", "https://localhost/", `https://${"a".repeat(2040)}.b/`) },
  );
  const faviconPath = fc.oneof(
    { weight: 8, arbitrary: faviconTarget.map((url) => `/favicon?url=${encodeURIComponent(url.toWellFormed())}`) },
    { weight: 2, arbitrary: fc.constantFrom("/favicon", "/favicon?", "/favicon?url=", "/favicon?url=%", "/favicon?url=%E0%A4%A", "/favicon?url=http%3A%2F%2Fa.b&url=javascript:x", "/favicon?URL=https://a.b/", "/favicon?url=https://a.b/#x", "/favicon?url=https://a.b/ x") },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => `/favicon?url=${s}`) },
  );

  const chromium = fc.stringMatching(/^[a-p]{32}$/).map((id) => `${id}.chromiumapp.org`);
  const firefox = fc.stringMatching(/^[0-9a-f]{40}$/).map((id) => `${id}.extensions.allizom.org`);
  const callbackTail = fc.oneof(fc.constant("/"), fc.constant(""), fc.webPath(), fc.constantFrom("/cb?x=1", "/#frag", "?a=b", "/\\evil", "/%2F%2Fevil.test", "/..//evil.test"));
  const redirectUri = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.oneof(chromium, firefox), callbackTail).map(([host, tail]) => `https://${host}${tail}`) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.oneof(chromium, firefox), fc.constantFrom(
        (h: string) => `http://${h}/`, (h: string) => `HTTPS://${h}/`, (h: string) => `https://${h.toUpperCase()}/`, (h: string) => `https://${h}:443/`,
        (h: string) => `https://${h}:8443/`, (h: string) => `https://user@${h}/`, (h: string) => `https://${h}./`, (h: string) => `https://${h}.evil.test/`,
        (h: string) => `https://evil.test/${h}`, (h: string) => `https://evil.test#${h}`, (h: string) => `https://evil.test?${h}`, (h: string) => ` https://${h}/`,
        (h: string) => `https://${h}/\n`, (h: string) => `https:\\\\${h}/`, (h: string) => `https://${h.replace("a", "%61")}/`, (h: string) => `//${h}/`,
        (h: string) => `https://x.${h}/`, (h: string) => `https://${h}@evil.test/`,
      )).map(([host, spell]) => spell(host)),
    },
    { weight: 2, arbitrary: urlString },
  );
  const authorizePath = fc.oneof(
    { weight: 8, arbitrary: redirectUri.map((uri) => `/extension/authorize?redirect_uri=${encodeURIComponent(uri.toWellFormed())}`) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom("/extension/authorize", "/extension/authorize?redirect_uri=", "/extension/authorize?redirect_uri=%", "/extension/authorize?REDIRECT_URI=x"),
        fc.tuple(redirectUri, redirectUri).map(([a, b]) => `/extension/authorize?redirect_uri=${encodeURIComponent(a.toWellFormed())}&redirect_uri=${encodeURIComponent(b.toWellFormed())}`),
        fc.string({ maxLength: 40 }).map((s) => `/extension/authorize?redirect_uri=${s}`),
      ),
    },
  );

  return {
    linkBody,
    collectionBody,
    linkId,
    collectionId,
    anyLinkId,
    headers,
    browserHeaders,
    request,
    faviconPath,
    authorizePath,
    headerValue,
    forwardedFor,
    accept,
  };
}

/** run sends a request through exchange, and checks an accepted API write against its body. */
type Kind = "link" | "collection" | "anyLink";
const KIND_QUERIES: Record<Kind, string> = {
  link: "SELECT id FROM links WHERE user_id = ?1 ORDER BY id",
  collection: "SELECT id FROM collections WHERE user_id = ?1 ORDER BY id",
  anyLink: "SELECT id FROM links WHERE ?1 IS NOT NULL ORDER BY id",
};

/** resolveIds turns `{{link:k}}` in a path into the k-th (modulo) of alice's links that exist now; likewise collections. */
function resolveIds(world: World, path: string): string {
  return path.replace(/\{\{(link|collection|anyLink):(\d+)\}\}/g, (_, kind: Kind, k: string) => {
    const ids = (world.env.db.$client.query(KIND_QUERIES[kind]).all(world.alice.user.id) as { id: number }[]).map((row) => row.id);
    return ids.length === 0 ? "0" : String(ids[Number(k) % ids.length]);
  });
}

async function run(world: World, generated: Sent): Promise<Answer> {
  const sent = { ...generated, path: resolveIds(world, generated.path) };
  const pathname = pathnameOf(sent.path);
  const id = pathId(pathname);
  const before = {
    link: id !== null && pathname.startsWith("/api/v1/links/") ? linkRow(world, id) : null,
    collection: id !== null && pathname.startsWith("/api/v1/collections/") ? collectionRow(world, id) : null,
  };
  const { answer } = await exchange(world, sent);
  const route = pathname.replace(/^(\/(?:api\/v1\/)?[^/]+\/?).*$/s, "$1");
  const key = `${sent.method} ${route} ${answer.status}`;
  world.seen.set(key, (world.seen.get(key) ?? 0) + 1);
  const isWrite = ["POST", "PUT", "DELETE"].includes(sent.method) && /^\/api\/v1\/(links|collections)(\/|$)/.test(pathname);
  if (isWrite && answer.status < 300) expectAcceptedWrite(world, sent, answer, before);
  if (sent.method === "GET" && answer.status === 200 && pathname.startsWith("/api/v1/")) expectListedLinks(world, answer.json);
  return answer;
}

/** How many exchanges of the world answered a status that `pred` accepts. */
const countSeen = (world: World, pred: (status: number) => boolean) =>
  [...world.seen].filter(([key]) => pred(Number(key.split(" ").pop()))).reduce((n, [, count]) => n + count, 0);

/** printSeen shows, in a long run (or with FUZZ_STATS=1), how often each route answered each status. */
function printSeen(world: World, title: string): void {
  if (LONG_RUNS === 0 && !process.env.FUZZ_STATS) return;
  const lines = [...world.seen].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `  ${key}: ${count}`);
  console.log(`${title}\n${lines.join("\n")}`);
}

// ---------------------------------------------------------------------------------------------
// The properties.

describe("fuzzing /api/v1", () => {
  it("answers links requests (create, update, delete, favorites) with no 5xx, the error shape on 4xx, nothing changed on refusal, invariants kept on success", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const requests = fc.oneof(
      { weight: 4, arbitrary: a.request("POST", fc.constant("/api/v1/links"), a.linkBody(false)) },
      { weight: 4, arbitrary: a.request("PUT", a.linkId.map((id) => `/api/v1/links/${id}`), a.linkBody(true)) },
      { weight: 1, arbitrary: a.request("DELETE", a.linkId.map((id) => `/api/v1/links/${id}`)) },
      { weight: 1, arbitrary: a.request("GET", fc.constant("/api/v1/links/favorites")) },
    );
    await fc.assert(fc.asyncProperty(requests, async (sent) => void (await run(world, sent))), options(300));
    printSeen(world, "links");
    expect(countSeen(world, (s) => s < 300)).toBeGreaterThan(0);
    expect(countSeen(world, (s) => s === 422)).toBeGreaterThan(0);
  }, TIMEOUT);

  it("answers collections requests (list, create, update, delete) with no 5xx, the error shape on 4xx, nothing changed on refusal, invariants kept on success", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const requests = fc.oneof(
      { weight: 1, arbitrary: a.request("GET", fc.constant("/api/v1/collections")) },
      { weight: 4, arbitrary: a.request("POST", fc.constant("/api/v1/collections"), a.collectionBody) },
      { weight: 4, arbitrary: a.request("PUT", a.collectionId.map((id) => `/api/v1/collections/${id}`), a.collectionBody) },
      { weight: 1, arbitrary: a.request("DELETE", a.collectionId.map((id) => `/api/v1/collections/${id}`)) },
      { weight: 2, arbitrary: a.request("POST", fc.constant("/api/v1/links"), a.linkBody(false)) },
    );
    await fc.assert(fc.asyncProperty(requests, async (sent) => void (await run(world, sent))), options(300));
    printSeen(world, "collections");
    expect(countSeen(world, (s) => s < 300)).toBeGreaterThan(0);
  }, TIMEOUT);

  it("answers bulk requests as a model of their rules predicts, all or nothing, and applies exactly the action on success", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const client = world.env.db.$client;
    const idsOf = (query: string) => (client.query(query).all(world.alice.user.id) as { id: number }[]).map((row) => row.id);
    /** `{mine: k}` is the k-th (modulo) of alice's links or collections when the request is sent; `{raw}` is sent as it is. */
    type Pick = { mine: number } | { raw: unknown };
    const pick = (others: number[]) => fc.oneof(
      { weight: 12, arbitrary: fc.nat({ max: 40 }).map((k): Pick => ({ mine: k })) },
      { weight: 1, arbitrary: fc.constantFrom(...others).map((id): Pick => ({ raw: id })) },
      { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -3, max: 999_999 }), fc.double(), fc.string({ maxLength: 3 }), fc.constant(null)).map((raw): Pick => ({ raw })) },
    );
    const plans = fc.record({
      picks: fc.array(pick(world.bobLinks), { maxLength: 4 }),
      // Remove weighs more: its refusal from the Inbox needs every other part valid.
      action: fc.constantFrom("favorite", "unfavorite", "delete", "move", "add", "remove", "remove", "remove", "archive", ""),
      collection: fc.option(pick(world.bobCollections), { nil: undefined }),
    });
    const steps = fc.oneof(
      { weight: 1, arbitrary: a.request("POST", fc.constant("/api/v1/links"), a.linkBody(false)).map((sent) => ({ sent, plan: undefined })) },
      { weight: 3, arbitrary: plans.map((plan) => ({ sent: undefined, plan })) },
    );
    await fc.assert(fc.asyncProperty(steps, async ({ sent, plan }) => {
      if (sent) return void (await run(world, sent));
      const links = idsOf("SELECT id FROM links WHERE user_id = ?1 ORDER BY id");
      const collections = idsOf("SELECT id FROM collections WHERE user_id = ?1 ORDER BY id");
      const resolve = (choice: Pick, mine: number[]) => ("mine" in choice ? (mine.length === 0 ? 999_999 : mine[choice.mine % mine.length]) : choice.raw);
      const ids = plan!.picks.map((choice) => resolve(choice, links));
      const collectionId = plan!.collection === undefined ? undefined : resolve(plan!.collection, collections);
      const inbox = world.aliceCollections[0]!;
      const needsCollection = ["move", "add", "remove"].includes(plan!.action);
      const invalid = ids.length === 0 || new Set(ids).size !== ids.length || ids.some((id) => typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
        || !["favorite", "unfavorite", "delete", "move", "add", "remove"].includes(plan!.action)
        || (collectionId !== undefined && (typeof collectionId !== "number" || !Number.isInteger(collectionId)))
        || needsCollection !== (collectionId !== undefined);
      const expected = invalid ? 422
        : ids.some((id) => !links.includes(id as number)) || (collectionId !== undefined && !collections.includes(collectionId as number)) ? 404
          : plan!.action === "remove" && collectionId === inbox ? 409 : 200;
      const before = new Map(ids.map((id) => [id, typeof id === "number" ? membershipsOf(world, id) : []]));
      const { answer } = await exchange(world, {
        method: "POST", path: "/api/v1/links/bulk",
        headers: [["authorization", `Bearer ${world.alice.token}`], ["content-type", "application/json"]],
        body: JSON.stringify({ ids, action: plan!.action, collectionId }),
      });
      const key = `POST /api/v1/links/bulk ${answer.status}`;
      world.seen.set(key, (world.seen.get(key) ?? 0) + 1);
      const where = `${JSON.stringify({ ids, action: plan!.action, collectionId })} -> ${answer.status} ${answer.text.slice(0, 300)}`;
      expect(answer.status, where).toBe(expected);
      if (answer.status !== 200) return;
      expect(answer.json.count, where).toBe(ids.length);
      for (const id of ids as number[]) {
        const row = linkRow(world, id);
        const was = before.get(id)!;
        switch (plan!.action) {
          case "favorite": case "unfavorite": expect(row!.favorite, where).toBe(plan!.action === "favorite" ? 1 : 0); break;
          case "delete": expect(row, where).toBeNull(); break;
          case "move": expect(membershipsOf(world, id), where).toEqual([collectionId as number]); break;
          case "add": expect(membershipsOf(world, id), where).toEqual(sortedUnique([...was, collectionId as number])); break;
          case "remove": {
            const left = was.filter((c) => c !== collectionId);
            expect(membershipsOf(world, id), where).toEqual(left.length === 0 ? [inbox] : left);
          }
        }
      }
    }), options(200));
    printSeen(world, "bulk");
    for (const status of [200, 404, 409, 422]) expect(countSeen(world, (s) => s === status)).toBeGreaterThan(0);
  }, TIMEOUT);

  it("answers any method on any path under /api/v1, with any headers and body, with no 5xx and the error shape", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const path = fc.oneof(
      fc.constantFrom("/api/v1", "/api/v1/", "/api/v1/links", "/api/v1/links/", "/api/v1/collections/", "/api/v1/links/favorites/", "/api/v1/links/favorites/1",
        "/api/v1/nothing", "/api/v1/../v1/links", "/api/v1/%2e%2e/links", "/api/v1//links", "/api/v1/links%2F1", "/api/V1/links", "/api/v2/links", "/api/v1/l/1"),
      a.linkId.map((id) => `/api/v1/links/${id}`),
      a.collectionId.map((id) => `/api/v1/collections/${id}`),
      fc.string({ maxLength: 20 }).map((s) => `/api/v1/${s}`),
    );
    const requests = fc
      .record({
        method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"),
        path,
        withBody: fc.boolean(),
      })
      .chain(({ method, path, withBody }) => a.request(method, fc.constant(path), withBody ? fc.oneof(a.linkBody(false), a.collectionBody) : undefined));
    await fc.assert(fc.asyncProperty(requests, async (sent) => void (await run(world, sent))), options(250));
    printSeen(world, "any method");
  }, TIMEOUT);
});

describe("fuzzing GET /api/v1/links queries", () => {
  it("answers any query string with 200 or a 4xx in the error shape, never a 5xx, and pages only through the requester's links", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const value = fc.oneof(
      fc.string({ maxLength: 30 }), fc.string({ unit: "grapheme", maxLength: 250 }), fc.integer().map(String),
      fc.constantFrom("", "0", "-1", "1.5", "1e3", "NaN", "Infinity", "true", "false", "null", "%", "_", "\\", "%25", "__proto__", "MTc5.NQ", "a".repeat(5000)),
      a.collectionId.map(String),
    );
    const query = fc.array(fc.tuple(fc.constantFrom("q", "collectionId", "favorite", "cursor", "limit", "__proto__", "constructor", "x"), value), { maxLength: 6 });
    await fc.assert(fc.asyncProperty(query, async (pairs) => {
      const search = pairs.map(([key, v]) => `${encodeURIComponent(key)}=${encodeURIComponent(v)}`).join("&");
      const answer = await run(world, { method: "GET", path: `/api/v1/links?${search}`, headers: [["authorization", `Bearer ${world.alice.token}`]], body: undefined });
      expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500), search).toBe(true);
      if (answer.status === 200) {
        expect(answer.json.links.length).toBeLessThanOrEqual(100);
        for (const link of answer.json.links) expect(link.authorId).toBe(world.alice.user.id);
      }
    }), options(150));
  }, TIMEOUT);
});

describe("fuzzing /l/:id, /favicon and /extension/authorize", () => {
  it("answers GET and HEAD /l/:id with 302 or a 4xx (JSON for non-browsers); HEAD and refusals change nothing, a GET 302 adds exactly one click", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const requests = fc.record({
      method: fc.constantFrom("GET", "HEAD"),
      path: fc.tuple(a.anyLinkId, fc.constantFrom("", "", "", "/", "?x=1", "//", "/x")).map(([id, tail]) => `/l/${id}${tail}`),
      headers: a.browserHeaders,
    });
    const clicks = () => (world.env.db.$client.query("SELECT coalesce(sum(clicks), 0) AS n FROM links").get() as { n: number }).n;
    await fc.assert(fc.asyncProperty(requests, async (sent) => {
      const before = clicks();
      const answer = await run(world, sent);
      // Dot segments (`/l/%2e%2e`) can lead elsewhere: only what stays under /l/ is a redirect request.
      if (pathnameOf(sent.path).startsWith("/l/")) expect([302, 404]).toContain(answer.status);
      if (answer.status === 302) {
        expect(answer.headers.get("cache-control")).toBe("no-store");
        expect(URL.parse(answer.headers.get("location") ?? "")?.protocol).toMatch(/^https?:$/);
      }
      expect(clicks()).toBe(before + (answer.status === 302 && sent.method === "GET" ? 1 : 0));
    }), options(250));
    printSeen(world, "/l/:id");
  }, TIMEOUT);

  it("answers /favicon with an image (200/304) or 400 INVALID_URL in the error shape, never reaching the network", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const requests = fc.record({ method: fc.constant("GET"), path: a.faviconPath, headers: a.browserHeaders });
    await fc.assert(fc.asyncProperty(requests, async (sent) => {
      const answer = await run(world, sent);
      expect([200, 304, 400]).toContain(answer.status);
      if (answer.status === 200) {
        // Nothing can be fetched, so every image is the generated placeholder.
        expect(answer.headers.get("content-type")).toBe("image/svg+xml");
        expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
        expect(answer.headers.get("content-security-policy")).toContain("sandbox");
        expect(answer.text).toStartWith("<svg");
      }
      if (answer.status === 400) expect(answer.json.code).toBe("INVALID_URL");
    }), options(250));
    printSeen(world, "/favicon");
  }, TIMEOUT);

  it("answers /extension/authorize with the consent page (nothing minted), 302 (one new token), 303 to sign-in, a 400 page, 403 (no top-level page) or 429, and a refusal creates no token", async () => {
    const world = await makeWorld();
    const a = arbitrariesOf(world);
    const secFetchDest = fc.option(fc.constantFrom("document", "document", "image", "iframe", "empty", "", "DOCUMENT"), { freq: 2 });
    const requests = fc.record({
      method: fc.constant("GET"),
      path: a.authorizePath,
      headers: fc.tuple(a.browserHeaders, secFetchDest).map(([headers, dest]): [string, string][] => (dest === null ? headers : [...headers, ["sec-fetch-dest", dest]])),
      // Time between requests: none (the address's 30 in 15 minutes run out), or enough for a new window.
      wait: fc.constantFrom(0, 0, 15 * 60 * 1000),
    });
    const tokens = () => (world.env.db.$client.query("SELECT count(*) AS n FROM api_tokens").get() as { n: number }).n;
    await fc.assert(fc.asyncProperty(requests, async ({ wait, ...sent }) => {
      world.env.clock.now += wait;
      const before = tokens();
      const answer = await run(world, sent);
      expect([200, 302, 303, 400, 403, 429]).toContain(answer.status);
      if (answer.status === 403) expect(headerOf(sent, "sec-fetch-dest")).not.toBe("document");
      // A handoff replaces the extension's token (one more at most, never two for one approval); anything else mints nothing.
      if (answer.status === 302) expect([before, before + 1]).toContain(tokens());
      else expect(tokens()).toBe(before);
      expect(world.env.db.$client.query("SELECT grant_id FROM api_tokens WHERE grant_id IS NOT NULL GROUP BY grant_id HAVING count(*) > 1").all()).toEqual([]);
      if (answer.status === 400) expect(answer.headers.get("content-type")).toStartWith("text/html");
      if (answer.status === 303) expect(answer.headers.get("location")).toStartWith("/login?next=%2Fextension%2Fauthorize");
      if (answer.status === 302) {
        const location = new URL(answer.headers.get("location")!);
        expect(location.protocol).toBe("https:");
        expect(location.port + location.username + location.password).toBe("");
        expect(location.hostname).toMatch(/^([a-p]{32}\.chromiumapp\.org|[0-9a-f]{40}\.extensions\.allizom\.org)$/);
        expect(location.hash).toMatch(/^#token=lks_[A-Za-z0-9_-]{43}$/);
      }
    }), options(200));
    printSeen(world, "/extension/authorize");
  }, TIMEOUT);
});

describe("fuzzing the sign-in pages", () => {
  it("answers any form (garbage fields, cross-site Origin, forged X-Forwarded-For) with 303, 400, 401, 403 or 429 (413 over 64 KiB); only a 303 changes anything", async () => {
    const world = await makeWorld({ LINKSHELF_RATE_LIMIT: "off", LINKSHELF_TRUST_PROXY: "1" });
    const a = arbitrariesOf(world);
    const { email } = world.alice.user;
    const field = fc.oneof(nastyString, fc.constantFrom(email, email.toUpperCase(), ` ${email} `, world.alice.password, "/", "//evil.test", "/\\evil.test", "/\t/evil.test", "javascript:x"));
    const form = fc
      .array(fc.tuple(fc.oneof(fc.constantFrom("email", "password", "next"), keyArb), field), { maxLength: 5 })
      .map((entries) => new URLSearchParams(entries.map(([k, v]): [string, string] => [k.toWellFormed(), v.toWellFormed()])).toString());
    const body = fc.oneof(
      { weight: 4, arbitrary: form },
      { weight: 1, arbitrary: fc.constant(`email=${encodeURIComponent(email)}&password=${encodeURIComponent(world.alice.password)}&next=%2Fx`) },
      { weight: 1, arbitrary: jsonText },
      { weight: 1, arbitrary: brokenText },
    );
    const contentType = fc.oneof(
      { weight: 4, arbitrary: fc.constant("application/x-www-form-urlencoded") },
      { weight: 1, arbitrary: fc.constantFrom("application/json", "text/plain", "multipart/form-data; boundary=x", "multipart/form-data", "application/octet-stream", "") },
    );
    const requests = fc.record({
      method: fc.constant("POST"),
      path: fc.constantFrom("/login", "/login?next=/x", "/login?next=%"),
      headers: fc.tuple(contentType, a.forwardedFor, a.browserHeaders).map(([type, ip, headers]) => [["content-type", type], ["x-forwarded-for", ip], ...headers] as [string, string][]),
      body,
    });
    await fc.assert(fc.asyncProperty(requests, async (sent) => {
      const answer = await run(world, sent);
      // A form over 64 KiB, sent or declared, is refused as too large, whatever it holds.
      const declared = Number(new Headers(sent.headers).get("content-length") ?? 0) || 0;
      const oversized = Math.max(declared, new TextEncoder().encode(typeof sent.body === "string" ? sent.body : "").length) > MAX_FORM_BYTES;
      expect(oversized ? [413] : [303, 400, 401, 403, 429]).toContain(answer.status);
      if (answer.status === 303) {
        const location = answer.headers.get("location")!;
        expect(new URL(location, "http://localhost").origin).toBe("http://localhost");
        expect(location).toStartWith("/");
      }
    }), options(40));
    printSeen(world, "POST /login");
  }, TIMEOUT);
  it("answers GET /login with the form (200) or a 303 to a path on this server, whatever next, query and cookie, changing nothing", async () => {
    const world = await makeWorld({ LINKSHELF_RATE_LIMIT: "off", LINKSHELF_TRUST_PROXY: "1" });
    const a = arbitrariesOf(world);
    const next = fc.oneof(
      fc.constantFrom("/", "/x?y#z", "//evil.test", "/\\evil.test", "/\t/evil.test", "/.//evil.test", "/%2F%2Fevil.test", "https://evil.test", "javascript:x", "%", "%E0%A4%A"),
      nastyString.map((s) => encodeURIComponent(s.toWellFormed())),
      fc.string({ maxLength: 20 }),
    );
    const requests = fc.record({
      method: fc.constantFrom("GET", "HEAD"),
      path: fc.tuple(next, fc.constantFrom("", "&next=/other", "&__proto__[polluted]=1")).map(([n, rest]) => `/login?next=${n}${rest}`),
      headers: a.browserHeaders,
    });
    await fc.assert(fc.asyncProperty(requests, async (sent) => {
      const answer = await run(world, sent);
      expect([200, 303]).toContain(answer.status);
      if (answer.status === 303) {
        const location = answer.headers.get("location")!;
        expect(location).toStartWith("/");
        expect(new URL(location, "http://localhost").origin).toBe("http://localhost");
      }
    }), options(150));
    printSeen(world, "GET /login");
  }, TIMEOUT);
});

describe("fuzzing with rate limits and a trusted proxy", () => {
  it("answers a mix of every route under a tight rate limit with forged X-Forwarded-For with no 5xx, the error shape and RateLimit headers", async () => {
    const world = await makeWorld({ LINKSHELF_RATE_LIMIT: "20/60", LINKSHELF_TRUST_PROXY: "1" });
    const a = arbitrariesOf(world);
    const requests = fc.oneof(
      a.request("POST", fc.constant("/api/v1/links"), a.linkBody(false)),
      a.request("PUT", a.collectionId.map((id) => `/api/v1/collections/${id}`), a.collectionBody),
      a.request("GET", fc.constant("/api/v1/collections")),
      fc.record({ method: fc.constantFrom("GET", "HEAD"), path: a.anyLinkId.map((id) => `/l/${id}`), headers: a.browserHeaders }),
      fc.record({ method: fc.constant("GET"), path: a.faviconPath, headers: a.browserHeaders }),
    );
    await fc.assert(fc.asyncProperty(requests, async (sent) => {
      const answer = await run(world, sent);
      const pathname = pathnameOf(sent.path);
      // What the router sends to a limited route is limited, and nothing else: under /api/v1/ its
      // catch-all takes every path; `/l/:id` and `/favicon` take one trailing slash or none.
      const limited = /^(\/api\/v1\/.*|\/l\/[^/]+\/?|\/favicon\/?)$/.test(pathname);
      expect({ pathname, limit: answer.headers.get("ratelimit-limit") }).toEqual({ pathname, limit: limited ? "20" : null });
    }), options(200));
    printSeen(world, "rate limited");
    expect(countSeen(world, (s) => s === 429)).toBeGreaterThan(0);
  }, TIMEOUT);
});

describe("fuzzing with huge and deeply nested bodies", () => {
  it("refuses exactly the bodies over 1 MiB with 413, counting UTF-8 bytes, whatever their shape", async () => {
    const world = await makeWorld();
    const token = world.alice.token;
    const valid = `{"name":"A page","url":"https://example.com/","favorite":false}`;
    const requests = fc.record({
      bytes: fc.oneof(fc.constantFrom(MIB - 1, MIB, MIB + 1, MIB + 3, 2 * MIB), fc.integer({ min: MIB - 8, max: MIB + 8 }), fc.integer({ min: MIB - 4096, max: MIB + 4096 })),
      shape: fc.constantFrom("padded", "name", "multibyte-name", "emoji-name", "array", "escapes"),
      route: fc.constantFrom("POST /api/v1/links", "POST /api/v1/collections", `PUT /api/v1/links/${world.aliceLinks[0]}`, `PUT /api/v1/collections/${world.aliceCollections[1]}`),
      declare: fc.boolean(),
    });
    /** A body of about `bytes` UTF-8 bytes (multi-byte characters may end it a few bytes short). */
    const bodyOfSize = (bytes: number, shape: string): string => {
      const fill = (unitText: string, room: number) => unitText.repeat(Math.max(0, Math.floor(room / new TextEncoder().encode(unitText).length)));
      switch (shape) {
        case "padded": return valid.slice(0, -1) + " ".repeat(bytes - valid.length) + "}";
        case "name": return `{"name":"${fill("a", bytes - 60)}","url":"https://example.com/","favorite":false}`;
        case "multibyte-name": return `{"name":"${fill("é", bytes - 60)}","url":"https://example.com/","favorite":false}`;
        case "emoji-name": return `{"name":"${fill("😀", bytes - 60)}","url":"https://example.com/","favorite":false}`;
        case "array": return `{"name":"x","collectionIds":[${fill("1,", bytes - 40)}1],"url":"https://example.com/","favorite":false}`;
        default: return `{"name":"${fill("\\u0000", bytes - 60)}","url":"https://example.com/","favorite":false}`;
      }
    };
    await fc.assert(fc.asyncProperty(requests, async ({ bytes, shape, route, declare }) => {
      const [method, path] = route.split(" ") as [string, string];
      const body = bodyOfSize(bytes, shape);
      const size = new TextEncoder().encode(body).length;
      const headers: [string, string][] = [["authorization", `Bearer ${token}`], ["content-type", "application/json"]];
      if (declare) headers.push(["content-length", String(size)]);
      const answer = await run(world, { method, path, headers, body });
      if (size > MAX_BODY_BYTES) expect(answer.status).toBe(413);
      else expect(answer.status).not.toBe(413);
    }), options(16));
    printSeen(world, "1 MiB");
  }, TIMEOUT);

  it("refuses bodies nested deeper than the limit, up to thousands of levels, anywhere in the body, with 400 in the error shape", async () => {
    const world = await makeWorld();
    const token = world.alice.token;
    const requests = fc.record({
      depth: fc.oneof(fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }), fc.integer({ min: 1000, max: 5000 }), fc.constantFrom(10_000, 100_000)),
      open: fc.constantFrom("[", `{"a":`, `{"__proto__":`, `[{"constructor":`),
      where: fc.constantFrom("top", "name", "url", "favorite", "collectionIds", "extra", "icon", "visibility"),
      route: fc.constantFrom("POST /api/v1/links", "POST /api/v1/collections", `PUT /api/v1/links/${world.aliceLinks[0]}`, `PUT /api/v1/collections/${world.aliceCollections[1]}`),
    });
    const closerOf = (open: string) => [...open].filter((c) => c === "[" || c === "{").reverse().map((c) => (c === "[" ? "]" : "}")).join("");
    await fc.assert(fc.asyncProperty(requests, async ({ depth, open, where, route }) => {
      const [method, path] = route.split(" ") as [string, string];
      const levels = Math.ceil(depth / closerOf(open).length);
      const deep = open.repeat(levels) + "1" + closerOf(open).repeat(levels);
      const fields: Record<string, string> = { name: `"x"`, url: `"https://example.com/"`, favorite: "true", visibility: `"PUBLIC"` };
      const body = where === "top" ? deep : `{${Object.entries({ ...fields, [where]: deep }).map(([k, v]) => `"${k}":${v}`).join(",")}}`;
      const headers: [string, string][] = [["authorization", `Bearer ${token}`], ["content-type", "application/json"]];
      const started = performance.now();
      const answer = await run(world, { method, path, headers, body });
      const nesting = levels * closerOf(open).length + (where === "top" ? 0 : 1);
      const size = new TextEncoder().encode(body).length;
      if (size > MAX_BODY_BYTES) expect(answer.status).toBe(413);
      else if (nesting > MAX_JSON_DEPTH) expect({ status: answer.status, code: answer.json.code }).toEqual({ status: 400, code: "INVALID_JSON" });
      // Refused before anything walks the whole value: no request costs seconds.
      expect(performance.now() - started).toBeLessThan(1000);
    }), options(30));
    printSeen(world, "nesting");
  }, TIMEOUT);
});

describe("regressions found by the fuzzing", () => {
  it("answers 400 INVALID_JSON, not 500, for a string field holding 10,000 nested arrays", async () => {
    const world = await makeWorld();
    const deep = "[".repeat(10_000) + "]".repeat(10_000);
    for (const [method, path, body] of [
      ["POST", "/api/v1/links", `{"name":${deep},"url":"https://example.com/","favorite":true}`],
      ["POST", "/api/v1/collections", `{"name":${deep},"visibility":"PUBLIC"}`],
      ["PUT", `/api/v1/links/${world.aliceLinks[0]}`, `{"name":"x","url":"https://example.com/","favorite":true,"collectionIds":${deep}}`],
    ] as const) {
      const answer = await run(world, { method, path, headers: [["authorization", `Bearer ${world.alice.token}`], ["content-type", "application/json"]], body });
      expect({ status: answer.status, body: answer.json }).toEqual({
        status: 400,
        body: { message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, code: "INVALID_JSON" },
      });
    }
  });

  it("answers 400 at once, not after seconds of work, for 100,000 nested objects in a field", async () => {
    const world = await makeWorld();
    const deep = `{"a":`.repeat(100_000) + "1" + "}".repeat(100_000);
    const started = performance.now();
    const answer = await run(world, {
      method: "POST",
      path: "/api/v1/links",
      headers: [["authorization", `Bearer ${world.alice.token}`], ["content-type", "application/json"]],
      body: `{"name":"x","url":"https://example.com/","favorite":true,"collectionIds":${deep}}`,
    });
    expect(answer.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("still accepts a body nested exactly to the limit when the schema allows it (extra keys are ignored)", async () => {
    const world = await makeWorld();
    const inner = "[".repeat(MAX_JSON_DEPTH - 1) + "]".repeat(MAX_JSON_DEPTH - 1);
    const answer = await run(world, {
      method: "POST",
      path: "/api/v1/links",
      headers: [["authorization", `Bearer ${world.alice.token}`], ["content-type", "application/json"]],
      body: `{"name":"x","url":"https://example.com/","favorite":true,"extra":${inner}}`,
    });
    expect(answer.status).toBe(201);
  });
});
