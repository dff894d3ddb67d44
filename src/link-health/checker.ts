/**
 * The background link checker: every link is checked about once per period, most clicked and
 * most recently clicked first, paced so that N links take about one period (no burst at start).
 * At most `concurrency` checks run at once and a host gets at most one request per
 * `hostSpacingMillis`. Links come from SQL in batches (src/shelf/link-checks.ts), never all at
 * once, and a batch is read again once it is a minute old. Checks go out through the favicon
 * proxy's outbound guard (src/link-health/probe.ts).
 */
import type { Config, LinkCheckConfig } from "../common/config";
import { CheckedRecently } from "../common/errors";
import type { Shelf } from "../shelf/shelf";
import type { HealthJson } from "../contract/link-health";
import type { Db } from "../db/client";
import { limitsOf, OutboundRuns, type OutboundOptions } from "../outbound/runs";
import { Alarm, REAL_TIMERS, type Timers } from "../outbound/alarm";
import type { LogSink } from "../request/log";
import { dueLinks, linkCount, nextDueAt, recordCheck, type DueLink } from "../shelf/link-checks";
import type { Probe } from "../shelf/link-checks";
import { CHECK_USER_AGENT, probeLink, PROBE_LIMITS } from "./probe";

export const CHECKER_LIMITS = {
  /** Checks running at once, all hosts together. */
  concurrency: 4,
  /** Between the end of one check of a host and the start of the next one. */
  hostSpacingMillis: 10_000,
  /**
   * Links read from the database at a time. Choosing them sorts every link by priority (~45 ms
   * for 100,000 links here), so a batch is large enough that the sort is a small part of checking.
   */
  batch: 256,
  /** A batch is read again once this old, so links added, readdressed or clicked since are seen. */
  batchMillis: 60_000,
  /** How often the checker looks again when no link is due (sooner when the period is shorter or the next link falls due sooner). */
  idleMillis: 60_000,
} as const;

/** A link is checked at most once a minute on demand. */
export const CHECK_NOW_SPACING_SECONDS = 60;

/** The checker of an app built without one (tests that do not check links): nothing is sent, nothing is checked. */
export const NO_LINK_CHECKS: LinkCheck = {
  checkNow: async () => ({ outcome: "unchecked", status: null, detail: "this server checks no links" }),
  stop: async () => undefined,
};

/** What a check asked for now takes: the clock, the checker (absent: nothing is checked) and the rule its result is recorded by. */
export interface CheckNowDeps {
  clock: () => number;
  linkCheck?: LinkCheck;
  config: Pick<Config, "linkCheck">;
}

/**
 * checkLinkNow checks one of a shelf's links at once and records the result: NotFound for
 * another user's or an unknown link, CheckedRecently when it was checked less than a minute ago.
 * `write` runs the recording (the API's runs it as its writes, in one transaction with the request's key).
 */
export async function checkLinkNow(shelf: Shelf, id: number, { clock, linkCheck = NO_LINK_CHECKS, config }: CheckNowDeps,
  write: (record: (shelf: Shelf) => HealthJson) => HealthJson | Promise<HealthJson> = (record) => record(shelf)): Promise<HealthJson> {
  const target = shelf.health.target(id);
  const since = target.checkedAt === null ? Infinity : clock() - target.checkedAt;
  if (since < CHECK_NOW_SPACING_SECONDS * 1000) throw new CheckedRecently(Math.ceil((CHECK_NOW_SPACING_SECONDS * 1000 - since) / 1000));
  const probe = await linkCheck.checkNow(id, target.url);
  return write((shelf) => shelf.health.record(id, probe, clock(), config.linkCheck));
}

/** What the routes use: check one link now, and the server's stop. */
export interface LinkCheck {
  /**
   * checkNow checks link `linkId` at `url` right away (not queued, not spaced; the same outbound
   * rules and time limit). CheckedRecently while that link is being checked already.
   */
  checkNow(linkId: number, url: string): Promise<Probe>;
  /** stop aborts what runs, schedules nothing more, and resolves when nothing runs any more. */
  stop(): Promise<void>;
}

/** What tests and the composition root may set; each defaults to the real thing. */
export interface CheckerOptions extends OutboundOptions {
  timers?: Timers;
  timeoutMillis?: number;
  concurrency?: number;
  hostSpacingMillis?: number;
  batch?: number;
  batchMillis?: number;
  idleMillis?: number;
}

interface HostState {
  busy: boolean;
  /** The clock time before which nothing more is sent to this host. */
  nextAt: number;
}

/** hostOf is the host a link's checks are spaced by; null for a URL that is not http(s). */
const hostOf = (url: string) => {
  const parsed = URL.parse(url);
  return parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") ? parsed.hostname.toLowerCase() : null;
};

/** Counts of what the background checker did since it started. */
export interface CheckerCounts {
  checked: number;
  /** Results not stored because the link was deleted meanwhile. */
  gone: number;
  errors: number;
}

export class LinkChecker implements LinkCheck {
  readonly counts: CheckerCounts = { checked: 0, gone: 0, errors: 0 };
  private readonly limits: Required<Omit<CheckerOptions, keyof OutboundOptions | "timers">>;
  private readonly alarm: Alarm;
  /** Every check, in the background or asked for now, goes out through it; stop() aborts them. */
  private readonly outbound: OutboundRuns;
  private readonly hosts = new Map<string, HostState>();
  private batch: DueLink[] = [];
  /** When `batch` was read. */
  private batchReadAt = -Infinity;
  private readonly inFlight = new Set<number>();
  /** The clock time before which no background check starts (the pacing). */
  private nextStartAt = 0;
  private paceMillis = 0;

