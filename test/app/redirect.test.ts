/**
 * `GET /l/:id` through `app.handle`: who sees which link, the shape of a
 * refusal, exactly one committed click per GET, none per HEAD, and the group commit's
 * failure path (src/shelf/clicks.ts), which is also tested directly.
 */
import { afterAll, beforeAll, describe, expect, it, spyOn } from "bun:test";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { createSession, SESSION_COOKIE } from "../../src/auth/sessions";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { GroupCommit } from "../../src/db/group-commit";
import { ClickRecorder } from "../../src/shelf/clicks";
import { queryFile } from "../support/binary";
import {
  ISO,
  createCollection,
  createLink,
  createUser,
  del,
  get,
  makeEnv,
  put,
  request,
  snapshot,
  START,
  type ApiResponse,
  type TestEnv,
  type TestUser,
} from "../support/helpers";
import { testDir } from "../support/dirs";
import { Shelf } from "../../src/shelf/shelf";

/** What a browser sends when following a link. */
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
/** A header value made of printable ASCII only. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

const cookieOf = (sessionId: string) => ({ cookie: `${SESSION_COOKIE}=${sessionId}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** storedLink reads a link's counters straight from the database. */
function storedLink(env: TestEnv, id: number) {
  return env.db.$client
    .query<{ clicks: number; lastClickedAt: number | null; updatedAt: number }, [number]>(
      "SELECT clicks, last_clicked_at AS lastClickedAt, updated_at AS updatedAt FROM links WHERE id = ?1",
    )
    .get(id);
}

/** linkFromApi reads a link as its owner sees it in `GET /api/v1/collections`. */
async function linkFromApi(env: TestEnv, owner: TestUser, id: number) {
  const response = await get(env, "/api/v1/collections", { token: owner.token });
  expect(response.status).toBe(200);
  for (const collection of response.body.collections) {
    const link = collection.links.find((l: { id: number }) => l.id === id);
    if (link) return link;
  }
  throw new Error(`link ${id} is not in any collection of its owner`);
}

function expectRedirect(response: ApiResponse, url: string) {
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(url);
  expect(response.headers.get("cache-control")).toBe("no-store");
}

function expectJsonNotFound(response: ApiResponse) {
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  expect(response.body).toEqual({ message: expect.any(String), code: "NOT_FOUND" });
  expect(response.headers.get("location")).toBeNull();
}

