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
    if (stamp.changes !== this.stamp.changes || stamp.version !== this.stamp.version) {
      this.answers.clear();
      this.stamp = stamp;
    }
    let answer = this.answers.get(userId);
    if (answer === undefined) {
      answer = build();
      if (this.answers.size >= this.maxUsers) this.answers.delete(this.answers.keys().next().value!);
      this.answers.set(userId, answer);
    }
    return answer;
  }

  /** size is how many answers are kept now. */
  get size(): number {
    return this.answers.size;
  }
}
