/**
 * The background capture of saved pages: links added by the web form, the API or an import
 * are queued, and their pages fetched and read one at a time per host, at most a few at once,
 * never holding up a request. What is read goes to the store given at construction.
 */
import type { Config } from "../common/config";
import { limitsOf, OutboundRuns, type OutboundOptions } from "../outbound/runs";
import type { LogSink } from "../request/log";
import { Alarm, REAL_TIMERS, type Timers } from "../outbound/alarm";
import type { AfterWrite, CapturedContent } from "../shelf/types";
import type { Between } from "./extract";
import { fetchPage, PAGE_LIMITS, PAGE_USER_AGENT, type PageResult } from "./page";

export const FETCHER_LIMITS = {
  /** Fetches running at once, all hosts together. */
  concurrency: 2,
  /** Immediate fetches (the add-link form's titles) at once; one more gets no page. */
  concurrentNow: 4,
  /** Between the end of one fetch from a host and the start of the next one from it. */
  hostSpacingMillis: 1000,
  /** Links whose last background fetch stored nothing, remembered with why (the oldest forgotten first). */
  problemsKept: 1_000,
  /** Links waiting; when one more arrives, the oldest waiting one is dropped (never fetched). */
  queuedLinks: 10_000,
  /** URL characters waiting, all links together (a URL has at most 2048); beyond it, the oldest are dropped too. */
  queuedChars: 4 * 1024 * 1024,
  /**
   * The share of one CPU core that reading pages may take, all background fetches together:
   * after each step of an extraction the fetcher waits long enough to stay under it, so the
   * server's answers keep the rest.
   */
  cpuShare: 0.03,
} as const;

/**
 * Where a captured page goes: called once per page read, in the fetcher, after the request
 * that queued the link has been answered. The store decides what to keep: it must not replace
 * content the browser extension captured (the page as the user saw it) with a server fetch,
 * and it may find the link deleted meanwhile. Its errors are logged and the fetcher goes on.
 */
export type StoreContent = (linkId: number, userId: number, content: CapturedContent, now: number) => void;

/**
 * What createApp's parts use: queue a link, fetch a page at once, stop; and, as the shelves'
 * AfterWrite, queue each link a shelf saved with a new page (`linkSaved`, as `enqueue`).
 */
export interface ContentCapture extends AfterWrite {
  /**
   * enqueue queues a link's page to be fetched, or (with `content`, read just now) stores
   * that without fetching again. A link already waiting is queued again with its new URL.
   * Never blocks, never throws; does nothing when capture is off or stopped.
   */
  enqueue(linkId: number, userId: number, url: string, content?: CapturedContent | null): void;
  /**
   * fetchNow reads one page right away (not queued, not spaced; same outbound rules and time
   * limit); null when it cannot, or when FETCHER_LIMITS.concurrentNow such fetches already run.
   */
  fetchNow(url: string): Promise<CapturedContent | null>;
  /** stop drops what waits, aborts what runs, and resolves when nothing runs any more. */
  stop(): Promise<void>;
  /**
   * problemOf says why the link's last background fetch stored nothing; undefined when it
   * stored something, or none ended since the server started (kept in memory, the latest
   * FETCHER_LIMITS.problemsKept links).
   */
  problemOf(linkId: number): CaptureProblem | undefined;
}

/**
 * Why a fetch stored nothing: refused by the address rules (`private`: a loopback or LAN address,
 * which LINKSHELF_FETCH_PRIVATE=1 admits; `refused`: one never fetched), a failure (an error status,
 * a timeout, a broken connection), an answer that is no web page, or a page without readable text.
 */
export interface CaptureProblem {
  kind: "private" | "refused" | "failed" | "not-a-page" | "empty";
  /** The address kind, the status or error, or the media type. */
  detail: string;
  at: number;
}

/** problemOfResult says why a fetch's result stores nothing (undefined: it stores a page). */
function problemOfResult(result: PageResult, at: number): CaptureProblem | undefined {
  if (result.kind === "not-a-page") return { kind: "not-a-page", detail: result.contentType, at };
  if (result.kind === "page") return result.content === null ? { kind: "empty", detail: "", at } : undefined;
  if (result.refused === "loopback" || result.refused === "private") return { kind: "private", detail: result.refused, at };
  if (result.refused !== undefined) return { kind: "refused", detail: result.refused, at };
  return { kind: "failed", detail: result.reason, at };
}

/** What tests and the composition root may set; each defaults to the real thing. */
export interface CaptureOptions extends OutboundOptions {
  timeoutMillis?: number;
  concurrency?: number;
  hostSpacingMillis?: number;
  queuedLinks?: number;
  problemsKept?: number;
  queuedChars?: number;
  cpuShare?: number;
  timers?: Timers;
}

