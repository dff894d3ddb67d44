/**
 * `bun bench/import.ts`: the import of a bookmarks file of 2,300 links in 200 folders (nested up
 * to five deep, links and folders interleaved, a tenth of the URLs in two folders), in-process on
 * a database file: the preview (reading the file and the dry run the import page shows) and the
 * confirmed import, then the export and the import of that export for a second user. Prints the
 * median of five rounds of each beside the budget (1 s for the preview, 1 s for the confirm);
 * `npm run bench` prints them among the others.
 */
import { join } from "node:path";
import { escapeHtml, parseNetscapeInSteps } from "../src/bookmarks/netscape";
import { exportBookmarks } from "../src/bookmarks/export";
import { importBookmarks } from "../src/bookmarks/plan";
import { openDatabase } from "../src/db/client";
import { Shelf } from "../src/shelf/shelf";
import { createUser } from "../src/users/service";
import { median, tempDir } from "./lib";

const FOLDERS = 200;
const LINKS = 2_300;
const ROUNDS = 5;
/** The budget of the preview and of the confirm, in milliseconds. */
const BUDGET_MS = 1000;

/** How many entries of the file repeat an earlier one's URL. */
let repeats = 0;

/** bookmarksFile writes FOLDERS folders (each fifth one top-level, the others inside the one before, down to five deep) holding LINKS links between them. */
function bookmarksFile(): string {
  const perFolder = Math.ceil(LINKS / FOLDERS);
  const urlOf = (n: number) => `https://site${n % 97}.example/page/${n}?q=${n}&r=é`;
  let written = 0;
  const links = () => Array.from({ length: Math.min(perFolder, LINKS - written) }, () => {
    const n = written++;
    // Every tenth link repeats one of a folder before: one link in two collections.
    const repeat = n % 10 === 9 && n >= 15;
    if (repeat) repeats++;
    const url = urlOf(repeat ? n - 15 : n);
    return `<DT><A HREF="${escapeHtml(url)}" ADD_DATE="${1600000000 + n}" LAST_MODIFIED="${1600000500 + n}">Bookmark ${n} — ${"lorem ipsum ".repeat(3)}</A>\n<DD>Description ${n}`;
  });
  const folder = (f: number): string => {
    const own = links();
    const inner = f % 5 === 4 ? "" : folder(f + 1);
    return `<DT><H3 ADD_DATE="${1600000000 + f}">Folder ${f}</H3>\n<DL><p>\n${[...own.slice(0, 6), inner, ...own.slice(6)].join("\n")}\n</DL><p>`;
  };
  const tops = Array.from({ length: FOLDERS / 5 }, (_, top) => folder(top * 5));
  return `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n${tops.join("\n")}\n</DL><p>\n`;
}

export interface ImportFigure {
  links: number;
  folders: number;
  bytes: number;
  previewMs: number;
  confirmMs: number;
  exportMs: number;
  reimportMs: number;
  budgetMs: number;
}

/** benchImport measures the preview, confirm, export and re-import of the file, ROUNDS times each, and gives the medians. */
export async function benchImport(): Promise<ImportFigure> {
  repeats = 0;
  const html = bookmarksFile();
  const figures = { preview: [] as number[], confirm: [] as number[], export: [] as number[], reimport: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const db = openDatabase(join(tempDir("import"), "linkshelf.db"));
    const shelfOf = async (email: string) => new Shelf(db, await createUser(db, { email, name: "Bench", password: "bench password" }, Date.now()));
    const [first, second] = [await shelfOf("first@example.test"), await shelfOf("second@example.test")];
    const time = async <T>(list: number[], work: () => Promise<T> | T): Promise<T> => {
      const started = performance.now();
      const result = await work();
      list.push(performance.now() - started);
      return result;
    };
    const document = await time(figures.preview, async () => {
      const read = await parseNetscapeInSteps(html);
      await importBookmarks(first, read, Date.now(), { dryRun: true });
      return read;
    });
    const report = await time(figures.confirm, () => importBookmarks(first, document, Date.now(), { record: { source: "page", fileName: "bench.html" } }));
    if (report.linksCreated !== LINKS - repeats || report.collectionsCreated.length !== FOLDERS) throw new Error(`unexpected report: ${report.linksCreated} links, ${report.collectionsCreated.length} collections`);
    const exported = await time(figures.export, () => exportBookmarks(first));
    await time(figures.reimport, () => importBookmarks(second, exported, Date.now()));
    if (exportBookmarks(second) !== exported) throw new Error("the export of the imported export differs");
    db.$client.close();
  }
  return {
    links: LINKS, folders: FOLDERS, bytes: html.length, budgetMs: BUDGET_MS,
    previewMs: median(figures.preview), confirmMs: median(figures.confirm), exportMs: median(figures.export), reimportMs: median(figures.reimport),
  };
}

if (import.meta.main) {
  const figure = await benchImport();
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(`${LINKS.toLocaleString("en")} links in ${FOLDERS} folders (${(figure.bytes / 1e6).toFixed(2)} MB), median of ${ROUNDS}:`);
  console.log(`preview ${ms(figure.previewMs)} (budget ${BUDGET_MS} ms) ${figure.previewMs <= BUDGET_MS ? "ok" : "MISS"}`);
  console.log(`confirm ${ms(figure.confirmMs)} (budget ${BUDGET_MS} ms) ${figure.confirmMs <= BUDGET_MS ? "ok" : "MISS"}`);
  console.log(`export ${ms(figure.exportMs)}, import of the export ${ms(figure.reimportMs)} (the same bytes again)`);
}
