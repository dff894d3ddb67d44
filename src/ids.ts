import { NotFound } from "./errors";

/** parseId reads a path id; anything but a positive safe integer names nothing, so it is a 404. */
export function parseId(raw: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new NotFound();
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw new NotFound();
  return id;
}

/** iso renders stored milliseconds the way the contract writes timestamps. */
export function iso(millis: number): string {
  return new Date(millis).toISOString();
}
