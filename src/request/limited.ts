/** Reading a request body without ever holding more than a limit (plus one chunk) of it. */
import { PayloadTooLarge } from "../common/errors";
import { holdBody } from "./body-budget";

/** readLimited reads a request body as UTF-8, refusing more than `limit` bytes without buffering them. */
export async function readLimited(request: Request, limit: number): Promise<string> {
  return new TextDecoder("utf-8", { fatal: false }).decode(await readLimitedBytes(request, limit));
}

const DECIMAL = /^\d+$/;

/**
 * readLimitedBytes reads a request body, refusing (PayloadTooLarge, with `message` when given)
 * a declared Content-Length over `limit` before reading anything, and otherwise as soon as the
 * bytes read pass it: at most `limit` bytes plus one chunk are ever held. A body with a declared
 * length is read whole: over HTTP it is exactly that length. (A Request made in process with a
 * false Content-Length is read whole, then refused.) What it holds is counted against the
 * app's body budget (see bodyBudget) while it reads: the declared length before the first byte,
 * a body without one chunk by chunk; past the budget it throws BodiesBusy and reads no more.
 */
export async function readLimitedBytes(request: Request, limit: number, message?: string): Promise<Uint8Array> {
  const header = request.headers.get("content-length");
  const declared = Number(header ?? 0);
  if (declared > limit) throw new PayloadTooLarge(limit, message);
  if (!request.body) return new Uint8Array(0);
  const held = holdBody(request);
  try {
    if (header !== null && DECIMAL.test(header)) {
      held.grow(declared);
      // HTTP's framing holds the body to its declared length, and Bun reads a whole body much
      // faster than a stream, chunk by chunk. The check after it is for a Request made in process.
      const bytes = new Uint8Array(await request.arrayBuffer());
      if (bytes.byteLength > limit) throw new PayloadTooLarge(limit, message);
      return bytes;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size > limit) throw new PayloadTooLarge(limit, message);
      held.grow(chunk.byteLength);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } finally {
    // Read (and handed to the route), refused, or abandoned by its client: it is arriving no longer.
    held.release();
  }
}
