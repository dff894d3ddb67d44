/**
 * The link checker's way to the links of every user: which links are due for a check, most
 * clicked and most recently clicked first, and the recording of a check's result with the
 * confirm rule. This is the one module through which the background checker reads links across
 * users; it reads a link's id, owner and URL, and writes only `link_health`.
 */
import type { Db } from "../db/client";
import type { LinkHealthRow } from "../db/schema";
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
  return db.$client.query<DueLink, [number, string, number]>(`
    SELECT l.id, l.user_id AS userId, l.url FROM links l LEFT JOIN link_health h ON h.link_id = l.id
    WHERE (h.link_id IS NULL OR h.next_at <= ?) AND l.id NOT IN (SELECT value FROM json_each(?))
    ORDER BY l.clicks DESC, l.last_clicked_at IS NULL, l.last_clicked_at DESC, l.id
    LIMIT ?`).all(now, JSON.stringify(skip), limit);
}

/** linkCount is how many links the server holds, all users together (the checker paces itself by it). */
export function linkCount(db: Db): number {
  return db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM links").get()!.n;
}

/**
 * nextDueAt is when the soonest link not in `skip` falls due, or null when no link has been
 * checked yet outside `skip` (the checker waits no longer than that for new work).
 */
export function nextDueAt(db: Db, skip: readonly number[]): number | null {
  return db.$client.query<{ nextAt: number }, [string]>(`
    SELECT next_at AS nextAt FROM link_health WHERE link_id NOT IN (SELECT value FROM json_each(?))
    ORDER BY next_at LIMIT 1`).get(JSON.stringify(skip))?.nextAt ?? null;
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

/**
 * recordCheck stores one check of link `linkId` (any user's: the caller decided whose) and
 * returns the link's health row, or null when the link no longer exists. A failure adds to the
 * failures in a row; a success (`ok`, `moved`) and `unchecked` clear them. The link is broken
 * once `confirmFailures` failures in a row span at least `confirmSpanMs`.
 */
export function recordCheck(db: Db, linkId: number, probe: Probe, now: number, rule: CheckRule): LinkHealthRow | null {
  const sqlite = db.$client;
  return sqlite.transaction((): LinkHealthRow | null => {
    if (!sqlite.query("SELECT 1 FROM links WHERE id = ?").get(linkId)) return null;
    const before = sqlite.query<{ failures: number; failing_since: number | null; checks: string }, [number]>(
      "SELECT failures, failing_since, checks FROM link_health WHERE link_id = ?").get(linkId);
    const check: HealthCheckJson = { at: iso(now), status: probe.status, outcome: probe.outcome, detail: probe.detail };
    const checks = [check, ...(before ? JSON.parse(before.checks) as HealthCheckJson[] : [])].slice(0, CHECKS_KEPT);
    const failing = isFailure(probe.outcome);
    const failures = failing ? (before?.failures ?? 0) + 1 : 0;
    const since = failing ? before?.failing_since ?? now : null;
    const broken = failing && failures >= rule.confirmFailures && now - since! >= rule.confirmSpanMs;
    return sqlite.query<LinkHealthRow, (string | number | null)[]>(`
      INSERT INTO link_health (link_id, state, broken, moved_to, failures, failing_since, checked_at, next_at, checks)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (link_id) DO UPDATE SET state = excluded.state, broken = excluded.broken, moved_to = excluded.moved_to,
        failures = excluded.failures, failing_since = excluded.failing_since, checked_at = excluded.checked_at,
        next_at = excluded.next_at, checks = excluded.checks
      RETURNING link_id AS linkId, state, broken, moved_to AS movedTo, failures, failing_since AS failingSince,
        checked_at AS checkedAt, next_at AS nextAt, ignored, checks`)
      .all(linkId, probe.outcome, broken ? 1 : 0, probe.movedTo ?? null, failures, since, now, now + nextCheckAfter(rule, failing), JSON.stringify(checks))
      .map((row) => ({ ...row, broken: Boolean(row.broken), ignored: Boolean(row.ignored) }))[0]!;
  }).immediate();
}
