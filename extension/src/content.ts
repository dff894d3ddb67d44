/**
 * Capturing the saved page's readable text: capture.js is injected into the tab, its reader
 * called there, and what it read is sent to `PUT /api/v1/links/:id/content`, fitted to the
 * server's limits (docs/search.md). Keeping a copy of the page works the same way, through
 * `PUT /api/v1/links/:id/copy`.
 */
import { CONTENT_LIMITS, COPY_LIMITS, LANGUAGE_TAG } from "../../src/contract/content-limits";
import type { ContentBody } from "../../src/contract/content";
import type { Client } from "./api";
import { KEEP_COPY_FUNCTION, READ_PAGE_FUNCTION } from "./read-page";
import type { Scripting } from "./webext";


/** Room left in the body for the fields besides the text and for the JSON around them. */
const BODY_MARGIN = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** cutUtf8 is the longest beginning of `text` of at most `limit` bytes of UTF-8, cut between characters. */
export function cutUtf8(text: string, limit: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a text this short is within the limit.
  if (text.length * 3 <= limit) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= limit) return text;
  let end = limit;
  // Back off continuation bytes (10xxxxxx) to the start of the character the limit cuts.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

function cutCharacters(value: string | null | undefined, limit: number): string | null {
  if (value === null || value === undefined) return null;
  return value.length <= limit ? value : Array.from(value).slice(0, limit).join("");
}

/**
 * fitContent makes a read page acceptable to the server whatever the page held: title, excerpt
 * and byline cut to their lengths, a language that is not a tag left out, and the text cut to
 * 1 MiB of UTF-8 (what the server keeps), then further if its JSON escapes would take the body
 * over the server's 2 MiB.
 */
export function fitContent(content: ContentBody): ContentBody {
  const lang = content.lang && content.lang.length <= CONTENT_LIMITS.lang && LANGUAGE_TAG.test(content.lang) ? content.lang : null;
  let text = cutUtf8(content.text.toWellFormed(), CONTENT_LIMITS.textBytes);
  const room = CONTENT_LIMITS.bodyBytes - BODY_MARGIN;
  for (let size = encoder.encode(JSON.stringify(text)).length; size > room; size = encoder.encode(JSON.stringify(text)).length) {
    // Each byte of text cut removes at least one byte of its JSON.
    text = cutUtf8(text, encoder.encode(text).length - (size - room));
  }
  return {
    text,
    title: cutCharacters(content.title, CONTENT_LIMITS.title),
    excerpt: cutCharacters(content.excerpt, CONTENT_LIMITS.excerpt),
    byline: cutCharacters(content.byline, CONTENT_LIMITS.byline),
    lang,
  };
}

/** isContent checks what came back from the page before it is sent anywhere. */
function isContent(value: unknown): value is ContentBody {
  if (typeof value !== "object" || value === null) return false;
  const body = value as Record<string, unknown>;
  const optional = (key: string) => body[key] === undefined || body[key] === null || typeof body[key] === "string";
  return typeof body.text === "string" && ["title", "excerpt", "byline", "lang"].every(optional);
}

/**
 * readTab reads the page in tab `tabId`, or null when the browser does not let extensions script
 * it (its own pages, the extension stores, PDFs and other viewers, `about:` pages, a page that
 * failed) or it holds no text (an empty text would replace what the server fetched with nothing).
 */
export async function readTab(scripting: Scripting, tabId: number): Promise<ContentBody | null> {
  try {
    await scripting.executeScript({ target: { tabId }, files: ["capture.js"] });
    const [frame] = await scripting.executeScript({
      target: { tabId },
      // Runs in the page's isolated world, where capture.js defined the reader; it sees only its arguments.
      func: (name: string) => (globalThis as unknown as Record<string, () => unknown>)[name]!(),
      args: [READ_PAGE_FUNCTION],
    });
    return isContent(frame?.result) && frame.result.text.trim() !== "" ? frame.result : null;
  } catch {
    return null;
  }
}

export interface CaptureDeps {
  scripting: Scripting;
  client: Client;
  tabId: number;
  linkId: number;
}

/**
 * captureTab sends the readable text of tab `tabId` as link `linkId`'s content: "saved", or
 * "unreadable" when the page cannot be read (nothing is sent). The server's refusals (a revoked
 * token, a rate limit) are thrown as the client's ApiError.
 */
export async function captureTab({ scripting, client, tabId, linkId }: CaptureDeps): Promise<"saved" | "unreadable"> {
  const content = await readTab(scripting, tabId);
  if (content === null) return "unreadable";
  await client.saveContent(linkId, fitContent(content));
  return "saved";
}

/** Why a copy was not kept: the browser does not let extensions script the tab, or the page is too large. */
export type CopyProblem = "unreadable" | "too-large";

/**
 * copyTab makes the page in tab `tabId` into one self-contained HTML file (src/snapshot.ts, run
 * in the tab's isolated world by capture.js), or says why it cannot: a page the browser does not
 * let extensions script, or one larger than COPY_LIMITS with its images inlined.
 */
export async function copyTab(scripting: Scripting, tabId: number): Promise<string | CopyProblem> {
  let html: unknown;
  try {
    await scripting.executeScript({ target: { tabId }, files: ["capture.js"] });
    const [frame] = await scripting.executeScript({
      target: { tabId },
      func: (name: string) => (globalThis as unknown as Record<string, () => Promise<string>>)[name]!(),
      args: [KEEP_COPY_FUNCTION],
    });
    html = frame?.result;
  } catch {
    return "unreadable";
  }
  if (typeof html !== "string" || html === "") return "unreadable";
  return encoder.encode(html).length > COPY_LIMITS.bytes ? "too-large" : html;
}

/**
 * keepCopy sends the copy of tab `tabId` as link `linkId`'s page copy: when it was kept, or why
 * it was not. The server's refusals (its quota, a revoked token) are thrown as the client's ApiError.
 */
export async function keepCopy({ scripting, client, tabId, linkId }: CaptureDeps): Promise<{ savedAt: string } | CopyProblem> {
  const html = await copyTab(scripting, tabId);
  if (html === "unreadable" || html === "too-large") return html;
  const { copy } = await client.saveCopy(linkId, html);
  return { savedAt: copy.savedAt };
}