/** Counts of what the fetcher did since it started. */
export interface FetcherCounts {
  /** Pages read and handed to the store. */
  stored: number;
  /** Pages read with nothing readable in them. */
  empty: number;
  /** Answers that were not HTML: not read, not retried. */
  notAPage: number;
  /** Refused, error statuses, timeouts, broken connections: not retried. */
  failed: number;
  /** Queued links dropped unfetched because the queue was full. */
  dropped: number;
  /** Errors of the store (logged). */
  storeErrors: number;
}

interface Job {
  linkId: number;
  userId: number;
  url: URL;
  host: string;
}

interface HostState {
  waiting: Job[];
  busy: boolean;
  /** The clock time before which nothing more is sent to this host. */
  nextAt: number;
}

/**
 * cpuShareOf paces work shared by every background fetch so that it takes at most `share` of
 * one core: after `spent` ms of work the next step waits until `spent / share` ms have passed
 * since the work began (later steps queue behind earlier ones, whichever fetch they belong to).
 * `now` and `sleep` are the real ones unless a test gives its own.
 */
export function cpuShareOf(
  share: number,
  now: () => number = () => performance.now(),
  sleep: (millis: number) => Promise<unknown> = (millis) => new Promise((resolve) => (millis >= 1 ? setTimeout(resolve, millis) : setImmediate(resolve))),
): Between {
  let next = 0;
  return async (spent) => {
    const at = now();
    next = Math.max(next, at) + spent * (1 / share - 1);
    await sleep(next - at);
  };
}

/** The fetcher of a server started with `LINKSHELF_FETCH_CONTENT=off`: nothing is ever fetched. */
export const CAPTURE_OFF: ContentCapture = {
  enqueue: () => undefined,
  linkSaved: () => undefined,
  fetchNow: async () => null,
  stop: async () => undefined,
  problemOf: () => undefined,
};

/**
 * createContentCapture is the server's capture: CAPTURE_OFF when the configuration turns it off,
 * else a ContentFetcher that reaches out under the favicon proxy's address rules
 * (`LINKSHELF_FAVICON_ALLOW_PRIVATE` admits loopback and LAN addresses to both).
 */
export function createContentCapture(
  { config, clock, log }: { config: Config; clock: () => number; log: LogSink },
  store: StoreContent,
  options: CaptureOptions = {},
): ContentCapture {
  return config.fetchContent ? new ContentFetcher({ allowPrivate: config.fetchPrivate, clock, log, store }, options) : CAPTURE_OFF;
}

/**
 * ContentFetcher queues links and fetches their pages in the background: one fetch per host
 * at a time, hostSpacingMillis between two fetches from a host, `concurrency` fetches at once
 * in all, hosts taken in turn. The queue is bounded (queuedLinks, queuedChars): when full, the
 * oldest waiting link is dropped. A link is fetched once per enqueue, never retried.
 */
export class ContentFetcher implements ContentCapture {
  readonly counts: FetcherCounts = { stored: 0, empty: 0, notAPage: 0, failed: 0, dropped: 0, storeErrors: 0 };
  private readonly jobs = new Map<number, Job>();
  /** Why the last fetch of a link stored nothing, oldest first (see problemOf). */
  private readonly problems = new Map<number, CaptureProblem>();
  private readonly hosts = new Map<string, HostState>();
  private queuedChars = 0;
  private fetchingNow = 0;
  private readonly alarm: Alarm;
  private idleWaiters: (() => void)[] = [];
  private readonly limits: Required<Omit<CaptureOptions, keyof OutboundOptions | "timers">>;
  /** Every fetch, queued or immediate, goes out through it; stop() aborts them. */
  private readonly outbound: OutboundRuns;
  private readonly pace: Between;

  constructor(
    private readonly deps: { allowPrivate: boolean; clock: () => number; log: LogSink; store: StoreContent },
    options: CaptureOptions = {},
  ) {
    this.alarm = new Alarm(options.timers ?? REAL_TIMERS, () => this.pump());
    this.limits = limitsOf({ ...FETCHER_LIMITS, timeoutMillis: PAGE_LIMITS.timeoutMillis }, options);
    this.pace = cpuShareOf(this.limits.cpuShare);
    this.outbound = new OutboundRuns({ allowPrivate: deps.allowPrivate, userAgent: PAGE_USER_AGENT, timeoutMillis: this.limits.timeoutMillis }, options);
  }

  /** How many links wait to be fetched. */
  get queued(): number {
    return this.jobs.size;
  }

  /** How many fetches run now. */
  get active(): number {
    return this.outbound.active;
  }

  enqueue(linkId: number, userId: number, url: string, content?: CapturedContent | null): void {
    if (this.outbound.stopped) return;
    this.unqueue(linkId);
    if (content) {
      this.keep(linkId, userId, content);
      return;
    }
    const parsed = URL.parse(url);
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return;
    const job: Job = { linkId, userId, url: parsed, host: parsed.hostname.toLowerCase() };
    while (this.jobs.size > 0 && (this.jobs.size >= this.limits.queuedLinks || this.queuedChars + parsed.href.length > this.limits.queuedChars)) {
      this.unqueue(this.jobs.keys().next().value!);
      this.counts.dropped++;
    }
    this.jobs.set(linkId, job);
    this.queuedChars += parsed.href.length;
    let host = this.hosts.get(job.host);
    if (!host) {
      host = { waiting: [], busy: false, nextAt: 0 };
      this.hosts.set(job.host, host);
    }
    host.waiting.push(job);
    this.pump();
  }

