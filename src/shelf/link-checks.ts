/**
 * The link checker's way to the links of every user: which links are due for a check, most
 * clicked and most recently clicked first, and the recording of a check's result with the
 * confirm rule. This is the one module through which the background checker reads links across
 * users; it reads a link's id, owner and URL, and writes only `link_health`.
 */
import { and, asc, desc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { linkHealth, links, type LinkHealthRow } from "../db/schema";
import type { HealthCheckJson } from "../contract/link-health";
import { iso } from "../common/timestamps";

/** What one check found. `unchecked`: nothing was sent (a private address without the opt-in, not http). */
export type Outcome = "ok" | "moved" | "gone" | "failing" | "soft-404" | "unchecked";

export interface Probe {
  outcome: Outcome;
  /** The final HTTP status; null when no answer came (refused, unresolvable, timeout, broken connection). */
  status: number | null;
  /** What happened, in a few words: `HTTP 404`, `timeout`, `connection refused`, `private address`... */
  detail: string;
  /** For `moved`: where every redirect, all permanent, led. */
  movedTo?: string;
}

/** isFailure: does an outcome count towards broken (`gone`, `failing`, `soft-404`)? `ok` and `moved` clear the failures. */
export const isFailure = (outcome: Outcome) => outcome === "gone" || outcome === "failing" || outcome === "soft-404";

/** How checks turn into a verdict and when a link is taken again (from the configuration). */
export interface CheckRule {
  /** The period of the background checks; null when they are off (a link checked now is then due again after a week). */
  periodMs: number | null;
  confirmFailures: number;
  confirmSpanMs: number;
}

/** A link due for a check. */
export interface DueLink {
  id: number;
  userId: number;
  url: string;
}

/** The checks kept per link. */
export const CHECKS_KEPT = 5;
const WEEK = 7 * 86_400_000;
const HOUR = 3_600_000;

/**
 * dueLinks is at most `limit` links never checked or whose next check is due by `now`, most
 * clicked first, then most recently clicked, then oldest; `skip` (links being checked) left out.
 */
export function dueLinks(db: Db, now: number, limit: number, skip: readonly number[]): DueLink[] {
  return db.select({ id: links.id, userId: links.userId, url: links.url }).from(links)
    .leftJoin(linkHealth, eq(linkHealth.linkId, links.id))
    .where(and(or(isNull(linkHealth.linkId), lte(linkHealth.nextAt, now)), sql`${links.id} NOT IN (SELECT value FROM json_each(${JSON.stringify(skip)}))`))
    .orderBy(desc(links.clicks), sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), asc(links.id))
    .limit(limit)
    .all();
}

/** linkCount is how many links the server holds, all users together (the checker paces itself by it). */
export function linkCount(db: Db): number {
  return db.select({ n: sql<number>`count(*)` }).from(links).get()!.n;
}

/**
 * nextDueAt is when the soonest link not in `skip` falls due, or null when no link has been
 * checked yet outside `skip` (the checker waits no longer than that for new work).
 */
export function nextDueAt(db: Db, skip: readonly number[]): number | null {
  return db.select({ nextAt: linkHealth.nextAt }).from(linkHealth)
    .where(sql`${linkHealth.linkId} NOT IN (SELECT value FROM json_each(${JSON.stringify(skip)}))`)
    .orderBy(asc(linkHealth.nextAt))
    .limit(1)
    .get()?.nextAt ?? null;
}

/**
 * nextCheckAfter is how long until a link is checked again: a period; after a failure, the
 * confirm span divided among the failures it asks for, at least an hour apart, but never later
 * than the period (a failing link is never checked less often than a working one).
 */
function nextCheckAfter(rule: CheckRule, failing: boolean): number {
  const period = rule.periodMs ?? WEEK;
  if (!failing || rule.confirmFailures < 2) return period;
  return Math.min(period, Math.max(HOUR, rule.confirmSpanMs / (rule.confirmFailures - 1)));
}

/** What recording a check runs, built once per database: the checker records one per link it checks. */
const checkQueries = preparedQueries((db) => {
  const value = <Name extends string>(name: Name) => sql.placeholder(name);
  const stored = {
    state: value("state"), broken: value("broken"), movedTo: value("movedTo"), failures: value("failures"), failingSince: value("failingSince"),
    checkedAt: value("checkedAt"), nextAt: value("nextAt"), checks: value("checks"),
  };
  return {
    link: db.select({ id: links.id }).from(links).where(eq(links.id, value("linkId"))).prepare(),
    before: db.select({ failures: linkHealth.failures, failingSince: linkHealth.failingSince, checks: linkHealth.checks })
      .from(linkHealth).where(eq(linkHealth.linkId, value("linkId"))).prepare(),
    // `.all()` when run: bun:sqlite's `.get()` leaves an `… RETURNING` statement un-reset (see clicks.ts).
    record: db.insert(linkHealth).values({ linkId: value("linkId"), ...stored }).onConflictDoUpdate({
      target: linkHealth.linkId,
      // A row there already takes each value the insert was given (`excluded.`): all but `ignored`, the owner's.
      set: Object.fromEntries(Object.keys(stored).map((key) => [key, sql.raw(`excluded.${linkHealth[key as keyof typeof stored].name}`)])),
    }).returning().prepare(),
  };
});

/**
 * recordCheck stores one check of link `linkId` (any user's: the caller decided whose) and
 * returns the link's health row, or null when the link no longer exists. A failure adds to the
 * failures in a row; a success (`ok`, `moved`) and `unchecked` clear them. The link is broken
 * once `confirmFailures` failures in a row span at least `confirmSpanMs`.
 */
export function recordCheck(db: Db, linkId: number, probe: Probe, now: number, rule: CheckRule): LinkHealthRow | null {
  const queries = checkQueries(db);
  return db.transaction((): LinkHealthRow | null => {
    if (!queries.link.get({ linkId })) return null;
    const before = queries.before.get({ linkId });
    const check: HealthCheckJson = { at: iso(now), status: probe.status, outcome: probe.outcome, detail: probe.detail };
    const checks = [check, ...(before ? JSON.parse(before.checks) as HealthCheckJson[] : [])].slice(0, CHECKS_KEPT);
    const failing = isFailure(probe.outcome);
    const failures = failing ? (before?.failures ?? 0) + 1 : 0;
    const since = failing ? before?.failingSince ?? now : null;
    const broken = failing && failures >= rule.confirmFailures && now - since! >= rule.confirmSpanMs;
    return queries.record.all({
      linkId, state: probe.outcome, broken: broken ? 1 : 0, movedTo: probe.movedTo ?? null, failures, failingSince: since, checkedAt: now,
      nextAt: now + nextCheckAfter(rule, failing), checks: JSON.stringify(checks),
    })[0]!;
  }, { behavior: "immediate" });
}
