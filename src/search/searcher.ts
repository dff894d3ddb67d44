/**
 * Where a search runs. In the server, on a worker thread with its own read-only connection to
 * the database (SQLite in WAL mode lets it read while the server writes): the event loop goes on
 * answering every other request while a search ranks tens of thousands of matches. Elsewhere
 * (tests, an in-memory database) on the caller's thread, through the same function.
 *
 * A search has a budget of server time (SEARCH_BUDGET, 1 s): the search checks it between its
 * steps and answers 422 QUERY_TOO_BROAD past it. A single SQLite statement cannot be stopped
 * from its own thread (bun:sqlite has no interrupt), so the worker's caller also keeps the
 * clock: a search not answered when the budget and a grace period have passed is answered 422
 * QUERY_TOO_BROAD here, and its worker is replaced. Its thread ends when the statement does.
 */
import { errorOfRefusal, type Refusal } from "../common/errors";
import type { UserRow } from "../db/schema";
import type { LinkQuery, SearchResults } from "../shelf/types";
import { indexPendingInSlices } from "../fulltext/index-text";
import { SEARCH_BUDGET, TOO_BROAD_MESSAGE, type SearchBudget } from "../shelf/search";
import type { Shelf } from "../shelf/shelf";

export interface Searcher {
  /** find is `shelf.links.find`, wherever it runs. */
  find(shelf: Shelf, input: LinkQuery, now: number): Promise<SearchResults>;
  stop(): Promise<void>;
}

/** inlineSearcher searches on the caller's thread (tests, an in-memory database). */
export const inlineSearcher = (budget: SearchBudget = SEARCH_BUDGET): Searcher => ({
  find: async (shelf, input, now) => shelf.links.find(input, now, budget),
  stop: async () => {},
});

/** Where the app's searches run: the searcher it was given, else the caller's thread with this budget. */
export interface SearchPlace {
  search?: Searcher;
  searchBudget?: SearchBudget;
}

/** searcherOf is the app's searcher: the one it was given (the server's worker), else one on the caller's thread. */
export const searcherOf = ({ search, searchBudget }: SearchPlace): Searcher => search ?? inlineSearcher(searchBudget);

/** What the worker is asked: one search of one user's links. */
export interface SearchRequest {
  id: number;
  user: UserRow;
  input: LinkQuery;
  now: number;
}

/** What the worker answers: the results, a refusal (an AppError's parts), or a failure. */
export type SearchAnswer =
  | { id: number; results: SearchResults }
  | { id: number; refused: Refusal }
  | { id: number; failed: string };

/** What the worker says once it has opened the database, before any search: its searches are timed from then on. */
export interface WorkerReady {
  ready: true;
}

interface Waiting {
  request: SearchRequest;
  settle: (answer: SearchAnswer) => void;
}

/** The search sent to the worker (timed from then on), or waiting for a new worker to be ready (no timer yet). */
type Running = Waiting & { timer?: ReturnType<typeof setTimeout> };

/** How long past its budget a search on the worker may go unanswered before it is answered 422 and its worker replaced. */
const WORKER_GRACE_MILLIS = 250;

/**
 * How long a new worker may take to load its code and open the database before the search
 * waiting for it fails: a slow machine may take seconds, which no search's budget should pay.
 */
const WORKER_START_MILLIS = 30_000;

/**
 * WorkerSearcher runs searches one at a time on a worker thread (`url`: src/search/worker.ts,
 * which opens `path` read-only), in the order they came; the thread starts with the first
 * search, so a server nobody searches costs nothing more. A search's time on the worker counts
 * from when the worker is ready (`WorkerReady`), not from its start. The links still marked for
 * the index are indexed here first, on the server's connection, a slice at a time with the event
 * loop running between slices, so the worker sees every link stored.
 */
export class WorkerSearcher implements Searcher {
  private worker: Worker | undefined;
  /** The worker's start, until it says it is ready (then undefined). */
  private starting: ReturnType<typeof setTimeout> | undefined;
  private readonly queue: Waiting[] = [];
  private running: Running | undefined;
  private nextId = 1;
  private stopped = false;

  constructor(private readonly url: URL, private readonly path: string, private readonly budget = SEARCH_BUDGET) {}

  private spawn(): Worker {
    const worker = new Worker(this.url.href);
    worker.postMessage({ path: this.path });
    this.starting = setTimeout(() => {
      this.replace();
      if (this.running) this.finish({ id: this.running.request.id, failed: "the search worker did not start" });
    }, WORKER_START_MILLIS);
    worker.onmessage = (event: MessageEvent<SearchAnswer | WorkerReady>) => {
      if (worker !== this.worker) return;
      if ("ready" in event.data) {
        clearTimeout(this.starting);
        this.starting = undefined;
        if (this.running) this.send(this.running);
        return;
      }
      if (this.running?.request.id !== event.data.id) return;
      this.finish(event.data);
    };
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      this.replace();
      if (this.running) this.finish({ id: this.running.request.id, failed: event.message });
    };
    return worker;
  }

  /** replace ends the worker (its thread ends once its statement does); the next search starts another. */
  private replace(): void {
    this.worker?.terminate();
    this.worker = undefined;
    clearTimeout(this.starting);
    this.starting = undefined;
  }

  private finish(answer: SearchAnswer): void {
    const running = this.running!;
    clearTimeout(running.timer);
    this.running = undefined;
    running.settle(answer);
    this.next();
  }

  private next(): void {
    if (this.running || this.stopped) return;
    const waiting = this.queue.shift();
    if (!waiting) return;
    this.running = { ...waiting };
    this.worker ??= this.spawn();
    // A new worker is sent the search once it says it is ready.
    if (this.starting === undefined) this.send(this.running);
  }

  /** send gives the worker the running search; past its budget and a grace period, it is answered here and its worker replaced. */
  private send(running: Running): void {
    running.timer = setTimeout(() => {
      this.replace();
      this.finish({ id: running.request.id, refused: { status: 422, code: "QUERY_TOO_BROAD", message: TOO_BROAD_MESSAGE } });
    }, this.budget.millis + WORKER_GRACE_MILLIS);
    this.worker!.postMessage(running.request);
  }

  async find(shelf: Shelf, input: LinkQuery, now: number): Promise<SearchResults> {
    if (this.stopped) throw new Error("the searcher is stopped");
    await indexPendingInSlices(shelf.db);
    const request: SearchRequest = { id: this.nextId++, user: shelf.user, input, now };
    const answer = await new Promise<SearchAnswer>((settle) => {
      this.queue.push({ request, settle });
      this.next();
    });
    if ("results" in answer) return answer.results;
    if ("refused" in answer) throw errorOfRefusal(answer.refused);
    throw new Error(`search failed on its worker: ${answer.failed}`);
  }

  /** stop refuses new searches, waits for the one running, and ends the worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const waiting of this.queue.splice(0)) waiting.settle({ id: waiting.request.id, failed: "the server is stopping" });
    this.replace();
  }
}
