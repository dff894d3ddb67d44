/**
 * `bun bench/link-check-load.ts`: is `GET /l/:id` slower while the server checks 100,000 links in
 * the background, and what does the checker cost in memory? dist/linkshelf (built afresh) holds
 * 100,000 links (imported through the CLI), each on its own host name (`p<N>.localhost`, loopback,
 * admitted by LINKSHELF_LINK_CHECK_ALLOW_PRIVATE=1) of a local origin on 127.0.0.1 that answers
 * every check at once. The same data is served twice: with LINKSHELF_LINK_CHECK=off, then with a
 * period of `1h` (one check started every 36 ms, 4 at once: far busier than the default 7d).
 * Rounds alternate a bare Bun.serve 302 and linkshelf, as bench/capture-load.ts does. Prints the
 * median ratios, the checks made during the busy rounds, and the server's RSS in both runs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { alternatingRounds, peakRssMiB, publicRedirect, roundsLine, type Rounds } from "./background-load";
import { cli, compile, createBenchUser, GENERATOR, indexCatchUp, NO_REFUSAL_RATE_LIMIT, pinned, ROOT, rssMiB, serveCommand, start, stop, tempDir } from "./lib";

const LINKS = 100_000;
const ROUNDS = 5;
const PERIOD = "1h";

/** What benchLinkCheck measured: each run's rounds, the checks sent during them, and the server's memory. */
export interface LinkCheckLoad {
  links: number;
  period: string;
  off: { rounds: Rounds; checks: number; rss: number; peak: number };
  on: { rounds: Rounds; checks: number; rss: number; peak: number };
  /** The checker on's median ratio ÷ the checker off's: 1 is no slowdown. */
  ratio: number;
  /** The least `ratio` that counts as not slower: a drop of at most 5 %. */
  target: number;
}

/**
 * benchLinkCheck serves LINKS links (imported through the CLI into a fresh data directory of
 * `binary`) with the checker off, then on, and measures the redirect against a bare 302 in
 * alternating rounds each time.
 */
export async function benchLinkCheck(binary: string): Promise<LinkCheckLoad> {
  const work = tempDir("link-check-load");
  const bareBin = await compile(join(ROOT, "bench", "bare-redirect.ts"), join(work, "bare-redirect"));
  const dataDir = join(work, "data");
  const token = createBenchUser(binary, dataDir);

  let checks = 0;
  const origin = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (checks++, new Response("ok")) });
  const file = join(work, "bookmarks.html");
  const rows = Array.from({ length: LINKS }, (_, i) => `<DT><A HREF="http://p${i + 1}.localhost:${origin.port}/${i + 1}">Page ${i + 1}</A>`);
  writeFileSync(file, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<DL><p>\n${rows.join("\n")}\n</DL><p>\n`);
  cli(binary, dataDir, ["import", file, "--email", "bench@example.test"]);

  const bare = await start(pinned([bareBin], 0), { cwd: work });
  const bareUrl = `${bare.base}/l/1`;
  let path = "";

  /** run serves the data with LINKSHELF_LINK_CHECK=`period`, measures the rounds and the memory, and stops. */
  async function run(period: string) {
    const app = await start(pinned(serveCommand(binary, dataDir), 0), {
      cwd: work,
      env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT, LINKSHELF_LINK_CHECK: period, LINKSHELF_LINK_CHECK_ALLOW_PRIVATE: "1" },
    });
    try {
      path ||= new URL(await publicRedirect(app.base, token, `http://pub.localhost:${origin.port}/`)).pathname;
      // The imported links are indexed for search in the background after the first start: measured once that is done.
      await indexCatchUp(join(dataDir, "linkshelf.db"));
      const appUrl = `${app.base}${path}`;
      const before = checks;
      const rounds = await alternatingRounds(appUrl, bareUrl, ROUNDS);
      return { rounds, checks: checks - before, rss: rssMiB(app.process.pid), peak: peakRssMiB(app.process.pid) };
    } finally {
      await stop(app);
    }
  }

  try {
    const off = await run("off");
    const on = await run(PERIOD);
    return { links: LINKS, period: PERIOD, off, on, ratio: on.rounds.ratio / off.rounds.ratio, target: 0.95 };
  } finally {
    await stop(bare);
    origin.stop(true);
  }
}

if (import.meta.main) {
  const { off, on } = await benchLinkCheck(await compile(join(ROOT, "src", "main.ts"), join(tempDir("link-check-load"), "linkshelf")));
  console.log([
    `GET /l/:id ÷ bare Bun.serve 302 with ${LINKS} links, median of ${ROUNDS} rounds' ratios, 3 s a run (${GENERATOR}, 32 connections):`,
    roundsLine("checker off", off.rounds),
    roundsLine(`checker on (${PERIOD})`, on.rounds),
    `  requests the checker sent during the rounds: ${off.checks} off, ${on.checks} on`,
    `  linkshelf RSS: ${off.rss.toFixed(1)} MiB (peak ${off.peak.toFixed(1)}) checker off; ${on.rss.toFixed(1)} MiB (peak ${on.peak.toFixed(1)}) checker on`,
  ].join("\n"));
}
