/**
 * Omnivore's export: a zip of `metadata_<start>_to_<end>.json` (its items), `content/<slug>.html`
 * (each saved page) and `highlights/<slug>.md`; or one metadata file on its own (the zip unpacked),
 * read without the saved pages.
 */
import { extractReadable } from "../../capture/extract";
import { dateField, type ImportDocument, type SourceItem } from "../document";
import { BookmarkFileRefused } from "../netscape";
import { unzipEntries } from "../zip";
import { HIGHLIGHTS, isObject, isoTime, joined, start, text, unknownKeys, type ImportInput, type ReadContext } from "./common";

/** Omnivore's stand-in URL of a newsletter it received by email: nothing to link to. */
const OMNIVORE_NO_URL = "https://omnivore.app/no_url?";
/** An Omnivore export's list of items, wherever the zip puts it. */
const OMNIVORE_METADATA = /(^|\/)metadata_[^/]*\.json$/;
/** An Omnivore export's saved page or highlights of one item. */
const OMNIVORE_ITEM_FILE = /(^|\/)(content\/[^/]*\.html|highlights\/[^/]*\.md)$/;

/** isOmnivoreZip: a zip holding a `metadata_*.json`. */
export const isOmnivoreZip = (input: ImportInput) => input.isZip && input.zipEntries.some((entry) => OMNIVORE_METADATA.test(entry.name));

/** isOmnivoreItem: an item of an Omnivore export's `metadata_*.json`. */
function isOmnivoreItem(item: unknown): boolean {
  return isObject(item) && typeof item.url === "string" && typeof item.slug === "string" && "savedAt" in item;
}

/** sniff: Omnivore's zip, or a JSON list of its items (its metadata file unzipped). */
export function sniff(input: ImportInput): boolean {
  if (input.isZip) return isOmnivoreZip(input);
  if (!input.looksJson) return false;
  const value = input.json;
  return Array.isArray(value) && value.length > 0 && value.every(isOmnivoreItem);
}

/**
 * read reads Omnivore's zip (only its metadata, pages and highlights are inflated, within
 * ZIP_LIMITS counted on what they give) or its metadata file alone.
 */
export async function read(input: ImportInput, context: ReadContext): Promise<ImportDocument> {
  if (!input.isZip) return readOmnivore([input.json as unknown[]], () => undefined, context);
  const wanted = input.zipEntries.filter(({ name }) => OMNIVORE_METADATA.test(name) || OMNIVORE_ITEM_FILE.test(name));
  const files = await unzipEntries(input.bytes, wanted);
  const utf8 = (data: Uint8Array | undefined) => new TextDecoder().decode(data);
  const names = [...files.keys()].sort();
  // Pages and highlights by their folder and file name, wherever the zip puts those folders.
  const byTail = new Map(names.map((name) => [name.split("/").slice(-2).join("/"), name]));
  return readOmnivore(names.filter((name) => OMNIVORE_METADATA.test(name)).map((name) => utf8(files.get(name))), (kind, slug) => {
    const name = byTail.get(`${kind}/${slug}.${kind === "content" ? "html" : "md"}`);
    return name === undefined ? undefined : utf8(files.get(name));
  }, context);
}

const OMNIVORE_KEYS = ["id", "slug", "title", "description", "author", "url", "state", "labels", "savedAt", "updatedAt", "publishedAt"] as const;

/**
 * readOmnivore reads Omnivore's export: the items of its metadata files, each with its saved
 * page (`content/<slug>.html`, read as text) and highlights (`highlights/<slug>.md`) as the
 * link's saved page text. Newsletters received by email have no URL and are skipped.
 */
function readOmnivore(metadata: (string | unknown[])[], file: (kind: "content" | "highlights", slug: string) => string | undefined, context: ReadContext): ImportDocument {
  const { document, add } = start("omnivore", context);
  for (const part of metadata) {
    let items: unknown = part;
    if (typeof part === "string") {
      try {
        items = JSON.parse(part);
      } catch {
        throw new BookmarkFileRefused("A metadata file of the Omnivore export does not parse as JSON.");
      }
    }
    for (const item of Array.isArray(items) ? items : []) {
      if (!isObject(item)) continue;
      unknownKeys(document, item, OMNIVORE_KEYS);
      const url = text(item.url);
      if (url.startsWith(OMNIVORE_NO_URL)) {
        document.skipped.push({ name: text(item.title), url, reason: "A newsletter Omnivore received by email: it has no web address." });
        continue;
      }
      const slug = text(item.slug);
      const page = slug === "" ? undefined : file("content", slug);
      const highlights = slug === "" ? undefined : file("highlights", slug)?.trim();
      const pageText = page === undefined ? "" : extractReadable(page)?.text ?? "";
      const saved = joined(pageText, highlights ? `${HIGHLIGHTS}\n\n${highlights}` : "");
      const labels = Array.isArray(item.labels) ? item.labels.map((label) => (isObject(label) ? text(label.name) : text(label))) : [];
      const unreadDates: string[] = [];
      const entry: SourceItem = {
        name: text(item.title), url, description: text(item.description), folders: [], tags: labels.filter((label) => label !== ""),
        // Omnivore's app writes `Archived`, its own exporter `archived`.
        archived: text(item.state).toLowerCase() === "archived", favorite: false,
        createdAt: dateField("savedAt", item.savedAt, isoTime, unreadDates), updatedAt: isoTime(item.updatedAt), unreadDates,
      };
      if (saved !== "") entry.text = saved;
      add(entry);
    }
  }
  return document;
}
