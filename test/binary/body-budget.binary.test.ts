/**
 * The body budget through the real executable and Bun's own connections: a body past it is
 * answered 503 and its connection closed before the rest is read, and a client that goes away in
 * the middle of its body gives its share back. Raw sockets to 127.0.0.1 only.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { CONTENT_LIMITS } from "../../src/contract/content-limits";
import { BODIES_BUSY_RETRY_AFTER_SECONDS, BODY_LIMITS } from "../../src/request/body-budget";
import { binaryWorkspace, cleanEnv, createUserWithToken, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";

const SLOW = 60_000;
/** How long the server may take to notice a client's arrival or departure before a test fails instead of hanging. */
const DEADLINE_MS = 15_000;
const CONTENT_BYTES = CONTENT_LIMITS.bodyBytes;
const PER_ADDRESS = BODY_LIMITS.perAddressBytes / CONTENT_BYTES;

/** A saved page's JSON body of exactly CONTENT_BYTES bytes. */
const FULL_PAGE = `{"text":"${"a".repeat(CONTENT_BYTES - 11)}"}`;

interface RawUpload {
  socket: Socket;
  /** The answer's status line and headers, once the server has answered. */
  answer: Promise<string>;
  /** Settles when the connection is closed, by either side. */
  closed: Promise<void>;
}

/** rawUpload opens a connection, sends `PUT path` declaring `declared` bytes and the first `sent` characters of `body`. */
function rawUpload(server: RunningServer, path: string, token: string, body: string, sent = body.length, declared = body.length): RawUpload {
  const socket = connect(server.port, "127.0.0.1");
  let received = "";
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n\r\n");
      if (end !== -1) resolve(received.slice(0, end));
    });
  });
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => {});
  socket.write(`PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
  socket.write(body.slice(0, sent));
  return { socket, answer, closed };
}

const statusOf = (head: string) => Number(head.split(" ")[1]);

/** untilStatus sends a one-byte body (refused, or read: 400 INVALID_JSON) until it is answered `status`; fails at the deadline. */
async function untilStatus(server: RunningServer, path: string, token: string, status: number): Promise<string> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const probe = rawUpload(server, path, token, "{");
    const head = await probe.answer;
    probe.socket.destroy();
    if (statusOf(head) === status) return head;
    if (Date.now() > deadline) throw new Error(`still answered ${head.split("\r\n")[0]} after ${DEADLINE_MS} ms`);
    await Bun.sleep(20);
  }
}

let workspace: BinaryWorkspace;
let server: RunningServer;
let token: string;
let contentPath: string;

beforeAll(async () => {
  workspace = binaryWorkspace("body-budget");
  token = await createUserWithToken(workspace, "owner@example.test", "Owner", cleanEnv());
  // The probes below are many requests of one token: not the rate limit's business here.
  server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir, env: cleanEnv({ LINKSHELF_RATE_LIMIT: "off" }) });
  const created = await fetch(`${server.origin}/api/v1/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Example", url: "https://example.com/", favorite: false }),
  });
  contentPath = `/api/v1/links/${((await created.json()) as { link: { id: number } }).link.id}/content`;
}, SLOW);

afterAll(async () => {
  await server?.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

describe("slow uploads against the running server", () => {
  it("refuses a body past the address's share with 503 and closes its connection unread, and takes bodies again once their clients went away", async () => {
    // Four saved pages of 2 MiB, each stopped after its first kilobyte: the address's 8 MiB.
    const slow = Array.from({ length: PER_ADDRESS }, () => rawUpload(server, contentPath, token, FULL_PAGE, 1024));
    await untilStatus(server, contentPath, token, 503);

    // A fifth, also stopped early: answered at once, and its connection closed, though its body is not complete.
    const refused = rawUpload(server, contentPath, token, FULL_PAGE, 1024);
    const head = await refused.answer;
    expect(statusOf(head)).toBe(503);
    expect(head).toMatch(new RegExp(`\r\nretry-after: ${BODIES_BUSY_RETRY_AFTER_SECONDS}\r\n`, "i"));
    await refused.closed;

    // The four clients go away in the middle of their bodies: their shares come back.
    for (const upload of slow) upload.socket.destroy();
    await untilStatus(server, contentPath, token, 400);

    // All of them: four new slow pages are held, none refused, and each is saved once it is complete.
    const again = Array.from({ length: PER_ADDRESS }, () => rawUpload(server, contentPath, token, FULL_PAGE, 1024));
    await untilStatus(server, contentPath, token, 503);
    for (const upload of again) upload.socket.write(FULL_PAGE.slice(1024));
    const heads = await Promise.all(again.map((upload) => upload.answer));
    expect(heads.map(statusOf)).toEqual(again.map(() => 200));
    for (const upload of again) upload.socket.destroy();
  }, SLOW);
});