describe("who sees a link through /l/:id", () => {
  type Requester = "anonymous" | "owner session" | "owner bearer" | "other session" | "other bearer";
  type Placement = "private only" | "public only" | "public and private" | "deleted";

  interface Matrix {
    env: TestEnv;
    headers: Record<Requester, Record<string, string>>;
    links: Record<Placement, { id: number; url: string }>;
    owner: TestUser;
    ownerSession: string;
  }
  let m: Matrix;

  // One fixture for the whole matrix: its requests only read visibility (their clicks change nothing it depends on).
  beforeAll(async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
    const owner = await createUser(env);
    const other = await createUser(env);
    const privateCollection = await createCollection(env, owner, { name: "Private", visibility: "PRIVATE" });
    const publicCollection = await createCollection(env, owner, { name: "Public", visibility: "PUBLIC" });
    const make = async (name: string, collectionIds: number[]) => {
      const link = await createLink(env, owner, { name, url: `https://example.com/${name}`, collectionIds });
      return { id: link.id as number, url: link.url as string };
    };
    const deleted = await make("deleted", [publicCollection.id]);
    expect((await del(env, `/api/v1/links/${deleted.id}`, { token: owner.token })).status).toBe(200);
    const ownerSession = createSession(env.db, owner.user.id, env.clock.now).id;
    const otherSession = createSession(env.db, other.user.id, env.clock.now).id;
    m = {
      env,
      owner,
      ownerSession,
      headers: {
        anonymous: {},
        "owner session": cookieOf(ownerSession),
        "owner bearer": bearer(owner.token),
        "other session": cookieOf(otherSession),
        "other bearer": bearer(other.token),
      },
      links: {
        "private only": await make("private-only", [privateCollection.id]),
        "public only": await make("public-only", [publicCollection.id]),
        "public and private": await make("both", [privateCollection.id, publicCollection.id]),
        deleted,
      },
    };
  });

  const visible = (as: Requester, placement: Placement) =>
    placement !== "deleted" && (placement !== "private only" || as.startsWith("owner"));
  const requesters: Requester[] = ["anonymous", "owner session", "owner bearer", "other session", "other bearer"];
  const placements: Placement[] = ["private only", "public only", "public and private", "deleted"];

  for (const as of requesters) {
    for (const placement of placements) {
      const expected = visible(as, placement);
      it(`${as} × link ${placement}: ${expected ? "302 to the URL" : "404"}`, async () => {
        const link = m.links[placement];
        const response = await get(m.env, `/l/${link.id}`, { headers: m.headers[as] });
        if (expected) expectRedirect(response, link.url);
        else expectJsonNotFound(response);
      });
    }
  }

  it("answers 404 for unknown and malformed ids, to the owner too", async () => {
    const ids = ["999999", "abc", "0", "-1", "1.5", "1e3", "0x1", " 1", "99999999999999999999", "9".repeat(400), "%31%00"];
    for (const id of ids) {
      for (const as of ["anonymous", "owner bearer"] as const) {
        const response = await get(m.env, `/l/${id}`, { headers: m.headers[as] });
        expect({ id, as, status: response.status }).toEqual({ id, as, status: 404 });
        expectJsonNotFound(response);
      }
    }
  });

  it("does not treat an owner's cookie as the owner when an invalid bearer token comes with it", async () => {
    const link = m.links["private only"];
    expectRedirect(await get(m.env, `/l/${link.id}`, { headers: cookieOf(m.ownerSession) }), link.url);
    const { token: revoked, info } = new Shelf(m.env.db, m.owner.user).tokens.create("revoked", m.env.clock.now++);
    new Shelf(m.env.db, m.owner.user).tokens.revoke(info.id);
    for (const authorization of ["Bearer lks_not-a-real-token", "Bearer", `Bearer ${m.owner.token}x`, `Bearer ${revoked}`]) {
      const response = await get(m.env, `/l/${link.id}`, { headers: { ...cookieOf(m.ownerSession), authorization } });
      expect({ authorization, status: response.status }).toEqual({ authorization, status: 404 });
    }
  });

  it("treats an unknown or malformed session cookie as anonymous", async () => {
    const link = m.links["private only"];
    for (const cookie of [`${SESSION_COOKIE}=${"A".repeat(43)}`, `${SESSION_COOKIE}=`, `${SESSION_COOKIE}=${m.ownerSession}x`, `other=${m.ownerSession}`]) {
      expectJsonNotFound(await get(m.env, `/l/${link.id}`, { headers: { cookie } }));
    }
    // A public link stays visible to the same requests.
    const open = m.links["public only"];
    expectRedirect(await get(m.env, `/l/${open.id}`, { headers: { cookie: `${SESSION_COOKIE}=garbage` } }), open.url);
  });

  it("hides a link from the owner once their session has expired", async () => {
    const link = m.links["private only"];
    const { id } = createSession(m.env.db, m.owner.user.id, m.env.clock.now - 31 * 24 * 3600_000);
    expectJsonNotFound(await get(m.env, `/l/${link.id}`, { headers: cookieOf(id) }));
  });
});

