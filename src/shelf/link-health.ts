/**
 * A shelf's link health: what the link checker found of the owner's links, which of them are
 * broken or moved, checking one now, and ignoring one. Every read and write is scoped to the
 * owner through the link; the background checker records through src/shelf/link-checks.ts.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { linkHealth, links, type LinkHealthRow } from "../db/schema";
import { NotFound } from "../common/errors";
import { toHealthJson } from "./json";
import type { HealthJson, HealthState, LinkHealthJson } from "../contract/link-health";
import type { Probe } from "./link-checks";
import type { ShelfLinks } from "./links";
import { recordCheck, type CheckRule } from "./link-checks";
import type { Owner } from "./scope";

/** The rows of one state: broken and moved links that are not ignored, or links the checker could not check. */
const inState = (state: HealthState) =>
  state === "broken" ? and(eq(linkHealth.broken, true), eq(linkHealth.ignored, false))
  : state === "moved" ? and(eq(linkHealth.state, "moved"), eq(linkHealth.ignored, false))
  : eq(linkHealth.state, "unchecked");

/** What checking a link needs: its URL, and when it was last checked. */
export interface CheckTarget {
  url: string;
  checkedAt: number | null;
}

export class ShelfHealth {
  constructor(private readonly owner: Owner, private readonly links: ShelfLinks) {}

  /** owned is the health rows of the owner's links matching `where`, latest check first. */
  private owned(where: ReturnType<typeof and>) {
    return this.owner.db
      .select({ health: linkHealth })
      .from(linkHealth)
      .innerJoin(links, eq(links.id, linkHealth.linkId))
      .where(and(eq(links.userId, this.owner.user.id), where))
      .orderBy(desc(linkHealth.failingSince), desc(linkHealth.checkedAt), desc(linkHealth.linkId))
      .all()
      .map((row) => row.health);
  }

  /** list is the owner's links in a state with their health: two queries. */
  list(state: HealthState): LinkHealthJson[] {
    return this.withLinks(this.owned(inState(state)));
  }

  /** ignoredList is the owner's links whose health is not flagged (ignored), with their health: two queries. */
  ignoredList(): LinkHealthJson[] {
    return this.withLinks(this.owned(eq(linkHealth.ignored, true)));
  }

  /** of is the health of one of the owner's links; null when it has no checks yet (NotFound: another user's or unknown link). */
  of(id: number): HealthJson | null {
    this.target(id);
    const [row] = this.owner.db.select().from(linkHealth).where(eq(linkHealth.linkId, id)).all();
    return row ? toHealthJson(row) : null;
  }

  /** withLinks pairs health rows with their links (one query), in the rows' order. */
  private withLinks(rows: LinkHealthRow[]): LinkHealthJson[] {
    const byId = new Map(this.links.byIds(rows.map((row) => row.linkId)).map((link) => [link.id, link]));
    return rows.flatMap((row) => {
      const link = byId.get(row.linkId);
      return link ? [{ link, health: toHealthJson(row) }] : [];
    });
  }

  /** brokenAmong is which of `ids` are the owner's broken links (not ignored): one query, for the marks in lists. */
  brokenAmong(ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    return new Set(this.owned(and(inArray(linkHealth.linkId, [...ids]), eq(linkHealth.broken, true), eq(linkHealth.ignored, false)))
      .map((row) => row.linkId));
  }

  /**
   * counts is how many of the owner's links are broken and how many moved (not ignored): one
   * query, on every signed-in page (the top bar's badge). It reads the health rows first and
   * looks up the links of the flagged ones only (`CROSS JOIN` keeps that order): walking all the
   * owner's links to find their health cost milliseconds a page at 100,000 links.
   */
  counts(): { broken: number; moved: number } {
    const [row] = this.owner.db.all<{ broken: number | null; moved: number | null }>(sql`
      SELECT sum(lh.broken = 1) AS broken, sum(lh.state = 'moved') AS moved
      FROM ${linkHealth} lh CROSS JOIN ${links} l ON l.id = lh.link_id
      WHERE lh.ignored = 0 AND (lh.broken = 1 OR lh.state = 'moved') AND l.user_id = ${this.owner.user.id}`);
    return { broken: row?.broken ?? 0, moved: row?.moved ?? 0 };
  }

  /** target is what checking one of the owner's links needs; NotFound for another user's or an unknown link. */
  target(id: number): CheckTarget {
    const [row] = this.owner.db
      .select({ url: links.url, checkedAt: linkHealth.checkedAt })
      .from(links)
      .leftJoin(linkHealth, eq(linkHealth.linkId, links.id))
      .where(and(eq(links.id, id), eq(links.userId, this.owner.user.id)))
      .all();
    if (!row) throw new NotFound();
    return row;
  }

  /** movedTo is where one of the owner's links moved, null when it did not (NotFound: another user's or unknown link). */
  movedTo(id: number): string | null {
    this.target(id);
    const [row] = this.owner.db.select({ movedTo: linkHealth.movedTo }).from(linkHealth).where(eq(linkHealth.linkId, id)).all();
    return row?.movedTo ?? null;
  }

  /** record stores a check of one of the owner's links and answers its health (NotFound: another user's, unknown, or deleted meanwhile). */
  record(id: number, probe: Probe, now: number, rule: CheckRule): HealthJson {
    this.target(id);
    const row = recordCheck(this.owner.db, id, probe, now, rule);
    if (!row) throw new NotFound();
    return toHealthJson(row);
  }

  /**
   * setIgnored stops (true) or resumes (false) flagging one of the owner's links; the checks go
   * on. A link never checked gets its row, due at once. NotFound for another user's or unknown link.
   */
  setIgnored(id: number, ignored: boolean, now: number): HealthJson {
    const { db } = this.owner;
    return db.transaction(() => {
      this.target(id);
      const [row] = db.insert(linkHealth).values({ linkId: id, state: "unchecked", nextAt: now, ignored })
        .onConflictDoUpdate({ target: linkHealth.linkId, set: { ignored } })
        .returning().all();
      return toHealthJson(row!);
    }, { behavior: "immediate" });
  }
}
