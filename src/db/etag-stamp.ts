import { sql } from "drizzle-orm";
import type { Db } from "./client";

/**
 * What the database looks like to this connection, in two counters: `total_changes()` moves
 * with every row this connection inserts, updates or deletes (API writes, clicks, a token's
 * lastUsedAt, favicon cache rows, cascades included), and `data_version` moves when another
 * connection (the CLI) commits. While both are unchanged, every read answers as before.
 */
export interface DatabaseStamp {
  changes: number;
  version: number;
}

/** readDatabaseStamp reads both counters in one cheap query (through drizzle, so it is logged like any other). */
export function readDatabaseStamp(db: Db): DatabaseStamp {
  const [changes, version] = db.get<[number, number]>(
    sql`SELECT total_changes(), (SELECT data_version FROM pragma_data_version)`,
  );
  return { changes, version };
}

/**
 * StampedAnswers keeps one answer per user, valid while the database stamp it was built at
 * still holds. Any change drops every answer (a click or a write anywhere is rare next to
 * the reads it saves), and at most `maxUsers` answers are kept, so memory stays bounded.
 */
export class StampedAnswers<Answer> {
  private stamp: DatabaseStamp = { changes: -1, version: -1 };
  private readonly answers = new Map<number, Answer>();

  constructor(private readonly maxUsers = 16) {}

  /** get returns the user's answer kept at `stamp`, or builds, keeps and returns it. */
  get(stamp: DatabaseStamp, userId: number, build: () => Answer): Answer {
    this.moveTo(stamp);
    let answer = this.answers.get(userId);
    if (answer === undefined) {
      answer = build();
      this.keep(userId, answer);
    }
    return answer;
  }

  /**
   * getLater is `get` with an answer built over several turns (`build` starts reading in this
   * turn): kept only if the stamp still holds once it is built; answered either way.
   */
  async getLater(stamp: DatabaseStamp, userId: number, build: () => Promise<Answer>): Promise<Answer> {
    this.moveTo(stamp);
    const kept = this.answers.get(userId);
    if (kept !== undefined) return kept;
    const answer = await build();
    if (stamp.changes === this.stamp.changes && stamp.version === this.stamp.version) this.keep(userId, answer);
    return answer;
  }

  /** moveTo drops every kept answer when the database's stamp is not the one they were kept at. */
  private moveTo(stamp: DatabaseStamp): void {
    if (stamp.changes !== this.stamp.changes || stamp.version !== this.stamp.version) {
      this.answers.clear();
      this.stamp = stamp;
    }
  }

  /** keep keeps a user's answer, letting the oldest kept one go when maxUsers are kept. */
  private keep(userId: number, answer: Answer): void {
    if (this.answers.size >= this.maxUsers) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(userId, answer);
  }

  /** size is how many answers are kept now. */
  get size(): number {
    return this.answers.size;
  }
}