describe("visibility follows the collections at once", () => {
  it("answers 404 as soon as the link's public collection is made private", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
    const link = await createLink(env, owner, { collectionIds: [shared.id] });
    expectRedirect(await get(env, `/l/${link.id}`), link.url);

    const made = await put(env, `/api/v1/collections/${shared.id}`, { token: owner.token, body: { name: "Shared", visibility: "PRIVATE" } });
    expect(made.status).toBe(200);
    expectJsonNotFound(await get(env, `/l/${link.id}`));
    expectRedirect(await get(env, `/l/${link.id}`, { token: owner.token }), link.url);

    await put(env, `/api/v1/collections/${shared.id}`, { token: owner.token, body: { name: "Shared", visibility: "PUBLIC" } });
    expectRedirect(await get(env, `/l/${link.id}`), link.url);
  });

  it("answers 404 once the public collection is deleted and the link has moved to the private Inbox", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
    const link = await createLink(env, owner, { collectionIds: [shared.id] });
    expectRedirect(await get(env, `/l/${link.id}`), link.url);

    expect((await del(env, `/api/v1/collections/${shared.id}`, { token: owner.token })).status).toBe(200);
    expectJsonNotFound(await get(env, `/l/${link.id}`));
    expectRedirect(await get(env, `/l/${link.id}`, { token: owner.token }), link.url);
  });

  it("answers 404 once the link is taken out of its only public collection", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
    const hidden = await createCollection(env, owner, { name: "Hidden" });
    const link = await createLink(env, owner, { collectionIds: [shared.id, hidden.id] });
    expectRedirect(await get(env, `/l/${link.id}`), link.url);

    const moved = await put(env, `/api/v1/links/${link.id}`, {
      token: owner.token,
      body: { name: link.name, url: link.url, favorite: false, collectionIds: [hidden.id] },
    });
    expect(moved.status).toBe(200);
    expectJsonNotFound(await get(env, `/l/${link.id}`));
  });
});

describe("the answer to a refused redirect", () => {
  it("is a small HTML page for a browser and JSON {message, code} for other clients (404)", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const hidden = await createLink(env, owner);
    for (const path of [`/l/${hidden.id}`, "/l/999999", "/l/abc"]) {
      const page = await get(env, path, { headers: { accept: BROWSER_ACCEPT } });
      expect(page.status).toBe(404);
      expect(page.headers.get("content-type")).toStartWith("text/html");
      expect(page.text).toStartWith("<!doctype html>");
      expect(page.text).toContain("Not found");
      expect(page.text.length).toBeLessThan(8192);

      for (const accept of [undefined, "application/json", "*/*"]) {
        const json = await get(env, path, { headers: accept ? { accept } : {} });
        expectJsonNotFound(json);
        expect(Object.keys(json.body).sort()).toEqual(["code", "message"]);
      }
    }
  });

  it("is a small HTML page for a browser and JSON {message, code} for other clients (429)", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { visibility: "PUBLIC" });
    env.clock.now += 61_000; // a fresh window: creating the collection spent the owner's only request
    const link = await createLink(env, owner, { collectionIds: [shared.id] });
    expectRedirect(await get(env, `/l/${link.id}`), link.url);

    const page = await get(env, `/l/${link.id}`, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(page.headers.get("location")).toBeNull();
    expect(page.text).toStartWith("<!doctype html>");
    expect(page.text).toContain("Too many requests");

    const json = await get(env, `/l/${link.id}`);
    expect(json.status).toBe(429);
    expect(json.headers.get("content-type")).toStartWith("application/json");
    expect(json.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(json.body).toEqual({ message: expect.any(String), code: "RATE_LIMITED" });
  });
});

