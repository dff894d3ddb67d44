import type { Server } from "bun";
import { Elysia } from "elysia";
import { formBody, submittedForm } from "../request/form-body";
import { readLimitedBytes } from "../request/limited";
import type { ImportDocument } from "../bookmarks/document";
import type { ImportDestination, ImportReport } from "../bookmarks/plan";
import { PayloadTooLarge, ValidationFailed } from "../common/errors";
import { htmlResponse } from "../pages/html";
import { importPage, importPreviewPage, importReportPage, sizeText, undoImportPage } from "../pages/imports";
import { parseId } from "../common/ids";
import { withNotice } from "./notices";
import { seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import type { Viewer } from "../shelf/shelf";
import type { CollectionSummary } from "../shelf/types";
import type { PageGuard } from "./guard";
import { Pending } from "./pending";
import { slicedStream } from "../request/sliced-stream";

/** The bookmark file reader and writer (htmlparser2 and all) load on first use, not at every start of the server. */
const bookmarkFiles = async () => {
  const [{ readImportFile }, { importBookmarks }, { exportBookmarkLines }, { exportJsonText }] = await Promise.all([
    import("../bookmarks/formats"), import("../bookmarks/plan"), import("../bookmarks/export"), import("../bookmarks/linkshelf-json"),
  ]);
  return { readImportFile, exportBookmarkLines, importBookmarks, exportJsonText };
};

/**
 * The largest file the page takes. A 20,000-entry Chromium export is about 8 MB, Pocket's zip
 * of 100,000 items about 4 MB (its CSV about 13 MB); 32 MiB leaves room for four times the
 * first, and bounds what one upload holds in memory. Larger exports (Omnivore's with many saved
 * pages) go through `linkshelf import`, which has no such bound.
 */
export const MAX_IMPORT_FILE_BYTES = 32 * 1024 * 1024;
/**
 * How long the reading of an uploaded file, or a confirmed import, may go on without a byte on
 * the connection: a file of 100,000 bookmarks takes longer than the server's idle timeout on a
 * small machine, and the connection must wait for its answer.
 */
const LONG_WORK_SECONDS = 300;

/** keepWaiting gives the request's connection LONG_WORK_SECONDS of idle time (no server: in-process requests have none). */
function keepWaiting(server: Server<unknown> | null, request: Request): void {
  server?.timeout(request, LONG_WORK_SECONDS);
}

/** privateParents are the user's private collections (not the Inbox) with their place in the tree: where an import may put its collections. */
function privateParents(summaries: CollectionSummary[]): { id: number; path: string[] }[] {
  const paths = new Map<number, string[]>();
  const parents: { id: number; path: string[] }[] = [];
  for (const { id, name, parentId, visibility, isDefault } of summaries) {
    const path = [...(parentId === null ? [] : paths.get(parentId) ?? []), name];
    paths.set(id, path);
    if (visibility === "PRIVATE" && !isDefault) parents.push({ id, path });
  }
  return parents;
}

/** Room for the multipart framing around the file (boundary lines, part headers, the file's name). */
const MULTIPART_FRAMING_BYTES = 64 * 1024;
/** How long a preview (then its report) waits for the same user. */
const IMPORT_TTL_MS = 10 * 60 * 1000;
/** Uploads waiting at once, all users together (the oldest are dropped first). */
export const MAX_WAITING = 20;
/** Bytes waiting at once, files and reports together: two of the largest files with reports as large. */
const MAX_WAITING_BYTES = 4 * MAX_IMPORT_FILE_BYTES;
const MULTIPART_MEDIA_TYPE = /^multipart\/form-data\s*;/i;

const TOO_LARGE = `The file is larger than ${sizeText(MAX_IMPORT_FILE_BYTES)}, the most linkshelf imports from this page. Nothing was stored.`;
const NO_FILE = "Choose a bookmarks file to import.";
const EXPIRED = `This import is not here any more: a preview waits ${IMPORT_TTL_MS / 60_000} minutes, and a restart forgets it. Upload the file again.`;

/**
 * An uploaded file waiting for its import to be confirmed, as it was read for the preview (the
 * confirmed import does not read the file again), then the report of that import.
 */
type Preview = { kind: "preview"; fileName: string; fileBytes: number; document: ImportDocument; report: ImportReport };
type ImportState =
  | Preview
  /** Confirmed and being written: a second confirm waits for the same import instead of starting one. */
  | (Omit<Preview, "kind"> & { kind: "importing"; running: Promise<unknown> })
  | { kind: "done"; fileName: string; report: ImportReport; importId?: number };

/** What one folder or bookmark costs in memory besides its text: the object, its fields, the arrays' slots. */
const ENTRY_OVERHEAD_BYTES = 160;

/** reportBytes estimates what a report holds in memory (two bytes a character). */
function reportBytes(report: ImportReport): number {
  let chars = report.collectionsCreated.join("").length;
  // A path's names are the destinations' own strings again: only its slots count (four characters' worth each).
  for (const destination of report.destinations) chars += destination.name.length + (destination.insteadOf?.length ?? 0) + 4 * destination.path.length;
  for (const entry of report.duplicates) chars += entry.name.length + entry.url.length;
  for (const entry of report.skipped) chars += entry.name.length + entry.url.length + entry.reason.length;
  for (const entry of report.unreadDates) chars += entry.name.length + entry.url.length + entry.dates.join("").length;
  return 2 * chars;
}

/** documentBytes estimates what a read file holds in memory (two bytes a character). */
function documentBytes(document: ImportDocument): number {
  let bytes = 0;
  for (const entry of document.skipped) bytes += ENTRY_OVERHEAD_BYTES + 2 * (entry.name.length + entry.url.length + entry.reason.length);
  for (const folder of document.folders) bytes += ENTRY_OVERHEAD_BYTES + 2 * (folder.name.length + folder.description.length + (folder.icon?.length ?? 0));
  for (const bookmark of document.bookmarks) {
    bytes += ENTRY_OVERHEAD_BYTES + 2 * (bookmark.name.length + bookmark.href.length + bookmark.description.length + (bookmark.text?.length ?? 0));
  }
  return bytes;
}

const sizeOf = (state: ImportState) => reportBytes(state.report) + (state.kind === "done" ? 0 : documentBytes(state.document));


/**
 * readUpload reads the `file` field of a multipart form, refusing (PayloadTooLarge) a body
 * larger than the largest file plus its framing while it is read, and a file larger than
 * MAX_IMPORT_FILE_BYTES. Undefined when there is no non-empty file.
 */
async function readUpload(request: Request): Promise<{ fileName: string; bytes: Uint8Array } | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!MULTIPART_MEDIA_TYPE.test(type)) return undefined;
  const body = await readLimitedBytes(request, MAX_IMPORT_FILE_BYTES + MULTIPART_FRAMING_BYTES, TOO_LARGE);
  let file: unknown;
  try {
    file = (await new Response(body, { headers: { "content-type": type } }).formData()).get("file");
  } catch {
    return undefined;
  }
  if (!(file instanceof Blob) || file.size === 0) return undefined;
  if (file.size > MAX_IMPORT_FILE_BYTES) throw new PayloadTooLarge(MAX_IMPORT_FILE_BYTES, TOO_LARGE);
  return { fileName: file instanceof File ? file.name : "", bytes: new Uint8Array(await file.arrayBuffer()) };
}

