/**
 * What createApp is given: the database, the configuration, the clock, and whatever tests
 * inject in place of the real thing (the favicon proxy's network, the hashing queue, the log,
 * the TCP peer). createApp hands the whole object on; each module declares the part it uses with
 * the types of the modules that own them, so only the composition root and the entry points import this file.
 */
import type { Passwords } from "./common/passwords";
import type { ContentCapture } from "./capture/fetcher";
import type { LinkCheck } from "./link-health/checker";
import type { Config } from "./common/config";
import type { Db } from "./db/client";
import type { FaviconOptions } from "./favicon/service";
import type { LogSink } from "./request/log";
import type { Searcher } from "./search/searcher";
import type { SearchBudget } from "./shelf/search";
import type { WorkerRestorer } from "./shelf/restorer";

export interface AppDeps {
  db: Db;
  config: Config;
  /** Milliseconds since the epoch; tests pass a fixed or stepping clock. */
  clock: () => number;
  /** The one-time code that unlocks `/setup` while no user exists (printed in the log). */
  setupCode?: string;
  /** The favicon proxy's resolver, connection and timeout; tests inject them, the defaults are real. */
  favicon?: FaviconOptions;
  /**
   * The background capture of saved pages; the server builds it from its configuration. Every
   * shelf of a request is given it as its AfterWrite, so each link saved with a new page (by the
   * API, a form, an import) is queued once committed; the link page also fetches with it. Absent:
   * nothing is fetched.
   */
  capture?: ContentCapture;
  /** The link checker, for checks asked for now; the server builds it. Absent: nothing is checked (a check answers `unchecked`). */
  linkCheck?: LinkCheck;
  /** The hashing queue; default the process's one, which every hash and verification shares. */
  passwords?: Passwords;
  /** Where big restores from the trash run; the server gives its worker thread. Absent: on the caller's thread. */
  restorer?: WorkerRestorer;
  /** Where searches run; the server gives its worker thread. Absent: on the caller's thread, with `searchBudget`. */
  search?: Searcher;
  /** The server time one search may take on the caller's thread; default SEARCH_BUDGET (1 s). Tests inject a clock that runs out. */
  searchBudget?: SearchBudget;
  /** Where log lines go (unexpected errors, the access log); stderr by default. */
  log?: LogSink;
  /**
   * The TCP peer's address of a request. Default: the listening server's socket. Requests made
   * in-process (`app.handle`) have no socket, so tests name the peer here.
   */
  peerAddress?: (request: Request) => string | undefined;
}