describe("click counting", () => {
  it("counts exactly one click per GET: clicks + 1, lastClickedAt the clock's time, updatedAt unchanged", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const link = await createLink(env, owner);
    expect(link.clicks).toBe(0);
    expect(link.lastClickedAt).toBeNull();

    const clickTime = START + 3 * 24 * 3600_000;
    env.clock.now = clickTime;
    expectRedirect(await get(env, `/l/${link.id}`, { token: owner.token }), link.url);
    const afterRequest = env.clock.now;

    const seen = await linkFromApi(env, owner, link.id);
    expect(seen.clicks).toBe(1);
    expect(seen.lastClickedAt).toMatch(ISO);
    // The click carries the app clock's time while the request ran (the test clock steps 1 ms per reading).
    expect(Date.parse(seen.lastClickedAt)).toBeGreaterThanOrEqual(clickTime);
    expect(Date.parse(seen.lastClickedAt)).toBeLessThan(afterRequest);
    expect(seen.updatedAt).toBe(link.updatedAt);
    expect(seen.createdAt).toBe(link.createdAt);

    env.clock.now += 60_000;
    const secondClick = env.clock.now;
    expectRedirect(await get(env, `/l/${link.id}`, { token: owner.token }), link.url);
    const again = storedLink(env, link.id)!;
    expect(again.clicks).toBe(2);
    expect(again.lastClickedAt!).toBeGreaterThanOrEqual(secondClick);
    expect(again.updatedAt).toBe(Date.parse(link.updatedAt));
  });

  it("gives clicks + 200 exactly for 200 concurrent GETs, each answered 302", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { visibility: "PUBLIC" });
    const link = await createLink(env, owner, { collectionIds: [shared.id] });
    const other = await createLink(env, owner, { collectionIds: [shared.id] });

    const responses = await Promise.all(Array.from({ length: 200 }, () => get(env, `/l/${link.id}`)));
    for (const response of responses) expectRedirect(response, link.url);
    expect(storedLink(env, link.id)!.clicks).toBe(200);
    expect(storedLink(env, other.id)!.clicks).toBe(0);

    // Mixed with another link and the owner's own requests in the same burst.
    const mixed = await Promise.all(
      Array.from({ length: 100 }, (_, i) => get(env, `/l/${i % 2 ? link.id : other.id}`, i % 3 ? {} : { token: owner.token })),
    );
    for (const response of mixed) expect(response.status).toBe(302);
    expect(storedLink(env, link.id)!.clicks).toBe(250);
    expect(storedLink(env, other.id)!.clicks).toBe(50);
  });

  it("answers HEAD like GET (302, same Location, no-store) and counts nothing", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { visibility: "PUBLIC" });
    const link = await createLink(env, owner, { url: "https://example.org/read?x=1", collectionIds: [shared.id] });
    const hidden = await createLink(env, owner);
    const before = snapshot(env);

    // Spellings of the same path that reach Elysia's general router as well as its route table.
    const paths = [`/l/${link.id}`, `/l/${link.id}/`, `/l/${[...String(link.id)].map((digit) => `%3${digit}`).join("")}`, `/l/${link.id}?utm=1`];
    const responses = await Promise.all(paths.map((path) => request(env, "HEAD", path)));
    for (const response of responses) {
      expectRedirect(response, "https://example.org/read?x=1");
      expect(response.text).toBe("");
    }
    expect((await request(env, "HEAD", `/l/${hidden.id}`)).status).toBe(404);
    expect((await request(env, "HEAD", "/l/999999")).status).toBe(404);
    expect(snapshot(env)).toBe(before);
    expect(storedLink(env, link.id)).toMatchObject({ clicks: 0, lastClickedAt: null });

    expectRedirect(await get(env, `/l/${link.id}`), "https://example.org/read?x=1");
    expect(storedLink(env, link.id)!.clicks).toBe(1);
  });

  it("counts nothing for a refused GET: the database is unchanged", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const other = await createUser(env);
    const hidden = await createLink(env, owner);
    const before = snapshot(env);

    expectJsonNotFound(await get(env, `/l/${hidden.id}`));
    expectJsonNotFound(await get(env, `/l/${hidden.id}`, { token: other.token }));
    expectJsonNotFound(await get(env, `/l/${hidden.id}`, { token: "lks_wrong" }));
    expectJsonNotFound(await get(env, "/l/999999", { token: owner.token }));
    expectJsonNotFound(await get(env, "/l/0", { token: owner.token }));
    expect(snapshot(env)).toBe(before);
  });

  it("sends an ASCII Location for a URL with a non-ASCII host and path (punycode host, percent-encoded path)", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const cases = [
      { url: "https://bücher.example/päth/ü?q=straße#teil", location: "https://xn--bcher-kva.example/p%C3%A4th/%C3%BC?q=stra%C3%9Fe#teil" },
      { url: "http://пример.испытание/путь", location: "http://xn--e1afmkfd.xn--80akhbyknj4f/%D0%BF%D1%83%D1%82%D1%8C" },
      { url: "https://example.com/emoji/📚", location: "https://example.com/emoji/%F0%9F%93%9A" },
    ];
    for (const { url, location } of cases) {
      const link = await createLink(env, owner, { url });
      const response = await get(env, `/l/${link.id}`, { token: owner.token });
      expectRedirect(response, location);
      expect(response.headers.get("location")).toMatch(PRINTABLE_ASCII);
      expect(storedLink(env, link.id)!.clicks).toBe(1);
    }
  });
});

