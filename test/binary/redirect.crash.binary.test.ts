/**
 * Crash safety of the click counter through the real executable:
 * bursts of concurrent `GET /l/:id`, `kill -9` in the middle of one, restart on the same data.
 * Every 302 a client received must be stored, and never more clicks than requests sent.
 * Only 127.0.0.1 is contacted; every process started here is killed in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, WorkspaceServers, type RunningServer } from "../support/binary";

const SERVER_ENV = cleanEnv({ LINKSHELF_RATE_LIMIT: "off" });
const LOOPS = 8;
const CYCLES = 3;
const TARGET = "https://example.com/crash-safety";

let servers: WorkspaceServers;
let dbPath: string;

/** stop ends a server cleanly: SIGTERM, and an exit code of 0. */
async function stop(server: RunningServer): Promise<void> {
  expect(await servers.stop(server)).toBe(0);
}

const storedClicks = (id: number) =>
  queryFile<{ clicks: number }>(dbPath, "SELECT clicks FROM links WHERE id = ?", [id])[0]!.clicks;

interface BurstResult {
  /** Requests handed to fetch (some may never have reached the server). */
  sent: number;
  /** 302s that reached the client. */
  acknowledged: number;
  /** Any other status received (there should be none). */
  otherStatuses: number[];
  /** Milliseconds between the first 302 and the kill. */
  killDelay: number;
}

/**
 * burstAndKill runs LOOPS concurrent loops of `GET /l/:id` (each waits for its answer, then
 * sends the next) and kills the server with SIGKILL a random 10-150 ms after the first 302,
 * so that the kill lands while requests are in flight. Resolves once every loop has stopped.
 */
async function burstAndKill(server: RunningServer, linkId: number): Promise<BurstResult> {
  const result: BurstResult = { sent: 0, acknowledged: 0, otherStatuses: [], killDelay: 10 + Math.floor(Math.random() * 140) };
  let killed = false;
  let firstAcknowledged!: () => void;
  const started = new Promise<void>((resolve) => (firstAcknowledged = resolve));
  const url = `${server.origin}/l/${linkId}`;

  const loop = async () => {
    while (!killed) {
      result.sent++;
      let response: Response;
      try {
        response = await fetch(url, { redirect: "manual" });
        await response.arrayBuffer();
      } catch {
        return; // the server is gone: refused or reset
      }
      if (response.status === 302 && response.headers.get("location") === TARGET) {
        result.acknowledged++;
        firstAcknowledged();
      } else {
        result.otherStatuses.push(response.status);
      }
    }
  };
  const loops = Array.from({ length: LOOPS }, loop);

  const deadline = setTimeout(() => firstAcknowledged(), 10_000);
  await started;
  clearTimeout(deadline);
  // The delay only chooses where in the burst the kill lands; nothing waits on it for correctness.
  await Bun.sleep(result.killDelay);
  killed = true;
  await servers.killHard(server);
  await Promise.all(loops);
  return result;
}

let token: string;
let linkId: number;

/** api calls a running server with the user's token. */
const api = (server: RunningServer, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${server.origin}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: "manual",
  });

/** Builds the binary, then makes a user, a token, a PUBLIC collection and a link in it on an empty data dir. */
beforeAll(async () => {
  servers = new WorkspaceServers(binaryWorkspace("crash"), SERVER_ENV);
  ({ dbPath } = servers.workspace);

  token = await createUserWithToken(servers.workspace, "crash@example.test", "Crash", SERVER_ENV);

  const server = await servers.start();
  const collection = await api(server, "/api/v1/collections", { method: "POST", body: { name: "Shared", visibility: "PUBLIC" } });
  if (collection.status !== 201) throw new Error(`POST /api/v1/collections: ${collection.status} ${await collection.text()}`);
  const collectionId = ((await collection.json()) as { collection: { id: number } }).collection.id;
  const link = await api(server, "/api/v1/links", {
    method: "POST",
    body: { name: "Crash", url: TARGET, favorite: true, collectionIds: [collectionId] },
  });
  if (link.status !== 201) throw new Error(`POST /api/v1/links: ${link.status} ${await link.text()}`);
  linkId = ((await link.json()) as { link: { id: number } }).link.id;
  await stop(server);
}, 60_000);

afterAll(() => servers?.close());

describe("click counting through the binary", () => {
  it("stores every acknowledged click and never more than were sent, across three kill -9 in mid-burst", async () => {
    let server = await servers.start();
    let clicks = storedClicks(linkId);
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const burst = await burstAndKill(server, linkId);
      const stored = storedClicks(linkId);
      const report = JSON.stringify({ cycle, ...burst, clicksBefore: clicks, stored });
      expect(burst.acknowledged, report).toBeGreaterThan(0);
      expect(burst.otherStatuses, report).toEqual([]);
      expect(stored - clicks, report).toBeGreaterThanOrEqual(burst.acknowledged);
      expect(stored - clicks, report).toBeLessThanOrEqual(burst.sent);
      expect(queryFile<{ integrity_check: string }>(dbPath, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);

      // The restarted server sees the same count and goes on counting.
      server = await servers.start();
      const listed = (await (await api(server, "/api/v1/collections")).json()) as { collections: { links: { id: number; clicks: number }[] }[] };
      const seen = listed.collections.flatMap((c) => c.links).find((l) => l.id === linkId);
      expect(seen?.clicks).toBe(stored);
      const again = await fetch(`${server.origin}/l/${linkId}`, { redirect: "manual" });
      expect(again.status).toBe(302);
      expect(storedClicks(linkId)).toBe(stored + 1);
      clicks = stored + 1;
    }
    await stop(server);
    expect(queryFile<{ integrity_check: string }>(dbPath, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
  }, 30_000);

  it("counts nothing for HEAD however the path is spelled", async () => {
    const server = await servers.start();
    const before = storedClicks(linkId);
    const digits = [...String(linkId)].map((digit) => `%3${digit}`).join("");
    for (const path of [`/l/${linkId}`, `/l/${linkId}/`, `/l/${digits}`, `/l/${linkId}?via=head`]) {
      const response = await fetch(`${server.origin}${path}`, { method: "HEAD", redirect: "manual" });
      expect({ path, status: response.status, location: response.headers.get("location") }).toEqual({ path, status: 302, location: TARGET });
    }
    expect(storedClicks(linkId)).toBe(before);
    await stop(server);
  }, 15_000);
});
