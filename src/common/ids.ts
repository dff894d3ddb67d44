/** Ids in request paths: what counts as one, and the 404 for anything else. */
import { NotFound } from "./errors";

/** readId reads a path id: a positive safe integer, else undefined. */
export function readId(raw: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** parseId reads a path id; anything but a positive safe integer names nothing, so it is a 404. */
export function parseId(raw: string): number {
  const id = readId(raw);
  if (id === undefined) throw new NotFound();
  return id;
}
