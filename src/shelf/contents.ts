/**
 * A shelf's saved page contents: the readable text of a link's page, one per link, captured by
 * the browser extension (`browser`) or fetched by the server (`server`). Every read and write is
 * scoped to the owner through the link; each write re-indexes the link for search in the same
 * transaction (src/fulltext/index-text.ts).
 */
import { and, eq } from "drizzle-orm";
import { CONTENT_LIMITS, LANGUAGE_TAG } from "../contract/content-limits";
import type { Db } from "../db/client";
import { linkContents, links, users } from "../db/schema";
import { NotFound } from "../common/errors";
import { Rules } from "../common/rules";
import { deferIndexing } from "../fulltext/index-text";
import { packText } from "../fulltext/text-store";
import { iso } from "../common/timestamps";
import { toContentJson } from "./json";
import type { ContentSummary } from "./types";
import type { ContentBody, ContentJson, ContentSource } from "../contract/content";
import type { Owner } from "./scope";

/** What saving a content did: `stored` is false when a browser capture was there and a server fetch left it alone. */
export interface ContentSaved {
  stored: boolean;
  /** The text was longer than CONTENT_LIMITS.textBytes and only its beginning was kept. */
  truncated: boolean;
}

/** Control characters other than tab, line feed and carriage return: never part of a page's text. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/**
 * keepBytes is the longest beginning of `text` of at most `limit` bytes of UTF-8, cut between
 * characters (never inside a surrogate pair).
 */
export function keepBytes(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit / 3 || Buffer.byteLength(text, "utf8") <= limit) return { text, truncated: false };
  const bytes = Buffer.from(text, "utf8");
  let end = limit;
  // Back off continuation bytes (10xxxxxx) to the start of the character the limit cuts.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString("utf8"), truncated: true };
}

/** checkContent applies the rules of a content body; optional fields are stored null when omitted, null or blank. */
function checkContent(input: ContentBody) {
  const rules = new Rules();
  const optional = (path: string, value: string | null | undefined, max: number) =>
    value === undefined || value === null ? null : rules.text(path, value.replace(CONTROLS, " "), 0, max) || null;
  const title = optional("/title", input.title, CONTENT_LIMITS.title);
  const excerpt = optional("/excerpt", input.excerpt, CONTENT_LIMITS.excerpt);
  const byline = optional("/byline", input.byline, CONTENT_LIMITS.byline);
  const lang = optional("/lang", input.lang, CONTENT_LIMITS.lang);
  if (lang !== null && !LANGUAGE_TAG.test(lang)) rules.fail("/lang", "Expected a language tag such as en or pt-BR");
  rules.check();
  const { text, truncated } = keepBytes(input.text.toWellFormed().replace(CONTROLS, " "), CONTENT_LIMITS.textBytes);
  return { fields: { title: title?.toWellFormed() ?? null, excerpt: excerpt?.toWellFormed() ?? null, byline: byline?.toWellFormed() ?? null, lang, text }, truncated };
}

/** ownsLink: is `id` one of the owner's links. */
function ownsLink({ db, user }: Owner, id: number): boolean {
  // Raw statement (a measured hot path): a save's own check, see saveContent.
  return db.$client.query<{ id: number }, [number, number]>("SELECT id FROM links WHERE id = ? AND user_id = ?").all(id, user.id).length === 1;
}

/** The saved content of link `id` when that link is the owner's. */
const ownedContent = ({ user }: Owner, id: number) => and(eq(linkContents.linkId, id), eq(links.userId, user.id));

/** readContent is the saved content of one of the owner's links; NotFound for another user's or unknown link, or a link without content. */
export function readContent(owner: Owner, id: number): ContentJson {
  const [row] = owner.db
    .select({ content: linkContents })
    .from(linkContents)
    .innerJoin(links, eq(links.id, linkContents.linkId))
    .where(ownedContent(owner, id))
    .all();
  if (!row) throw new NotFound(ownsLink(owner, id) ? "This link has no saved content." : undefined);
  return toContentJson(row.content);
}

/**
 * readContentSummary is the saved content of one of the owner's links without its text (which
 * stays compressed), or null when none is saved; NotFound for another user's or unknown link.
 */
export function readContentSummary(owner: Owner, id: number): ContentSummary | null {
  const [row] = owner.db
    .select({
      linkId: linkContents.linkId, title: linkContents.title, excerpt: linkContents.excerpt, byline: linkContents.byline,
      lang: linkContents.lang, source: linkContents.source, capturedAt: linkContents.capturedAt,
    })
    .from(linkContents)
    .innerJoin(links, eq(links.id, linkContents.linkId))
    .where(ownedContent(owner, id))
    .all();
  if (row) return { ...row, capturedAt: iso(row.capturedAt) };
  if (!ownsLink(owner, id)) throw new NotFound();
  return null;
}

/**
 * saveContent stores the content of one of the owner's links (NotFound for another user's or
 * unknown link), replacing what was there, in one transaction (a savepoint inside the
 * caller's), and marks the link for the index (deferIndexing): the server's indexer takes it
 * soon after with the other pages and links marked meanwhile, in one transaction (each
 * transaction that writes to the index makes it write, and later merge, a segment of its
 * own). A `server` content never replaces a `browser` one: it is then dropped (`stored: false`). Plain prepared SQL: pages are saved in
 * bursts, and building drizzle queries cost more than the rest of a save but the index.
 */
export function saveContent(owner: Owner, id: number, input: ContentBody, source: ContentSource, now: number): ContentSaved {
  const { fields, truncated } = checkContent(input);
  // Raw statement (a measured hot path): pages are saved in bursts (PUT …/content).
  const sqlite = owner.db.$client;
  const textZstd = packText(fields.text);
  return sqlite.transaction((): ContentSaved => {
    if (!ownsLink(owner, id)) throw new NotFound();
    if (source === "server" && storedSource(owner.db, id) === "browser") return { stored: false, truncated };
    sqlite.query(`INSERT INTO link_contents (link_id, title, text_zstd, excerpt, byline, lang, source, captured_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (link_id) DO UPDATE SET title = excluded.title, text_zstd = excluded.text_zstd, excerpt = excluded.excerpt,
        byline = excluded.byline, lang = excluded.lang, source = excluded.source, captured_at = excluded.captured_at`)
      .run(id, fields.title, textZstd, fields.excerpt, fields.byline, fields.lang, source, now);
    deferIndexing(owner.db, id);
    return { stored: true, truncated };
  }).immediate();
}

function storedSource(db: Db, linkId: number): ContentSource | undefined {
  // Raw statement (a measured hot path): a save's own check, see saveContent.
  return db.$client.query<{ source: ContentSource }, [number]>("SELECT source FROM link_contents WHERE link_id = ?").all(linkId)[0]?.source;
}

/**
 * storeFetchedContent is how the server-side fetcher stores what it read of a link's page: it
 * knows only the link's id and its owner's id. `gone` when that user no longer has that link
 * (deleted meanwhile), `kept` when the link has a browser capture (never replaced by a fetch),
 * `stored` otherwise. Rules as for `PUT /api/v1/links/:id/content` (422 ValidationFailed on a
 * field out of range; the text is cut to 1 MiB).
 */
export function storeFetchedContent(db: Db, link: { linkId: number; userId: number }, content: ContentBody, now: number): "stored" | "kept" | "gone" {
  const user = db.select().from(users).where(eq(users.id, link.userId)).all()[0];
  if (!user || !ownsLink({ db, user }, link.linkId)) return "gone";
  return saveContent({ db, user }, link.linkId, content, "server", now).stored ? "stored" : "kept";
}
