/**
 * `npm run bench`: builds dist/linkshelf and prints every performance target (docs/development.md),
 * measured in this run on this machine, beside its target; writes them to
 * bench/results.json and draws them in bench/results.svg.
 */
import { cpus, loadavg } from "node:os";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderChart, type ChartRow } from "./chart";
import { benchCollections, countCollectionQueries } from "./collections";
import { benchCreate } from "./create";
import { benchFootprint } from "./footprint";
import { benchLinkCheck } from "./link-check-load";
import { compile, GENERATOR, ROOT } from "./lib";
import { benchRedirect } from "./redirect";
import { benchSearch } from "./search";
import { benchSearchAbuse } from "./search-abuse";
import { benchSlowUploads, caseLine, withinTarget } from "./slow-uploads";
import { benchImport } from "./import";
import { benchSync, syncRows } from "./sync";
import { benchImportServices, withinBudget } from "./import-services";
import { abuseRows, benchAbuse } from "./abuse";
import { benchTree } from "./tree";
import { benchCopies } from "./copies";
import { CHROMIUM } from "../test/support/programs";

const began = performance.now();
const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", loadAverageAtStart: loadavg()[0]!, bun: Bun.version };
const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));

console.error("measuring GET /l/:id ...");
const redirect = await benchRedirect(binary);
console.error("measuring GET /api/v1/collections ...");
const collections = await benchCollections(binary);
const queries = await countCollectionQueries();
console.error("measuring POST /api/v1/links ...");
const create = await benchCreate(binary);
console.error("measuring start-up and idle memory ...");
const footprint = await benchFootprint(binary);
console.error("measuring full-text search (100,000 links × 3 KB; the library is built once and kept in bench/.cache) ...");
const search = await benchSearch(binary);
console.error("measuring /healthz and GET /l/:id while 4 clients send the costliest searches ...");
const searchAbuse = await benchSearchAbuse(binary);
console.error("measuring GET /l/:id while the link checker works through 100,000 links ...");
const linkCheck = await benchLinkCheck(binary);
console.error("measuring slow uploads from one address (10,000 sign-in forms, 280 saved pages) ...");
const slowUploads = await benchSlowUploads(binary);
console.error("measuring the collection tree in-process (2,000 collections 10 deep, 100,000 links) ...");
const tree = await benchTree();
console.error("measuring the import of a 2,300-link bookmarks file in 200 nested folders ...");
const importFile = await benchImport();
console.error(`measuring the folder sync in Chromium (5,000 bookmarks in 300 folders; then two profiles, a rename timed across the minute alarm: ~3 minutes) ...`);
const sync = existsSync(CHROMIUM.path) ? await benchSync(binary) : null;
console.error("measuring the import of a Pocket export of 100,000 rows through a server ...");
const importServices = await benchImportServices();
console.error("measuring hostile files and requests, each on a fresh server with /healthz asked every 10 ms ...");
const abuse = await benchAbuse(binary);
console.error("measuring page copies: serving a 5 MB copy, 10,000 copies in the file, the stored size of a 3 MB article ...");
const copies = await benchCopies(binary);
const loadAverageAtEnd = loadavg()[0]!;

