import { Database } from "bun:sqlite";
import { join } from "node:path";
import { compile, createBenchUser, GENERATOR, load, median, NO_REFUSAL_RATE_LIMIT, pinned, ROOT, serveCommand, start, stop, tempDir, timedLoad, type Generator } from "./lib";

export interface RedirectFigure {
  generator: Generator;
  bareRps: number;
  linkshelfRps: number;
  /** Elysia answering the same 302 through the hooks the redirect would need on Elysia's pipeline, no linkshelf code, no database (bench/floor-elysia-redirect.ts). */
  floorRps: number;
  /** Median linkshelf ÷ median bare. */
  ratio: number;
  /** Median floor ÷ median bare: what Elysia's per-request pipeline alone leaves of the bare server (linkshelf's redirect does not go through it). */
  floorRatio: number;
  /** The lowest and highest ratio of one round (linkshelf's run ÷ the bare run just before it). */
  spread: [number, number];
  rounds: number;
  target: number;
  /** The exact check: a fixed number of requests, every answer awaited. */
  redirectsServed: number;
  clicksStored: number;
  clicksMatch: boolean;
  /** During the timed rounds: 302s received, and clicks stored (at most one more per connection, for requests in flight when a round ended). */
  timed: { answered: number; stored: number; withinInFlight: boolean };
}

/**
 * benchRedirect: `GET /l/:id` of dist/linkshelf (click committed, rate limiter on with a
 * limit too high to trigger) against a bare Bun.serve 302 and the Elysia floor, all compiled
 * the same way and pinned to the same CPU, driven by the same load (`timedLoad`: wrk when
 * installed, one thread, 32 connections, on the other CPU), in turn, `rounds` rounds of
 * `seconds` each; medians compared. Then a fixed number of requests, every answer awaited,
 * checks the clicks stored against the 302s served exactly.
 */
export async function benchRedirect(linkshelfBin: string, options = { rounds: 7, seconds: 4, warmUpSeconds: 8, connections: 32, exactRequests: 50_000 }): Promise<RedirectFigure> {
  const work = tempDir("redirect");
  const bareBin = await compile(join(ROOT, "bench", "bare-redirect.ts"), join(work, "bare-redirect"));
  const floorBin = await compile(join(ROOT, "bench", "floor-elysia-redirect.ts"), join(work, "floor-elysia-redirect"));
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);

  const app = await start(pinned(serveCommand(linkshelfBin, dataDir), 0), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const bare = await start(pinned([bareBin], 0), { cwd: work });
  const floor = await start(pinned([floorBin], 0), { cwd: work });
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
    const bareUrl = `${bare.base}/l/1`;
    const floorUrl = `${floor.base}/l/1`;
    const clicks = () => {
      const db = new Database(join(dataDir, "linkshelf.db"), { readonly: true });
      try {
        return db.query<{ clicks: number }, [number]>("SELECT clicks FROM links WHERE id = ?").get(link.id)!.clicks;
      } finally {
        db.close();
      }
    };

    // Warm each up, then take turns. JavaScriptCore compiles a hot path in tiers; linkshelf's
    // longer one takes seconds of load to reach its fastest (here ~30,000 req/s in the first
    // second, ~40,000 after ten), and a server runs for days.
    for (const url of [bareUrl, floorUrl, appUrl]) await timedLoad(url, options.warmUpSeconds, options.connections);
    const before = clicks();
    const bareRuns: number[] = [];
    const floorRuns: number[] = [];
    const appRuns: number[] = [];
    let answered = 0;
    for (let round = 0; round < options.rounds; round++) {
      bareRuns.push((await timedLoad(bareUrl, options.seconds, options.connections)).requestsPerSecond);
      floorRuns.push((await timedLoad(floorUrl, options.seconds, options.connections)).requestsPerSecond);
      const run = await timedLoad(appUrl, options.seconds, options.connections);
      if (run.refused > 0 || run.errors > 0) throw new Error(`GET /l/:id: ${run.refused} answers that were not 302, ${run.errors} errors`);
      appRuns.push(run.requestsPerSecond);
      answered += run.answered;
    }
    const storedTimed = clicks() - before;

    const exact = await load(appUrl, options.exactRequests, options.connections);
    await stop(app);
    const redirectsServed = exact.statuses["302"] ?? 0;
    const clicksStored = clicks() - before - storedTimed;

    const ratios = appRuns.map((rps, round) => rps / bareRuns[round]!);
    const bareRps = median(bareRuns);
    const linkshelfRps = median(appRuns);
    const floorRps = median(floorRuns);
    return {
      generator: GENERATOR, bareRps, linkshelfRps, floorRps, ratio: linkshelfRps / bareRps, floorRatio: floorRps / bareRps,
      spread: [Math.min(...ratios), Math.max(...ratios)], rounds: options.rounds, target: 0.7,
      redirectsServed, clicksStored, clicksMatch: redirectsServed === clicksStored && redirectsServed === options.exactRequests,
      timed: { answered, stored: storedTimed, withinInFlight: storedTimed >= answered && storedTimed <= answered + options.rounds * options.connections },
    };
  } finally {
    app.process.kill();
    await stop(bare);
    await stop(floor);
  }
}