  linkSaved(linkId: number, userId: number, url: string, page?: CapturedContent | null): void {
    this.enqueue(linkId, userId, url, page);
  }

  async fetchNow(url: string): Promise<CapturedContent | null> {
    const parsed = URL.parse(url);
    if (this.outbound.stopped || !parsed || this.fetchingNow >= FETCHER_LIMITS.concurrentNow) return null;
    this.fetchingNow++;
    try {
      const result = await this.outbound.send((policy) => fetchPage(parsed, policy));
      return result.kind === "page" ? result.content : null;
    } finally {
      this.fetchingNow--;
    }
  }

  async stop(): Promise<void> {
    const settled = this.outbound.stop();
    this.alarm.clear();
    this.jobs.clear();
    this.hosts.clear();
    this.queuedChars = 0;
    await settled;
    this.wakeIdle();
  }

  /** whenIdle resolves once nothing waits and nothing runs (at once if so already). */
  whenIdle(): Promise<void> {
    if (this.jobs.size === 0 && this.outbound.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** unqueue takes a waiting link out of the queue (nothing when it is not waiting). */
  private unqueue(linkId: number): void {
    const job = this.jobs.get(linkId);
    if (!job) return;
    this.jobs.delete(linkId);
    this.queuedChars -= job.url.href.length;
    const host = this.hosts.get(job.host);
    if (host) host.waiting.splice(host.waiting.indexOf(job), 1);
  }

  /**
   * pump starts waiting fetches while there is room: from the first host (in turn) that is not
   * busy and not within its spacing. When every waiting host is within its spacing, a timer
   * wakes the fetcher when the first of them is free.
   */
  private pump(): void {
    if (this.outbound.stopped) return;
    const now = this.deps.clock();
    let earliest = Infinity;
    while (this.outbound.active < this.limits.concurrency) {
      let started = false;
      for (const [name, host] of this.hosts) {
        if (host.busy) continue;
        if (host.waiting.length === 0) {
          if (host.nextAt <= now) this.hosts.delete(name);
          continue;
        }
        if (host.nextAt > now) {
          earliest = Math.min(earliest, host.nextAt);
          continue;
        }
        const job = host.waiting.shift()!;
        this.jobs.delete(job.linkId);
        this.queuedChars -= job.url.href.length;
        // To the end of the turn: the other hosts come first next time.
        this.hosts.delete(name);
        this.hosts.set(name, host);
        this.start(job, host);
        started = true;
        break;
      }
      if (!started) break;
    }
    if (this.outbound.active < this.limits.concurrency && earliest !== Infinity) this.alarm.set(earliest, now);
  }

  private start(job: Job, host: HostState): void {
    host.busy = true;
    const run = this.capture(job).catch((error: unknown) => {
      this.deps.log(`linkshelf: fetching the page of link ${job.linkId} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.outbound.background(run, () => {
      host.busy = false;
      host.nextAt = this.deps.clock() + this.limits.hostSpacingMillis;
      this.pump();
      if (this.jobs.size === 0 && this.outbound.active === 0) this.wakeIdle();
    });
  }

  problemOf(linkId: number): CaptureProblem | undefined {
    return this.problems.get(linkId);
  }

  private async capture(job: Job): Promise<void> {
    const result = await this.outbound.send((policy) => fetchPage(job.url, policy, this.pace));
    if (this.outbound.stopped) return;
    this.noteProblem(job.linkId, problemOfResult(result, this.deps.clock()));
    if (result.kind === "not-a-page") this.counts.notAPage++;
    else if (result.kind === "failed") this.counts.failed++;
    else if (result.content === null) this.counts.empty++;
    else this.keep(job.linkId, job.userId, result.content);
  }

  /** keep hands content to the store; an error of the store is logged, and the fetcher goes on. */
  private keep(linkId: number, userId: number, content: CapturedContent): void {
    try {
      this.deps.store(linkId, userId, content, this.deps.clock());
      this.counts.stored++;
    } catch (error) {
      this.counts.storeErrors++;
      this.deps.log(`linkshelf: storing the page of link ${linkId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** noteProblem remembers why a link's fetch stored nothing, or forgets an earlier reason when it stored a page. */
  private noteProblem(linkId: number, problem: CaptureProblem | undefined): void {
    this.problems.delete(linkId);
    if (!problem) return;
    this.problems.set(linkId, problem);
    if (this.problems.size > this.limits.problemsKept) this.problems.delete(this.problems.keys().next().value!);
  }

  private wakeIdle(): void {
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}
