import { expect } from "bun:test";
import { WorkerRestorer } from "../../src/shelf/restorer";
import { createApp, type App } from "../../src/app";
import { ARGON2ID, HASHING_LIMITS, Passwords, type Hasher } from "../../src/common/passwords";
import type { ContentCapture } from "../../src/capture/fetcher";
import type { LinkCheck } from "../../src/link-health/checker";
import { createSession } from "../../src/auth/sessions";
import { loadConfig, type Config } from "../../src/common/config";
import { openDatabase, type Db } from "../../src/db/client";
import type { UserRow } from "../../src/db/schema";
import type { LogSink } from "../../src/request/log";
import { Shelf } from "../../src/shelf/shelf";
import type { SearchBudget } from "../../src/shelf/search";
import { createUser as createUserRecord } from "../../src/users/service";

/** The restore worker's code, as src/server.ts starts it. */
const RESTORE_WORKER = new URL("../../src/shelf/restore-worker.ts", import.meta.url);

export const START = Date.parse("2026-11-22T05:52:24.123Z");

/** A timestamp as the contract writes it: ISO 8601 UTC with milliseconds. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * onceEach is `hasher` with its answers kept: each distinct password is hashed once per process
 * and each password/hash pair verified once. The hashes are the server's real argon2id ones;
 * only the cost of repeating them is saved (one hash costs about as much as a whole API test).
 */
export function onceEach(hasher: Hasher): Hasher {
  const hashes = new Map<string, Promise<string>>();
  const verdicts = new Map<string, Promise<boolean>>();
  const kept = <T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> => {
    let answer = map.get(key);
    if (answer === undefined) {
      answer = make();
      map.set(key, answer);
      answer.catch(() => map.delete(key));
    }
    return answer;
  };
  return {
    hash: (password) => kept(hashes, password, () => hasher.hash(password)),
    verify: (password, hash) => kept(verdicts, `${hash}\n${password}`, () => hasher.verify(password, hash)),
  };
}

/** The hashing queue of every test app unless a test brings its own: real limits, hashes paid once. */
export const testPasswords = new Passwords(HASHING_LIMITS, onceEach(ARGON2ID));

export interface TestEnv {
  app: App;
  db: Db;
  config: Config;
  /** Every call to the app's clock returns this and then advances it by 1 ms. */
  clock: { now: number };
  /** SQL statements drizzle ran since the last `queries.length = 0`. */
  queries: string[];
  /** The app's hashing queue. */
  passwords: Passwords;
}

export interface EnvOptions {
  /** A database file (a restart is a second env on the same file); default a fresh `:memory:`. */
  path?: string;
  /** The one-time code of a first start, which unlocks `/setup`. */
  setupCode?: string;
  /** The hashing queue (default `testPasswords`). */
  passwords?: Passwords;
  /** Where the app's log lines go; stderr by default. */
  log?: LogSink;
  /** The TCP peer every request comes from (in-process requests have no socket); default 127.0.0.1. */
  peer?: string;
  /** The background capture of saved pages; default none (nothing is fetched). */
  capture?: ContentCapture;
  /** The link checker behind "check now"; default none (nothing is checked). */
  linkCheck?: LinkCheck;
  /** The server time a search may take, by its own clock; default the real one (1 s). */
  searchBudget?: SearchBudget;
  /** With `path`: big restores from the trash run on the restore worker over that file, as in the server; default on the caller's thread. */
  restoreWorker?: boolean;
}

/** makeEnv builds an app around a fresh in-memory database with the real migrations. */
export function makeEnv(env: Record<string, string> = {}, options: EnvOptions = {}): TestEnv {
  const queries: string[] = [];
  const db = openDatabase(options.path ?? ":memory:", { logger: { logQuery: (query) => void queries.push(query) } });
  const config = loadConfig({}, env);
  const clock = { now: START };
  const peer = options.peer ?? "127.0.0.1";
  const passwords = options.passwords ?? testPasswords;
  const app = createApp({ db, config, clock: () => clock.now++, setupCode: options.setupCode, peerAddress: () => peer,
    passwords, log: options.log, capture: options.capture, linkCheck: options.linkCheck, searchBudget: options.searchBudget,
    restorer: options.restoreWorker && options.path ? new WorkerRestorer(RESTORE_WORKER, options.path) : undefined });
  return { app, db, config, clock, queries, passwords };
}

export interface TestUser {
  user: UserRow;
  token: string;
  password: string;
}

let userCounter = 0;

/** createUser makes a user (with Inbox) and an API token for them. */
export async function createUser(env: TestEnv, overrides: { email?: string; name?: string; password?: string } = {}): Promise<TestUser> {
  userCounter++;
  const password = overrides.password ?? "correct horse battery";
  const user = await createUserRecord(env.db, {
    email: overrides.email ?? `user${userCounter}@example.test`,
    name: overrides.name ?? `User ${userCounter}`,
    password,
  }, env.clock.now++, { passwords: env.passwords });
  const { token } = new Shelf(env.db, user).tokens.create("test", env.clock.now++);
  return { user, token, password };
}

