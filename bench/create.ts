import { Database } from "bun:sqlite";
import { join } from "node:path";
import { createBenchUser, load, median, NO_REFUSAL_RATE_LIMIT, serveCommand, start, stop, tempDir } from "./lib";

export interface CreateFigure {
  connections: number;
  /** Median of the rounds, created links per second. */
  linksPerSecond: number;
  target: number;
  created: number;
  stored: number;
  storedMatch: boolean;
}

/**
 * benchCreate: `POST /api/v1/links` to dist/linkshelf from 16 concurrent clients (autocannon,
 * keep-alive, one JSON body, a bearer token, the rate limiter on with a limit too high to
 * refuse), a fixed number of requests per round, every answer awaited; the median rate of
 * the rounds. Then the links stored are checked against the 201s served.
 */
export async function benchCreate(linkshelfBin: string, options = { rounds: 3, requests: 30_000, connections: 16 }): Promise<CreateFigure> {
  const work = tempDir("create");
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);
  const app = await start(serveCommand(linkshelfBin, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const request = {
    method: "POST" as const,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "A page worth keeping", url: "https://example.com/articles/keeping?ref=bench", favorite: false }),
  };
  let created = 0;
  const rates: number[] = [];
  try {
    const url = `${app.base}/api/v1/links`;
    created += (await load(url, options.requests / 5, options.connections, request)).statuses["201"] ?? 0;
    for (let round = 0; round < options.rounds; round++) {
      const run = await load(url, options.requests, options.connections, request);
      created += run.statuses["201"] ?? 0;
      rates.push(run.requestsPerSecond * ((run.statuses["201"] ?? 0) / options.requests));
    }
  } finally {
    await stop(app);
  }
  const db = new Database(join(dataDir, "linkshelf.db"), { readonly: true });
  const stored = db.query<{ n: number }, []>("SELECT count(*) AS n FROM links").get()!.n;
  db.close();
  return {
    connections: options.connections, linksPerSecond: median(rates), target: 5000,
    created, stored, storedMatch: created === stored,
  };
}