describe("group commit failure path", () => {
  /** A user with two links in a public collection, and a way to send ten clicks shared between them. */
  async function twoLinks() {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { visibility: "PUBLIC" });
    const doomed = await createLink(env, owner, { collectionIds: [shared.id] });
    const bystander = await createLink(env, owner, { collectionIds: [shared.id] });
    const clickBoth = () =>
      Promise.all(Array.from({ length: 10 }, (_, i) => get(env, `/l/${i % 2 ? doomed.id : bystander.id}`, i % 4 ? {} : { token: owner.token })));
    return { env, doomed, bystander, clickBoth };
  }

  const expectInternal = (response: ApiResponse) => {
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: expect.any(String), code: "INTERNAL" });
    expect(response.headers.get("location")).toBeNull();
    expect(response.text).not.toContain("boom");
  };

  /** expectClicksFail sends the clicks while their write fails: each is answered 500 INTERNAL, and the failure is logged. */
  async function expectClicksFail(clickBoth: () => Promise<ApiResponse[]>) {
    const logged = spyOn(console, "error").mockImplementation(() => {});
    try {
      (await clickBoth()).forEach(expectInternal);
      expect(logged).toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  }

  /** After the failure is removed, clicks count normally again. */
  async function expectRecovery(env: TestEnv, doomed: { id: number }, bystander: { id: number }, already: { doomed: number; bystander: number }) {
    const after = await Promise.all([doomed, doomed, bystander, doomed, bystander].map((link) => get(env, `/l/${link.id}`)));
    for (const response of after) expect(response.status).toBe(302);
    expect(storedLink(env, doomed.id)!.clicks).toBe(already.doomed + 3);
    expect(storedLink(env, bystander.id)!.clicks).toBe(already.bystander + 2);
  }

  it("answers 500 INTERNAL to every click of a turn whose click write fails, stores none of them, then counts new clicks normally", async () => {
    const { env, doomed, bystander, clickBoth } = await twoLinks();
    env.db.$client.run(`CREATE TRIGGER boom BEFORE UPDATE OF clicks ON links WHEN NEW.id = ${doomed.id} BEGIN SELECT RAISE(ABORT, 'boom'); END`);
    const before = snapshot(env);
    await expectClicksFail(clickBoth);
    // The clicks of the turn are one write: the bystander's clicks, applied before the doomed one's failed, are gone too.
    expect(snapshot(env)).toBe(before);
    expect(env.db.$client.inTransaction).toBe(false);

    env.db.$client.run("DROP TRIGGER boom");
    await expectRecovery(env, doomed, bystander, { doomed: 0, bystander: 0 });
  });

  it("answers 500 INTERNAL to every request of a batch whose commit fails, and stores none of its clicks", async () => {
    const { env, doomed, bystander, clickBoth } = await twoLinks();
    // A deferred foreign key is only checked by COMMIT: the doomed link's click makes the whole commit fail.
    env.db.$client.run("CREATE TABLE boom_parent (id INTEGER PRIMARY KEY)");
    env.db.$client.run("CREATE TABLE boom_child (parent INTEGER REFERENCES boom_parent(id) DEFERRABLE INITIALLY DEFERRED)");
    env.db.$client.run(`CREATE TRIGGER boom AFTER UPDATE OF clicks ON links WHEN NEW.id = ${doomed.id} BEGIN INSERT INTO boom_child VALUES (42); END`);
    const before = snapshot(env);
    await expectClicksFail(clickBoth);
    // The whole batch rolled back: the bystander's clicks, which were applied, are gone too.
    expect(snapshot(env)).toBe(before);
    expect(storedLink(env, doomed.id)!.clicks).toBe(0);
    expect(storedLink(env, bystander.id)!.clicks).toBe(0);
    expect(env.db.$client.inTransaction).toBe(false);

    env.db.$client.run("DROP TRIGGER boom");
    await expectRecovery(env, doomed, bystander, { doomed: 0, bystander: 0 });
  });
});