  constructor(
    private readonly deps: { db: Db; clock: () => number; log: LogSink; config: LinkCheckConfig },
    options: CheckerOptions = {},
  ) {
    this.alarm = new Alarm(options.timers ?? REAL_TIMERS, () => this.pump());
    this.limits = limitsOf({ ...CHECKER_LIMITS, timeoutMillis: PROBE_LIMITS.timeoutMillis }, options);
    this.outbound = new OutboundRuns({ allowPrivate: deps.config.allowPrivate, userAgent: CHECK_USER_AGENT, timeoutMillis: this.limits.timeoutMillis }, options);
  }

  /** How many background checks run now. */
  get active(): number {
    return this.outbound.active;
  }

  /** The time between two background checks' starts: the period over the number of links. */
  get pace(): number {
    return this.paceMillis;
  }

  /** start begins the background checks (nothing when `LINKSHELF_LINK_CHECK=off`). */
  start(): void {
    if (this.deps.config.periodMs !== null) this.pump();
  }

  async checkNow(linkId: number, url: string): Promise<Probe> {
    if (this.outbound.stopped) return { outcome: "unchecked", status: null, detail: "the server is stopping" };
    if (this.inFlight.has(linkId)) throw new CheckedRecently(CHECK_NOW_SPACING_SECONDS);
    this.inFlight.add(linkId);
    try {
      return await this.probe(url);
    } finally {
      this.inFlight.delete(linkId);
    }
  }

  async stop(): Promise<void> {
    const settled = this.outbound.stop();
    this.alarm.clear();
    this.batch = [];
    await settled;
  }

  /** whenIdle resolves once no background check runs (the next may be scheduled). */
  whenIdle(): Promise<void> {
    return this.outbound.whenSettled();
  }

  /** probe checks one URL under the outbound policy, with its own time limit and abort (by stop). */
  private async probe(url: string): Promise<Probe> {
    const parsed = URL.parse(url);
    if (!parsed) return { outcome: "unchecked", status: null, detail: "not an http(s) address" };
    return this.outbound.send((policy) => probeLink(parsed, policy));
  }

  /**
   * pump starts due checks while there is room and the pacing allows: the first link of the
   * batch whose host is free. It sets a timer for whatever it waits for (the pacing, a host's
   * spacing, or new links falling due); a check's end pumps again.
   */
  private pump(): void {
    if (this.outbound.stopped) return;
    const now = this.deps.clock();
    for (const [name, host] of this.hosts) if (!host.busy && host.nextAt <= now) this.hosts.delete(name);
    while (this.outbound.active < this.limits.concurrency) {
      if (now < this.nextStartAt) return this.alarm.set(this.nextStartAt, now);
      if (this.batch.length === 0 || now - this.batchReadAt >= this.limits.batchMillis) this.refill(now);
      if (this.batch.length === 0) return this.alarm.set(this.idleUntil(now), now);
      const index = this.batch.findIndex((link) => {
        const host = hostOf(link.url);
        const state = host === null ? undefined : this.hosts.get(host);
        return !state || (!state.busy && state.nextAt <= now);
      });
      if (index < 0) {
        const waits = this.batch.map((link) => this.hosts.get(hostOf(link.url)!)).filter((state) => state && !state.busy).map((state) => state!.nextAt);
        if (waits.length > 0) this.alarm.set(Math.min(...waits), now);
        return;
      }
      const [link] = this.batch.splice(index, 1);
      this.begin(link!);
      this.nextStartAt = now + this.paceMillis;
    }
  }

  /**
   * idleUntil is when to look again with no link due: when the next link falls due, and no later
   * than the idle wait or the period, whichever is shorter (so that a link added meanwhile waits
   * no longer than a period either).
   */
  private idleUntil(now: number): number {
    const wait = Math.min(this.limits.idleMillis, this.deps.config.periodMs!);
    return Math.min(now + wait, nextDueAt(this.deps.db, [...this.inFlight]) ?? Infinity);
  }

  /** refill reads the next due links, and the pace from the number of links. */
  private refill(now: number): void {
    const period = this.deps.config.periodMs!;
    this.paceMillis = Math.floor(period / Math.max(1, linkCount(this.deps.db)));
    this.batch = dueLinks(this.deps.db, now, this.limits.batch, [...this.inFlight]);
    this.batchReadAt = now;
  }

  private begin(link: DueLink): void {
    const name = hostOf(link.url);
    const host = name === null ? undefined : this.hosts.get(name) ?? { busy: false, nextAt: 0 };
    if (name !== null && host) {
      host.busy = true;
      this.hosts.set(name, host);
    }
    this.inFlight.add(link.id);
    const run = this.checkAndRecord(link).catch((error: unknown) => {
      this.counts.errors++;
      this.deps.log(`linkshelf: checking link ${link.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.outbound.background(run, () => {
      if (host) {
        host.busy = false;
        host.nextAt = this.deps.clock() + this.limits.hostSpacingMillis;
      }
      this.inFlight.delete(link.id);
      this.pump();
    });
  }

  private async checkAndRecord(link: DueLink): Promise<void> {
    const probe = await this.probe(link.url);
    if (this.outbound.stopped) return;
    const row = recordCheck(this.deps.db, link.id, probe, this.deps.clock(), this.deps.config);
    if (row) this.counts.checked++;
    else this.counts.gone++;
  }
}
