/**
 * Work done in steps: a generator that yields between steps and returns its result. Run at once
 * (`atOnce`), or in slices of at most `millis` with the event loop running between them
 * (`inSlices`): the first slice runs at once, in the caller's turn, so what it reads is read
 * together with whatever the caller read just before.
 */
export type Steps<Result> = Generator<void, Result, void>;

/** atOnce runs every step now and returns the result. */
export function atOnce<Result>(steps: Steps<Result>): Result {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** inSlices runs the steps `millis` at a time, the event loop running between slices. */
export async function inSlices<Result>(steps: Steps<Result>, millis = 20): Promise<Result> {
  for (;;) {
    const started = performance.now();
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      if (performance.now() - started >= millis) break;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
