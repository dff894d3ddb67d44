/**
 * `bun bench/import-services.ts`: a Pocket export of 100,000 rows (a zip of ten CSV parts of
 * 10,000 rows, a quarter archived, most with one to three of 200 tags) through a server's import
 * page: the preview (upload, reading, the dry run) and the confirmed import, each beside its
 * budget (5 s), the server's peak RSS (VmHWM, budget 400 MiB), and a probe asking `/healthz`
 * every 50 ms throughout, with the slowest answer. The server runs from source on a new data
 * directory, with page capture and link checks off. `npm run bench` prints it among the others;
 * run alone, it exits 1 when a figure misses its budget.
 */
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { peakRssMiB as peakMiB, ROOT, start, stop, tempDir } from "./lib";

const ROWS = 100_000;
const PART_ROWS = 10_000;
const TAGS = 200;
const BUDGET_MS = 5000;
const BUDGET_MIB = 400;

/** pocketZip writes the export: ROWS items in parts of PART_ROWS, as Pocket's zip holds them. */
function pocketZip(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let part = 0; part * PART_ROWS < ROWS; part++) {
    const lines = ["title,url,time_added,tags,status"];
    for (let n = part * PART_ROWS; n < Math.min(ROWS, (part + 1) * PART_ROWS); n++) {
      const tags = Array.from({ length: n % 4 }, (_, k) => `tag ${(n * 7 + k * 13) % TAGS}`).join("|");
      lines.push(`"Article ${n}, on things",https://site${n % 500}.example/articles/${n},${1600000000 + n},${tags},${n % 4 === 0 ? "archive" : "unread"}`);
    }
    files[`part_${String(part).padStart(6, "0")}.csv`] = strToU8(lines.join("\n"));
  }
  return zipSync(files);
}

/** probe asks /healthz every 50 ms until stopped; gives the count, failures and the slowest answer. */
function probe(base: string) {
  let running = true;
  const figures = { answered: 0, failed: 0, slowestMs: 0 };
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const ok = await fetch(`${base}/healthz`).then((response) => response.ok, () => false);
      figures.slowestMs = Math.max(figures.slowestMs, performance.now() - started);
      if (ok) figures.answered++;
      else figures.failed++;
      await Bun.sleep(50);
    }
  })();
  return { stop: async () => ((running = false), await done, figures) };
}

/** What benchImportServices measures, each beside its budget. */
export interface ImportServicesFigures {
  rows: number;
  zipBytes: number;
  previewMs: number;
  confirmMs: number;
  budgetMs: number;
  idleMiB: number;
  previewPeakMiB: number;
  peakMiB: number;
  budgetMiB: number;
  health: { answered: number; failed: number; slowestMs: number };
}

/**
 * benchImportServices imports the Pocket zip through a server started from source on a new data
 * directory (page capture and link checks off): the upload and preview, then the confirm, with
 * /healthz probed throughout and the server's peak RSS after each.
 */
export async function benchImportServices(): Promise<ImportServicesFigures> {
  const dataDir = tempDir("import-services");
  const source = [process.execPath, join(ROOT, "src", "main.ts")];
  const password = "bench password";
  Bun.spawnSync([...source, "user", "create", "--email", "bench@example.test", "--name", "Bench", "--data-dir", dataDir], { stdin: Buffer.from(`${password}\n`) });
  const server = await start([...source, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], { env: { LINKSHELF_RATE_LIMIT: "off" } });
  try {
    const signIn = await fetch(`${server.base}/login`, {
      method: "POST", redirect: "manual",
      headers: { origin: server.base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "bench@example.test", password, next: "/" }),
    });
    const headers = { cookie: signIn.headers.get("set-cookie")!.split(";")[0]!, origin: server.base };
    const zip = pocketZip();
    const idle = peakMiB(server.process.pid);
    const health = probe(server.base);
    const form = new FormData();
    form.append("file", new File([zip], "pocket.zip"));
    let started = performance.now();
    const uploaded = await fetch(`${server.base}/import`, { method: "POST", body: form, redirect: "manual", headers });
    const previewMs = performance.now() - started;
    if (uploaded.status !== 303) throw new Error(`upload answered ${uploaded.status}: ${(await uploaded.text()).slice(0, 500)}`);
    const key = uploaded.headers.get("location")!;
    const previewPeak = peakMiB(server.process.pid);
    started = performance.now();
    const confirmed = await fetch(`${server.base}${key}/confirm`, { method: "POST", body: new URLSearchParams(), redirect: "manual", headers });
    const confirmMs = performance.now() - started;
    if (confirmed.status !== 303) throw new Error(`confirm answered ${confirmed.status}`);
    const report = await (await fetch(`${server.base}${key}`, { headers })).text();
    const probed = await health.stop();
    const peak = peakMiB(server.process.pid);
    if (!report.includes("Import done")) throw new Error("the report page is missing");
    return {
      rows: ROWS, zipBytes: zip.length, previewMs, confirmMs, budgetMs: BUDGET_MS,
      idleMiB: idle, previewPeakMiB: previewPeak, peakMiB: peak, budgetMiB: BUDGET_MIB, health: probed,
    };
  } finally {
    await stop(server);
  }
}

/** withinBudget: preview and confirm within their budget, the peak RSS within its, and every /healthz answered. */
export const withinBudget = (figures: ImportServicesFigures) =>
  figures.previewMs <= figures.budgetMs && figures.confirmMs <= figures.budgetMs && figures.peakMiB <= figures.budgetMiB && figures.health.failed === 0;

if (import.meta.main) {
  const figures = await benchImportServices();
  const verdict = (ok: boolean) => (ok ? "ok" : "MISS");
  console.log(`Pocket zip of ${figures.rows.toLocaleString("en")} rows (${(figures.zipBytes / 1024 / 1024).toFixed(1)} MiB), server from source:`);
  console.log(`preview ${figures.previewMs.toFixed(0)} ms (budget ${BUDGET_MS} ms) ${verdict(figures.previewMs <= BUDGET_MS)}`);
  console.log(`confirm ${figures.confirmMs.toFixed(0)} ms (budget ${BUDGET_MS} ms) ${verdict(figures.confirmMs <= BUDGET_MS)}`);
  console.log(`peak RSS ${figures.peakMiB.toFixed(0)} MiB (${figures.idleMiB.toFixed(0)} before the upload, ${figures.previewPeakMiB.toFixed(0)} after the preview; budget ${BUDGET_MIB} MiB) ${verdict(figures.peakMiB <= BUDGET_MIB)}`);
  console.log(`/healthz: ${figures.health.answered} answered, ${figures.health.failed} failed, slowest ${figures.health.slowestMs.toFixed(0)} ms ${verdict(figures.health.failed === 0)}`);
  if (!withinBudget(figures)) process.exitCode = 1;
}
