/**
 * The Netscape bookmark file every browser exports (and linkding, Pinboard): read by
 * `parseNetscape` a slice at a time. It is what a file of no other format is read as: a page
 * with no bookmark in it gives nothing to import, and the import refuses it.
 */
import { fromNetscape, type ImportDocument } from "../document";
import { parseNetscapeInSteps } from "../netscape";
import type { ImportInput } from "./common";

/** sniff: any file that is neither a zip nor JSON (the last format tried). */
export const sniff = (input: ImportInput) => !input.isZip && !input.looksJson;

/** read reads the file's folders and bookmarks, with linkding's and Pinboard's tags, TOREAD and archived tag. */
export async function read(input: ImportInput): Promise<ImportDocument> {
  return fromNetscape(await parseNetscapeInSteps(input.text));
}
