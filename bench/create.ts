import { Database } from "bun:sqlite";
import { join } from "node:path";
import { createBenchUser, GENERATOR, indexCatchUp, median, NO_REFUSAL_RATE_LIMIT, pinned, serveCommand, start, stop, tempDir, timedLoad, type Generator } from "./lib";

export interface CreateFigure {
  generator: Generator;
  connections: number;
  /** Median of the rounds, created links per second: each round's 201s over its time plus the search index's catching up after it. */
  linksPerSecond: number;
  /** The longest the search index took to catch up after a round, in seconds. */
  indexCatchUpSeconds: number;
  target: number;
  /** 201s received. */
  created: number;
  stored: number;
  /** Every 201 stored; no more stored than one per connection in flight when a round ended. */
  storedMatch: boolean;
}

/**
 * benchCreate: `POST /api/v1/links` to dist/linkshelf from 16 concurrent connections
 * (`timedLoad`: wrk when installed; keep-alive, one JSON body, a bearer token, the rate limiter
 * on with a limit too high to refuse), `rounds` timed rounds; the median rate. A round's time
 * runs until the search index has caught up with it (the server indexes new links in the
 * background). Then the links stored are checked against the 201s received.
 */
export async function benchCreate(linkshelfBin: string, options = { rounds: 3, seconds: 4, connections: 16 }): Promise<CreateFigure> {
  const work = tempDir("create");
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);
  const app = await start(pinned(serveCommand(linkshelfBin, dataDir), 0), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const request = {
    method: "POST" as const,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "A page worth keeping", url: "https://example.com/articles/keeping?ref=bench", favorite: false }),
  };
  let created = 0;
  let indexCatchUpSeconds = 0;
  const rates: number[] = [];
  const dbPath = join(dataDir, "linkshelf.db");
  // A first round of one second warms up.
  const durations = [1, ...Array<number>(options.rounds).fill(options.seconds)];
  try {
    const url = `${app.base}/api/v1/links`;
    for (const [round, seconds] of durations.entries()) {
      const run = await timedLoad(url, seconds, options.connections, request);
      if (run.refused > 0 || run.errors > 0) throw new Error(`POST /api/v1/links: ${run.refused} answers that were not 201, ${run.errors} errors`);
      created += run.answered;
      const behind = await indexCatchUp(dbPath);
      if (round === 0) continue;
      indexCatchUpSeconds = Math.max(indexCatchUpSeconds, behind);
      rates.push(run.answered / (run.answered / run.requestsPerSecond + behind));
    }
  } finally {
    await stop(app);
  }
  const db = new Database(dbPath, { readonly: true });
  const stored = db.query<{ n: number }, []>("SELECT count(*) AS n FROM links").get()!.n;
  db.close();
  return {
    generator: GENERATOR, connections: options.connections, linksPerSecond: median(rates), indexCatchUpSeconds, target: 8000,
    created, stored, storedMatch: stored >= created && stored <= created + durations.length * options.connections,
  };
}