describe("ClickRecorder", () => {
  let dir: string;
  let db: Db;
  let path: string;
  const CLICK_TIME = Date.parse("2027-01-02T03:04:05.678Z");
  /** The user every link of these tests belongs to. */
  const OWNER = 1;

  beforeAll(() => {
    dir = testDir("clicks");
    path = join(dir, "clicks.db");
    db = openDatabase(path);
    db.$client.run("INSERT INTO users (email, name, password_hash, created_at) VALUES ('a@example.test', 'A', 'x', 0)");
  });

  afterAll(() => {
    closeDatabase(db);
  });

  const newLink = () =>
    Number(db.$client.run("INSERT INTO links (user_id, name, url, created_at, updated_at) VALUES (1, 'L', 'https://example.com/', 0, 0)").lastInsertRowid);
  /** clicksSeenElsewhere reads through a second connection: it sees committed data only. */
  const clicksSeenElsewhere = (id: number) =>
    queryFile<{ clicks: number; last: number | null }>(path, "SELECT clicks, last_clicked_at AS last FROM links WHERE id = ?", [id])[0]!;

  /** countingTransactions wraps the database so that every transaction it runs (savepoints not counted) is counted. */
  function countingTransactions(sqlite: Database) {
    const counter = { transactions: 0 };
    const wrapped = new Proxy(sqlite, {
      get(target, property) {
        if (property === "transaction") {
          return (fn: (...args: never[]) => unknown) =>
            target.transaction((...args: never[]) => {
              if (!nested) counter.transactions++;
              const outer = nested;
              nested = true;
              try {
                return fn(...args);
              } finally {
                nested = outer;
              }
            });
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    let nested = false;
    return { wrapped, counter };
  }
  /** recorderOn builds a click recorder with its own group commit over `sqlite`. */
  const recorderOn = (sqlite: Database) => {
    const commits = new GroupCommit(sqlite);
    return { commits, recorder: new ClickRecorder(db, commits, () => CLICK_TIME) };
  };

  it("settles open() with the location only after the transaction holding its click has committed", async () => {
    const id = newLink();
    const { recorder } = recorderOn(db.$client);
    let settled = false;
    let seenAtSettle: { clicks: number; last: number | null } | undefined;
    let inTransactionAtSettle: boolean | undefined;
    const recorded = recorder.open(id, OWNER).then((location) => {
      expect(location).toBe("https://example.com/");
      settled = true;
      inTransactionAtSettle = db.$client.inTransaction;
      seenAtSettle = clicksSeenElsewhere(id);
    });
    // Microtasks run, the event loop's turn has not ended: nothing is committed, nothing settled.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(settled).toBe(false);
    expect(clicksSeenElsewhere(id)).toEqual({ clicks: 0, last: null });

    await recorded;
    expect(inTransactionAtSettle).toBe(false);
    expect(seenAtSettle).toEqual({ clicks: 1, last: CLICK_TIME });
  });

  it("applies every click recorded in one turn of the event loop in one transaction", async () => {
    const a = newLink();
    const b = newLink();
    const { wrapped, counter } = countingTransactions(db.$client);
    const { recorder } = recorderOn(wrapped);

    const first = [a, b, a, a, b].map((id) => recorder.open(id, OWNER));
    expect(counter.transactions).toBe(0);
    await Promise.all(first);
    expect(counter.transactions).toBe(1);
    expect(clicksSeenElsewhere(a).clicks).toBe(3);
    expect(clicksSeenElsewhere(b).clicks).toBe(2);

    // The next turn is the next transaction, and counts only its own clicks.
    await recorder.open(b, OWNER);
    expect(counter.transactions).toBe(2);
    expect(clicksSeenElsewhere(a).clicks).toBe(3);
    expect(clicksSeenElsewhere(b).clicks).toBe(3);
  });

  it("commits what was recorded so far when flushed directly, and resolves those waiters", async () => {
    const a = newLink();
    const { wrapped, counter } = countingTransactions(db.$client);
    const { recorder, commits } = recorderOn(wrapped);
    const waiting = [recorder.open(a, OWNER), recorder.open(a, OWNER)];
    commits.flush();
    expect(counter.transactions).toBe(1);
    expect(clicksSeenElsewhere(a).clicks).toBe(2);
    await Promise.all(waiting);
    // The flush scheduled for the end of the turn finds nothing left to do.
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.transactions).toBe(1);
    expect(clicksSeenElsewhere(a).clicks).toBe(2);
  });

  it("rejects every click of a turn when one of its writes fails, keeps none of them, and does not carry them into the next turn", async () => {
    const a = newLink();
    const b = newLink();
    const { recorder } = recorderOn(db.$client);
    db.$client.run(`CREATE TRIGGER boom_unit BEFORE UPDATE OF clicks ON links WHEN NEW.id = ${b} BEGIN SELECT RAISE(ABORT, 'boom'); END`);
    try {
      const outcomes = await Promise.allSettled([recorder.open(a, OWNER), recorder.open(b, OWNER), recorder.open(a, OWNER)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    } finally {
      db.$client.run("DROP TRIGGER boom_unit");
    }
    expect(clicksSeenElsewhere(a)).toEqual({ clicks: 0, last: null });
    expect(clicksSeenElsewhere(b)).toEqual({ clicks: 0, last: null });

    await Promise.all([recorder.open(a, OWNER), recorder.open(b, OWNER)]);
    expect(clicksSeenElsewhere(a).clicks).toBe(1);
    expect(clicksSeenElsewhere(b).clicks).toBe(1);
  });

  it("writes the clicks of one turn with one UPDATE per link, whatever the number of clicks", async () => {
    const a = newLink();
    const b = newLink();
    const { recorder } = recorderOn(db.$client);
    const counted: number[] = [];
    db.$client.run("CREATE TEMP TABLE click_updates (id INTEGER)");
    db.$client.run("CREATE TEMP TRIGGER count_updates AFTER UPDATE OF clicks ON links BEGIN INSERT INTO click_updates VALUES (NEW.id); END");
    try {
      await Promise.all([a, b, a, a, b, a].map((id) => recorder.open(id, OWNER)));
      counted.push(...db.$client.query<{ id: number }, []>("SELECT id FROM click_updates ORDER BY id").all().map((row) => row.id));
    } finally {
      db.$client.run("DROP TRIGGER count_updates");
      db.$client.run("DROP TABLE click_updates");
    }
    expect(counted).toEqual([a, b].sort((x, y) => x - y));
    expect(clicksSeenElsewhere(a).clicks).toBe(4);
    expect(clicksSeenElsewhere(b).clicks).toBe(2);
  });

  it("opens a link nobody may see for this viewer with undefined, and counts nothing for it", async () => {
    const mine = newLink();
    const { recorder } = recorderOn(db.$client);
    const before = clicksSeenElsewhere(mine);
    // Anonymous and another user, in the same turn as the owner: only the owner's click counts.
    const [anonymous, stranger, owner, unknown] = await Promise.all([
      recorder.open(mine, null), recorder.open(mine, OWNER + 1), recorder.open(mine, OWNER), recorder.open(987_654, OWNER),
    ]);
    expect([anonymous, stranger, owner, unknown]).toEqual([undefined, undefined, "https://example.com/", undefined]);
    expect(clicksSeenElsewhere(mine)).toEqual({ clicks: before.clicks + 1, last: CLICK_TIME });
  });

  it("decides visibility in the batch's transaction: a link made public before the turn ends opens for anyone", async () => {
    const id = newLink();
    const { recorder } = recorderOn(db.$client);
    const opened = recorder.open(id, null);
    const collection = Number(db.$client.run("INSERT INTO collections (user_id, name, visibility, icon, created_at, updated_at) VALUES (1, 'Shared', 'PUBLIC', 'folder', 0, 0)").lastInsertRowid);
    db.$client.run("INSERT INTO link_collections (link_id, collection_id) VALUES (?, ?)", [id, collection]);
    expect(await opened).toBe("https://example.com/");
    expect(clicksSeenElsewhere(id).clicks).toBe(1);

    // And made private again before the next turn ends: refused, not counted.
    const refused = recorder.open(id, null);
    db.$client.run("DELETE FROM link_collections WHERE link_id = ?", [id]);
    expect(await refused).toBeUndefined();
    expect(clicksSeenElsewhere(id).clicks).toBe(1);
  });
});