type Status = "ok" | "MISS" | "FLOOR";
/** A target below what the stack alone measures is out of reach for any app on it: FLOOR, not MISS. */
const status = (met: boolean, floorMisses = false): Status => (met ? "ok" : floorMisses ? "FLOOR" : "MISS");
const x = (ratio: number) => `${ratio.toFixed(2)}×`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const rows: [Status, string, string, string, string][] = [
  [status(redirect.ratio >= redirect.target), "GET /l/:id ÷ bare Bun.serve 302",
    `${redirect.generator}: ${redirect.linkshelfRps.toFixed(0)} / ${redirect.bareRps.toFixed(0)} req/s, ${redirect.rounds} rounds ${redirect.spread.map((r) => r.toFixed(2)).join("-")}`,
    x(redirect.ratio), `≥ ${redirect.target}`],
  [status(redirect.clicksMatch), "clicks stored = 302s served", `${redirect.clicksStored} / ${redirect.redirectsServed}, every answer awaited`, "", "equal"],
  [status(redirect.timed.withinInFlight), "clicks stored, timed rounds", `${redirect.timed.stored} for ${redirect.timed.answered} 302s received`, "", "≥, + in flight"],
  [status(collections.ratio <= collections.target && collections.sameBytes), "GET /api/v1/collections ÷ bare, same bytes",
    `${collections.linkshelfMs.toFixed(2)} / ${collections.bareMs.toFixed(2)} ms, ${mb(collections.bodyBytes)}`, x(collections.ratio), `≤ ${collections.target}`],
  [status(queries.constant), "queries per GET /api/v1/collections",
    `${queries.small.built} built, ${queries.small.kept} kept (5 links) = ${queries.large.built}, ${queries.large.kept} (10,000)`, "", "constant"],
  [status(tree.homeMs <= tree.homeTarget), "home page with the sidebar, server time",
    `${tree.collections.toLocaleString("en")} collections ${tree.depth} deep, ${tree.links.toLocaleString("en")} links; floor (/account, in turn) ${tree.floorMs.toFixed(1)} ms, ${tree.homeAfterWriteMs.toFixed(1)} ms right after a write`,
    `${tree.homeMs.toFixed(1)} ms`, `≤ ${tree.homeTarget} ms`],
  [status(tree.moveMs <= tree.writeTarget && tree.reorderMs <= tree.writeTarget), "move / reorder a collection, server time",
    `the same shelf; reorder of ${tree.reorderItems} items`, `${tree.moveMs.toFixed(2)} / ${tree.reorderMs.toFixed(2)} ms`, `≤ ${tree.writeTarget} ms`],
  [status(tree.feedIdleMs <= tree.feedTarget), "change feed with nothing new, server time",
    `GET /api/v1/changes?since=<latest>, the same shelf`, `${tree.feedIdleMs.toFixed(2)} ms`, `≤ ${tree.feedTarget} ms`],
  [status(importFile.previewMs <= importFile.budgetMs && importFile.confirmMs <= importFile.budgetMs), "bookmarks file import: preview / confirm",
    `${importFile.links.toLocaleString("en")} links in ${importFile.folders} nested folders, in-process; export ${importFile.exportMs.toFixed(0)} ms, same bytes again`,
    `${importFile.previewMs.toFixed(0)} / ${importFile.confirmMs.toFixed(0)} ms`, `≤ ${importFile.budgetMs} ms`],
  ...(sync === null ? [] : syncRows(sync, status)),
  [status(withinBudget(importServices)), "Pocket export import: preview / confirm",
    `${importServices.rows.toLocaleString("en")} rows, server: peak RSS ${importServices.peakMiB.toFixed(0)} MiB (≤ ${importServices.budgetMiB}), /healthz ${importServices.health.answered} answered, ${importServices.health.failed} failed, slowest ${importServices.health.slowestMs.toFixed(0)} ms`,
    `${importServices.previewMs.toFixed(0)} / ${importServices.confirmMs.toFixed(0)} ms`, `≤ ${importServices.budgetMs} ms`],
  ...abuseRows(abuse, status),
  [status(create.linksPerSecond >= create.target && create.storedMatch), `POST /api/v1/links, ${create.connections} clients`,
    `${create.generator}: ${create.stored} stored for ${create.created} 201s received, indexed ≤ ${(create.indexCatchUpSeconds * 1000).toFixed(0)} ms after`, `${create.linksPerSecond.toFixed(0)}/s`, `≥ ${create.target}/s`],
  [status(footprint.rssRatio <= footprint.rssTarget, footprint.floorRssRatio > footprint.rssTarget), "idle RSS ÷ bare Bun.serve",
    `${footprint.linkshelf.rssMiB.toFixed(1)} / ${footprint.bare.rssMiB.toFixed(1)} MiB`, x(footprint.rssRatio), `≤ ${footprint.rssTarget}`],
  [status(footprint.startRatio <= footprint.startTarget, footprint.floorStartRatio > footprint.startTarget), "start → first 200 /healthz ÷ bare",
    `${footprint.linkshelf.startMs.toFixed(1)} / ${footprint.bare.startMs.toFixed(1)} ms`, x(footprint.startRatio), `≤ ${footprint.startTarget}`],
  [status(footprint.rssVsFloor <= footprint.rssVsFloorTarget), "idle RSS ÷ floor (Elysia + drizzle)",
    `${footprint.linkshelf.rssMiB.toFixed(1)} / ${footprint.floor.rssMiB.toFixed(1)} MiB`, x(footprint.rssVsFloor), `≤ ${footprint.rssVsFloorTarget}`],
  [status(footprint.startVsFloor <= footprint.startVsFloorTarget), "start → first 200 /healthz ÷ floor",
    `${footprint.linkshelf.startMs.toFixed(1)} / ${footprint.floor.startMs.toFixed(1)} ms`, x(footprint.startVsFloor), `≤ ${footprint.startVsFloorTarget}`],
  ...Object.entries(search.queries).map(([kind, figure]): [Status, string, string, string, string] =>
    [status(figure.p50 <= search.p50Target && figure.p99 <= search.p99Target), `GET /api/v1/search ${kind}, p50 / p99`,
      `q=${figure.q}, ${figure.hits} hits on the first page`, `${figure.p50.toFixed(1)} / ${figure.p99.toFixed(1)} ms`, `≤ ${search.p50Target} / ${search.p99Target} ms`]),
  [status(search.putContentPerSecond >= search.putTarget), "PUT /api/v1/links/:id/content burst, 16 clients", `${search.putGenerator}: ~3 KB of text each, a link without content each, indexed ${(search.putIndexCatchUpSeconds * 1000).toFixed(0)} ms after`,
    `${search.putContentPerSecond.toFixed(0)}/s`, `≥ ${search.putTarget}/s`],
  [status(search.sizeRatio <= search.sizeTarget), "database ÷ raw page text", `${mb(search.dbBytes)} / ${mb(search.rawTextBytes)}`, x(search.sizeRatio), `≤ ${search.sizeTarget}`],
  [status(linkCheck.ratio >= linkCheck.target), "GET /l/:id, link checker on ÷ off",
    `${GENERATOR}: ${linkCheck.links.toLocaleString("en")} links, ${linkCheck.period}, ${linkCheck.on.checks} checks; RSS ${linkCheck.on.rss.toFixed(0)} MiB (off ${linkCheck.off.rss.toFixed(0)})`,
    x(linkCheck.ratio), `≥ ${linkCheck.target}`],
  ...(["healthz", "redirect"] as const).map((probe): [Status, string, string, string, string] => {
    const figure = searchAbuse.underLoad[probe];
    return [status(figure.p99 <= searchAbuse.target), `${probe === "healthz" ? "GET /healthz" : "GET /l/:id"} p99, ${searchAbuse.clients} clients searching`,
      `costliest searches: ${searchAbuse.searches.answered} answered, ${searchAbuse.searches.refused} refused 422; idle p99 ${searchAbuse.idle[probe].p99.toFixed(1)} ms`,
      `${figure.p99.toFixed(1)} ms`, `≤ ${searchAbuse.target} ms`];
  }),
  [status(search.rssWhileServingMiB <= search.rssTarget), "RSS while serving searches", `${search.links.toLocaleString("en")} links`, `${search.rssWhileServingMiB.toFixed(0)} MiB`, `≤ ${search.rssTarget} MiB`],
  [status(copies.serve.ratio <= copies.serve.target), "GET a 5 MB page copy ÷ bare send",
    `${copies.serve.linkshelfMs.toFixed(2)} / ${copies.serve.bareMs.toFixed(2)} ms, both the stored zstd; RSS ${copies.serve.rssBeforeMiB.toFixed(0)} → ${copies.serve.rssAfterMiB.toFixed(0)} MiB after ${copies.serve.requests}`,
    x(copies.serve.ratio), `≤ ${copies.serve.target}`],
  ...copies.many.figures.map((figure): [Status, string, string, string, string] =>
    [status(figure.change <= copies.many.target), `${figure.name}, ${copies.many.copies.toLocaleString("en")} copies in the file`,
      `server time ${figure.withoutMs.toFixed(2)} ms without, ${figure.withMs.toFixed(2)} ms with`, `${(figure.change * 100).toFixed(0)} %`, `≤ +${copies.many.target * 100} %`]),
  ...(copies.article === null ? [] : [[status(copies.article.ratio <= copies.article.target), "stored ÷ raw, a 3 MB article kept in Chromium",
    `${mb(copies.article.stored)} / ${mb(copies.article.raw)}, ${copies.article.photos} photos, DPR ${copies.article.devicePixelRatio}; made in ${copies.article.seconds.toFixed(2)} s`,
    x(copies.article.ratio), `≤ ${copies.article.target}`] as [Status, string, string, string, string]]),
  ...([["10,000 slow sign-in forms, one address", slowUploads.login], ["280 slow 2 MiB saved pages, one address", slowUploads.content]] as const).map(([name, figure]): [Status, string, string, string, string] =>
    [status(withinTarget(figure)), `${name}: peak RSS`, `/healthz ${figure.healthz.answered} / ${figure.healthz.polled} answered, slowest ${figure.healthz.slowestMs.toFixed(0)} ms`,
      `${figure.peakRssMiB.toFixed(0)} MiB`, `< ${slowUploads.rssTarget} MiB, all`]),
];

