/**
 * The bodies the server holds in memory at once while they arrive: at most 8 MiB per client
 * address (or one body alone, up to its route's limit) and 64 MiB in all; past that a body is
 * refused with 503 BUSY before any of it is read. Requests here hold their bodies open (a stream
 * that gives nothing until the test says so), as a slow client does.
 */
import { describe, expect, it } from "bun:test";
import { CONTENT_LIMITS } from "../../src/contract/content-limits";
import { BODIES_BUSY_RETRY_AFTER_SECONDS, BODY_LIMITS } from "../../src/request/body-budget";
import { createLink, createUser, makeEnv, sessionCookie, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const MIB = 1024 * 1024;
/** The largest body `PUT /api/v1/links/:id/content` takes: the slow uploads below declare it. */
const CONTENT_BYTES = CONTENT_LIMITS.bodyBytes;
/** How many of them fill one address's share. */
const PER_ADDRESS = BODY_LIMITS.perAddressBytes / CONTENT_BYTES;

/** An upload in flight: its answer, whether the server started reading it, and the client's two ways to end it. */
interface Upload {
  answer: Promise<Response>;
  /** Settles once the server asks for the body's first bytes; an upload refused before reading never settles it. */
  reading: Promise<void>;
  /** Whether the server has asked for any of the body. */
  asked(): boolean;
  /** Sends `chunks` (of the declared length or not) and ends the body. */
  finish(...chunks: Uint8Array[]): Promise<Response>;
  /** The client goes away in the middle of the body. */
  abort(): Promise<Response>;
}

interface UploadOptions {
  path: string;
  /** The client address (sent as X-Forwarded-For, from a trusted proxy). */
  address: string;
  /** The declared Content-Length; none: the body streams without one. */
  declared?: number;
  headers?: Record<string, string>;
}

/** startUpload sends a request whose body gives nothing until the test finishes or aborts it. */
function startUpload(env: TestEnv, { path, address, declared, headers = {} }: UploadOptions): Upload {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let startedReading!: () => void;
  let asked = false;
  const reading = new Promise<void>((resolve) => (startedReading = resolve));
  const body = new ReadableStream<Uint8Array>({
    start: (given) => void (controller = given),
    pull: () => {
      asked = true;
      startedReading();
      return new Promise(() => {});
    },
  }, { highWaterMark: 0 });
  const sent = new Headers({ "x-forwarded-for": address, ...headers });
  if (declared !== undefined) sent.set("content-length", String(declared));
  const answer = env.app.handle(new Request(`http://localhost${path}`, { method: path.startsWith("/api/") ? "PUT" : "POST", headers: sent, body, duplex: "half" } as RequestInit));
  return {
    answer,
    reading,
    asked: () => asked,
    finish: (...chunks) => {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
      return answer;
    },
    abort: () => {
      controller.error(new Error("the client went away"));
      return answer;
    },
  };
}

/**
 * A world with one user and one link, behind a proxy on this machine, so each request names its
 * client's address. The log is kept: a bookmarks file whose client went away is an unexpected error.
 */
async function world(): Promise<{ env: TestEnv; alice: TestUser; contentPath: string }> {
  const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1", LINKSHELF_RATE_LIMIT: "off" }, { log: () => {} });
  const alice = await createUser(env);
  const link = await createLink(env, alice);
  return { env, alice, contentPath: `/api/v1/links/${link.id}/content` };
}

/** uploadContent starts a saved page's upload of `declared` bytes (or streamed without a length) from `address`. */
function uploadContent(env: TestEnv, alice: TestUser, contentPath: string, address: string, declared?: number): Upload {
  return startUpload(env, { path: contentPath, address, declared, headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" } });
}

/** admitted starts uploads and waits until the server reads each one: none was refused. */
async function admitted(uploads: Upload[]): Promise<Upload[]> {
  await Promise.all(uploads.map((upload) => Promise.race([upload.reading, upload.answer.then((response) => {
    throw new Error(`refused with ${response.status} instead of read`);
  })])));
  return uploads;
}

const BUSY_MESSAGE = "The server is receiving as much as it holds at once. Try again in a moment.";

/**
 * expectBusy checks a refusal: 503 BUSY in the error shape (the API) or the error page (a page's
 * form), Retry-After, the connection closed, and not a byte of the body asked for.
 */
async function expectBusy(upload: Upload): Promise<void> {
  const response = await upload.answer;
  expect(response.status).toBe(503);
  if (response.headers.get("content-type")?.startsWith("text/html")) expect(await response.text()).toContain(BUSY_MESSAGE);
  else expect(await response.json()).toEqual({ code: "BUSY", message: BUSY_MESSAGE });
  expect(response.headers.get("retry-after")).toBe(String(BODIES_BUSY_RETRY_AFTER_SECONDS));
  expect(response.headers.get("connection")).toBe("close");
  expect(upload.asked()).toBe(false);
}

/** fill starts `count` saved-page uploads of the largest size from `address` and waits until each is being read. */
const fill = (env: TestEnv, alice: TestUser, contentPath: string, address: string, count = PER_ADDRESS) =>
  admitted(Array.from({ length: count }, () => uploadContent(env, alice, contentPath, address, CONTENT_BYTES)));

/** A saved page's body (`{"text": ...}`), valid JSON. */
const page = new TextEncoder().encode(JSON.stringify({ text: "Saved text." }));

describe("bodies held per client address", () => {
  it("holds 8 MiB of bodies from one address at once and refuses one byte more with 503 BUSY, reading none of it, storing nothing", async () => {
    const { env, alice, contentPath } = await world();
    await fill(env, alice, contentPath, "203.0.113.1");
    const before = snapshot(env);
    await expectBusy(uploadContent(env, alice, contentPath, "203.0.113.1", 1));
    expect(snapshot(env)).toBe(before);
    // Another address has its own share.
    await admitted([uploadContent(env, alice, contentPath, "203.0.113.2", CONTENT_BYTES)]);
  });

  it("counts a body without Content-Length as it streams: up to the 8 MiB exactly, and refuses it at the byte past", async () => {
    const { env, alice, contentPath } = await world();
    await fill(env, alice, contentPath, "203.0.113.1", PER_ADDRESS - 1);
    const spare = await admitted([uploadContent(env, alice, contentPath, "203.0.113.1", 1)]);
    // 6 MiB + 1 byte are held: a streamed body of 2 MiB - 1 bytes fills the share exactly.
    const fits = uploadContent(env, alice, contentPath, "203.0.113.1");
    const filled = await fits.finish(new Uint8Array(CONTENT_BYTES - 1).fill(0x20));
    expect(filled.status).toBe(400);
    expect(await filled.json()).toMatchObject({ code: "INVALID_JSON" });
    const before = snapshot(env);
    const over = uploadContent(env, alice, contentPath, "203.0.113.1");
    const refused = await over.finish(new Uint8Array(CONTENT_BYTES).fill(0x20));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe(String(BODIES_BUSY_RETRY_AFTER_SECONDS));
    expect(snapshot(env)).toBe(before);
    expect((await spare[0]!.finish(new Uint8Array(0))).status).toBe(400);
  });

  it("holds a single body larger than 8 MiB (a bookmarks file) when it is its address's only one, and nothing beside it", async () => {
    const { env, alice, contentPath } = await world();
    const cookie = sessionCookie(env, alice.user.id);
    const importFile = (address: string) => startUpload(env, {
      path: "/import", address, declared: 9 * MIB,
      headers: { cookie, "content-type": "multipart/form-data; boundary=x" },
    });
    const [file] = await admitted([importFile("203.0.113.1")]);
    await expectBusy(uploadContent(env, alice, contentPath, "203.0.113.1", 1));
    // An address already sending a body has only its 8 MiB share for a second one.
    await admitted([uploadContent(env, alice, contentPath, "203.0.113.2", 1)]);
    await expectBusy(importFile("203.0.113.2"));
    expect((await file!.abort()).status).not.toBe(503);
    await admitted([uploadContent(env, alice, contentPath, "203.0.113.1", 1)]);
  });
});

describe("bodies held in all", () => {
  it("holds 64 MiB from all addresses together and refuses one byte more, whichever address sends it", async () => {
    const { env, alice, contentPath } = await world();
    const addresses = BODY_LIMITS.totalBytes / BODY_LIMITS.perAddressBytes;
    const held = (await Promise.all(Array.from({ length: addresses }, (_, i) => fill(env, alice, contentPath, `198.51.100.${i + 1}`)))).flat();
    const before = snapshot(env);
    await expectBusy(uploadContent(env, alice, contentPath, "192.0.2.1", 1));
    expect(snapshot(env)).toBe(before);
    // One body done: its room is there again.
    expect((await held[0]!.finish(page)).status).toBe(200);
    await admitted([uploadContent(env, alice, contentPath, "192.0.2.1", CONTENT_BYTES)]);
    await expectBusy(uploadContent(env, alice, contentPath, "192.0.2.2", 1));
  });
});

describe("bodies given back", () => {
  it("gives back every byte of bodies read whole: the address holds 8 MiB again, not more", async () => {
    const { env, alice, contentPath } = await world();
    const first = await fill(env, alice, contentPath, "203.0.113.1");
    for (const upload of first) expect((await upload.finish(page)).status).toBe(200);
    await fill(env, alice, contentPath, "203.0.113.1");
    await expectBusy(uploadContent(env, alice, contentPath, "203.0.113.1", 1));
  });

  it("gives back every byte of bodies whose client went away, declared or streamed", async () => {
    const { env, alice, contentPath } = await world();
    const declared = await fill(env, alice, contentPath, "203.0.113.1", PER_ADDRESS - 1);
    const [streamed] = await admitted([uploadContent(env, alice, contentPath, "203.0.113.1")]);
    for (const upload of [...declared, streamed!]) expect((await upload.abort()).status).not.toBe(503);
    await fill(env, alice, contentPath, "203.0.113.1");
    await expectBusy(uploadContent(env, alice, contentPath, "203.0.113.1", 1));
  });

  it("gives back bodies refused as too large or too busy, and counts nothing for a request refused before its body", async () => {
    const { env, alice, contentPath } = await world();
    await fill(env, alice, contentPath, "203.0.113.1", PER_ADDRESS - 1);
    // Over the route's limit while streaming: 413, and the 2 MiB read before are given back.
    const tooLarge = uploadContent(env, alice, contentPath, "203.0.113.1");
    expect((await tooLarge.finish(new Uint8Array(CONTENT_BYTES).fill(0x20), new Uint8Array(1))).status).toBe(413);
    // Without a token: 401 before the body, which is never read.
    const anonymous = startUpload(env, { path: contentPath, address: "203.0.113.1", declared: CONTENT_BYTES, headers: { "content-type": "application/json" } });
    expect((await anonymous.answer).status).toBe(401);
    expect(anonymous.asked()).toBe(false);
    await admitted([uploadContent(env, alice, contentPath, "203.0.113.1", CONTENT_BYTES)]);
    await expectBusy(uploadContent(env, alice, contentPath, "203.0.113.1", 1));
  });
});

describe("the refusal on a page", () => {
  it("is the busy page, with Retry-After, for a browser's form", async () => {
    const { env, alice, contentPath } = await world();
    await fill(env, alice, contentPath, "203.0.113.1");
    const form = startUpload(env, { path: "/login", address: "203.0.113.1", declared: 40, headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" } });
    expect((await form.answer).headers.get("content-type")).toStartWith("text/html");
    await expectBusy(form);
  });
});
