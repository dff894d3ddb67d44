/** linkshelf's own JSON export (`"format": "linkshelf"`): read by `readLinkshelfJson`, beside the export that writes it. */
import type { ImportDocument } from "../document";
import { readLinkshelfJson } from "../linkshelf-json";
import { isObject, type ImportInput } from "./common";

/** sniff: a JSON object saying `"format": "linkshelf"`. */
export function sniff(input: ImportInput): boolean {
  if (!input.looksJson) return false;
  const value = input.json;
  return isObject(value) && value.format === "linkshelf";
}

/** read reads the whole shelf the file holds: links, the Inbox's order, the collection tree. */
export const read = (input: ImportInput): ImportDocument => readLinkshelfJson(input.json as Record<string, unknown>);
