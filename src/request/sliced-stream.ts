/**
 * An answer written a slice at a time: its parts come from a generator that does the work as it
 * is pulled (reading, rendering), at most SLICE_MILLIS of it per slice, with the event loop running
 * between slices. So a large export keeps the server answering everyone else, and only the
 * slices the client has not read yet are held in memory.
 */

/** The most time one slice takes, and the bytes it gathers before it is handed on. */
export const SLICE = { millis: 20, bytes: 256 * 1024 } as const;

const encoder = new TextEncoder();

/** slicedStream is a body that pulls `parts` a slice at a time (a part is never split). */
export function slicedStream(parts: Iterator<string>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Between two slices, whatever else waits runs first.
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      const gathered: string[] = [];
      let length = 0;
      for (;;) {
        const next = parts.next();
        if (next.done) {
          if (gathered.length > 0) controller.enqueue(encoder.encode(gathered.join("")));
          controller.close();
          return;
        }
        gathered.push(next.value);
        length += next.value.length;
        if (length >= SLICE.bytes || performance.now() - started >= SLICE.millis) break;
      }
      controller.enqueue(encoder.encode(gathered.join("")));
    },
    cancel() {
      parts.return?.(undefined);
    },
  }, { highWaterMark: 0 });
}
