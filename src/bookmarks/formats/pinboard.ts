/** Pinboard's JSON export (settings → backup → JSON): a list of bookmarks. */
import { dateField, type ImportDocument } from "../document";
import { isObject, isoTime, split, start, text, unknownKeys, type ImportInput, type ReadContext } from "./common";

/** sniff: a JSON list whose every item has an `href`. */
export function sniff(input: ImportInput): boolean {
  if (!input.looksJson) return false;
  const value = input.json;
  return Array.isArray(value) && value.every((item) => isObject(item) && typeof item.href === "string");
}

const PINBOARD_KEYS = ["href", "description", "extended", "meta", "hash", "time", "shared", "toread", "tags"] as const;

/** read reads Pinboard's JSON export: `description` is the title, `extended` the notes, tags space-separated. */
export function read(input: ImportInput, context: ReadContext): ImportDocument {
  const { document, add } = start("pinboard", context);
  for (const item of input.json as Record<string, unknown>[]) {
    unknownKeys(document, item, PINBOARD_KEYS);
    const unreadDates: string[] = [];
    add({
      name: text(item.description), url: text(item.href), description: text(item.extended), folders: [],
      tags: split(text(item.tags), /\s+/), archived: false, favorite: false, toRead: item.toread === "yes",
      createdAt: dateField("time", item.time, isoTime, unreadDates), unreadDates,
    });
  }
  return document;
}

