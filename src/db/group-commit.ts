import type { Database } from "bun:sqlite";

interface Job {
  write(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * GroupCommit runs the writes submitted during one turn of the event loop in one IMMEDIATE
 * transaction, once that turn ends: one commit serves many requests (a commit, with its
 * share of WAL checkpoints, cost more than the insert or click it carried). The app keeps
 * one per database, shared by link creation and click counting.
 *
 * Each write runs in its own savepoint, so a write that throws (a rule broken, a collection
 * not owned) is rolled back alone and only its caller hears the error. Every promise settles
 * after the commit, so nothing is acknowledged before it is durable; if the commit itself
 * fails, the whole batch is rolled back and every caller gets that error.
 */
export class GroupCommit {
  private jobs: Job[] = [];
  private scheduled = false;
  /**
   * Counts the batches whose flush has begun (moved before their transaction opens): a caller
   * that gathers work per batch (the click recorder) knows by it when to start a new write.
   */
  batches = 0;

  /** One batch's writes, each in its own savepoint: run as one IMMEDIATE transaction. */
  private readonly batch;

  constructor(sqlite: Database) {
    // Called inside the batch's transaction, a bun:sqlite transaction function is a savepoint.
    const inSavepoint = sqlite.transaction((write: () => unknown) => write());
    // Made once: bun:sqlite builds a transaction function's statements and wrappers when it is made.
    this.batch = sqlite.transaction((jobs: readonly Job[], outcomes: { ok: boolean; value: unknown }[]) => {
      for (const job of jobs) {
        try {
          outcomes.push({ ok: true, value: inSavepoint(job.write) });
        } catch (error) {
          outcomes.push({ ok: false, value: error });
        }
      }
    });
  }

  /** run queues `write` for this turn's transaction and resolves with its result once committed. */
  run<T>(write: () => T): Promise<T> {
    const settled = new Promise<T>((resolve, reject) => {
      this.jobs.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return settled;
  }

  /** flush commits every write queued so far, then settles their promises. */
  flush(): void {
    const jobs = this.jobs;
    this.jobs = [];
    this.scheduled = false;
    if (jobs.length === 0) return;
    this.batches++;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.batch.immediate(jobs, outcomes);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
  }
}