const lines = [
  "",
  `linkshelf benchmarks: one run, this machine (${machine.cores} cores, ${machine.cpu}, Bun ${machine.bun}), loopback`,
  "",
  ...rows.map(([state, name, detail, value, target]) =>
    `${state.padEnd(5)} ${name.padEnd(42)} ${detail.padEnd(48)} ${value.padStart(8)}  target ${target}`),
  "",
  `      GET /api/v1/collections right after a write (answer built, not kept): ${collections.afterWriteMs.toFixed(1)} ms, ${x(collections.afterWriteRatio)} bare`,
  `      Elysia answering the 302 through the hooks the redirect would need there (Host check, credentials, RateLimit headers), no linkshelf code, no database`,
  `        (why linkshelf answers /l/:id from Bun's router): ${redirect.floorRps.toFixed(0)} req/s = ${x(redirect.floorRatio)} bare; linkshelf ${x(redirect.linkshelfRps / redirect.floorRps)} that`,
  `      floor, Elysia + drizzle + bun:sqlite with no linkshelf code, compiled the same way:`,
  `        idle RSS ${footprint.floor.rssMiB.toFixed(1)} MiB = ${x(footprint.floorRssRatio)} bare, start ${footprint.floor.startMs.toFixed(1)} ms = ${x(footprint.floorStartRatio)} bare` +
    ` (linkshelf: ${x(footprint.linkshelf.rssMiB / footprint.floor.rssMiB)} and ${x(footprint.linkshelf.startMs / footprint.floor.startMs)} the floor)`,
  `      the floor with linkshelf's ${footprint.routes} routes, each answering a constant (what Elysia costs an app this size, before any handler code):`,
  `        idle RSS ${footprint.routesFloor.rssMiB.toFixed(1)} MiB = ${x(footprint.routesFloor.rssMiB / footprint.floor.rssMiB)} the floor, start ${footprint.routesFloor.startMs.toFixed(1)} ms = ${x(footprint.routesFloor.startMs / footprint.floor.startMs)} the floor`,
  `      idle RSS = anonymous + file-backed (the executable's pages): linkshelf ${footprint.linkshelf.anonMiB.toFixed(1)} + ${footprint.linkshelf.fileMiB.toFixed(1)},` +
    ` floor ${footprint.floor.anonMiB.toFixed(1)} + ${footprint.floor.fileMiB.toFixed(1)}, bare ${footprint.bare.anonMiB.toFixed(1)} + ${footprint.bare.fileMiB.toFixed(1)} MiB`,
  `      GET /api/v1/collections of that shelf (${mb(tree.listBytes)}), server time: ${tree.listKeptMs.toFixed(1)} ms kept, ${tree.listBuiltMs.toFixed(0)} ms built after a write`,
  `      ${caseLine("slow sign-in forms", slowUploads.login)}`,
  `      ${caseLine("slow saved pages", slowUploads.content)}`,
  `      a 5 MB page copy to a client without zstd (the file decoded by the server; the floor sends the file): ${copies.serve.identity.linkshelfMs.toFixed(2)} / ${copies.serve.identity.bareMs.toFixed(2)} ms = ${x(copies.serve.identity.ratio)};` +
    ` the floor's raw ${mb(copies.serve.bytes)} against its zstd ${mb(copies.serve.storedBytes)}: ${copies.serve.identity.bareMs.toFixed(2)} / ${copies.serve.bareMs.toFixed(2)} ms`,
  ...(copies.article === null
    ? [`      the copy of a 3 MB article was not measured: ${CHROMIUM.path} is absent (apt-get install ${CHROMIUM.debianPackage})`]
    : [`      the 3 MB article kept at DPR 1: stored ${mb(copies.article.atOne.stored)} = ${x(copies.article.atOne.ratio)} the raw, made in ${copies.article.atOne.seconds.toFixed(2)} s`]),
  `      compressed as copies are stored (no browser): 3 MB of text ${(copies.stored.text.ratio * 100).toFixed(1)} %; 3 MB with 60 % random-byte "images" that nothing can shrink ${(copies.stored.randomImages.ratio * 100).toFixed(0)} % (not the budget)`,
  ...(sync === null ? [`      the folder sync was not measured: ${CHROMIUM.path} is absent (apt-get install ${CHROMIUM.debianPackage})`] : []),
  `      FLOOR: the target is below what the floor itself measures, so no app on this stack can meet it here.`,
  `      load average ${machine.loadAverageAtStart.toFixed(2)} at start, ${loadAverageAtEnd.toFixed(2)} at end; ${((performance.now() - began) / 1000).toFixed(0)} s in all`,
];
console.log(lines.join("\n"));