/**
 * importPages: `/import` offers the export download (`/export`) and an upload. The upload is
 * read a slice at a time (the server keeps answering meanwhile), refused beyond IMPORT_LIMITS,
 * then given to a dry run of the real import (`importBookmarks`, the CLI's write path: it plans
 * without writing) whose report is the preview at `/import/:key`; what was read waits in memory under that random key,
 * for its user only, so confirming (`POST /import/:key/confirm`) imports it for real without a
 * second upload or a second read, and the same address then shows the import's report.
 * Confirming twice imports once. The confirmed import writes in short transactions with the
 * event loop running between them, so the server keeps answering while it runs. It is
 * recorded, and its report offers to undo it: `/imports/:id/undo` asks, with the counts, and
 * its form undoes it (`shelf.imports.undo`) and goes back to the account page, which lists the imports.
 *
 * The upload route reads its own body (up to MAX_IMPORT_FILE_BYTES): it is registered before
 * `formBody`, whose 64 KiB limit covers the routes after it.
 */
export function importPages({ clock }: { clock: () => number }, guard: PageGuard) {
  const waiting = new Pending<ImportState>({ ttlMs: IMPORT_TTL_MS, maxEntries: MAX_WAITING, maxBytes: MAX_WAITING_BYTES, sizeOf });
  const page = (user: Viewer, error?: string, status = 200) =>
    htmlResponse(importPage({ user, error, maxBytes: MAX_IMPORT_FILE_BYTES }), { status });

  /**
   * The upload form: a refused file (too large: 413; none, no bookmarks in it, or beyond the
   * import's limits: 422) shows the import page again with the reason beside the field.
   */
  const uploadForm: Surface = {
    ...PAGE_ROUTE,
    invalid: ({ request }, error) => {
      const shelf = guard.shelfOf(request);
      if (!shelf || !(error instanceof PayloadTooLarge || error.status === 422)) return error;
      return page(shelf.viewer(), error.errors?.[0]?.message ?? error.message, error.status);
    },
  };

  return new Elysia()
    .use(surfaces)
    // The handler never names `body`, so Elysia leaves the request's stream to readUpload.
    .post("/import", ({ request, server }) => guard.form(request, async (shelf) => {
      const upload = await readUpload(request);
      keepWaiting(server, request);
      if (!upload) throw new ValidationFailed([{ path: "/file", message: NO_FILE }]);
      const files = await bookmarkFiles();
      const now = clock();
      const document = await files.readImportFile(upload.bytes, now);
      // A file with nothing to import is refused here (ValidationFailed, 422), as the CLI refuses it.
      const report = await files.importBookmarks(shelf, document, now, { dryRun: true, fileName: upload.fileName });
      const preview: Preview = { kind: "preview", fileName: upload.fileName, fileBytes: upload.bytes.byteLength, document, report };
      return seeOther(`/import/${waiting.put(shelf.user.id, preview, now)}`);
    }), { surface: uploadForm })
    .use(formBody())
    .get("/import", ({ request }) => guard.page(request, (shelf) => page(shelf.viewer())), { surface: PAGE_ROUTE })
    .get("/import/:key", ({ request, params }) => guard.page(request, (shelf) => {
      const state = waiting.get(params.key, shelf.user.id, clock());
      if (!state) return page(shelf.viewer(), EXPIRED, 404);
      if (state.kind === "done") {
        // By place in the tree, the first of a name there; every destination is private: a public collection is never the one meant.
        const paths = new Map<number, string[]>();
        const ids = new Map<string, number>();
        for (const { id, name, parentId, visibility } of shelf.collections.summaries()) {
          const path = [...(parentId === null ? [] : paths.get(parentId) ?? []), name];
          paths.set(id, path);
          const key = JSON.stringify(path);
          if (visibility === "PRIVATE" && !ids.has(key)) ids.set(key, id);
        }
        const collectionLink = ({ path, name }: ImportDestination) => {
          const id = ids.get(JSON.stringify([...path, name]));
          return id === undefined ? undefined : `/?collection=${id}`;
        };
        return htmlResponse(importReportPage({ user: shelf.viewer(), fileName: state.fileName, report: state.report, importId: state.importId, collectionLink }));
      }
      return htmlResponse(importPreviewPage({
        user: shelf.viewer(), key: params.key, fileName: state.fileName, fileBytes: state.fileBytes, report: state.report, keptMinutes: IMPORT_TTL_MS / 60_000,
        parents: privateParents(shelf.collections.summaries()),
      }));
    }), { surface: PAGE_ROUTE })
    .post("/import/:key/confirm", ({ request, params, server }) => guard.form(request, async (shelf) => {
      keepWaiting(server, request);
      const { importBookmarks } = await bookmarkFiles();
      // From here to the import's start nothing awaits: of two confirms at once, the second finds it running.
      const now = clock();
      const state = waiting.get(params.key, shelf.user.id, now);
      if (!state) return page(shelf.viewer(), EXPIRED, 404);
      if (state.kind === "preview") {
        const form = submittedForm(request);
        const under = typeof form.under === "string" && form.under !== "" ? parseId(form.under) : null;
        const running = importBookmarks(shelf, state.document, now, { under, keepPublic: form.keepPublic === "on", record: { source: "page", fileName: state.fileName } });
        waiting.replace(params.key, shelf.user.id, { ...state, kind: "importing", running }, now);
        try {
          const { importId, ...report } = await running;
          waiting.replace(params.key, shelf.user.id, { kind: "done", fileName: state.fileName, report, importId }, clock());
        } catch (error) {
          // Nothing was stored: the preview waits again, to be confirmed once more.
          waiting.replace(params.key, shelf.user.id, state, clock());
          throw error;
        }
      } else if (state.kind === "importing") {
        // A second click (or the back button and confirm again) waits for the first, then shows its report.
        await state.running.catch(() => undefined);
      }
      return seeOther(`/import/${params.key}`);
    }), { surface: PAGE_ROUTE })
    .post("/import/:key/cancel", ({ request, params }) => guard.form(request, (shelf) => {
      // An import being written is not cancelled: its report stays to be seen.
      if (waiting.get(params.key, shelf.user.id, clock())?.kind !== "importing") waiting.take(params.key, shelf.user.id, clock());
      return seeOther("/import");
    }), { surface: PAGE_ROUTE })
    .get("/imports/:id/undo", ({ request, params }) => guard.page(request, (shelf) =>
      htmlResponse(undoImportPage({ user: shelf.viewer(), record: shelf.imports.get(parseId(params.id)) }))), { surface: PAGE_ROUTE })
    .post("/imports/:id/undo", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.imports.undo(parseId(params.id), clock());
      return seeOther(withNotice("/account", "import-undone"));
    }), { surface: PAGE_ROUTE })
    .get("/export", ({ request, query }) => guard.page(request, async (shelf) => {
      const { exportBookmarkLines, exportJsonText } = await bookmarkFiles();
      const day = new Date(clock()).toISOString().slice(0, 10);
      const json = query.format === "json";
      // Written a slice at a time as the client reads it, the server answering others between slices.
      return new Response(slicedStream(json ? exportJsonText(shelf, clock(), { withText: true }) : exportBookmarkLines(shelf)), {
        headers: {
          "Content-Type": json ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
          "Content-Disposition": `attachment; filename="linkshelf-${json ? "export" : "bookmarks"}-${day}.${json ? "json" : "html"}"`,
          "Cache-Control": "no-store",
          "X-Content-Type-Options": "nosniff",
          // Opened in a tab instead of saved, the file runs nothing and loads nothing.
          "Content-Security-Policy": "default-src 'none'; sandbox",
        },
      });
    }), { surface: PAGE_ROUTE });
}
