import { createApp } from "./app";
import type { Config } from "./common/config";
import { databasePath } from "./common/config";
import { newSetupCode } from "./auth/setup";
import { createContentCapture } from "./capture/fetcher";
import { storeFetchedContent } from "./capture/store";
import { LinkChecker } from "./link-health/checker";
import { SearchIndexer } from "./search/indexer";
import { scheduleBackups } from "./db/backup";
import { scheduleTrashPurge } from "./shelf/trash-purge";
import { closeDatabase, openDatabase, type Db } from "./db/client";
import { WorkerSearcher } from "./search/searcher";
import { WorkerRestorer } from "./shelf/restorer";
import { lockDataDir } from "./db/lock";
import { countUsers } from "./users/service";

/**
 * serve runs the server until SIGTERM or SIGINT, then stops accepting, lets in-flight
 * requests finish, stops fetching saved pages, checking links, indexing and purging the trash, checkpoints the WAL, closes the database and
 * ends the process (exit 0). It holds the data directory's lock while it runs (a second server or a restore on the same
 * directory is refused: DataDirBusy). Resolves with the exit code only when it cannot listen.
 */
export async function serve(config: Config, log: (line: string) => void): Promise<number> {
  const path = databasePath(config.dataDir);
  const lock = lockDataDir(config.dataDir, "serve");
  let db: Db;
  try {
    db = openDatabase(path);
  } catch (error) {
    lock.release();
    throw error;
  }
  const setupCode = countUsers(db) === 0 ? newSetupCode() : undefined;
  const capture = createContentCapture({ config, clock: Date.now, log }, storeFetchedContent(db));
  const linkCheck = new LinkChecker({ db, clock: Date.now, log, config: config.linkCheck });
  // Searches run on a worker thread with its own read-only connection: the event loop keeps answering meanwhile.
  const search = new WorkerSearcher(new URL("./search/worker.ts", import.meta.url), path);
  // A big restore from the trash runs its transaction on a worker thread with its own connection: the event loop keeps answering meanwhile.
  const restorer = new WorkerRestorer(new URL("./shelf/restore-worker.ts", import.meta.url), path);
  const app = createApp({ db, config, clock: Date.now, setupCode, log, capture, linkCheck, search, restorer });
  try {
    // Elysia asks Bun for SO_REUSEPORT by default, with which a second server on the same port
    // starts without error and the kernel splits connections between the two.
    app.listen({ port: config.port, hostname: config.host, development: false, reusePort: false });
  } catch (error) {
    closeDatabase(db);
    lock.release();
    log(`linkshelf: cannot listen on ${config.host}:${config.port}: ${listenProblem(error)}`);
    return 1;
  }
  const server = app.server!;
  // New links and saved pages are indexed for search in the background (before any request is handled).
  const indexer = new SearchIndexer(db, log);
  // Listened for before the first line of the log: whoever reads "listening" may signal at once.
  const stopping = new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  log(`linkshelf listening on http://${config.host}:${server.port} (data in ${config.dataDir})`);
  if (setupCode) {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    log(`linkshelf: no user yet. Create the first one at http://${host}:${server.port}/setup with setup code: ${setupCode}`);
  }

  const stopBackups = config.backup ? scheduleBackups(db.$client, config.backup, log) : undefined;
  // Trashed items older than LINKSHELF_TRASH_DAYS go for good: now, then every hour (with 0, what an earlier start left in the trash).
  const purge = scheduleTrashPurge({ db, days: config.trashDays, log });
  // Starting leaves garbage behind (82 routes built, the database migrated) that an idle server
  // would keep resident: collected once, and the heap handed back, soon after listening
  // (~2 MiB less resident at idle here, measured by `npm run bench`).
  const settleMemory = setTimeout(() => {
    Bun.gc(true);
    Bun.shrink();
  }, 200);
  linkCheck.start();

  const signal = await stopping;
  log(`linkshelf: ${signal} received, finishing in-flight requests`);
  clearTimeout(settleMemory);
  await server.stop();
  await search.stop();
  // Fetches in flight are aborted and waited for: none writes after the database closes.
  await capture.stop();
  await linkCheck.stop();
  await purge.stop();
  // Last: the writes above mark links too. What is still marked is indexed after the next start.
  await indexer.stop();
  stopBackups?.();
  closeDatabase(db);
  lock.release();
  log("linkshelf: stopped");
  // server.stop() stops waiting for a request its client abandoned; that request's handler may
  // still be running and would reach the closed database. Every answered write is committed
  // and the WAL checkpointed by now: nothing is left that ending the process could lose.
  process.exit(0);
}

/** listenProblem says why listening failed: "address in use" for a port taken by another program, else the error's own message. */
function listenProblem(error: unknown): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE") return "address in use";
  return error instanceof Error ? error.message : String(error);
}