/** aliceWithInbox is where most API tests start: a fresh app with one user, alice, and the id of her Inbox. */
export async function aliceWithInbox(user: Parameters<typeof createUser>[1] = {}): Promise<{ env: TestEnv; alice: TestUser; inbox: number }> {
  const env = makeEnv();
  const alice = await createUser(env, user);
  return { env, alice, inbox: await inboxOf(env, alice) };
}

/** shelfFor is a test user's shelf, as the auth plugins hand it to the routes. */
export function shelfFor(env: TestEnv, as: TestUser): Shelf {
  return new Shelf(env.db, as.user);
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  /** A value is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** request sends one request through `app.handle` and decodes a JSON answer. */
export async function request(env: TestEnv, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined && !headers.has("authorization")) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | undefined;
  if (typeof options.body === "string") body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const response = await env.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const get = (env: TestEnv, path: string, options?: RequestOptions) => request(env, "GET", path, options);
export const post = (env: TestEnv, path: string, options?: RequestOptions) => request(env, "POST", path, options);
export const put = (env: TestEnv, path: string, options?: RequestOptions) => request(env, "PUT", path, options);
export const del = (env: TestEnv, path: string, options?: RequestOptions) => request(env, "DELETE", path, options);

/** createLink posts a link through the API and returns its JSON. */
export async function createLink(env: TestEnv, as: TestUser, fields: Record<string, unknown> = {}) {
  const response = await post(env, "/api/v1/links", {
    token: as.token,
    body: { name: "Example", url: "https://example.com/", favorite: false, ...fields },
  });
  if (response.status !== 201) throw new Error(`createLink: ${response.status} ${response.text}`);
  return response.body.link;
}

/** createCollection posts a collection through the API and returns its JSON. */
export async function createCollection(env: TestEnv, as: TestUser, fields: Record<string, unknown> = {}) {
  const response = await post(env, "/api/v1/collections", {
    token: as.token,
    body: { name: "Reading", visibility: "PRIVATE", ...fields },
  });
  if (response.status !== 201) throw new Error(`createCollection: ${response.status} ${response.text}`);
  return response.body.collection;
}

/** inboxOf returns the id of a user's Inbox. */
export async function inboxOf(env: TestEnv, as: TestUser): Promise<number> {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  return response.body.collections.find((c: { isDefault: boolean }) => c.isDefault).id;
}

const SNAPSHOT_TABLES = ["users", "collections", "links", "link_collections", "link_contents", "link_copies", "link_health", "imports", "sessions", "extension_grants", "idempotency_keys"] as const;

/**
 * snapshot captures every row a request could change (tokens without their lastUsedAt,
 * which a valid token's use may refresh), to prove that a refused request changed nothing.
 */
export function snapshot(env: TestEnv): string {
  const client = env.db.$client;
  const tables = Object.fromEntries(SNAPSHOT_TABLES.map((table) => [table, client.query(`SELECT * FROM ${table} ORDER BY rowid`).all()]));
  const tokens = client.query("SELECT id, user_id, name, token_hash, created_at, grant_id FROM api_tokens ORDER BY id").all();
  return JSON.stringify({ ...tables, tokens });
}

/**
 * contents is `snapshot` without the order rows were written in: each table's rows sorted, so a
 * row deleted and written again (a restore from the trash) compares equal to the first.
 */
export function contents(env: TestEnv): string {
  const tables = JSON.parse(snapshot(env)) as Record<string, unknown[]>;
  return JSON.stringify(Object.fromEntries(Object.entries(tables).map(([table, rows]) => [table, rows.map((row) => JSON.stringify(row)).sort()])));
}

/**
 * refused sends one write that must be refused with `status`/`code` (and, on 422, errors at
 * exactly `paths`), and proves that the database is byte for byte what it was.
 */
export async function refused(env: TestEnv, send: () => Promise<ApiResponse>, status: number, code: string, paths?: string[]): Promise<ApiResponse> {
  const before = snapshot(env);
  const response = await send();
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  if (paths) expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
  expect(snapshot(env)).toBe(before);
  return response;
}

/** A string of `n` code points (a non-BMP character counts once, as in the contract). */
export const chars = (n: number, char = "a") => char.repeat(n);

/** sessionCookie starts a session for a user (as signing in does) and returns the `Cookie` header value carrying it. */
export function sessionCookie(env: TestEnv, userId: number): string {
  return `linkshelf_session=${createSession(env.db, userId, env.clock.now++).id}`;
}

/** submitForm posts a URL-encoded form the way a browser does (add an `origin` header to look like one). */
export function submitForm(env: TestEnv, path: string, fields: Record<string, string>, options: RequestOptions = {}): Promise<ApiResponse> {
  return post(env, path, {
    ...options,
    headers: { "content-type": "application/x-www-form-urlencoded", ...options.headers },
    body: new URLSearchParams(fields).toString(),
  });
}
