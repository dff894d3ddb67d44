import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/common/config";
import { closeDatabase, openDatabase } from "../src/db/client";
import { compile, median, ROOT, rssMiB, rssParts, serveCommand, start, stop, tempDir } from "./lib";

export interface Footprint {
  /** Median milliseconds from spawn to the first `200 GET /healthz`. */
  startMs: number;
  /** Median VmRSS after start-up and a moment of idling, MiB. */
  rssMiB: number;
  /** Of which anonymous memory (heaps), and file-backed pages (the executable's code), medians. */
  anonMiB: number;
  fileMiB: number;
}

export interface FootprintFigure {
  bare: Footprint;
  linkshelf: Footprint;
  /** Elysia + drizzle + bun:sqlite and nothing of linkshelf's own: what no app built on them can go below. */
  floor: Footprint;
  /** The floor with as many routes as linkshelf, each answering a constant (floor-elysia-drizzle.ts with a routes file), and how many. */
  routesFloor: Footprint;
  routes: number;
  startRatio: number;
  startTarget: number;
  rssRatio: number;
  rssTarget: number;
  floorStartRatio: number;
  floorRssRatio: number;
  /** linkshelf ÷ the floor, and their targets. */
  startVsFloor: number;
  startVsFloorTarget: number;
  rssVsFloor: number;
  rssVsFloorTarget: number;
  starts: number;
}

/** One way to start a server: a command line for a fresh, empty data directory. */
type Starter = (dataDir: string) => string[];

/**
 * startOnce spawns a server, waits for its `listening on` line, then asks `GET /healthz`
 * until the answer is 200; the time counts from the spawn to that answer. With `idleMs`,
 * the server then idles that long and its VmRSS is read.
 */
type Run = { ms: number; rss?: number; anon?: number; file?: number };

async function startOnce(command: string[], idleMs?: number): Promise<Run> {
  const began = performance.now();
  const server = await start(command);
  try {
    for (;;) {
      const response = await fetch(`${server.base}/healthz`);
      await response.arrayBuffer();
      if (response.status === 200) break;
    }
    const ms = performance.now() - began;
    if (idleMs === undefined) return { ms };
    await Bun.sleep(idleMs);
    const { anonMiB, fileMiB } = rssParts(server.process.pid);
    return { ms, rss: rssMiB(server.process.pid), anon: anonMiB, file: fileMiB };
  } finally {
    await stop(server);
  }
}

/** appRoutes: the method and path of every route linkshelf's app declares, read from the app itself. */
function appRoutes(): [method: string, path: string][] {
  const db = openDatabase(":memory:");
  try {
    return createApp({ db, config: loadConfig({}, {}), clock: Date.now }).routes.map((route) => [route.method, route.path]);
  } finally {
    closeDatabase(db);
  }
}

/**
 * benchFootprint: start-up time and idle memory of dist/linkshelf (empty data directory,
 * so migrations run), of a bare Bun.serve answering /healthz, of the floor (Elysia +
 * drizzle opening a database, no linkshelf code), and of the floor with linkshelf's routes
 * answering constants, all compiled the same way. They are
 * started in turn, `starts` times each; the first `rssStarts` of each also idle 1.5 s
 * before VmRSS is read. Medians are compared.
 */
export async function benchFootprint(linkshelfBin: string, options = { starts: 9, rssStarts: 5, idleMs: 1500 }): Promise<FootprintFigure> {
  const work = tempDir("footprint");
  const bareBin = await compile(join(ROOT, "bench", "bare-healthz.ts"), join(work, "bare-healthz"));
  const floorBin = await compile(join(ROOT, "bench", "floor-elysia-drizzle.ts"), join(work, "floor-elysia-drizzle"));
  const routes = appRoutes();
  const routesFile = join(work, "routes.json");
  writeFileSync(routesFile, JSON.stringify(routes));
  const runs = { bare: [] as Run[], linkshelf: [] as Run[], floor: [] as Run[], routesFloor: [] as Run[] };
  const starters: Record<keyof typeof runs, Starter> = {
    bare: () => [bareBin],
    linkshelf: (dataDir) => serveCommand(linkshelfBin, dataDir),
    floor: (dataDir) => [floorBin, dataDir],
    routesFloor: (dataDir) => [floorBin, dataDir, routesFile],
  };
  for (let round = 0; round < options.starts; round++) {
    for (const name of ["bare", "linkshelf", "floor", "routesFloor"] as const) {
      const dataDir = join(work, `${name}-${round}`);
      runs[name].push(await startOnce(starters[name](dataDir), round < options.rssStarts ? options.idleMs : undefined));
    }
  }
  const idled = (list: Run[], key: "rss" | "anon" | "file") => median(list.flatMap((run) => (run[key] === undefined ? [] : [run[key]])));
  const summary = (list: Run[]): Footprint => ({
    startMs: median(list.map((run) => run.ms)),
    rssMiB: idled(list, "rss"),
    anonMiB: idled(list, "anon"),
    fileMiB: idled(list, "file"),
  });
  const bare = summary(runs.bare);
  const linkshelf = summary(runs.linkshelf);
  const floor = summary(runs.floor);
  return {
    bare, linkshelf, floor, routesFloor: summary(runs.routesFloor), routes: routes.length,
    startRatio: linkshelf.startMs / bare.startMs, startTarget: 2,
    rssRatio: linkshelf.rssMiB / bare.rssMiB, rssTarget: 1.3,
    floorStartRatio: floor.startMs / bare.startMs,
    floorRssRatio: floor.rssMiB / bare.rssMiB,
    startVsFloor: linkshelf.startMs / floor.startMs, startVsFloorTarget: 1.5,
    rssVsFloor: linkshelf.rssMiB / floor.rssMiB, rssVsFloorTarget: 1.15,
    starts: options.starts,
  };
}
