/**
 * Search through the executable: started from a directory without the sources, the server runs
 * searches on its worker thread (the executable's second entry point), answers refusals as the
 * API does, stays answering meanwhile, and exits 0 on SIGTERM after searching.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { binaryWorkspace, cleanEnv, createUserWithToken, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";

let workspace: BinaryWorkspace;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  workspace = binaryWorkspace("search-worker");
  token = await createUserWithToken(workspace, "reader@example.test", "Reader", cleanEnv());
  server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

describe("search in the executable", () => {
  it("finds a link, refuses a too-broad query and another user's collection as the API does, and exits 0 on SIGTERM", async () => {
    const created = await api("/api/v1/links", { method: "POST", body: JSON.stringify({ name: "Narwhal tusks", url: "https://narwhal.example/", favorite: false }) });
    expect(created.status).toBe(201);
    const { link } = (await created.json()) as { link: { id: number } };
    const [found, broad, unknown, healthz] = await Promise.all([
      api("/api/v1/search?q=narwhal"), api("/api/v1/search?q=n*"), api("/api/v1/search?q=narwhal&collectionId=999999"), fetch(`${server.origin}/healthz`),
    ]);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { hits: { link: { id: number } }[] }).hits.map((hit) => hit.link.id)).toEqual([link.id]);
    expect({ status: broad.status, body: await broad.json() }).toEqual({
      status: 422, body: { message: "\"n*\" is too short a prefix: it would match too many words. Write at least 2 letters or digits before the *.", code: "QUERY_TOO_BROAD" },
    });
    expect({ status: unknown.status, code: ((await unknown.json()) as { code: string }).code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(healthz.status).toBe(200);
    expect(await server.stop()).toBe(0);
  }, 30_000);
});
