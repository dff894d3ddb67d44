/**
 * Retries with an Idempotency-Key never write twice, even when the server dies between the
 * commit and the answer: many concurrent keyed POSTs of links, a SIGKILL while they are in
 * flight, a restart on the same data, and every request sent again with its key. Each key ends
 * with exactly one link, and a request that was answered before the kill gets that same answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, WorkspaceServers } from "../support/binary";

const SERVER_ENV = cleanEnv({ LINKSHELF_RATE_LIMIT: "off" });
const REQUESTS = 300;
const ROUNDS = 3;

let servers: WorkspaceServers;
let token: string;

beforeAll(async () => {
  servers = new WorkspaceServers(binaryWorkspace("idempotency"), SERVER_ENV);
  token = await createUserWithToken(servers.workspace, "retry@example.test", "Retry", SERVER_ENV);
}, 60_000);

afterAll(() => servers?.close());

/** send posts the link of key `key` to `origin`: its status and body, or null when the connection died. */
async function send(origin: string, key: string): Promise<{ status: number; text: string } | null> {
  try {
    const response = await fetch(`${origin}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ name: key, url: `https://retry.example/${encodeURIComponent(key)}`, favorite: false }),
    });
    return { status: response.status, text: await response.text() };
  } catch {
    return null;
  }
}

describe("Idempotency-Key under kill -9", () => {
  for (let round = 0; round < ROUNDS; round++) {
    it(`round ${round}: one link per key after a crash mid-flight and the retries`, async () => {
      const keys = Array.from({ length: REQUESTS }, (_, i) => `round-${round}-${i}`);
      const server = await servers.start();
      let answered = 0;
      let killed: Promise<void> | undefined;
      const firsts = await Promise.all(keys.map(async (key) => {
        const answer = await send(server.origin, key);
        // Kill once some answers are out, while the rest are being committed or answered.
        if (answer && ++answered === REQUESTS / 10 + round * 20) killed = servers.killHard(server);
        return answer;
      }));
      await killed;
      const lost = firsts.filter((answer) => answer === null).length;
      expect(lost).toBeGreaterThan(0);

      const restarted = await servers.start();
      const retries = await Promise.all(keys.map((key) => send(restarted.origin, key)));
      expect(await servers.stop(restarted)).toBe(0);

      keys.forEach((key, at) => {
        expect(`${key}: ${retries[at]?.status}`).toBe(`${key}: 201`);
        // What was answered before the kill is answered again, byte for byte.
        if (firsts[at]?.status === 201) expect(retries[at]!.text).toBe(firsts[at]!.text);
      });
      const counts = queryFile<{ name: string; n: number }>(servers.workspace.dbPath,
        "SELECT name, count(*) AS n FROM links WHERE name LIKE ? GROUP BY name", [`round-${round}-%`]);
      expect(counts.length).toBe(REQUESTS);
      expect(counts.filter((row) => row.n !== 1)).toEqual([]);
      const kept = queryFile<{ n: number }>(servers.workspace.dbPath, "SELECT count(*) AS n FROM idempotency_keys WHERE key LIKE ?", [`round-${round}-%`]);
      expect(kept[0]!.n).toBe(REQUESTS);
    }, 60_000);
  }
});
