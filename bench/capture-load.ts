/**
 * `bun bench/capture-load.ts`: is `GET /l/:id` slower while the server fetches saved pages in
 * the background? dist/linkshelf (built afresh) serves a public link; a bare Bun.serve 302 is
 * the yardstick. Rounds alternate bare and linkshelf, first with the fetcher idle, then while it
 * works through 1,000 links just created through the API, each on its own host name
 * (`p<N>.localhost`, loopback, admitted by LINKSHELF_FAVICON_ALLOW_PRIVATE=1) of a local origin
 * that answers after 100 ms: nine in ten an article page of 100 KiB, one in ten a 2 MiB page
 * (with `--articles`, only article pages).
 * Prints the median of the rounds' ratios, the pages fetched during the busy rounds, and the
 * server's peak RSS. About 45 s.
 */
import { join } from "node:path";
import { bigPage } from "../test/support/capture.fixtures";
import { alternatingRounds, apiPoster, peakRssMiB, publicRedirect, roundsLine } from "./background-load";
import { compile, createBenchUser, GENERATOR, NO_REFUSAL_RATE_LIMIT, pinned, ROOT, rssMiB, serveCommand, start, stop, tempDir } from "./lib";

const LINKS = 1000;
const ROUNDS = 5;
const DELAY_MS = 100;
const ARTICLES_ONLY = process.argv.includes("--articles");

const work = tempDir("capture-load");
const binary = await compile(join(ROOT, "src", "main.ts"), join(work, "linkshelf"));
const bareBin = await compile(join(ROOT, "bench", "bare-redirect.ts"), join(work, "bare-redirect"));
const dataDir = join(work, "data");
const token = createBenchUser(binary, dataDir);

const article = bigPage(100 * 1024);
const large = bigPage(2 * 1024 * 1024);
let served = 0;
const origin = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await Bun.sleep(DELAY_MS);
    served++;
    const n = Number(new URL(request.url).pathname.slice(1));
    return new Response(n % 10 === 0 && !ARTICLES_ONLY ? large : article, { headers: { "content-type": "text/html; charset=utf-8" } });
  },
});

const app = await start(pinned(serveCommand(binary, dataDir), 0), {
  cwd: work,
  env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT, LINKSHELF_FAVICON_ALLOW_PRIVATE: "1", LINKSHELF_FETCH_CONTENT: "on" },
});
const bare = await start(pinned([bareBin], 0), { cwd: work });
const peakRss = () => peakRssMiB(app.process.pid);
try {
  const api = apiPoster(app.base, token);
  const appUrl = await publicRedirect(app.base, token);
  const bareUrl = `${bare.base}/l/1`;
  const rounds = () => alternatingRounds(appUrl, bareUrl, ROUNDS);

  const idle = await rounds();
  const idleRss = rssMiB(app.process.pid);
  const idlePeak = peakRss();
  for (let n = 1; n <= LINKS; n++) await api("/api/v1/links", { name: `Page ${n}`, url: `http://p${n}.localhost:${origin.port}/${n}`, favorite: false });
  const servedBefore = served;
  const busy = await rounds();
  const servedDuring = served - servedBefore;

  console.log([
    `GET /l/:id ÷ bare Bun.serve 302, median of ${ROUNDS} rounds' ratios, 3 s a run (${GENERATOR}, 32 connections):`,
    roundsLine("fetcher idle", idle),
    roundsLine("fetcher busy", busy),
    `  pages served to the fetcher during the busy rounds: ${servedDuring} (${served} of ${LINKS} in all)`,
    `  linkshelf RSS: ${idleRss.toFixed(1)} MiB after the idle rounds (peak ${idlePeak.toFixed(1)} MiB so far), peak ${peakRss().toFixed(1)} MiB over the whole run`,
  ].join("\n"));
} finally {
  await stop(app);
  await stop(bare);
  origin.stop(true);
}
