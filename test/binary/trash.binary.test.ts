/**
 * A big restore from the trash through the real executable, run from another directory: a
 * collection of more than RESTORE_APART_LINKS links comes back in one transaction on the restore
 * worker (the executable's own entry point), answered once committed, and a keyed retry gets the
 * same answer again.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { RESTORE_APART_LINKS } from "../../src/shelf/restorer";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, WorkspaceServers, type RunningServer } from "../support/binary";

const SERVER_ENV = cleanEnv({ LINKSHELF_RATE_LIMIT: "off" });
const PER_BATCH = 500;
const LINKS = RESTORE_APART_LINKS + PER_BATCH;

let servers: WorkspaceServers;
let token: string;

beforeAll(async () => {
  servers = new WorkspaceServers(binaryWorkspace("trash"), SERVER_ENV);
  token = await createUserWithToken(servers.workspace, "restore@example.test", "Restore", SERVER_ENV);
}, 120_000);

afterAll(() => servers?.close());

/** api sends one JSON request with the user's token: its status, body and headers. */
async function api(server: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() as any, replayed: response.headers.get("idempotent-replayed") };
}

describe("a big restore through the executable", () => {
  it("restores a collection of more than 1,000 links in one answer, and a keyed retry replays it", async () => {
    const server = await servers.start();
    const root = (await api(server, "POST", "/api/v1/collections", { name: "Root", visibility: "PRIVATE" })).body.collection.id as number;
    for (let i = 0; i < LINKS / PER_BATCH; i++) {
      const sub = (await api(server, "POST", "/api/v1/collections", { name: `Sub ${i}`, visibility: "PRIVATE", parentId: root })).body.collection.id as number;
      const operations = Array.from({ length: PER_BATCH }, (_, j) => ({ op: "createLink", ref: `l${j}`, name: `L${i}.${j}`, url: `https://l${i}-${j}.example/`, collections: [{ id: sub }] }));
      expect((await api(server, "POST", "/api/v1/batch", { operations })).status).toBe(200);
    }
    expect((await api(server, "DELETE", `/api/v1/collections/${root}?contents=1`)).status).toBe(200);
    expect(queryFile(servers.workspace.dbPath, "SELECT count(*) AS n FROM links")).toEqual([{ n: 0 }]);

    const restored = await api(server, "POST", "/api/v1/trash/restore", { collections: [root] }, { "idempotency-key": "big-restore" });
    const expected = { message: "Restored.", links: LINKS, collections: 1 + LINKS / PER_BATCH, tooDeep: [] };
    expect({ status: restored.status, body: restored.body }).toEqual({ status: 200, body: expected });
    // Committed before the answer: another connection sees every link, and the server's own lists them.
    expect(queryFile(servers.workspace.dbPath, "SELECT count(*) AS n FROM links")).toEqual([{ n: LINKS }]);
    expect(queryFile(servers.workspace.dbPath, "SELECT count(*) AS n FROM trash")).toEqual([{ n: 0 }]);
    expect((await api(server, "GET", `/api/v1/collections/${root}`)).status).toBe(200);
    const retry = await api(server, "POST", "/api/v1/trash/restore", { collections: [root] }, { "idempotency-key": "big-restore" });
    expect(retry).toEqual({ status: 200, body: expected, replayed: "true" });
    expect(await servers.stop(server)).toBe(0);
  }, 300_000);
});
