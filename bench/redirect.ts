import { Database } from "bun:sqlite";
import { join } from "node:path";
import { compile, createBenchUser, load, median, NO_REFUSAL_RATE_LIMIT, ROOT, serveCommand, start, stop, tempDir } from "./lib";

export interface RedirectFigure {
  bareRps: number;
  linkshelfRps: number;
  ratio: number;
  target: number;
  redirectsServed: number;
  clicksStored: number;
  clicksMatch: boolean;
}

/**
 * benchRedirect: `GET /l/:id` of dist/linkshelf (click committed, rate limiter on with a
 * limit too high to trigger) against a bare Bun.serve 302 compiled the same way, driven by
 * the same autocannon load (a fixed number of requests, every answer awaited), alternating,
 * `rounds` times; medians compared. Then the clicks stored are checked against the 302s served.
 */
export async function benchRedirect(linkshelfBin: string, options = { rounds: 5, requests: 200_000, connections: 32 }): Promise<RedirectFigure> {
  const work = tempDir("redirect");
  const bareBin = await compile(join(ROOT, "bench", "bare-redirect.ts"), join(work, "bare-redirect"));
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);

  const app = await start(serveCommand(linkshelfBin, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const bare = await start([bareBin], { cwd: work });
  try {
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${app.base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, { id: number }>;
    };
    const collection = (await api("/api/v1/collections", { name: "Public", visibility: "PUBLIC" })).collection!;
    const link = (await api("/api/v1/links", { name: "Example", url: "https://example.com/", favorite: true, collectionIds: [collection.id] })).link!;
    const appUrl = `${app.base}/l/${link.id}`;

    let served = 0;
    const bareRuns: number[] = [];
    const appRuns: number[] = [];
    await load(`${bare.base}/l/1`, options.requests / 4, options.connections);
    served += (await load(appUrl, options.requests / 4, options.connections)).statuses["302"] ?? 0;
    for (let round = 0; round < options.rounds; round++) {
      bareRuns.push((await load(`${bare.base}/l/1`, options.requests, options.connections)).requestsPerSecond);
      const run = await load(appUrl, options.requests, options.connections);
      appRuns.push(run.requestsPerSecond);
      served += run.statuses["302"] ?? 0;
    }
    await stop(app);
    const db = new Database(join(dataDir, "linkshelf.db"), { readonly: true });
    const clicksStored = db.query<{ clicks: number }, [number]>("SELECT clicks FROM links WHERE id = ?").get(link.id)!.clicks;
    db.close();

    const bareRps = median(bareRuns);
    const linkshelfRps = median(appRuns);
    return {
      bareRps, linkshelfRps, ratio: linkshelfRps / bareRps, target: 0.6,
      redirectsServed: served, clicksStored, clicksMatch: served === clicksStored,
    };
  } finally {
    app.process.kill();
    await stop(bare);
  }
}