const results = {
  measuredAt: new Date().toISOString(),
  machine: { ...machine, loadAverageAtEnd },
  redirect, collections, queries, create, footprint, search, searchAbuse, linkCheck, slowUploads, tree, importFile, importServices, sync, copies, abuse,
  summary: rows.map(([state, figure, detail, value, target]) => ({ status: state, figure, detail, value, target })),
};
writeFileSync(join(ROOT, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");

const chartRows: ChartRow[] = [
  { label: "GET /l/:id ÷ bare 302", value: redirect.ratio, target: redirect.target, direction: "atLeast", note: x(redirect.ratio) },
  { label: "GET /api/v1/collections ÷ bare", value: collections.ratio, target: collections.target, direction: "atMost", note: x(collections.ratio) },
  { label: "POST /api/v1/links per second", value: create.linksPerSecond, target: create.target, direction: "atLeast", note: `${create.linksPerSecond.toFixed(0)}/s` },
  { label: "idle RSS ÷ bare", value: footprint.rssRatio, target: footprint.rssTarget, direction: "atMost", floor: footprint.floorRssRatio, note: x(footprint.rssRatio) },
  { label: "start → 200 /healthz ÷ bare", value: footprint.startRatio, target: footprint.startTarget, direction: "atMost", floor: footprint.floorStartRatio, note: x(footprint.startRatio) },
  ...(sync === null ? [] : [
    { label: "first folder sync, 5,000 bookmarks", value: sync.firstSync.seconds, target: sync.firstSync.target, direction: "atMost" as const, note: `${sync.firstSync.seconds.toFixed(1)} s` },
    { label: "rename → the other browser", value: Math.max(...sync.propagation.seconds), target: sync.propagation.target, direction: "atMost" as const, note: `${Math.max(...sync.propagation.seconds).toFixed(0)} s` },
  ]),
];
writeFileSync(join(ROOT, "bench", "results.svg"), renderChart(chartRows,
  `${results.measuredAt.slice(0, 16).replace("T", " ")} UTC · ${machine.cores} cores · Bun ${machine.bun} · load ${machine.loadAverageAtStart.toFixed(2)}`));
console.log("\nwritten to bench/results.json and bench/results.svg");
if (rows.some(([state]) => state === "MISS")) process.exitCode = 1;
